// The optimized ATen kernels against the portable ones on the same inputs (tolerance 1e-4
// relative to the magnitude of the result: both accumulate in fp32, in different orders), and
// their fallbacks.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <random>
#include <vector>

#include "kernels/optimized/gemm.h"
#include "kernels/optimized/ops/ops.h"
#include "kernels/optimized/ops/register.h"
#include "kernels/portable/functions.h"
#include "kernels/test/test_util.h"
#include "runtime/core/memory_allocator.h"

namespace ptec::kernels::test {
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RefTest);  // test_util.cpp's reference-case suite
}  // namespace ptec::kernels::test

namespace ptec::kernels::optimized {
namespace {

using test::OwnedTensor;

std::vector<float> random_vector(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

size_t numel(const std::vector<runtime::SizesType>& sizes) {
  size_t n = 1;
  for (auto s : sizes) n *= static_cast<size_t>(s);
  return n;
}

class OptimizedOps : public ::testing::Test {
 protected:
  Tensor& random(const std::vector<runtime::SizesType>& sizes, uint32_t seed) {
    return test::make_tensor(pool_, DType::Float, sizes, random_vector(numel(sizes), seed))
        ->tensor();
  }
  Tensor& zeros(const std::vector<runtime::SizesType>& sizes) {
    return test::make_zeros(pool_, DType::Float, sizes);
  }
  static void expect_close(const Tensor& a, const Tensor& b) {
    ASSERT_EQ(a.numel(), b.numel());
    const float* x = a.const_data_ptr<float>();
    const float* y = b.const_data_ptr<float>();
    for (size_t i = 0; i < a.numel(); ++i) {
      ASSERT_NEAR(x[i], y[i], 1e-4 * std::max(1.0f, std::fabs(y[i]))) << "at " << i;
    }
  }
  runtime::KernelRuntimeContext context() {
    arena_.reset();
    return runtime::KernelRuntimeContext(&arena_);
  }

  std::deque<OwnedTensor> pool_;
  std::vector<uint8_t> arena_bytes_ = std::vector<uint8_t>(size_t{64} << 20);
  runtime::MemoryAllocator arena_{arena_bytes_.data(), arena_bytes_.size()};
};

TEST_F(OptimizedOps, ConvolutionMatchesPortable) {
  struct Case {
    std::vector<runtime::SizesType> in, w;
    std::vector<int64_t> stride, pad, dil;
    int64_t groups;
    bool bias;
    bool transposed = false;
    std::vector<int64_t> out_pad = {};
  };
  const Case cases[] = {
      {{1, 3, 12, 12}, {8, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},
      {{2, 6, 9, 7}, {4, 3, 3, 1}, {2, 1}, {1, 0}, {1, 1}, 2, false},   // groups, batch 2
      {{1, 8, 10, 10}, {8, 1, 3, 3}, {1, 1}, {2, 2}, {2, 2}, 8, true},  // depthwise, dilated
      {{1, 5, 7, 7}, {9, 5, 1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true},    // pointwise
      {{1, 2, 3, 3}, {3, 2, 2, 2}, {1, 1}, {3, 3}, {1, 1}, 1, false},   // padding > kernel
      // 3-D (video): a stem-like strided kernel, batch 2 with groups, depthwise with a temporal
      // dilation, and output frames whose taps all fall in the temporal padding (bias only).
      {{1, 3, 5, 10, 9}, {6, 3, 3, 5, 5}, {1, 2, 2}, {1, 2, 2}, {1, 1, 1}, 1, true},
      {{2, 4, 4, 6, 6}, {6, 2, 2, 3, 3}, {2, 1, 1}, {1, 1, 1}, {1, 1, 1}, 2, false},
      {{1, 5, 6, 5, 5}, {5, 1, 3, 3, 3}, {1, 1, 1}, {2, 1, 1}, {2, 1, 1}, 5, true},
      {{1, 2, 1, 4, 4}, {3, 2, 2, 1, 1}, {1, 1, 1}, {3, 0, 0}, {3, 1, 1}, 1, true},
      // (2+1)-D blocks: temporal (3, 1, 1) kernels as one 2-D convolution over [T, H * W]
      // (strided, with groups, depthwise), and single-tap kernels as one over all the frames:
      // (1, 3, 3) with plain weights read in place (40 channels, 2 frames of 16 pixels), strided,
      // frames in the temporal padding before and after the clip, a strided 1 x 1 x 1
      // projection.
      {{2, 6, 5, 3, 4}, {8, 3, 3, 1, 1}, {2, 1, 1}, {1, 0, 0}, {1, 1, 1}, 2, true},
      {{1, 4, 6, 2, 3}, {4, 1, 3, 1, 1}, {1, 1, 1}, {1, 0, 0}, {1, 1, 1}, 4, false},
      {{1, 16, 2, 4, 4}, {40, 16, 1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}, 1, true},
      {{1, 3, 4, 9, 9}, {8, 3, 1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}, 1, true},
      {{1, 4, 2, 5, 5}, {6, 4, 1, 3, 3}, {2, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1, false},
      {{1, 3, 2, 4, 4}, {5, 3, 1, 3, 3}, {1, 1, 1}, {2, 1, 1}, {1, 1, 1}, 1, true},
      {{2, 4, 4, 6, 6}, {8, 4, 1, 1, 1}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, 1, false},
      // 1-D (audio): strided and grouped, dilated with padding.
      {{2, 6, 17}, {8, 3, 5}, {2}, {2}, {1}, 2, true},
      {{1, 4, 9}, {5, 4, 3}, {1}, {3}, {2}, 1, false},
      // Transposed (decoders, generators): DCGAN's 4x4 stride 2, output padding with groups,
      // dilated, 1x1 input to 4x4, and 1-D.
      {{1, 6, 5, 4}, {6, 4, 4, 4}, {2, 2}, {1, 1}, {1, 1}, 1, true, true, {0, 0}},
      {{2, 4, 3, 5}, {4, 3, 3, 3}, {2, 3}, {1, 0}, {1, 1}, 2, false, true, {1, 2}},
      {{1, 3, 4, 4}, {3, 2, 3, 2}, {1, 1}, {2, 1}, {2, 3}, 1, true, true, {0, 0}},
      {{1, 8, 1, 1}, {8, 5, 4, 4}, {1, 1}, {0, 0}, {1, 1}, 1, true, true, {0, 0}},
      {{2, 4, 7}, {4, 3, 4}, {2}, {1}, {1}, 1, true, true, {1}},
  };
  auto out_channels_of = [](const Case& c) {
    return c.transposed ? static_cast<runtime::SizesType>(c.w[1] * c.groups) : c.w[0];
  };
  for (const Case& c : cases) {
    Tensor& in = random(c.in, 1);
    Tensor& w = random(c.w, 2);
    std::optional<Tensor> bias;
    if (c.bias) bias = random({out_channels_of(c)}, 3);
    const size_t spatial = c.in.size() - 2;
    const std::vector<int64_t> out_pad =
        c.transposed ? c.out_pad : std::vector<int64_t>(spatial, 0);
    std::vector<runtime::SizesType> out_sizes = {
        c.in[0], c.transposed ? static_cast<runtime::SizesType>(c.w[1] * c.groups) : c.w[0]};
    for (size_t d = 0; d < spatial; ++d) {
      const int64_t extent = c.dil[d] * (c.w[2 + d] - 1);
      out_sizes.push_back(static_cast<runtime::SizesType>(
          c.transposed ? (c.in[2 + d] - 1) * c.stride[d] - 2 * c.pad[d] + extent + out_pad[d] + 1
                       : (c.in[2 + d] + 2 * c.pad[d] - extent - 1) / c.stride[d] + 1));
    }
    auto run = [&](bool optimized) -> Tensor& {
      Tensor& out = zeros(out_sizes);
      auto ctx = context();
      if (optimized) {
        convolution_out(ctx, in, w, bias, c.stride, c.pad, c.dil, c.transposed, out_pad, c.groups,
                        out);
        // These paths take scratch, the portable ones none; a depthwise temporal kernel (one 2-D
        // depthwise convolution over [T, H * W]) reads and writes in place.
        const bool depthwise_temporal =
            spatial == 3 && c.groups == c.in[1] && c.groups > 1 && c.w[3] == 1 && c.w[4] == 1;
        if ((spatial == 3 && !depthwise_temporal) || c.transposed) {
          EXPECT_GT(arena_.used(), 0u) << "fell back to the portable kernel";
        }
      } else {
        kernels::convolution_out(ctx, in, w, bias, c.stride, c.pad, c.dil, c.transposed, out_pad,
                                 c.groups, out);
      }
      EXPECT_EQ(ctx.failure_state(), Error::Ok);
      return out;
    };
    Tensor& fast = run(true);
    Tensor& ref = run(false);
    ASSERT_EQ(fast.dim(), out_sizes.size());
    for (size_t d = 0; d < out_sizes.size(); ++d) ASSERT_EQ(fast.size(d), ref.size(d));
    expect_close(fast, ref);
  }
}

TEST_F(OptimizedOps, MatrixProductsMatchPortable) {
  bool expect_fast = true;
  auto check = [&](const std::vector<runtime::SizesType>& out_sizes, auto&& fast_fn,
                   auto&& ref_fn) {
    Tensor& fast = zeros(out_sizes);
    Tensor& ref = zeros(out_sizes);
    auto ctx = context();
    fast_fn(ctx, fast);
    ASSERT_EQ(ctx.failure_state(), Error::Ok);
    EXPECT_EQ(arena_.used() > 0, expect_fast) << "optimized path taken: " << arena_.used();
    ref_fn(ctx, ref);
    ASSERT_EQ(ctx.failure_state(), Error::Ok);
    expect_close(fast, ref);
  };
  Tensor& a = random({13, 37}, 1);
  Tensor& b = random({37, 21}, 2);
  check(
      {13, 21}, [&](auto& ctx, Tensor& o) { mm_out(ctx, a, b, o); },
      [&](auto& ctx, Tensor& o) { kernels::mm_out(ctx, a, b, o); });
  Tensor& ba = random({3, 5, 17}, 3);
  Tensor& bb = random({3, 17, 9}, 4);
  check(
      {3, 5, 9}, [&](auto& ctx, Tensor& o) { bmm_out(ctx, ba, bb, o); },
      [&](auto& ctx, Tensor& o) { kernels::bmm_out(ctx, ba, bb, o); });
  const runtime::Scalar one(1.0), half(0.5);
  for (const std::vector<runtime::SizesType>& self_sizes :
       {std::vector<runtime::SizesType>{21}, {1, 21}, {13, 21}, {13, 1}}) {
    Tensor& self = random(self_sizes, 5);
    expect_fast = self_sizes.size() == 1 || self_sizes[1] == 21;  // a column falls back
    check(
        {13, 21}, [&](auto& ctx, Tensor& o) { addmm_out(ctx, self, a, b, one, one, o); },
        [&](auto& ctx, Tensor& o) { kernels::addmm_out(ctx, self, a, b, one, one, o); });
    expect_fast = false;  // beta != 1 falls back
    check(
        {13, 21}, [&](auto& ctx, Tensor& o) { addmm_out(ctx, self, a, b, half, one, o); },
        [&](auto& ctx, Tensor& o) { kernels::addmm_out(ctx, self, a, b, half, one, o); });
  }
}

// The optimized resizes reuse rows and taps but compute every output with the portable kernels'
// expression: bitwise the same results.
TEST_F(OptimizedOps, UpsamplingMatchesPortableExactly) {
  struct Case {
    std::vector<runtime::SizesType> input;
    std::vector<int64_t> size;   // output size, or empty
    std::vector<double> scales;  // scale factors, or empty
    bool align_corners;
    std::vector<runtime::SizesType> out;
  };
  const std::vector<Case> cases = {
      {{1, 3, 14, 14}, {224, 224}, {}, false, {1, 3, 224, 224}},  // a segmentation head's 16x
      {{2, 5, 1, 1}, {7, 9}, {}, false, {2, 5, 7, 9}},            // a pooled branch back to the map
      {{1, 2, 5, 6}, {13, 11}, {}, true, {1, 2, 13, 11}},
      {{1, 2, 13, 11}, {5, 6}, {}, false, {1, 2, 5, 6}},
      {{1, 3, 4, 7}, {}, {2.5, 1.5}, false, {1, 3, 10, 10}},
      {{2, 1, 6, 6}, {12, 12}, {}, true, {2, 1, 12, 12}},
      {{1, 1, 3, 1}, {}, {2.0, 3.0}, true, {1, 1, 6, 3}},
  };
  for (const Case& c : cases) {
    Tensor& in = random(c.input, 7);
    const OptIntList size =
        c.size.empty() ? OptIntList{} : OptIntList{Span<const int64_t>(c.size.data(), 2)};
    const std::optional<Span<const double>> scales =
        c.scales.empty()
            ? std::nullopt
            : std::optional<Span<const double>>(Span<const double>(c.scales.data(), 2));
    for (const bool bilinear : {true, false}) {
      if (!bilinear && c.align_corners) continue;
      Tensor& fast = zeros(c.out);
      Tensor& ref = zeros(c.out);
      auto ctx = context();
      if (bilinear) {
        upsample_bilinear2d_vec_out(ctx, in, size, c.align_corners, scales, fast);
        kernels::upsample_bilinear2d_vec_out(ctx, in, size, c.align_corners, scales, ref);
      } else {
        upsample_nearest2d_vec_out(ctx, in, size, scales, fast);
        kernels::upsample_nearest2d_vec_out(ctx, in, size, scales, ref);
      }
      ASSERT_EQ(ctx.failure_state(), Error::Ok);
      ASSERT_EQ(fast.numel(), ref.numel());
      ASSERT_GT(ref.numel(), 0u);
      for (size_t i = 0; i < ref.numel(); ++i) {
        ASSERT_EQ(fast.const_data_ptr<float>()[i], ref.const_data_ptr<float>()[i])
            << (bilinear ? "bilinear " : "nearest ") << ::testing::PrintToString(c.input) << " at "
            << i;
      }
    }
  }
}

// Group norm (float lane sums) against the portable kernel (double accumulation): the
// normalized values, the means and 1/sqrt(var + eps), with and without the affine, as group
// norm, instance norm (one channel a group) and on a rank-3 input; lengths off the 16 lanes.
TEST_F(OptimizedOps, GroupNormMatchesPortable) {
  struct Case {
    std::vector<runtime::SizesType> in;
    int64_t group;
    bool affine;
  };
  for (const Case& c : {Case{{2, 6, 5, 7}, 3, true}, Case{{1, 32, 8, 8}, 32, false},
                        Case{{3, 4, 10}, 2, true}, Case{{1, 8, 1, 1}, 4, false}}) {
    Tensor& in = random(c.in, 11);
    const int64_t n = c.in[0], ch = c.in[1];
    const int64_t hxw = static_cast<int64_t>(in.numel()) / (n * ch);
    std::optional<Tensor> w, b;
    if (c.affine) {
      w = random({static_cast<runtime::SizesType>(ch)}, 12);
      b = random({static_cast<runtime::SizesType>(ch)}, 13);
    }
    const std::vector<runtime::SizesType> stat = {c.in[0],
                                                  static_cast<runtime::SizesType>(c.group)};
    Tensor& y = zeros(c.in);
    Tensor& mean = zeros(stat);
    Tensor& rstd = zeros(stat);
    Tensor& y_ref = zeros(c.in);
    Tensor& mean_ref = zeros(stat);
    Tensor& rstd_ref = zeros(stat);
    auto ctx = context();
    native_group_norm_out(ctx, in, w, b, n, ch, hxw, c.group, 1e-5, y, mean, rstd);
    kernels::native_group_norm_out(ctx, in, w, b, n, ch, hxw, c.group, 1e-5, y_ref, mean_ref,
                                   rstd_ref);
    ASSERT_EQ(ctx.failure_state(), Error::Ok);
    expect_close(y, y_ref);
    expect_close(mean, mean_ref);
    expect_close(rstd, rstd_ref);
  }
}

TEST_F(OptimizedOps, SoftmaxMatchesPortableAlongEveryDim) {
  // Last dim (the vectorized rows, serial and spread over the threads), other dims (the
  // portable kernel), one element per row, and a row of -infinity with a large value beside it.
  const std::vector<std::vector<runtime::SizesType>> shapes = {{3, 7}, {2, 4, 33}, {1, 1},
                                                               {5, 1}, {600, 513}, {4, 6, 5}};
  for (const auto& sizes : shapes) {
    const int64_t rank = static_cast<int64_t>(sizes.size());
    for (int64_t dim : {int64_t{-1}, int64_t{0}, rank - 2}) {
      SCOPED_TRACE(::testing::Message()
                   << "rank " << rank << " dim " << dim << " numel " << numel(sizes));
      Tensor& x = random(sizes, 3);
      x.mutable_data_ptr<float>()[0] = -INFINITY;
      x.mutable_data_ptr<float>()[numel(sizes) - 1] = 80.0f;
      Tensor& got = zeros(sizes);
      Tensor& want = zeros(sizes);
      auto ctx = context();
      softmax_out(ctx, x, dim, false, got);
      kernels::softmax_out(ctx, x, dim, false, want);
      ASSERT_EQ(ctx.failure_state(), Error::Ok);
      // A row of only -infinity is NaN in both (ATen's as well).
      for (size_t i = 0; i < numel(sizes); ++i) {
        const float g = got.const_data_ptr<float>()[i], w = want.const_data_ptr<float>()[i];
        if (std::isnan(w)) {
          EXPECT_TRUE(std::isnan(g)) << "at " << i;
        } else {
          ASSERT_NEAR(g, w, 1e-6 + 1e-5 * std::fabs(w)) << "at " << i;
        }
      }
    }
  }
}

TEST_F(OptimizedOps, SoftmaxErrorsAreThePortableKernelsErrors) {
  Tensor& x = random({2, 3}, 1);
  Tensor& out = zeros({2, 3});
  test::LogCapture log;
  auto ctx = context();
  softmax_out(ctx, x, 2, false, out);  // no dim 2
  EXPECT_EQ(ctx.failure_state(), Error::InvalidArgument);
  EXPECT_NE(log.text().find("_softmax.out"), std::string::npos) << log.text();
}

TEST_F(OptimizedOps, MeanMatchesPortable) {
  // The last dim (the vectorized rows, serial and over the threads), with and without keepdim,
  // -1 or its index; other dims and several dims fall back.
  const std::vector<std::vector<runtime::SizesType>> shapes = {
      {3, 7}, {2, 4, 33}, {1, 1}, {5}, {700, 500}};
  for (const auto& sizes : shapes) {
    const int64_t rank = static_cast<int64_t>(sizes.size());
    for (const std::vector<int64_t>& dims :
         {std::vector<int64_t>{-1}, std::vector<int64_t>{rank - 1}, std::vector<int64_t>{0},
          std::vector<int64_t>{0, rank - 1}}) {
      if (dims.size() == 2 && rank == 1) continue;  // {0, 0}: a repeated dim
      for (bool keepdim : {true, false}) {
        SCOPED_TRACE(::testing::Message() << "rank " << rank << " dims[0] " << dims[0] << " of "
                                          << dims.size() << " keepdim " << keepdim);
        Tensor& x = random(sizes, 5);
        std::vector<runtime::SizesType> out_sizes;
        for (int64_t d = 0; d < rank; ++d) {
          const bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end() ||
                               (d == rank - 1 && dims[0] == -1);
          if (!reduced) out_sizes.push_back(sizes[static_cast<size_t>(d)]);
          if (reduced && keepdim) out_sizes.push_back(1);
        }
        Tensor& got = zeros(out_sizes);
        Tensor& want = zeros(out_sizes);
        auto ctx = context();
        const Span<const int64_t> dim_span(dims.data(), dims.size());
        mean_out(ctx, x, dim_span, keepdim, std::nullopt, got);
        kernels::mean_out(ctx, x, dim_span, keepdim, std::nullopt, want);
        ASSERT_EQ(ctx.failure_state(), Error::Ok);
        ASSERT_EQ(got.dim(), want.dim());
        expect_close(got, want);
      }
    }
  }
}

TEST_F(OptimizedOps, PowMatchesPortable) {
  // The exponents with a fast path (2, 3, 0.5, -1, as ints or doubles) and one without (1.5);
  // negative bases give NaN for 0.5 and 1.5 in both, a zero gives infinity for -1.
  for (const Scalar e : {Scalar(int64_t{2}), Scalar(2.0), Scalar(int64_t{3}), Scalar(0.5),
                         Scalar(-1.0), Scalar(int64_t{-1}), Scalar(1.5)}) {
    SCOPED_TRACE(::testing::Message() << "exponent " << e.to_double());
    Tensor& x = random({3, 41}, 7);
    x.mutable_data_ptr<float>()[0] = 0.0f;
    Tensor& got = zeros({3, 41});
    Tensor& want = zeros({3, 41});
    auto ctx = context();
    pow_tensor_scalar_out(ctx, x, e, got);
    kernels::pow_tensor_scalar_out(ctx, x, e, want);
    ASSERT_EQ(ctx.failure_state(), Error::Ok);
    for (size_t i = 0; i < got.numel(); ++i) {
      const float g = got.const_data_ptr<float>()[i], w = want.const_data_ptr<float>()[i];
      if (std::isnan(w) || std::isinf(w)) {
        EXPECT_EQ(std::isnan(g), std::isnan(w)) << "at " << i;
        if (std::isinf(w)) {
          EXPECT_EQ(g, w) << "at " << i;
        }
      } else {
        ASSERT_NEAR(g, w, 1e-6f * std::max(1.0f, std::fabs(w))) << "at " << i;
      }
    }
  }
}

TEST_F(OptimizedOps, ErfIsWithinItsApproximationOfStdErf) {
  // Each ISA's loop (the generic one is std::erf), over the threads' chunks and a tail, with
  // infinities, NaN, zeros and tiny values; double inputs fall back to the portable kernel.
  const std::vector<runtime::SizesType> sizes = {3, 100003};
  std::vector<float> v(numel(sizes));
  for (size_t i = 0; i < v.size(); ++i) v[i] = -7.0f + 14.0f * static_cast<float>(i) / v.size();
  const float specials[] = {0.0f, -0.0f, 1e-30f, -1e-8f, INFINITY, -INFINITY, NAN, 9.5f, -30.0f};
  std::copy(std::begin(specials), std::end(specials), v.begin());
  Tensor& x = test::make_tensor(pool_, DType::Float, sizes, v)->tensor();
  const GemmIsa detected = detected_gemm_isa();
  for (GemmIsa isa : {GemmIsa::Generic, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (!set_gemm_isa(isa)) continue;
    SCOPED_TRACE(to_string(isa));
    Tensor& got = zeros(sizes);
    auto ctx = context();
    erf_out(ctx, x, got);
    ASSERT_EQ(ctx.failure_state(), Error::Ok);
    for (size_t i = 0; i < v.size(); ++i) {
      const float g = got.const_data_ptr<float>()[i], want = std::erf(v[i]);
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(g)) << "at " << i;
      } else {
        // Relative below |x| = 0.5 (a series), absolute above (Abramowitz and Stegun).
        const float tolerance = std::fabs(v[i]) < 0.5f ? 4e-7f * std::fabs(want) : 5e-7f;
        ASSERT_NEAR(g, want, tolerance) << "at " << i << " x " << v[i];
        ASSERT_EQ(std::signbit(g), std::signbit(want)) << "at " << i << " x " << v[i];
      }
    }
  }
  ASSERT_TRUE(set_gemm_isa(detected));
  Tensor& xd =
      test::make_tensor(pool_, DType::Double, {2}, std::vector<double>{0.5, -2.0})->tensor();
  Tensor& yd = test::make_zeros(pool_, DType::Double, {2});
  auto ctx = context();
  erf_out(ctx, xd, yd);
  ASSERT_EQ(ctx.failure_state(), Error::Ok);
  EXPECT_EQ(yd.const_data_ptr<double>()[0], std::erf(0.5));
  EXPECT_EQ(yd.const_data_ptr<double>()[1], std::erf(-2.0));
}

TEST_F(OptimizedOps, ActivationsAreWithinTheirApproximations) {
  // sigmoid, tanh and the erf form of GELU on each ISA's loop, over the threads' chunks and a
  // tail, with infinities, NaN and zeros, against the library functions.
  const std::vector<runtime::SizesType> sizes = {2, 40001};
  std::vector<float> v(numel(sizes));
  for (size_t i = 0; i < v.size(); ++i) v[i] = -12.0f + 24.0f * static_cast<float>(i) / v.size();
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 90.0f, -90.0f};
  std::copy(std::begin(specials), std::end(specials), v.begin());
  Tensor& x = test::make_tensor(pool_, DType::Float, sizes, v)->tensor();
  struct Case {
    const char* name;
    std::function<void(KernelRuntimeContext&, Tensor&)> run;
    std::function<double(double)> want;
    std::function<double(double)> tolerance;
  };
  const std::vector<Case> cases = {
      {"sigmoid", [&](KernelRuntimeContext& c, Tensor& out) { sigmoid_out(c, x, out); },
       [](double a) { return 1.0 / (1.0 + std::exp(-a)); },
       [](double w) { return 1e-6 * std::fabs(w) + 1e-30; }},
      {"tanh", [&](KernelRuntimeContext& c, Tensor& out) { tanh_out(c, x, out); },
       [](double a) { return std::tanh(a); }, [](double) { return 2e-7; }},
      {"gelu", [&](KernelRuntimeContext& c, Tensor& out) { gelu_out(c, x, "none", out); },
       [](double a) { return 0.5 * a * (1.0 + std::erf(a / std::sqrt(2.0))); },
       [](double) { return 1e-6; }},
  };
  const GemmIsa detected = detected_gemm_isa();
  for (GemmIsa isa : {GemmIsa::Generic, GemmIsa::Avx2, GemmIsa::Avx512}) {
    if (!set_gemm_isa(isa)) continue;
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(to_string(isa)) + " " + c.name);
      Tensor& got = zeros(sizes);
      auto ctx = context();
      c.run(ctx, got);
      ASSERT_EQ(ctx.failure_state(), Error::Ok);
      for (size_t i = 0; i < v.size(); ++i) {
        const float g = got.const_data_ptr<float>()[i];
        const double want = c.want(v[i]);
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(g)) << "at " << i;
        } else if (std::isinf(want)) {
          ASSERT_EQ(g, want) << "at " << i;
        } else {
          // GELU's bound is 1e-6 x max(1, |x|).
          const double scale =
              std::string(c.name) == "gelu" ? std::max(1.0, std::fabs(double{v[i]})) : 1;
          ASSERT_NEAR(g, want, c.tolerance(want) * scale) << "at " << i << " x " << v[i];
        }
      }
    }
  }
  ASSERT_TRUE(set_gemm_isa(detected));
  // The tanh form of GELU and double inputs are the portable kernels' results, bit for bit.
  Tensor& mine = zeros(sizes);
  Tensor& portable = zeros(sizes);
  auto ctx = context();
  gelu_out(ctx, x, "tanh", mine);
  kernels::gelu_out(ctx, x, "tanh", portable);
  ASSERT_EQ(ctx.failure_state(), Error::Ok);
  for (size_t i = 0; i < v.size(); ++i) {
    const float a = mine.const_data_ptr<float>()[i], b = portable.const_data_ptr<float>()[i];
    ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << "at " << i;
  }
  Tensor& xd =
      test::make_tensor(pool_, DType::Double, {2}, std::vector<double>{0.5, -2.0})->tensor();
  Tensor& yd = test::make_zeros(pool_, DType::Double, {2});
  sigmoid_out(ctx, xd, yd);
  ASSERT_EQ(ctx.failure_state(), Error::Ok);
  EXPECT_EQ(yd.const_data_ptr<double>()[1], 1.0 / (1.0 + std::exp(2.0)));
}

TEST_F(OptimizedOps, ErrorsAreThePortableKernelsErrors) {
  Tensor& a = random({4, 5}, 1);
  Tensor& b = random({6, 3}, 2);  // inner sizes differ
  Tensor& out = zeros({4, 3});
  test::LogCapture log;
  auto ctx = context();
  mm_out(ctx, a, b, out);
  EXPECT_EQ(ctx.failure_state(), Error::InvalidArgument);
  EXPECT_NE(log.text().find("mm.out"), std::string::npos) << log.text();
}

TEST(OptimizedRegistry, ReplacesThePortableKernelsItSpecializesAndKeepsTheRest) {
  ASSERT_EQ(register_optimized_kernels(), Error::Ok);
  for (const runtime::Kernel& k : optimized_kernels()) {
    EXPECT_EQ(runtime::get_op_function(k.name), k.fn) << k.name;
  }
  EXPECT_NE(runtime::get_op_function("aten::add.out"), nullptr);
  EXPECT_EQ(register_optimized_kernels(), Error::Ok);  // idempotent
}

}  // namespace
}  // namespace ptec::kernels::optimized
