// Reductions (sum, mean, amax, max.dim) and softmax: reference cases plus error paths.

#include <gtest/gtest.h>

#include "kernels/test/test_util.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(Reduction, "reduction.bin");

constexpr DType f32 = DType::Float;

TEST(ReductionErrors, DimOutOfRange) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).ints({2}).b(false).none();
  s.t(make_zeros(pool, f32, {2}, ShapeDynamism::DynamicBound));
  EXPECT_TRUE(fails_with(s, "aten::sum.IntList_out", Error::InvalidArgument,
                         "sum.IntList_out: dim 2 is out of range"));
}

TEST(ReductionErrors, RepeatedDim) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).ints({1, -1}).b(false).none();
  s.t(make_zeros(pool, f32, {2}, ShapeDynamism::DynamicBound));
  EXPECT_TRUE(fails_with(s, "aten::mean.out", Error::InvalidArgument, "more than once"));
}

TEST(ReductionErrors, DtypeDisagreesWithOut) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).ints({1}).b(false).i(7);
  s.t(make_zeros(pool, f32, {2}));
  EXPECT_TRUE(fails_with(s, "aten::sum.IntList_out", Error::InvalidArgument, "does not match"));
}

TEST(ReductionErrors, MeanOfIntegers) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, DType::Int, {2, 3})).ints({1}).b(false).none();
  s.t(make_zeros(pool, DType::Int, {2}));
  EXPECT_TRUE(fails_with(s, "aten::mean.out", Error::InvalidArgument, "floating point"));
}

TEST(ReductionErrors, MaxOverZeroSizeDim) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 0})).i(1).b(false);
  s.t(make_zeros(pool, f32, {2})).t(make_zeros(pool, DType::Long, {2}));
  EXPECT_TRUE(fails_with(s, "aten::max.dim_max", Error::InvalidArgument, "size 0"));
}

TEST(ReductionErrors, MaxIndicesMustBeLong) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).i(1).b(false);
  s.t(make_zeros(pool, f32, {2})).t(make_zeros(pool, DType::Int, {2}));
  EXPECT_TRUE(fails_with(s, "aten::max.dim_max", Error::InvalidArgument, "max_values"));
}

TEST(ReductionErrors, SoftmaxOfIntegers) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, DType::Long, {2, 3})).i(1).b(false).t(make_zeros(pool, DType::Long, {2, 3}));
  EXPECT_TRUE(fails_with(s, "aten::_softmax.out", Error::InvalidArgument, "not Float or Double"));
}

}  // namespace
}  // namespace ptec::kernels::test
