// Kernels added for the ONNX conformance runner (trigonometric, rounding, logic, clamp.Tensor,
// div with rounding, remainder/fmod, arg/amin/prod/cumsum reductions, tril/triu, flip): reference
// cases plus error paths.

#include <gtest/gtest.h>

#include "kernels/test/test_util.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(Coverage, "coverage.bin");

constexpr DType i64 = DType::Long;
constexpr DType f32 = DType::Float;

TEST(CoverageErrors, IntegerDivisionByZero) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_tensor<int64_t>(pool, i64, {2}, {4, 5})->tensor())
      .t(make_tensor<int64_t>(pool, i64, {2}, {2, 0})->tensor());
  s.str("floor").t(make_zeros(pool, i64, {2}));
  EXPECT_TRUE(fails_with(s, "aten::div.out_mode", Error::InvalidArgument,
                         "div.out_mode: integer division by zero"));
}

TEST(CoverageErrors, RemainderByZero) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, i64, {3})).i(0).t(make_zeros(pool, i64, {3}));
  EXPECT_TRUE(fails_with(s, "aten::remainder.Scalar_out", Error::InvalidArgument,
                         "remainder.Scalar_out: integer division by zero"));
}

TEST(CoverageErrors, TriuNeedsTwoDims) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {3})).i(0).t(make_zeros(pool, f32, {3}));
  EXPECT_TRUE(fails_with(s, "aten::triu.out", Error::InvalidArgument,
                         "triu.out: input must have at least 2 dims"));
}

TEST(CoverageErrors, ArgmaxOutMustBeLong) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).i(1).b(false).t(make_zeros(pool, f32, {2}));
  EXPECT_TRUE(fails_with(s, "aten::argmax.out", Error::InvalidArgument, "argmax.out"));
}

TEST(CoverageErrors, FlipRepeatedDim) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).ints({1, -1}).t(make_zeros(pool, f32, {2, 3}));
  EXPECT_TRUE(fails_with(s, "aten::flip.out", Error::InvalidArgument,
                         "flip.out: dim 1 appears more than once"));
}

TEST(CoverageErrors, ClampTensorWithoutBounds) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2})).none().none().t(make_zeros(pool, f32, {2}));
  EXPECT_TRUE(fails_with(s, "aten::clamp.Tensor_out", Error::InvalidArgument,
                         "clamp.Tensor_out: at least one of"));
}

}  // namespace
}  // namespace ptec::kernels::test
