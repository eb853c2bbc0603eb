// Element-wise arithmetic and activations: reference cases plus error paths.

#include <gtest/gtest.h>

#include "kernels/test/test_util.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(Elementwise, "elementwise.bin");
PTEC_REF_SUITE(Activation, "activation.bin");
PTEC_REF_SUITE(Math, "math.bin");

constexpr DType f32 = DType::Float;

TEST(ElementwiseErrors, AddShapesNotBroadcastable) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).t(make_zeros(pool, f32, {4})).i(1);
  s.t(make_zeros(pool, f32, {2, 3}, ShapeDynamism::DynamicBound, 16));
  EXPECT_TRUE(fails_with(s, "aten::add.out", Error::InvalidArgument, "add.out: shapes are not"));
}

TEST(ElementwiseErrors, StaticOutOfTheWrongShape) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).t(make_zeros(pool, f32, {3}));
  s.t(make_zeros(pool, f32, {3, 2}));
  EXPECT_TRUE(fails_with(s, "aten::mul.out", Error::InvalidArgument, "mul.out: cannot resize"));
}

TEST(ElementwiseErrors, OutRankDiffers) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).t(make_zeros(pool, f32, {2, 3})).i(1);
  s.t(make_zeros(pool, f32, {6}, ShapeDynamism::DynamicBound));
  EXPECT_TRUE(fails_with(s, "aten::sub.out", Error::InvalidArgument, "sub.out: out has rank 1"));
}

TEST(ElementwiseErrors, FloatResultIntoIntegralOut) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, DType::Int, {2})).t(make_zeros(pool, DType::Int, {2}));
  s.t(make_zeros(pool, DType::Int, {2}));
  EXPECT_TRUE(fails_with(s, "aten::div.out", Error::InvalidArgument, "can't be cast"));
}

TEST(ElementwiseErrors, BoolSubtraction) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, DType::Bool, {2})).t(make_zeros(pool, DType::Bool, {2})).i(1);
  s.t(make_zeros(pool, DType::Bool, {2}));
  EXPECT_TRUE(fails_with(s, "aten::sub.out", Error::InvalidArgument, "bool"));
}

TEST(ElementwiseErrors, FloatAlphaForIntegralInputs) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, DType::Long, {2})).i(2).d(2.5);
  s.t(make_zeros(pool, DType::Long, {2}));
  EXPECT_TRUE(fails_with(s, "aten::add.Scalar_out", Error::InvalidArgument, "alpha"));
}

TEST(ElementwiseErrors, ClampWithoutBounds) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2})).none().none().t(make_zeros(pool, f32, {2}));
  EXPECT_TRUE(fails_with(s, "aten::clamp.out", Error::InvalidArgument, "at least one"));
}

TEST(ElementwiseErrors, UnsupportedDtype) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, DType::UInt16, {2})).t(make_zeros(pool, DType::UInt16, {2}));
  EXPECT_TRUE(fails_with(s, "aten::sigmoid.out", Error::InvalidArgument, "unsupported dtype"));
}

// The boxing layer: a stack of the wrong length or argument type is an invalid program.
TEST(ElementwiseErrors, BoxedArityAndTypes) {
  std::deque<OwnedTensor> pool;
  ArgStack missing_alpha;
  missing_alpha.t(make_zeros(pool, f32, {2})).t(make_zeros(pool, f32, {2}));
  missing_alpha.t(make_zeros(pool, f32, {2}));
  EXPECT_TRUE(fails_with(missing_alpha, "aten::add.out", Error::InvalidProgram, "expected 5"));
  ArgStack wrong_type;
  wrong_type.t(make_zeros(pool, f32, {2})).i(3).i(1).t(make_zeros(pool, f32, {2}));
  EXPECT_TRUE(fails_with(wrong_type, "aten::add.out", Error::InvalidProgram, "argument 1"));
}

TEST(MathErrors, GeluUnknownApproximation) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2})).str("fast").t(make_zeros(pool, f32, {2}));
  EXPECT_TRUE(fails_with(s, "aten::gelu.out", Error::InvalidArgument, "approximate"));
}

TEST(MathErrors, IntegerToNegativePower) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, DType::Int, {2})).i(-1).t(make_zeros(pool, DType::Int, {2}));
  EXPECT_TRUE(fails_with(s, "aten::pow.Tensor_Scalar_out", Error::InvalidArgument, "negative"));
}

TEST(MathErrors, CompareShapesNotBroadcastable) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).t(make_zeros(pool, f32, {2}));
  s.t(make_zeros(pool, DType::Bool, {2, 3}));
  EXPECT_TRUE(fails_with(s, "aten::lt.Tensor_out", Error::InvalidArgument, "broadcastable"));
}

}  // namespace
}  // namespace ptec::kernels::test
