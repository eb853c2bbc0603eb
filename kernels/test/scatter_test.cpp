// Scatter, advanced indexing (index.Tensor, index_put), topk, nonzero and the inverse
// hyperbolic functions: reference cases plus error paths.

#include <limits>

#include <gtest/gtest.h>

#include "kernels/test/test_util.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(Scatter, "scatter.bin");

constexpr DType f32 = DType::Float;
constexpr DType i64 = DType::Long;

Tensor& dyn(std::deque<OwnedTensor>& pool, DType dtype, std::vector<SizesType> sizes) {
  return make_zeros(pool, dtype, std::move(sizes), ShapeDynamism::DynamicBound, 256);
}

Tensor& longs(std::deque<OwnedTensor>& pool, std::vector<SizesType> sizes,
              const std::vector<int64_t>& v) {
  return make_tensor(pool, i64, std::move(sizes), v)->tensor();
}

TEST(ScatterErrors, IndexOutOfBounds) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).i(1).t(longs(pool, {1, 2}, {0, 3}));
  s.t(make_zeros(pool, f32, {2, 3})).t(dyn(pool, f32, {1, 1}));
  EXPECT_TRUE(fails_with(s, "aten::scatter.src_out", Error::InvalidArgument,
                         "index 3 is out of bounds for dimension 1 with size 3"));
  ArgStack neg;
  neg.t(make_zeros(pool, f32, {2, 3})).i(0).t(longs(pool, {1, 1}, {-1}));
  neg.t(make_zeros(pool, f32, {2, 3})).t(dyn(pool, f32, {1, 1}));
  EXPECT_TRUE(fails_with(neg, "aten::scatter_add.out", Error::InvalidArgument, "index -1"));
}

TEST(ScatterErrors, IndexMustBeInt64) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).i(0);
  s.t(make_tensor(pool, DType::Int, {1, 1}, std::vector<int32_t>{0})->tensor()).d(1.0);
  s.t(dyn(pool, f32, {1, 1}));
  EXPECT_TRUE(fails_with(s, "aten::scatter.value_out", Error::InvalidArgument,
                         "expected dtype int64 for index"));
}

TEST(ScatterErrors, ShapeAndDtypeChecks) {
  std::deque<OwnedTensor> pool;
  ArgStack rank;
  rank.t(make_zeros(pool, f32, {2, 3})).i(0).t(longs(pool, {2}, {0, 1}));
  rank.t(make_zeros(pool, f32, {2, 3})).t(dyn(pool, f32, {1, 1}));
  EXPECT_TRUE(fails_with(rank, "aten::scatter.src_out", Error::InvalidArgument,
                         "same number of dimensions as self"));
  ArgStack big;
  big.t(make_zeros(pool, f32, {2, 3})).i(0).t(longs(pool, {1, 4}, {0, 0, 0, 0}));
  big.t(make_zeros(pool, f32, {2, 4})).t(dyn(pool, f32, {1, 1}));
  EXPECT_TRUE(fails_with(big, "aten::scatter_add.out", Error::InvalidArgument,
                         "exceeds self size 3 at dim 1"));
  ArgStack small_src;
  small_src.t(make_zeros(pool, f32, {2, 3})).i(0).t(longs(pool, {2, 2}, {0, 0, 0, 0}));
  small_src.t(make_zeros(pool, f32, {1, 3})).t(dyn(pool, f32, {1, 1}));
  EXPECT_TRUE(fails_with(small_src, "aten::scatter.src_out", Error::InvalidArgument,
                         "exceeds src size 1 at dim 0"));
  ArgStack dtype;
  dtype.t(make_zeros(pool, f32, {2, 3})).i(0).t(longs(pool, {1, 1}, {0}));
  dtype.t(make_zeros(pool, DType::Double, {2, 3})).t(dyn(pool, f32, {1, 1}));
  EXPECT_TRUE(fails_with(dtype, "aten::scatter_add.out", Error::InvalidArgument,
                         "self.dtype to be equal to src.dtype"));
}

TEST(ScatterErrors, UnknownReduce) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).i(0).t(longs(pool, {1, 1}, {0}));
  s.t(make_zeros(pool, f32, {2, 3})).str("max").b(true).t(dyn(pool, f32, {1, 1}));
  EXPECT_TRUE(fails_with(s, "aten::scatter_reduce.two_out", Error::InvalidArgument,
                         "reduce argument must be either sum, prod, mean, amax or amin"));
}

TEST(IndexErrors, OutOfBoundsAndTooMany) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).opt_tensors({nullptr, &longs(pool, {2}, {1, -4})});
  s.t(dyn(pool, f32, {1, 1}));
  EXPECT_TRUE(
      fails_with(s, "aten::index.Tensor_out", Error::InvalidArgument, "index -4 is out of bounds"));
  ArgStack many;
  Tensor& i0 = longs(pool, {1}, {0});
  many.t(make_zeros(pool, f32, {2})).opt_tensors({&i0, &i0});
  many.t(dyn(pool, f32, {1}));
  EXPECT_TRUE(
      fails_with(many, "aten::index.Tensor_out", Error::InvalidArgument, "too many indices"));
  ArgStack none;
  none.t(make_zeros(pool, f32, {2})).opt_tensors({nullptr});
  none.t(dyn(pool, f32, {1}));
  EXPECT_TRUE(fails_with(none, "aten::index.Tensor_out", Error::InvalidArgument,
                         "at least one index tensor"));
}

TEST(IndexErrors, BroadcastAndMasks) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {4, 4}))
      .opt_tensors({&longs(pool, {2}, {0, 1}), &longs(pool, {3}, {0, 1, 2})});
  s.t(dyn(pool, f32, {1}));
  EXPECT_TRUE(fails_with(s, "aten::index.Tensor_out", Error::InvalidArgument,
                         "could not be broadcast together"));
  ArgStack mask;
  mask.t(make_zeros(pool, f32, {2}))
      .opt_tensors({&make_tensor(pool, DType::Bool, {2}, std::vector<uint8_t>{1, 0})->tensor()});
  mask.t(dyn(pool, f32, {1}));
  EXPECT_TRUE(fails_with(mask, "aten::index.Tensor_out", Error::NotSupported, "boolean mask"));
}

TEST(IndexPutErrors, ValuesMustBroadcastAndMatchDtype) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {4, 3})).opt_tensors({&longs(pool, {2}, {0, 1})});
  s.t(make_zeros(pool, f32, {2, 2})).b(false).t(dyn(pool, f32, {1, 1}));
  EXPECT_TRUE(fails_with(s, "aten::index_put.out", Error::InvalidArgument, "shape mismatch"));
  ArgStack dtype;
  dtype.t(make_zeros(pool, f32, {4, 3})).opt_tensors({&longs(pool, {2}, {0, 1})});
  dtype.t(make_zeros(pool, i64, {2, 3})).b(true).t(dyn(pool, f32, {1, 1}));
  EXPECT_TRUE(
      fails_with(dtype, "aten::index_put.out", Error::InvalidArgument, "must have the same dtype"));
}

// The barebones unsigned types (no torch 1.13 reference): copies only.
TEST(ScatterIndexUnsigned, CopyKernelsMoveTheBytesAccumulateIsRefused) {
  ensure_kernels_registered();  // ctest runs each test in its own process
  std::deque<OwnedTensor> pool;
  Tensor& self =
      make_tensor(pool, DType::UInt16, {2, 3}, std::vector<uint16_t>{1, 2, 3, 4, 5, 6})->tensor();
  Tensor& src =
      make_tensor(pool, DType::UInt16, {1, 2}, std::vector<uint16_t>{65535, 40000})->tensor();
  ArgStack s;
  Tensor& out = dyn(pool, DType::UInt16, {1, 1});
  s.t(self).i(1).t(longs(pool, {1, 2}, {2, 0})).t(src).t(out);
  ASSERT_EQ(s.call_out("aten::scatter.src_out"), Error::Ok);
  EXPECT_EQ(
      std::vector<uint16_t>(out.const_data_ptr<uint16_t>(), out.const_data_ptr<uint16_t>() + 6),
      (std::vector<uint16_t>{40000, 2, 65535, 4, 5, 6}));

  Tensor& u32 = make_tensor(pool, DType::UInt32, {3}, std::vector<uint32_t>{7, 8, 9})->tensor();
  Tensor& v32 = make_tensor(pool, DType::UInt32, {1}, std::vector<uint32_t>{4000000000u})->tensor();
  ArgStack put;
  Tensor& out32 = dyn(pool, DType::UInt32, {1});
  put.t(u32).opt_tensors({&longs(pool, {2}, {-1, 0})}).t(v32).b(false).t(out32);
  ASSERT_EQ(put.call_out("aten::index_put.out"), Error::Ok);
  EXPECT_EQ(
      std::vector<uint32_t>(out32.const_data_ptr<uint32_t>(), out32.const_data_ptr<uint32_t>() + 3),
      (std::vector<uint32_t>{4000000000u, 8, 4000000000u}));
  ArgStack acc;
  acc.t(u32).opt_tensors({&longs(pool, {1}, {0})}).t(v32).b(true).t(dyn(pool, DType::UInt32, {1}));
  EXPECT_TRUE(fails_with(acc, "aten::index_put.out", Error::InvalidArgument,
                         "unsupported dtype u32 with accumulate=True"));
}

TEST(TopkErrors, KOutOfRangeAndIndicesDtype) {
  ensure_kernels_registered();
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).i(4).i(-1).b(true).b(true);
  s.t(dyn(pool, f32, {1, 1})).t(dyn(pool, i64, {1, 1}));
  EXPECT_TRUE(s.call("aten::topk.values", -1, {5, 6}) == Error::InvalidArgument);
  ArgStack idx;
  idx.t(make_zeros(pool, f32, {2, 3})).i(2).i(-1).b(true).b(true);
  idx.t(dyn(pool, f32, {1, 1})).t(dyn(pool, DType::Int, {1, 1}));
  LogCapture log;
  EXPECT_EQ(idx.call("aten::topk.values", -1, {5, 6}), Error::InvalidArgument);
  EXPECT_NE(log.text().find("indices"), std::string::npos) << log.text();
}

// nonzero.out: row-major coordinates of the nonzero elements; NaN and -0.0 follow x != 0 (NaN
// counts, -0.0 does not); out is resized to [count, rank].
TEST(Nonzero, CoordinatesInRowMajorOrder) {
  ensure_kernels_registered();
  std::deque<OwnedTensor> pool;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor& x =
      make_tensor(pool, f32, {2, 1, 3}, std::vector<float>{0, 1.5f, -0.0f, nan, 0, -2})->tensor();
  Tensor& out = dyn(pool, i64, {6, 3});
  ArgStack s;
  s.t(x).t(out);
  ASSERT_EQ(s.call_out("aten::nonzero.out"), Error::Ok);
  ASSERT_EQ(out.dim(), 2u);
  EXPECT_EQ(out.size(0), 3);
  EXPECT_EQ(out.size(1), 3);
  EXPECT_EQ(std::vector<int64_t>(out.const_data_ptr<int64_t>(), out.const_data_ptr<int64_t>() + 9),
            (std::vector<int64_t>{0, 0, 1, 1, 0, 0, 1, 0, 2}));
}

TEST(Nonzero, BoolAndEmptyResults) {
  ensure_kernels_registered();
  std::deque<OwnedTensor> pool;
  Tensor& b = make_tensor(pool, DType::Bool, {4}, std::vector<uint8_t>{1, 0, 0, 1})->tensor();
  Tensor& out = dyn(pool, i64, {4, 1});
  ArgStack s;
  s.t(b).t(out);
  ASSERT_EQ(s.call_out("aten::nonzero.out"), Error::Ok);
  EXPECT_EQ(out.size(0), 2);
  EXPECT_EQ(out.const_data_ptr<int64_t>()[1], 3);
  Tensor& zeros = make_zeros(pool, DType::Int, {2, 2});
  Tensor& none = dyn(pool, i64, {4, 2});
  ArgStack z;
  z.t(zeros).t(none);
  ASSERT_EQ(z.call_out("aten::nonzero.out"), Error::Ok);
  EXPECT_EQ(none.size(0), 0);
  EXPECT_EQ(none.size(1), 2);
}

TEST(Nonzero, OutMustBeInt64AndLargeEnough) {
  ensure_kernels_registered();
  std::deque<OwnedTensor> pool;
  Tensor& x = make_tensor(pool, f32, {3}, std::vector<float>{1, 2, 3})->tensor();
  ArgStack dtype;
  dtype.t(x).t(dyn(pool, DType::Int, {3, 1}));
  EXPECT_TRUE(fails_with(dtype, "aten::nonzero.out", Error::InvalidArgument, "out must be int64"));
  // A static out of 2 rows cannot take 3.
  ArgStack small;
  small.t(x).t(make_zeros(pool, i64, {2, 1}));
  EXPECT_EQ(small.call_out("aten::nonzero.out"), Error::InvalidArgument);
}

// ptec::non_max_suppression.out (ONNX NonMaxSuppression): per batch and class, boxes by
// descending score, ties by lower index, a box dropped when its IoU with a kept one is above the
// threshold; rows [batch, class, box].
std::vector<int64_t> nms(std::deque<OwnedTensor>& pool, Tensor& boxes, Tensor& scores,
                         int64_t max_boxes, double iou, double score, int64_t center) {
  Tensor& out = dyn(pool, i64, {static_cast<SizesType>(scores.numel()), 3});
  ArgStack s;
  s.t(boxes).t(scores).i(max_boxes).d(iou).d(score).i(center).t(out);
  EXPECT_EQ(s.call_out("ptec::non_max_suppression.out"), Error::Ok);
  EXPECT_EQ(out.size(1), 3);
  return {out.const_data_ptr<int64_t>(), out.const_data_ptr<int64_t>() + out.numel()};
}

TEST(NonMaxSuppression, GreedyByScoreWithTiesByIndex) {
  ensure_kernels_registered();
  std::deque<OwnedTensor> pool;
  // Box 1 is box 0 with its corners swapped (IoU 1); box 2 overlaps box 0 by IoU 1/3 (one unit
  // of a 2 x 1 box against another shifted by 1: 1 / (2 + 2 - 1)); box 3 is far away.
  Tensor& boxes = make_tensor(pool, f32, {1, 4, 4},
                              std::vector<float>{0, 0, 1, 2, 1, 2, 0, 0, 0, 1, 1, 3, 5, 5, 6, 6})
                      ->tensor();
  Tensor& scores =
      make_tensor(pool, f32, {1, 1, 4}, std::vector<float>{0.9f, 0.9f, 0.8f, 0.1f})->tensor();
  // Box 0 wins the tie with box 1, which it suppresses; 1/3 is not above 0.5, so box 2 stays.
  EXPECT_EQ(nms(pool, boxes, scores, 10, 0.5, 0.0, 0),
            (std::vector<int64_t>{0, 0, 0, 0, 0, 2, 0, 0, 3}));
  // An IoU threshold of 0.3 also drops box 2; a score threshold of 0.1 drops box 3 (strictly
  // above, compared as the float32 it is in the model); at most two boxes per class.
  EXPECT_EQ(nms(pool, boxes, scores, 10, 0.3, 0.1f, 0), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(nms(pool, boxes, scores, 2, 0.5, 0.0, 0), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
  EXPECT_TRUE(nms(pool, boxes, scores, 0, 0.5, 0.0, 0).empty());
}

TEST(NonMaxSuppression, CenterBoxesAndClasses) {
  ensure_kernels_registered();
  std::deque<OwnedTensor> pool;
  // [x_center, y_center, w, h]: boxes 0 and 1 coincide, box 2 is apart.
  Tensor& boxes = make_tensor(pool, f32, {1, 3, 4},
                              std::vector<float>{0.5f, 0.5f, 1, 1, 0.5f, 0.5f, 1, 1, 3, 3, 1, 1})
                      ->tensor();
  Tensor& scores =
      make_tensor(pool, f32, {1, 2, 3}, std::vector<float>{0.2f, 0.7f, 0.5f, 0.6f, 0.1f, 0.3f})
          ->tensor();
  EXPECT_EQ(nms(pool, boxes, scores, 3, 0.5, 0.0, 1),
            (std::vector<int64_t>{0, 0, 1, 0, 0, 2, 0, 1, 0, 0, 1, 2}));
}

TEST(NonMaxSuppression, MismatchedShapesFail) {
  ensure_kernels_registered();
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {1, 3, 4})).t(make_zeros(pool, f32, {1, 2, 4}));
  s.i(3).d(0.5).d(0.0).i(0).t(dyn(pool, i64, {6, 3}));
  EXPECT_TRUE(
      fails_with(s, "ptec::non_max_suppression.out", Error::InvalidArgument, "do not match boxes"));
}

}  // namespace
}  // namespace ptec::kernels::test
