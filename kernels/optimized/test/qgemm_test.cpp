#include "kernels/optimized/qgemm.h"
#include "kernels/optimized/qconv2d.h"
#include "kernels/optimized/threadpool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

namespace ptec::kernels::optimized {
namespace {

struct Aligned {
  explicit Aligned(size_t bytes) : ptr(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64)) {}
  ~Aligned() { std::free(ptr); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
  void* ptr;
};

std::vector<uint8_t> random_bytes(int64_t n, uint32_t seed, int lo = 0, int hi = 255) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<uint8_t> v(static_cast<size_t>(n));
  for (uint8_t& x : v) x = static_cast<uint8_t>(dist(rng));
  return v;
}

std::vector<int8_t> random_weights(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> v(static_cast<size_t>(n));
  for (int8_t& x : v) x = static_cast<int8_t>(dist(rng));
  return v;
}

// The requantization of one exact sum, as the header defines it.
int32_t requant(int64_t real, float scale, float bias, int32_t zp, int32_t lo, int32_t hi) {
  const float f = static_cast<float>(real) * scale + bias;
  int32_t q = static_cast<int32_t>(std::nearbyint(f)) + zp;
  return std::clamp(q, lo, hi);
}

int32_t value(const void* p, int64_t i, bool is_signed) {
  return is_signed ? static_cast<const int8_t*>(p)[i] : static_cast<const uint8_t*>(p)[i];
}

class QGemm : public ::testing::TestWithParam<QGemmIsa> {
 protected:
  void SetUp() override {
    if (!set_qgemm_isa(GetParam())) GTEST_SKIP() << "this CPU has no " << to_string(GetParam());
  }
  void TearDown() override { set_qgemm_isa(detected_qgemm_isa()); }
};

struct Case {
  int64_t m, n, k;
  bool b_trans, b_signed, out_signed, c_trans, weight_zp;
};

TEST_P(QGemm, MatchesExactIntegerReference) {
  const std::vector<Case> cases = {
      {1, 1, 1, false, false, false, false, false},
      {7, 5, 3, false, false, false, false, false},
      {8, 32, 64, false, false, false, false, false},
      {13, 37, 75, false, true, false, false, true},
      {64, 100, 576, false, false, true, false, false},
      {9, 33, 17, true, false, false, true, true},
      {17, 3, 130, true, true, true, true, false},
      {33, 65, 1031, false, false, false, false, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.m << "x" << c.n << "x" << c.k << " trans " << c.b_trans
                                      << " signed " << c.b_signed << "/" << c.out_signed);
    const std::vector<int8_t> a = random_weights(c.m * c.k, 1);
    // Extreme values on purpose: 255 * -128 pairs are where vpmaddubsw saturates.
    std::vector<uint8_t> b = random_bytes(c.k * c.n, 2);
    for (size_t i = 0; i < b.size(); i += 3) b[i] = c.b_signed ? 0x80 : 255;
    std::vector<int8_t> a_ext = a;
    for (size_t i = 0; i < a_ext.size(); i += 4) a_ext[i] = -128;
    const int32_t zb = c.b_signed ? -3 : 131;
    std::vector<int32_t> za(static_cast<size_t>(c.m), 0);
    if (c.weight_zp) {
      for (int64_t i = 0; i < c.m; ++i)
        za[static_cast<size_t>(i)] = static_cast<int32_t>(i % 7) - 3;
    }
    std::vector<float> scale(static_cast<size_t>(c.m)), bias(static_cast<size_t>(c.m));
    for (int64_t i = 0; i < c.m; ++i) {
      scale[static_cast<size_t>(i)] = 1.0f / (300.0f * static_cast<float>(c.k) + 37.0f * i);
      bias[static_cast<size_t>(i)] = 0.37f * static_cast<float>(i % 5) - 0.6f;
    }
    QEpilogue e;
    e.b_zero_point = zb;
    e.a_zero_points = c.weight_zp ? za.data() : nullptr;
    e.scale = scale.data();
    e.scale_per_row = true;
    e.bias = bias.data();
    e.out_zero_point = c.out_signed ? 5 : 120;
    e.out_min = c.out_signed ? -100 : 10;  // narrower than the type: a fused clamp
    e.out_max = c.out_signed ? 127 : 250;
    e.out_signed = c.out_signed;
    Aligned packed(qpacked_a_bytes(c.m, c.k));
    const QPackedA pa = qpack_a(c.m, c.k, a_ext.data(), c.k, packed.ptr);
    Aligned scratch(qgemm_scratch_bytes(c.n, c.k));
    std::vector<uint8_t> out(static_cast<size_t>(c.m * c.n), 0);
    const int64_t ldb = c.b_trans ? c.k : c.n;
    const int64_t ldc = c.c_trans ? c.m : c.n;
    ASSERT_TRUE(qgemm(c.m, c.n, c.k, pa, b.data(), ldb, c.b_trans, c.b_signed, e, out.data(), ldc,
                      c.c_trans, scratch.ptr));
    int mismatches = 0;
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        int64_t real = 0;
        for (int64_t p = 0; p < c.k; ++p) {
          const int64_t bi = c.b_trans ? j * ldb + p : p * ldb + j;
          real += (a_ext[static_cast<size_t>(i * c.k + p)] - za[static_cast<size_t>(i)]) *
                  (value(b.data(), bi, c.b_signed) - zb);
        }
        const int32_t want =
            requant(real, scale[static_cast<size_t>(i)], bias[static_cast<size_t>(i)],
                    e.out_zero_point, e.out_min, e.out_max);
        const int64_t ci = c.c_trans ? j * ldc + i : i * ldc + j;
        const int32_t got = value(out.data(), ci, c.out_signed);
        if (got != want && ++mismatches < 5) {
          ADD_FAILURE() << "C[" << i << "][" << j << "] = " << got << ", expected " << want;
        }
      }
    }
    EXPECT_EQ(mismatches, 0);
  }
}

TEST_P(QGemm, RejectsWeightsPackedForOtherShapes) {
  const std::vector<int8_t> a = random_weights(4 * 8, 3);
  Aligned packed(qpacked_a_bytes(4, 8));
  const QPackedA pa = qpack_a(4, 8, a.data(), 8, packed.ptr);
  Aligned scratch(qgemm_scratch_bytes(4, 9));
  const float scale = 1.0f;
  QEpilogue e;
  e.scale = &scale;
  std::vector<uint8_t> b(64), c(64);
  EXPECT_FALSE(qgemm(4, 4, 9, pa, b.data(), 4, false, false, e, c.data(), 4, false, scratch.ptr));
}

struct ConvCase {
  Conv2dShape s;
  bool x_signed;
};

// The depthwise kernel multiplies 16-bit x - zx by 16-bit w - zw: zero points past the 8-bit
// types' range [-128, 255] are refused, not wrapped.
TEST_P(QGemm, DepthwiseRejectsZeroPointsOutside8BitRange) {
  Conv2dShape s;
  s.n = 1, s.c = 2, s.h = 4, s.w = 4, s.oc = 2, s.kh = 3, s.kw = 3, s.ph = 1, s.pw = 1;
  s.groups = 2;
  ASSERT_TRUE(s.valid() && s.depthwise());
  const std::vector<uint8_t> x = random_bytes(s.n * s.c * s.h * s.w, 1);
  const std::vector<int8_t> w = random_weights(s.oc * s.k(), 2);
  const float scale = 0.01f;
  int32_t zw[2] = {0, 0};
  QEpilogue e;
  e.scale = &scale;
  e.a_zero_points = zw;
  Aligned scratch(qconv2d_scratch_bytes(s));
  std::vector<uint8_t> out(static_cast<size_t>(s.n * s.oc * s.oh() * s.ow()));
  EXPECT_TRUE(qconv2d(s, x.data(), false, 255, w.data(), nullptr, e, out.data(), scratch.ptr));
  EXPECT_FALSE(qconv2d(s, x.data(), false, 256, w.data(), nullptr, e, out.data(), scratch.ptr));
  EXPECT_FALSE(qconv2d(s, x.data(), true, -129, w.data(), nullptr, e, out.data(), scratch.ptr));
  zw[1] = -200;
  EXPECT_FALSE(qconv2d(s, x.data(), false, 0, w.data(), nullptr, e, out.data(), scratch.ptr));
}

TEST_P(QGemm, Conv2dMatchesDirectReference) {
  auto shape = [](int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc, int64_t k, int64_t st,
                  int64_t pad, int64_t groups, int64_t dil = 1) {
    Conv2dShape s;
    s.n = n, s.c = c, s.h = h, s.w = w, s.oc = oc, s.kh = k, s.kw = k, s.sh = st, s.sw = st;
    s.ph = pad, s.pw = pad, s.dh = dil, s.dw = dil, s.groups = groups;
    return s;
  };
  Conv2dShape strided_rows = shape(1, 6, 13, 12, 8, 3, 2, 1, 1);
  strided_rows.sw = 1;
  // Depthwise with rows and columns of different kernel sizes, strides, dilations and padding
  // (padding larger than the kernel).
  Conv2dShape dw_mixed = shape(1, 4, 11, 13, 4, 3, 2, 1, 4);
  dw_mixed.kw = 1, dw_mixed.sw = 3, dw_mixed.pw = 2, dw_mixed.dh = 2;
  Conv2dShape dw_wide = shape(2, 3, 6, 17, 6, 1, 1, 0, 3);
  dw_wide.kw = 5, dw_wide.sh = 2, dw_wide.pw = 6, dw_wide.dw = 3;
  Conv2dShape nonsquare = shape(1, 5, 7, 11, 9, 3, 1, 1, 1);
  nonsquare.kw = 2;
  nonsquare.pw = 0;
  const std::vector<ConvCase> cases = {
      {shape(1, 3, 9, 9, 10, 3, 1, 1, 1), false},
      {shape(2, 16, 8, 8, 24, 1, 1, 0, 1), true},
      {shape(1, 4, 6, 5, 7, 3, 2, 2, 1), false},
      {shape(1, 8, 7, 7, 12, 3, 1, 1, 4), true},
      {shape(2, 6, 9, 9, 12, 3, 2, 1, 6), false},
      {shape(1, 3, 5, 5, 3, 5, 1, 4, 3), true},
      {shape(1, 5, 10, 10, 6, 3, 1, 2, 1, 2), false},
      {nonsquare, false},
      {shape(1, 1, 1, 1, 3, 1, 1, 0, 1), true},
      // Stride 1, read in place: several B panels over the padded rows' flat columns (their
      // runs split across panels), batch 2, K over 256.
      {shape(2, 20, 13, 17, 40, 3, 1, 1, 1), true},
      {shape(1, 40, 7, 7, 24, 3, 1, 1, 1), false},
      {shape(1, 6, 12, 9, 10, 5, 1, 2, 2), false},
      // Strided, read by stride phase: a 7x7 stride-2 stem, 3x3 stride 2 dilated 2, stride 3,
      // and rows and columns of different strides.
      {shape(2, 3, 23, 21, 16, 7, 2, 3, 1), false},
      {shape(1, 8, 15, 14, 12, 3, 2, 2, 1, 2), true},
      {shape(1, 5, 17, 16, 9, 3, 3, 1, 1), false},
      {strided_rows, true},
      // Depthwise, through the zero-point-shifted 16-bit phases: 3x3 stride 1 and 2, a channel
      // multiplier of 2 with batch 2, dilated, signed input, 5x5 stride 2 on an odd plane.
      {shape(1, 8, 14, 13, 8, 3, 1, 1, 8), false},
      {shape(2, 6, 11, 12, 12, 3, 2, 1, 6), true},
      {shape(1, 5, 13, 13, 5, 3, 1, 2, 5, 2), true},
      {shape(1, 7, 15, 17, 7, 5, 2, 2, 7), false},
      // More channels than one block of 16 (the channel-interleaved path's last block partial),
      // rows of at least 16 pixels, batch 2; and strided.
      {shape(2, 20, 9, 17, 20, 3, 1, 1, 20), false},
      {shape(1, 35, 12, 33, 35, 3, 2, 1, 35), true},
      {dw_mixed, false},
      {dw_wide, true},
      // A 33 x 33 depthwise kernel (1089 taps, in the worker's scratch), padding 16.
      {shape(1, 3, 20, 18, 3, 33, 1, 16, 3), true},
  };
  for (const ConvCase& cc : cases) {
    const Conv2dShape& s = cc.s;
    SCOPED_TRACE(::testing::Message()
                 << "n" << s.n << " c" << s.c << " " << s.h << "x" << s.w << " oc" << s.oc << " k"
                 << s.kh << "x" << s.kw << " s" << s.sh << " p" << s.ph << " g" << s.groups);
    ASSERT_TRUE(s.valid());
    const int64_t oh = s.oh(), ow = s.ow();
    const std::vector<uint8_t> x = random_bytes(s.n * s.c * s.h * s.w, 4);
    const std::vector<int8_t> w = random_weights(s.oc * s.k(), 5);
    const int32_t zx = cc.x_signed ? 7 : 100;
    std::vector<int32_t> zw(static_cast<size_t>(s.oc));
    std::vector<float> scale(static_cast<size_t>(s.oc)), bias(static_cast<size_t>(s.oc));
    for (int64_t o = 0; o < s.oc; ++o) {
      zw[static_cast<size_t>(o)] = static_cast<int32_t>(o % 3) - 1;
      scale[static_cast<size_t>(o)] = 1.0f / (200.0f * static_cast<float>(s.k()) + 3.0f * o);
      bias[static_cast<size_t>(o)] = 0.25f * static_cast<float>(o % 4) - 0.5f;
    }
    QEpilogue e;
    e.a_zero_points = zw.data();
    e.scale = scale.data();
    e.scale_per_row = true;
    e.bias = bias.data();
    e.out_zero_point = 128;
    e.out_min = 128;  // fused ReLU
    e.out_max = 255;
    Aligned packed(qconv2d_packed_weights_bytes(s) + 64);
    qconv2d_pack_weights(s, w.data(), packed.ptr);
    Aligned scratch(qconv2d_scratch_bytes(s));
    std::vector<uint8_t> out(static_cast<size_t>(s.n * s.oc * oh * ow));
    ASSERT_TRUE(
        qconv2d(s, x.data(), cc.x_signed, zx, w.data(), packed.ptr, e, out.data(), scratch.ptr));
    int mismatches = 0;
    const int64_t cg = s.c_per_group(), ocg = s.oc_per_group();
    for (int64_t b = 0; b < s.n; ++b) {
      for (int64_t o = 0; o < s.oc; ++o) {
        const int64_t g = o / ocg;
        for (int64_t oy = 0; oy < oh; ++oy) {
          for (int64_t ox = 0; ox < ow; ++ox) {
            int64_t real = 0;
            for (int64_t c = 0; c < cg; ++c) {
              for (int64_t ky = 0; ky < s.kh; ++ky) {
                for (int64_t kx = 0; kx < s.kw; ++kx) {
                  const int64_t iy = oy * s.sh - s.ph + ky * s.dh;
                  const int64_t ix = ox * s.sw - s.pw + kx * s.dw;
                  if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                  const int64_t xi = ((b * s.c + g * cg + c) * s.h + iy) * s.w + ix;
                  const int64_t wi = ((o * cg + c) * s.kh + ky) * s.kw + kx;
                  real += (value(x.data(), xi, cc.x_signed) - zx) *
                          (w[static_cast<size_t>(wi)] - zw[static_cast<size_t>(o)]);
                }
              }
            }
            const int32_t want = requant(real, scale[static_cast<size_t>(o)],
                                         bias[static_cast<size_t>(o)], 128, 128, 255);
            const int32_t got = out[static_cast<size_t>(((b * s.oc + o) * oh + oy) * ow + ox)];
            if (got != want && ++mismatches < 5) {
              ADD_FAILURE() << "out[" << b << "," << o << "," << oy << "," << ox << "] = " << got
                            << ", expected " << want;
            }
          }
        }
      }
    }
    EXPECT_EQ(mismatches, 0);
    // Spread over workers (a depthwise layer's channels, one per worker's scratch; the others
    // ignore them), on two threads: the same bytes.
    set_num_threads(2);
    for (int64_t workers : {2, 5}) {
      Aligned scratch_w(qconv2d_scratch_bytes(s, workers));
      std::vector<uint8_t> out_w(out.size(), 0xAB);
      ASSERT_TRUE(qconv2d(s, x.data(), cc.x_signed, zx, w.data(), packed.ptr, e, out_w.data(),
                          scratch_w.ptr, workers));
      EXPECT_EQ(out_w, out) << workers << " workers";
    }
    set_num_threads(0);
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, QGemm,
                         ::testing::Values(QGemmIsa::Generic, QGemmIsa::Avx2, QGemmIsa::Avx512Vnni),
                         [](const auto& p) { return std::string(to_string(p.param)); });

}  // namespace
}  // namespace ptec::kernels::optimized
