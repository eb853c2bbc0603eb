// Element-wise arithmetic and activations: reference cases plus error paths.

#include <gtest/gtest.h>

#include "kernels/test/test_util.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(Elementwise, "elementwise.bin");
PTEC_REF_SUITE(Activation, "activation.bin");

}  // namespace
}  // namespace ptec::kernels::test
