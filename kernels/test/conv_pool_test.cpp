// Convolution, batch norm and pooling: reference cases plus error paths.

#include <gtest/gtest.h>

#include "kernels/test/test_util.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(ConvPool, "conv_pool.bin");
PTEC_REF_SUITE(Norm, "norm.bin");

constexpr DType f32 = DType::Float;

// convolution.out with the given input/weight shapes and int-list parameters.
ArgStack conv(std::deque<OwnedTensor>& pool, std::vector<SizesType> in, std::vector<SizesType> w,
              std::vector<int64_t> stride, std::vector<int64_t> pad, int64_t groups,
              bool transposed = false) {
  ArgStack s;
  s.t(make_zeros(pool, f32, std::move(in))).t(make_zeros(pool, f32, std::move(w))).none();
  s.ints(stride).ints(pad).ints({1}).b(transposed).ints({0}).i(groups);
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
  ArgStack bad_rank = conv(pool, {1, 1, 4, 4, 4}, {1, 1, 3, 3, 3}, {1}, {0}, 1);
  EXPECT_TRUE(fails_with(bad_rank, "aten::convolution.out", Error::InvalidArgument, "3-D"));
}

TEST(ConvPoolErrors, TransposedConvolutionIsRejected) {
  std::deque<OwnedTensor> pool;
  ArgStack s = conv(pool, {1, 1, 4, 4}, {1, 1, 3, 3}, {1}, {0}, 1, /*transposed=*/true);
  EXPECT_TRUE(fails_with(s, "aten::convolution.out", Error::NotImplemented, "transposed"));
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

}  // namespace
}  // namespace ptec::kernels::test
