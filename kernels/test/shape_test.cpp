// Shape, copy, factory and where ops: reference cases plus error paths.

#include <gtest/gtest.h>

#include "kernels/portable/register.h"
#include "kernels/test/test_util.h"
#include "runtime/kernel/operator_registry.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(Shape, "shape.bin");
PTEC_REF_SUITE(Index, "index.bin");

constexpr DType f32 = DType::Float;

Tensor& dyn(std::deque<OwnedTensor>& pool, std::vector<SizesType> sizes) {
  return make_zeros(pool, f32, std::move(sizes), ShapeDynamism::DynamicBound, 256);
}

TEST(ShapeErrors, ViewWrongElementCount) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).ints({4, 2}).t(dyn(pool, {1, 1}));
  EXPECT_TRUE(fails_with(s, "aten::view_copy.out", Error::InvalidArgument, "8 elements"));
  ArgStack two_infer;
  two_infer.t(make_zeros(pool, f32, {2, 3})).ints({-1, -1}).t(dyn(pool, {1, 1}));
  EXPECT_TRUE(fails_with(two_infer, "aten::view_copy.out", Error::InvalidArgument, "only one"));
}

TEST(ShapeErrors, PermuteRepeatedDim) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).ints({0, 0}).t(dyn(pool, {1, 1}));
  EXPECT_TRUE(fails_with(s, "aten::permute_copy.out", Error::InvalidArgument, "repeated dim"));
}

TEST(ShapeErrors, TransposeDimOutOfRange) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).i(0).i(2).t(dyn(pool, {1, 1}));
  EXPECT_TRUE(
      fails_with(s, "aten::transpose_copy.int_out", Error::InvalidArgument, "out of range"));
}

TEST(ShapeErrors, CatSizesDiffer) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.tensors({&make_zeros(pool, f32, {2, 3}), &make_zeros(pool, f32, {3, 3})}).i(1);
  s.t(dyn(pool, {1, 1}));
  EXPECT_TRUE(fails_with(s, "aten::cat.out", Error::InvalidArgument, "sizes must match"));
}

TEST(ShapeErrors, SplitSizesDoNotAddUp) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {5, 2})).ints({2, 2}).i(0);
  s.tensors({&dyn(pool, {1, 1}), &dyn(pool, {1, 1})});
  EXPECT_TRUE(
      fails_with(s, "aten::split_with_sizes_copy.out", Error::InvalidArgument, "add up to 4"));
}

TEST(ShapeErrors, SelectIndexOutOfRange) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).i(1).i(3).t(dyn(pool, {1}));
  EXPECT_TRUE(fails_with(s, "aten::select_copy.int_out", Error::InvalidArgument, "index 3"));
}

TEST(ShapeErrors, SliceNonPositiveStep) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {4})).i(0).none().none().i(0).t(dyn(pool, {1}));
  EXPECT_TRUE(fails_with(s, "aten::slice_copy.Tensor_out", Error::InvalidArgument, "step"));
}

TEST(ShapeErrors, ExpandIncompatible) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).ints({2, 4}).b(false).t(dyn(pool, {1, 1}));
  EXPECT_TRUE(fails_with(s, "aten::expand_copy.out", Error::InvalidArgument, "cannot expand"));
}

TEST(ShapeErrors, PadToNegativeSize) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).ints({-2, -2}).d(0.0).t(dyn(pool, {1, 1}));
  EXPECT_TRUE(fails_with(s, "aten::constant_pad_nd.out", Error::InvalidArgument, "negative"));
  ArgStack odd;
  odd.t(make_zeros(pool, f32, {2, 3})).ints({1}).d(0.0).t(dyn(pool, {1, 1}));
  EXPECT_TRUE(fails_with(odd, "aten::constant_pad_nd.out", Error::InvalidArgument, "even"));
}

TEST(ShapeErrors, WhereConditionDtype) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2})).t(make_zeros(pool, f32, {2})).t(make_zeros(pool, f32, {2}));
  s.t(dyn(pool, {1}));
  EXPECT_TRUE(fails_with(s, "aten::where.self_out", Error::InvalidArgument, "condition"));
}

TEST(ShapeErrors, ToCopyDtypeDisagreesWithOut) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2})).i(static_cast<int64_t>(DType::Long)).none().none().none();
  s.b(false).none().t(make_zeros(pool, DType::Double, {2}));
  EXPECT_TRUE(fails_with(s, "aten::_to_copy.out", Error::InvalidArgument, "does not match"));
}

TEST(Registry, RegistrationIsIdempotent) {
  ensure_kernels_registered();
  EXPECT_EQ(register_portable_kernels(), Error::Ok);
  EXPECT_NE(runtime::get_op_function("aten::add.out"), nullptr);
  EXPECT_NE(runtime::get_op_function("aten::convolution.out"), nullptr);
}

TEST(IndexErrors, EmbeddingIndexOutOfRange) {
  std::deque<OwnedTensor> pool;
  std::vector<int64_t> idx = {0, 10};
  ArgStack s;
  s.t(make_zeros(pool, f32, {10, 4})).t(make_tensor(pool, DType::Long, {2}, idx)->tensor());
  s.i(-1).b(false).b(false).t(dyn(pool, {1, 1}));
  EXPECT_TRUE(fails_with(s, "aten::embedding.out", Error::InvalidArgument, "index 10"));
}

TEST(IndexErrors, IndexSelectIndexDtype) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {3, 2})).i(0).t(make_zeros(pool, f32, {2})).t(dyn(pool, {1, 1}));
  EXPECT_TRUE(fails_with(s, "aten::index_select.out", Error::InvalidArgument, "int64 or int32"));
}

TEST(IndexErrors, GatherNegativeIndex) {
  std::deque<OwnedTensor> pool;
  std::vector<int64_t> idx = {0, -1};
  ArgStack s;
  s.t(make_zeros(pool, f32, {3})).i(0).t(make_tensor(pool, DType::Long, {2}, idx)->tensor());
  s.b(false).t(dyn(pool, {1}));
  EXPECT_TRUE(fails_with(s, "aten::gather.out", Error::InvalidArgument, "out of range"));
}

TEST(IndexErrors, ArangeWrongDirection) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.i(0).i(5).i(-1).t(make_zeros(pool, DType::Long, {1}, ShapeDynamism::DynamicBound, 16));
  EXPECT_TRUE(fails_with(s, "aten::arange.start_out", Error::InvalidArgument, "step sign"));
}

}  // namespace
}  // namespace ptec::kernels::test
