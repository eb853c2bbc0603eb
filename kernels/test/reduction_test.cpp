// Reductions (sum, mean, amax, max.dim) and softmax: reference cases plus error paths.

#include <gtest/gtest.h>

#include "kernels/test/test_util.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(Reduction, "reduction.bin");

}  // namespace
}  // namespace ptec::kernels::test
