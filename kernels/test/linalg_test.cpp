// mm, bmm and addmm: reference cases plus error paths.

#include <gtest/gtest.h>

#include "kernels/test/test_util.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(Linalg, "linalg.bin");

}  // namespace
}  // namespace ptec::kernels::test
