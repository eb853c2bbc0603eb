// Convolution, batch norm and pooling: reference cases plus error paths.

#include <gtest/gtest.h>

#include "kernels/test/test_util.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(ConvPool, "conv_pool.bin");
PTEC_REF_SUITE(Norm, "norm.bin");
PTEC_REF_SUITE(ConvPoolNd, "conv_pool_nd.bin");

constexpr DType f32 = DType::Float;

// convolution.out with the given input/weight shapes and int-list parameters.
ArgStack conv(std::deque<OwnedTensor>& pool, std::vector<SizesType> in, std::vector<SizesType> w,
              std::vector<int64_t> stride, std::vector<int64_t> pad, int64_t groups,
              bool transposed = false, std::vector<int64_t> output_padding = {0}) {
  ArgStack s;
  s.t(make_zeros(pool, f32, std::move(in))).t(make_zeros(pool, f32, std::move(w))).none();
  s.ints(stride).ints(pad).ints({1}).b(transposed).ints(output_padding).i(groups);
  s.t(make_zeros(pool, f32, {1, 1, 1, 1}, ShapeDynamism::DynamicBound, 4096));
  return s;
}

TEST(ConvPoolErrors, ConvChannelMismatch) {
  std::deque<OwnedTensor> pool;
  ArgStack s = conv(pool, {1, 3, 8, 8}, {4, 2, 3, 3}, {1}, {1}, 1);
  EXPECT_TRUE(fails_with(s, "aten::convolution.out", Error::InvalidArgument, "input channels"));
}

TEST(ConvPoolErrors, ConvGroupsMustDivideChannels) {
  std::deque<OwnedTensor> pool;
  ArgStack s = conv(pool, {1, 4, 8, 8}, {3, 2, 3, 3}, {1}, {1}, 2);
  EXPECT_TRUE(fails_with(s, "aten::convolution.out", Error::InvalidArgument, "groups 2"));
}

TEST(ConvPoolErrors, ConvKernelLargerThanInput) {
  std::deque<OwnedTensor> pool;
  ArgStack s = conv(pool, {1, 1, 2, 2}, {1, 1, 5, 5}, {1}, {0}, 1);
  EXPECT_TRUE(fails_with(s, "aten::convolution.out", Error::InvalidArgument, "larger than"));
}

TEST(ConvPoolErrors, ConvBadStrideAndRank) {
  std::deque<OwnedTensor> pool;
  ArgStack zero_stride = conv(pool, {1, 1, 4, 4}, {1, 1, 3, 3}, {0}, {0}, 1);
  EXPECT_TRUE(fails_with(zero_stride, "aten::convolution.out", Error::InvalidArgument, "stride"));
  ArgStack bad_rank = conv(pool, {1, 1, 4, 4, 4, 4}, {1, 1, 3, 3, 3, 3}, {1}, {0}, 1);
  EXPECT_TRUE(fails_with(bad_rank, "aten::convolution.out", Error::InvalidArgument, "5-D"));
  ArgStack kernel_3d = conv(pool, {1, 1, 4, 4, 2}, {1, 1, 3, 3, 3}, {1}, {0}, 1);
  EXPECT_TRUE(
      fails_with(kernel_3d, "aten::convolution.out", Error::InvalidArgument, "larger than"));
}

TEST(ConvPoolErrors, TransposedConvWeightChannels) {
  std::deque<OwnedTensor> pool;
  // A transposed weight is [C_in, C_out / groups, k...]: dim 0 must match the input channels.
  ArgStack s = conv(pool, {1, 2, 4, 4}, {3, 2, 3, 3}, {1}, {0}, 1, /*transposed=*/true);
  EXPECT_TRUE(fails_with(s, "aten::convolution.out", Error::InvalidArgument,
                         "transposed weight has 3 input channels"));
  ArgStack groups = conv(pool, {1, 3, 4, 4}, {3, 2, 3, 3}, {1}, {0}, 2, /*transposed=*/true);
  EXPECT_TRUE(fails_with(groups, "aten::convolution.out", Error::InvalidArgument, "groups 2"));
}

TEST(ConvPoolErrors, TransposedConvOutputPadding) {
  std::deque<OwnedTensor> pool;
  ArgStack too_big = conv(pool, {1, 1, 4, 4}, {1, 1, 3, 3}, {2}, {0}, 1, /*transposed=*/true, {2});
  EXPECT_TRUE(fails_with(too_big, "aten::convolution.out", Error::InvalidArgument,
                         "output padding must be smaller"));
  ArgStack negative =
      conv(pool, {1, 1, 4, 4}, {1, 1, 3, 3}, {2}, {0}, 1, /*transposed=*/true, {-1});
  EXPECT_TRUE(fails_with(negative, "aten::convolution.out", Error::InvalidArgument,
                         "output_padding must be >= 0"));
  ArgStack padded_away = conv(pool, {1, 1, 1, 1}, {1, 1, 1, 1}, {1}, {1}, 1, /*transposed=*/true);
  EXPECT_TRUE(
      fails_with(padded_away, "aten::convolution.out", Error::InvalidArgument, "too small"));
}

TEST(ConvPoolErrors, Pool3dArguments) {
  std::deque<OwnedTensor> pool;
  // max_pool3d_with_indices.out: a 4-D (C, D, H, W) or 5-D input; lists of 1 or 3 values.
  ArgStack rank;
  rank.t(make_zeros(pool, f32, {1, 4, 4})).ints({2}).ints({}).ints({0}).ints({1}).b(false);
  rank.t(make_zeros(pool, f32, {1, 1, 1, 1}, ShapeDynamism::DynamicBound, 256));
  rank.t(make_zeros(pool, DType::Long, {1, 1, 1, 1}, ShapeDynamism::DynamicBound, 256));
  EXPECT_TRUE(
      fails_with(rank, "aten::max_pool3d_with_indices.out", Error::InvalidArgument, "4-D or 5-D"));
  ArgStack two;
  two.t(make_zeros(pool, f32, {1, 1, 4, 4, 4})).ints({2, 2}).ints({}).ints({0}).ints({1});
  two.b(false).t(make_zeros(pool, f32, {1, 1, 1, 1, 1}, ShapeDynamism::DynamicBound, 256));
  two.t(make_zeros(pool, DType::Long, {1, 1, 1, 1, 1}, ShapeDynamism::DynamicBound, 256));
  EXPECT_TRUE(fails_with(two, "aten::max_pool3d_with_indices.out", Error::InvalidArgument,
                         "1 or 3 values"));
  // avg_pool3d.out: padding at most half the kernel, a non-zero divisor, a big enough input.
  ArgStack pad;
  pad.t(make_zeros(pool, f32, {1, 1, 4, 4, 4})).ints({2}).ints({}).ints({0, 2, 0}).b(false);
  pad.b(true).none().t(make_zeros(pool, f32, {1, 1, 1, 1, 1}, ShapeDynamism::DynamicBound, 256));
  EXPECT_TRUE(fails_with(pad, "aten::avg_pool3d.out", Error::InvalidArgument,
                         "pad should be at most half"));
  ArgStack div;
  div.t(make_zeros(pool, f32, {1, 1, 4, 4, 4})).ints({2}).ints({}).ints({0}).b(false).b(true);
  div.i(0).t(make_zeros(pool, f32, {1, 1, 2, 2, 2}, ShapeDynamism::DynamicBound, 256));
  EXPECT_TRUE(fails_with(div, "aten::avg_pool3d.out", Error::InvalidArgument, "divisor"));
  ArgStack small;
  small.t(make_zeros(pool, f32, {1, 1, 4, 1, 4})).ints({2}).ints({}).ints({0}).b(false).b(true);
  small.none().t(make_zeros(pool, f32, {1, 1, 1, 1, 1}, ShapeDynamism::DynamicBound, 256));
  EXPECT_TRUE(fails_with(small, "aten::avg_pool3d.out", Error::InvalidArgument, "too small"));
}

TEST(ConvPoolErrors, BatchNormChannelMismatch) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3, 4})).none().none();
  s.t(make_zeros(pool, f32, {4})).t(make_zeros(pool, f32, {3})).d(0.1).d(1e-5);
  s.t(make_zeros(pool, f32, {2, 3, 4})).t(make_zeros(pool, f32, {0}));
  s.t(make_zeros(pool, f32, {0}));
  EXPECT_TRUE(fails_with(s, "aten::_native_batch_norm_legit_no_training.out",
                         Error::InvalidArgument, "running_mean must have shape [3]"));
}

TEST(ConvPoolErrors, PoolPaddingLargerThanHalfKernel) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {1, 1, 6, 6})).ints({2, 2}).ints({1, 1}).ints({2, 2}).ints({1, 1});
  s.b(false).t(make_zeros(pool, f32, {1, 1, 1, 1}, ShapeDynamism::DynamicBound, 256));
  s.t(make_zeros(pool, DType::Long, {1, 1, 1, 1}, ShapeDynamism::DynamicBound, 256));
  EXPECT_TRUE(fails_with(s, "aten::max_pool2d_with_indices.out", Error::InvalidArgument,
                         "pad should be at most half"));
}

TEST(ConvPoolErrors, PoolOutputTooSmall) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {1, 1, 2, 2})).ints({3, 3}).ints({1, 1}).ints({0, 0}).b(false);
  s.b(true).none().t(make_zeros(pool, f32, {1, 1, 1, 1}, ShapeDynamism::DynamicBound, 16));
  EXPECT_TRUE(fails_with(s, "aten::avg_pool2d.out", Error::InvalidArgument, "too small"));
}

TEST(ConvPoolErrors, AdaptivePoolNeedsTwoSizes) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {1, 1, 4, 4})).ints({2});
  s.t(make_zeros(pool, f32, {1, 1, 2, 2}, ShapeDynamism::DynamicBound, 16));
  EXPECT_TRUE(fails_with(s, "aten::_adaptive_avg_pool2d.out", Error::InvalidArgument,
                         "output_size must have 2"));
}

TEST(NormErrors, LayerNormShapeMismatch) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).ints({4}).none().none().d(1e-5);
  s.t(make_zeros(pool, f32, {2, 3})).t(make_zeros(pool, f32, {2, 1}));
  s.t(make_zeros(pool, f32, {2, 1}));
  EXPECT_TRUE(fails_with(s, "aten::native_layer_norm.out", Error::InvalidArgument,
                         "normalized_shape does not match"));
}

TEST(NormErrors, GroupNormGroupsMustDivideChannels) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {1, 6, 2})).none().none().i(1).i(6).i(2).i(4).d(1e-5);
  s.t(make_zeros(pool, f32, {1, 6, 2})).t(make_zeros(pool, f32, {1, 4}));
  s.t(make_zeros(pool, f32, {1, 4}));
  EXPECT_TRUE(fails_with(s, "aten::native_group_norm.out", Error::InvalidArgument, "divide"));
}

TEST(NormErrors, UpsampleNeedsExactlyOneSizeSpec) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {1, 1, 2, 2})).none().none();
  s.t(make_zeros(pool, f32, {1, 1, 4, 4}));
  EXPECT_TRUE(
      fails_with(s, "aten::upsample_nearest2d.vec_out", Error::InvalidArgument, "exactly one"));
}

// ptec::roi_align.out (ONNX RoiAlign) on an image whose value is its x coordinate, where a
// bilinear sample is exact: a bin's average is the mean of its samples' x (clamped to the last
// column past it).
std::vector<float> roi_align(std::deque<OwnedTensor>& pool, const std::vector<float>& roi,
                             int64_t out_h, int64_t out_w, bool aligned, bool max_mode) {
  std::vector<float> ramp(16);
  for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<float>(i % 4);
  Tensor& x = make_tensor(pool, f32, {1, 1, 4, 4}, ramp)->tensor();
  Tensor& rois = make_tensor(pool, f32, {1, 4}, roi)->tensor();
  Tensor& idx = make_tensor(pool, DType::Long, {1}, std::vector<int64_t>{0})->tensor();
  Tensor& out =
      make_zeros(pool, f32, {1, 1, static_cast<SizesType>(out_h), static_cast<SizesType>(out_w)});
  ArgStack s;
  s.t(x).t(rois).t(idx).i(out_h).i(out_w).i(2).d(1.0).b(aligned).b(max_mode).t(out);
  EXPECT_EQ(s.call_out("ptec::roi_align.out"), Error::Ok);
  return {out.const_data_ptr<float>(), out.const_data_ptr<float>() + out.numel()};
}

TEST(RoiAlign, AverageAndMaxOfBilinearSamples) {
  ensure_kernels_registered();
  std::deque<OwnedTensor> pool;
  // Bins 2 wide: samples at x 0.5, 1.5 (mean 1) and 2.5, 3.5 -> 3 (mean 2.75).
  EXPECT_EQ(roi_align(pool, {0, 0, 4, 4}, 2, 2, false, false),
            (std::vector<float>{1, 2.75f, 1, 2.75f}));
  // Half-pixel: the roi shifts by -0.5, samples at x 0, 1 and 2, 3.
  EXPECT_EQ(roi_align(pool, {0, 0, 4, 4}, 2, 2, true, false),
            (std::vector<float>{0.5f, 2.5f, 0.5f, 2.5f}));
  // One bin, samples at x 1 and 3: max mode keeps the larger weighted corner.
  EXPECT_EQ(roi_align(pool, {0, 0, 4, 4}, 1, 1, false, true), (std::vector<float>{3}));
  EXPECT_EQ(roi_align(pool, {0, 0, 4, 4}, 1, 1, false, false), (std::vector<float>{2}));
}

TEST(RoiAlign, BatchIndexOutOfRangeFails) {
  ensure_kernels_registered();
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {1, 1, 4, 4})).t(make_zeros(pool, f32, {1, 4}));
  s.t(make_tensor(pool, DType::Long, {1}, std::vector<int64_t>{3})->tensor());
  s.i(1).i(1).i(0).d(1.0).b(true).b(false).t(make_zeros(pool, f32, {1, 1, 1, 1}));
  EXPECT_TRUE(fails_with(s, "ptec::roi_align.out", Error::InvalidArgument,
                         "batch index 3 of roi 0 is out of range for 1 images"));
}

}  // namespace
}  // namespace ptec::kernels::test
