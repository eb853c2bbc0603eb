#include "kernels/optimized/max_pool2d.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/optimized/gemm.h"
#include "kernels/optimized/test/pool_shape.h"
#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

// Window by window, NaN winning.
std::vector<float> reference(const MaxPool2dShape& s, const std::vector<float>& in) {
  std::vector<float> out(static_cast<size_t>(s.planes * s.oh * s.ow));
  for (int64_t p = 0; p < s.planes; ++p) {
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        float best = -std::numeric_limits<float>::infinity();
        for (int64_t ky = 0; ky < s.kh; ++ky) {
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            const int64_t iy = oy * s.sh - s.ph + ky * s.dh, ix = ox * s.sw - s.pw + kx * s.dw;
            if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
            const float v = in[static_cast<size_t>((p * s.h + iy) * s.w + ix)];
            if (std::isnan(v) || v > best) best = v;
            if (std::isnan(best)) break;
          }
          if (std::isnan(best)) break;
        }
        out[static_cast<size_t>((p * s.oh + oy) * s.ow + ox)] = best;
      }
    }
  }
  return out;
}

std::vector<float> random_input(const MaxPool2dShape& s, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-5.0f, 5.0f);
  std::vector<float> in(static_cast<size_t>(s.planes * s.h * s.w));
  for (float& v : in) v = dist(rng);
  return in;
}

// max_pool2d(s, in) equals the reference exactly, NaN where it is NaN.
void expect_matches_reference(const MaxPool2dShape& s, const std::vector<float>& in) {
  ASSERT_TRUE(s.valid());
  std::vector<float> out(static_cast<size_t>(s.planes * s.oh * s.ow), 123.0f);
  ASSERT_TRUE(max_pool2d(s, in.data(), out.data()));
  const std::vector<float> ref = reference(s, in);
  for (size_t i = 0; i < out.size(); ++i) {
    if (std::isnan(ref[i])) {
      ASSERT_TRUE(std::isnan(out[i])) << "k" << s.kh << " s" << s.sh << " w" << s.w << " at " << i;
    } else {
      ASSERT_EQ(out[i], ref[i]) << "k" << s.kh << " s" << s.sh << " p" << s.ph << " w" << s.w
                                << " at " << i;
    }
  }
}

class MaxPool2d : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { set_num_threads(GetParam()); }
  void TearDown() override { set_num_threads(0); }
};

TEST_P(MaxPool2d, MatchesWindowByWindowReference) {
  const std::vector<MaxPool2dShape> shapes = {
      pool(3, 111, 111, 3, 2, 0, 1, true),  // SqueezeNet: ceil mode, partial last windows
      pool(2, 112, 112, 3, 2, 1),           // ResNet stem pool
      pool(2, 17, 23, 2, 2, 0),             // 2x2 stride 2, odd sizes
      pool(1, 9, 40, 3, 1, 1),              // 3x3 stride 1
      pool(1, 13, 14, 2, 1, 0, 1, true),    // 2x2 stride 1
      pool(2, 15, 19, 3, 2, 2, 2),          // dilated, padding 2
      pool(1, 20, 21, 5, 3, 2),             // a kernel without the fused path
      pool(1, 1, 1, 1, 1, 0),               // 1x1
      pool(1, 5, 37, 3, 2, 1, 1, true),     // one row of fused windows between edges
      pool(1, 6, 1101, 3, 2, 1),            // rows wider than one fused pass (256 outputs)
      pool(1, 3, 700, 2, 1, 0),             // the same at stride 1
      // Short rows at stride 1, pooled as one flat padded range: Inception's branch pools
      // (3x3, padding 1, ceil mode) at 14x14 and 7x7, 5x5 and 7x7 kernels, a row just short of
      // 32 columns.
      pool(5, 14, 14, 3, 1, 1, 1, true),
      pool(3, 7, 7, 3, 1, 1, 1, true),
      pool(2, 9, 11, 5, 1, 2),
      pool(1, 8, 12, 7, 1, 3),
      pool(2, 31, 31, 3, 1, 0, 1, true),
  };
  std::mt19937 rng(3);
  for (const MaxPool2dShape& s : shapes) {
    std::vector<float> in = random_input(s, rng);
    // A NaN inside the first plane and an -inf: NaN wins its windows, -inf loses.
    in[in.size() / 3] = std::numeric_limits<float>::quiet_NaN();
    in[in.size() / 2] = -std::numeric_limits<float>::infinity();
    expect_matches_reference(s, in);
    if (HasFatalFailure()) return;
  }
}

TEST_P(MaxPool2d, RefusesInvalidShapes) {
  std::vector<float> buf(16);
  MaxPool2dShape s = pool(1, 4, 4, 2, 2, 0);
  s.sh = 0;
  EXPECT_FALSE(max_pool2d(s, buf.data(), buf.data()));
  s = pool(1, 4, 4, 2, 2, 0);
  s.pw = -1;
  EXPECT_FALSE(max_pool2d(s, buf.data(), buf.data()));
}

INSTANTIATE_TEST_SUITE_P(Threads, MaxPool2d, ::testing::Values(1, 2));

class MaxPool2dIsa : public ::testing::TestWithParam<GemmIsa> {
 protected:
  void SetUp() override {
    if (!set_gemm_isa(GetParam())) GTEST_SKIP() << to_string(GetParam()) << " not on this CPU";
  }
  void TearDown() override { set_gemm_isa(detected_gemm_isa()); }
};

// The fused 2x2 and 3x3 rows take vectors of 16, 8 or 4 floats (as wide as the ISA's registers
// and the row allow), the last one overlapping its neighbour, and go window by window below 4
// columns: every row width from 1 to 40 outputs, with and without edge columns, and a NaN in
// the last row's last columns (which the last, overlapping vector reads).
TEST_P(MaxPool2dIsa, EveryRowWidthMatchesTheReference) {
  std::mt19937 rng(5);
  for (int64_t k : {2, 3}) {
    for (int64_t stride : {1, 2}) {
      for (int64_t pad : {0, 1}) {
        if (pad >= k) continue;
        for (int64_t ow = 1; ow <= 40; ++ow) {
          const int64_t w = (ow - 1) * stride + k - 2 * pad;
          if (w <= 0) continue;
          const MaxPool2dShape s = pool(2, 2 * k + 1, w, k, stride, pad);
          std::vector<float> in = random_input(s, rng);
          in[static_cast<size_t>(s.h * s.w - 2)] = std::numeric_limits<float>::quiet_NaN();
          expect_matches_reference(s, in);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, MaxPool2dIsa,
                         ::testing::Values(GemmIsa::Generic, GemmIsa::Avx2, GemmIsa::Avx512),
                         [](const auto& param) { return std::string(to_string(param.param)); });

}  // namespace
}  // namespace ptec::kernels::optimized
