// The int8 element-wise kernels against their scalar definitions (round half to even with
// nearbyint, the clamp, NaN to the lower bound), bit for bit: ties, saturation, NaN and
// infinities, both dtypes on every side, bounds narrowed by a fused ReLU, lengths that leave a
// partial vector and several work items; max pooling over the shapes the CPU backend meets
// (stride 2 with padding, dilation, windows with no input, a plane wider than the row buffers).

#include "kernels/optimized/quantized_elementwise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/optimized/test/pool_shape.h"
#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

int32_t reference_store(float v, const QuantOutput& o) {
  v = std::fmin(std::fmax(v, -1e9f), 1e9f);
  return std::clamp(static_cast<int32_t>(std::nearbyint(v)) + o.q.zero_point, o.lo, o.hi);
}

int32_t stored(const std::vector<uint8_t>& bytes, size_t i, bool is_signed) {
  return is_signed ? static_cast<int8_t>(bytes[i]) : bytes[i];
}

float real(int32_t q, const QuantParams& p) {
  return static_cast<float>(q - p.zero_point) * p.scale;
}

// Outputs of each dtype, the second with the bounds of a fused ReLU (lo = zero point).
std::vector<QuantOutput> outputs() {
  QuantOutput u8;
  u8.q = {0.05f, 128};
  QuantOutput s8_relu;
  s8_relu.q = {0.07f, -5};
  s8_relu.lo = -5;
  s8_relu.hi = 127;
  s8_relu.is_signed = true;
  QuantOutput s8;
  s8.q = {0.5f, 3};
  s8.lo = -128;
  s8.hi = 127;
  s8.is_signed = true;
  return {u8, s8_relu, s8};
}

class QuantizedElementwise : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { set_num_threads(GetParam()); }
  void TearDown() override { set_num_threads(0); }
};

TEST_P(QuantizedElementwise, QuantizeRoundsHalfToEvenAndSaturates) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-20.0f, 20.0f);
  for (const QuantOutput& o : outputs()) {
    std::vector<float> x;
    for (int k = -300; k <= 300; ++k) x.push_back((static_cast<float>(k) + 0.5f) * o.q.scale);
    for (float v :
         {0.0f, -0.0f, 1e30f, -1e30f, std::numeric_limits<float>::infinity(),
          -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
      x.push_back(v);
    }
    while (x.size() < 40000) x.push_back(dist(rng));  // several work items, a partial vector
    for (bool reciprocal : {false, true}) {
      std::vector<uint8_t> got(x.size(), 0xAB);
      quantize(x.data(), static_cast<int64_t>(x.size()), reciprocal, o, got.data());
      const float inv = 1.0f / o.q.scale;
      for (size_t i = 0; i < x.size(); ++i) {
        const float v = reciprocal ? x[i] * inv : x[i] / o.q.scale;
        ASSERT_EQ(stored(got, i, o.is_signed), reference_store(v, o))
            << "x " << x[i] << " reciprocal " << reciprocal << " signed " << o.is_signed;
      }
    }
  }
}

TEST_P(QuantizedElementwise, DequantizeAndRequantizeEveryStoredValue) {
  for (bool in_signed : {false, true}) {
    const QuantParams p{0.031f, in_signed ? -7 : 131};
    std::vector<uint8_t> q;
    for (int rep = 0; rep < 80; ++rep) {
      for (int v = 0; v < 256; ++v) q.push_back(static_cast<uint8_t>(v));
    }
    q.push_back(7);
    const auto n = static_cast<int64_t>(q.size());
    std::vector<float> f(q.size());
    dequantize(q.data(), in_signed, n, p, f.data());
    for (size_t i = 0; i < q.size(); ++i) {
      ASSERT_EQ(f[i], real(stored(q, i, in_signed), p)) << i;
    }
    for (const QuantOutput& o : outputs()) {
      std::vector<uint8_t> got(q.size(), 0xAB);
      requantize(q.data(), in_signed, n, p, o, got.data());
      for (size_t i = 0; i < q.size(); ++i) {
        ASSERT_EQ(stored(got, i, o.is_signed),
                  reference_store(real(stored(q, i, in_signed), p) / o.q.scale, o))
            << "value " << stored(q, i, in_signed);
      }
    }
  }
}

TEST_P(QuantizedElementwise, AddOfEveryDtypeCombination) {
  std::mt19937 rng(2);
  std::uniform_int_distribution<int> byte(0, 255);
  const int64_t n = 70001;
  std::vector<uint8_t> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<uint8_t>(byte(rng));
    b[i] = static_cast<uint8_t>(byte(rng));
  }
  for (bool a_signed : {false, true}) {
    for (bool b_signed : {false, true}) {
      const QuantParams pa{0.02f, a_signed ? 4 : 120}, pb{0.045f, b_signed ? -2 : 133};
      for (const QuantOutput& o : outputs()) {
        std::vector<uint8_t> got(n, 0xAB);
        quantized_add(a.data(), a_signed, pa, b.data(), b_signed, pb, n, o, got.data());
        for (int64_t i = 0; i < n; ++i) {
          const float v = real(stored(a, i, a_signed), pa) + real(stored(b, i, b_signed), pb);
          ASSERT_EQ(stored(got, i, o.is_signed), reference_store(v / o.q.scale, o))
              << i << " signs " << a_signed << b_signed << o.is_signed;
        }
      }
    }
  }
}

std::vector<int32_t> reference_pool(const MaxPool2dShape& s, const std::vector<uint8_t>& in,
                                    bool is_signed) {
  const int32_t lowest = is_signed ? -128 : 0;
  std::vector<int32_t> out;
  for (int64_t p = 0; p < s.planes; ++p) {
    for (int64_t oy = 0; oy < s.oh; ++oy) {
      for (int64_t ox = 0; ox < s.ow; ++ox) {
        int32_t best = lowest;
        for (int64_t ky = 0; ky < s.kh; ++ky) {
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            const int64_t iy = oy * s.sh - s.ph + ky * s.dh, ix = ox * s.sw - s.pw + kx * s.dw;
            if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
            best = std::max(best,
                            stored(in, static_cast<size_t>((p * s.h + iy) * s.w + ix), is_signed));
          }
        }
        out.push_back(best);
      }
    }
  }
  return out;
}

TEST_P(QuantizedElementwise, MaxPoolMatchesTheWindowMaxima) {
  std::vector<MaxPool2dShape> shapes = {
      pool(5, 21, 21, 3, 2, 1, 1),        // ResNet's stem pool (odd plane)
      pool(3, 16, 17, 2, 2, 0, 1),        // 2x2 stride 2
      pool(2, 9, 13, 3, 1, 1, 1),         // stride 1, same size
      pool(2, 11, 10, 3, 2, 2, 2),        // dilated
      pool(3, 13, 13, 3, 2, 0, 1, true),  // ceil mode: the last window runs past the edge
      pool(2, 3, 4500, 3, 2, 1, 1),       // wider than the row buffers: tap by tap
  };
  // Windows that hold padding only (a 1x1 kernel with padding 1): the dtype's lowest value.
  MaxPool2dShape edge = pool(2, 3, 4, 1, 1, 0);
  edge.ph = edge.pw = 1;
  edge.oh = 5;
  edge.ow = 6;
  shapes.push_back(edge);
  MaxPool2dShape asym = pool(2, 12, 15, 3, 1, 0, 1);
  asym.kw = 2;
  asym.sw = 3;
  asym.pw = 1;
  asym.ow = (asym.w + 2 - 2) / 3 + 1;
  shapes.push_back(asym);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> byte(0, 255);
  for (const MaxPool2dShape& s : shapes) {
    ASSERT_TRUE(s.valid());
    std::vector<uint8_t> in(static_cast<size_t>(s.planes * s.h * s.w));
    for (uint8_t& v : in) v = static_cast<uint8_t>(byte(rng));
    for (bool is_signed : {false, true}) {
      std::vector<uint8_t> got(static_cast<size_t>(s.planes * s.oh * s.ow), 0xAB);
      ASSERT_TRUE(quantized_max_pool2d(s, in.data(), is_signed, got.data()));
      const auto want = reference_pool(s, in, is_signed);
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(stored(got, i, is_signed), want[i])
            << s.h << "x" << s.w << " k" << s.kh << " s" << s.sh << " p" << s.ph << " d" << s.dh
            << " signed " << is_signed << " at " << i;
      }
    }
  }
  MaxPool2dShape bad = pool(1, 4, 4, 2, 2, 0, 1);
  bad.sh = 0;
  std::vector<uint8_t> buf(64);
  EXPECT_FALSE(quantized_max_pool2d(bad, buf.data(), false, buf.data()));
}

INSTANTIATE_TEST_SUITE_P(Threads, QuantizedElementwise, ::testing::Values(1, 2),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return std::to_string(param.param) + "thread";
                         });

}  // namespace
}  // namespace ptec::kernels::optimized
