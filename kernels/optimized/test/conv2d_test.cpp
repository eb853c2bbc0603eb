#include "kernels/optimized/conv2d.h"
#include "kernels/optimized/conv2d_direct.h"
#include "kernels/optimized/conv2d_sparse_taps.h"
#include "kernels/optimized/conv2d_winograd.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <sstream>
#include <vector>

#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

struct Aligned {
  explicit Aligned(size_t bytes)
      : ptr(static_cast<float*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64))) {}
  ~Aligned() { std::free(ptr); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
  float* ptr;
};

std::vector<float> random_vector(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// Direct convolution in double.
std::vector<double> reference(const Conv2dShape& s, const std::vector<float>& in,
                              const std::vector<float>& w, const std::vector<float>& bias,
                              const std::vector<float>& residual, bool relu) {
  const int64_t oh = s.oh(), ow = s.ow(), cg = s.c_per_group(), ocg = s.oc_per_group();
  std::vector<double> out(static_cast<size_t>(s.n * s.oc * oh * ow));
  for (int64_t b = 0; b < s.n; ++b) {
    for (int64_t o = 0; o < s.oc; ++o) {
      const int64_t g = o / ocg;
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t x = 0; x < ow; ++x) {
          double acc = bias.empty() ? 0.0 : bias[o];
          for (int64_t c = 0; c < cg; ++c) {
            for (int64_t ky = 0; ky < s.kh; ++ky) {
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                const int64_t iy = y * s.sh - s.ph + ky * s.dh;
                const int64_t ix = x * s.sw - s.pw + kx * s.dw;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                acc += double(in[((b * s.c + g * cg + c) * s.h + iy) * s.w + ix]) *
                       w[((o * cg + c) * s.kh + ky) * s.kw + kx];
              }
            }
          }
          const size_t at = static_cast<size_t>(((b * s.oc + o) * oh + y) * ow + x);
          if (!residual.empty()) acc += residual[at];
          out[at] = relu ? std::max(acc, 0.0) : acc;
        }
      }
    }
  }
  return out;
}

Conv2dShape shape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t oc, int64_t k, int64_t stride,
                  int64_t pad, int64_t dilation = 1, int64_t groups = 1) {
  Conv2dShape s;
  s.n = n;
  s.c = c;
  s.h = h;
  s.w = w;
  s.oc = oc;
  s.kh = s.kw = k;
  s.sh = s.sw = stride;
  s.ph = s.pw = pad;
  s.dh = s.dw = dilation;
  s.groups = groups;
  return s;
}

std::string describe(const Conv2dShape& s) {
  std::ostringstream o;
  o << "n" << s.n << " c" << s.c << " " << s.h << "x" << s.w << " oc" << s.oc << " k" << s.kh << "x"
    << s.kw << " s" << s.sh << "," << s.sw << " p" << s.ph << "," << s.pw << " d" << s.dh << " g"
    << s.groups;
  return o.str();
}

// Random input, weights, bias and residual of a convolution, from seeds `seed` to `seed + 3`.
struct Operands {
  Operands(const Conv2dShape& s, uint32_t seed)
      : in(random_vector(s.n * s.c * s.h * s.w, seed)),
        w(random_vector(s.oc * s.c_per_group() * s.kh * s.kw, seed + 1)),
        bias(random_vector(s.oc, seed + 2)),
        residual(random_vector(s.n * s.oc * s.oh() * s.ow(), seed + 3)) {}
  std::vector<float> in, w, bias, residual;
};

// Bias, residual (may be null) and `act` (Clamp: [-0.5, 0.5]), as the epilogue tests apply them.
GemmEpilogue epilogue_of(const std::vector<float>& bias, const float* residual, Activation act) {
  GemmEpilogue e;
  e.bias = bias.data();
  e.residual = residual;
  e.activation = act;
  e.clamp_min = -0.5f;
  e.clamp_max = 0.5f;
  return e;
}

class Conv2d : public ::testing::TestWithParam<std::tuple<GemmIsa, int>> {
 protected:
  void SetUp() override {
    if (!set_gemm_isa(std::get<0>(GetParam()))) GTEST_SKIP() << "ISA not available";
    set_num_threads(std::get<1>(GetParam()));
  }
  void TearDown() override {
    set_gemm_isa(detected_gemm_isa());
    set_num_threads(0);
  }
};

TEST_P(Conv2d, MatchesDirectReference) {
  std::vector<Conv2dShape> shapes = {
      shape(1, 3, 9, 9, 8, 3, 1, 1),        // 3x3 same padding
      shape(2, 5, 7, 11, 7, 1, 1, 0),       // pointwise, batch 2, non-square, odd channels
      shape(1, 4, 10, 10, 6, 3, 2, 1),      // stride 2
      shape(1, 4, 9, 9, 5, 3, 1, 2, 2),     // dilation 2
      shape(1, 6, 8, 8, 4, 3, 1, 1, 1, 2),  // 2 groups
      shape(2, 8, 9, 7, 8, 3, 1, 1, 1, 8),  // depthwise
      shape(1, 4, 6, 6, 8, 3, 2, 1, 1, 4),  // depthwise, channel multiplier 2, stride 2
      shape(1, 2, 3, 3, 3, 2, 1, 4),        // padding larger than the kernel
      shape(1, 3, 1, 1, 17, 1, 1, 0),       // 1x1 image
      shape(2, 40, 1, 1, 70, 1, 1, 0),      // one pixel (a row against the weights), batch 2
      shape(1, 16, 20, 20, 33, 5, 1, 2),    // more pixels than one panel, odd oc
      shape(1, 3, 15, 15, 4, 7, 2, 3),      // 7x7 stride 2 (stem)
      shape(1, 6, 9, 9, 6, 3, 2, 0, 1, 6),  // depthwise without padding, stride 2
      shape(1, 64, 40, 37, 9, 3, 1, 1),     // several column chunks, the last one partial
      // Depthwise rows and columns whose window is inside (one pass over all taps) next to the
      // padded edges: 5x5 stride 2, 5x5 stride 1 with batch 2, 3x3 dilated, 3x3 stride 2 with
      // channel multiplier 2 on a wider image.
      shape(1, 7, 19, 23, 7, 5, 2, 2, 1, 7),
      shape(2, 5, 17, 16, 5, 5, 1, 2, 1, 5),
      shape(1, 4, 15, 15, 4, 3, 1, 2, 2, 4),
      shape(1, 3, 33, 40, 6, 3, 2, 1, 1, 3),
      // Stride-1 depthwise planes too large for the flat path (row by row) and ones within it
      // (one stencil over the padded plane): 3x3 on 70x66, 5x5 on 12x9 with padding 2.
      shape(1, 3, 70, 66, 3, 3, 1, 1, 1, 3),
      shape(2, 4, 12, 9, 4, 5, 1, 2, 1, 4),
  };
  Conv2dShape asym = shape(1, 3, 8, 12, 4, 3, 1, 1);
  asym.kw = 2;
  asym.sw = 3;
  asym.pw = 0;
  shapes.push_back(asym);
  // The direct path's phases: every tap in the even rows and columns (stride 2, dilation 2), one
  // phase (1x1 stride 2), nine (stride 3), non-overlapping windows (kernel 4 stride 4, a patch
  // embedding), batch 2 with groups at stride 2; past its largest stride, im2col.
  // Output pixels as rows: more pixels than one work item (128) and one B panel of channels
  // (37 > 32), K over several slices (the tile accumulated), and 2x2 outputs (fewer pixels than
  // a vector of the transposed store).
  for (const Conv2dShape& more :
       {shape(2, 40, 15, 13, 37, 3, 1, 1), shape(1, 70, 4, 4, 9, 3, 2, 1)}) {
    shapes.push_back(more);
  }
  for (const Conv2dShape& more :
       {shape(1, 3, 13, 11, 5, 3, 2, 2, 2), shape(1, 6, 9, 10, 7, 1, 2, 0),
        shape(1, 2, 14, 13, 3, 3, 3, 1), shape(1, 3, 16, 12, 8, 4, 4, 0),
        shape(2, 4, 11, 9, 6, 3, 2, 1, 1, 2), shape(1, 2, 141, 150, 3, 2, 70, 1)}) {
    shapes.push_back(more);
  }
  for (const Conv2dShape& s : shapes) {
    ASSERT_TRUE(s.valid()) << describe(s);
    const auto in = random_vector(s.n * s.c * s.h * s.w, 1);
    const auto w = random_vector(s.oc * s.c_per_group() * s.kh * s.kw, 2);
    const auto bias = random_vector(s.oc, 3);
    const int64_t out_numel = s.n * s.oc * s.oh() * s.ow();
    const auto residual = random_vector(out_numel, 4);
    // Output channels and output pixels as the GEMM's rows (Pixels runs Channels where it does
    // not apply: groups, depthwise).
    for (ConvRows rows : {ConvRows::Channels, ConvRows::Pixels}) {
      for (int variant = 0; variant < 2; ++variant) {
        const bool fused = variant == 1;  // bias + residual + relu, prepacked weights
        GemmEpilogue e;
        if (fused) {
          e.bias = bias.data();
          e.residual = residual.data();
          e.activation = Activation::Relu;
        }
        Aligned packed(conv2d_packed_weights_bytes(s, rows));
        if (fused) conv2d_pack_weights(s, w.data(), packed.ptr, rows);
        Aligned scratch(conv2d_scratch_bytes(s, fused, rows));
        std::vector<float> out(static_cast<size_t>(out_numel), 99.0f);
        ASSERT_TRUE(conv2d(s, in.data(), w.data(), fused && !s.depthwise() ? packed.ptr : nullptr,
                           e, out.data(), scratch.ptr, nullptr, DepthwisePath::Auto, rows))
            << describe(s);
        const auto ref = reference(s, in, w, fused ? bias : std::vector<float>{},
                                   fused ? residual : std::vector<float>{}, fused);
        for (size_t i = 0; i < out.size(); ++i) {
          ASSERT_NEAR(out[i], ref[i], 1e-4)
              << describe(s) << (fused ? " fused" : "")
              << (rows == ConvRows::Pixels ? " pixel rows" : "") << " at " << i;
        }
      }
    }
  }
}

// Taps that read only padding: which are dead, and the reduced convolution with the live taps'
// weights computes what the full one does.
TEST_P(Conv2d, DeadTapsLeftOutGiveTheSameConvolution) {
  struct Case {
    Conv2dShape s;
    ConvTaps live;
    bool reduces;
  };
  Conv2dShape rect = shape(1, 5, 6, 9, 4, 3, 1, 7, 7);  // rows: centre only; columns: all live
  rect.pw = 2;
  rect.dw = 2;
  Conv2dShape strided = shape(2, 3, 3, 3, 6, 3, 2, 4, 4);  // stride 2: only the centre reads
  const std::vector<Case> cases = {
      // DeepLab's atrous pyramid at 14x14: rate 24 and 36 keep the centre tap, rate 12 all.
      {shape(1, 40, 14, 14, 16, 3, 1, 24, 24), {1, 1, 1, 1}, true},
      {shape(1, 40, 14, 14, 16, 3, 1, 36, 36), {1, 1, 1, 1}, true},
      {shape(1, 40, 14, 14, 16, 3, 1, 12, 12), {0, 2, 0, 2}, false},
      {rect, {1, 1, 0, 2}, true},
      {strided, {1, 1, 1, 1}, true},
      // A 3x3 on a 1x1 image with padding 1: a 1x1 convolution, in two groups.
      {shape(2, 6, 1, 1, 4, 3, 1, 1, 1, 2), {1, 1, 1, 1}, true},
      // Plain convolutions and depthwise ones are left alone.
      {shape(1, 3, 9, 9, 8, 3, 1, 1), {0, 2, 0, 2}, false},
      {shape(1, 8, 6, 6, 8, 3, 1, 8, 8, 8), {1, 1, 1, 1}, false},
  };
  for (const Case& c : cases) {
    const Conv2dShape& s = c.s;
    ASSERT_TRUE(s.valid()) << describe(s);
    const ConvTaps live = conv2d_live_taps(s);
    EXPECT_EQ((std::vector<int64_t>{live.ky0, live.ky1, live.kx0, live.kx1}),
              (std::vector<int64_t>{c.live.ky0, c.live.ky1, c.live.kx0, c.live.kx1}))
        << describe(s);
    Conv2dShape r;
    ConvTaps taps;
    ASSERT_EQ(conv2d_without_dead_taps(s, &r, &taps), c.reduces) << describe(s);
    if (!c.reduces) continue;
    EXPECT_EQ(r.kh, taps.ky1 - taps.ky0 + 1);
    EXPECT_EQ(r.kw, taps.kx1 - taps.kx0 + 1);
    ASSERT_EQ(r.oh(), s.oh());
    ASSERT_EQ(r.ow(), s.ow());
    const auto in = random_vector(s.n * s.c * s.h * s.w, 1);
    const auto w = random_vector(s.oc * s.c_per_group() * s.kh * s.kw, 2);
    const auto bias = random_vector(s.oc, 3);
    std::vector<float> sliced(static_cast<size_t>(r.oc * r.c_per_group() * r.kh * r.kw));
    conv2d_slice_taps(s, taps, w.data(), sliced.data());
    Aligned packed(conv2d_packed_weights_bytes(r));
    conv2d_pack_weights(r, sliced.data(), packed.ptr);
    Aligned scratch(conv2d_scratch_bytes(r, true));
    std::vector<float> out(static_cast<size_t>(s.n * s.oc * s.oh() * s.ow()), 99.0f);
    ASSERT_TRUE(conv2d(r, in.data(), nullptr, packed.ptr,
                       epilogue_of(bias, nullptr, Activation::Relu), out.data(), scratch.ptr))
        << describe(r);
    const auto ref = reference(s, in, w, bias, {}, true);
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_NEAR(out[i], ref[i], 1e-4)
          << describe(s) << " reduced to " << describe(r) << " at " << i;
    }
  }
}

// Convolutions whose taps mostly read padding run tap by tap over the rectangles where each tap
// reads the input (conv2d_sparse_taps.h): DeepLab's rate 12 at 14x14, non-square and strided
// ones, rectangles of whole rows and of partial rows, batch 2, with bias, residual, each
// activation and an input scale, against the direct reference.
TEST_P(Conv2d, SparseTapsMatchTheReference) {
  Conv2dShape wide = shape(2, 5, 6, 9, 7, 3, 1, 5, 5);
  wide.pw = 3;
  wide.dw = 3;
  Conv2dShape strided = shape(1, 4, 9, 9, 5, 3, 2, 7, 7);
  strided.kw = 5;
  strided.pw = 6;
  strided.dw = 4;
  const std::vector<Conv2dShape> cases = {
      shape(1, 40, 14, 14, 16, 3, 1, 12, 12),
      shape(2, 9, 7, 7, 6, 3, 1, 4, 5),
      wide,
      strided,
  };
  for (const Conv2dShape& s : cases) {
    ASSERT_TRUE(s.valid()) << describe(s);
    ASSERT_TRUE(conv2d_sparse_taps_preferred(s)) << describe(s) << " " << conv2d_live_share(s);
    const auto in = random_vector(s.n * s.c * s.h * s.w, 1);
    const auto w = random_vector(s.oc * s.c * s.kh * s.kw, 2);
    const auto bias = random_vector(s.oc, 3);
    const auto residual = random_vector(s.n * s.oc * s.oh() * s.ow(), 4);
    auto scale = random_vector(s.n * s.c, 5);
    Aligned packed(conv2d_packed_weights_bytes(s));
    conv2d_pack_weights(s, w.data(), packed.ptr);
    Aligned scratch(conv2d_scratch_bytes(s, true));
    for (Activation act : {Activation::None, Activation::Relu, Activation::Clamp,
                           Activation::Sigmoid, Activation::Silu}) {
      for (bool extras : {false, true}) {  // residual and input scale
        std::vector<float> out(static_cast<size_t>(s.n * s.oc * s.oh() * s.ow()), 99.0f);
        ASSERT_TRUE(conv2d(s, in.data(), nullptr, packed.ptr,
                           epilogue_of(bias, extras ? residual.data() : nullptr, act), out.data(),
                           scratch.ptr, extras ? scale.data() : nullptr))
            << describe(s);
        std::vector<float> scaled = in;
        if (extras) {
          for (size_t i = 0; i < scaled.size(); ++i) {
            scaled[i] *= scale[i / static_cast<size_t>(s.h * s.w)];
          }
        }
        const auto sums =
            reference(s, scaled, w, bias, extras ? residual : std::vector<float>{}, false);
        for (size_t i = 0; i < out.size(); ++i) {
          const float want = activate(static_cast<float>(sums[i]), act, -0.5f, 0.5f);
          ASSERT_NEAR(out[i], want, 1e-4 * std::max(1.0f, std::abs(want)))
              << describe(s) << " activation " << static_cast<int>(act) << " extras " << extras
              << " at " << i;
        }
      }
    }
  }
  // Shares above the limit keep the other paths.
  EXPECT_FALSE(conv2d_sparse_taps_preferred(shape(1, 64, 56, 56, 64, 3, 1, 12, 12)));
  EXPECT_FALSE(conv2d_sparse_taps_preferred(shape(1, 64, 14, 14, 64, 3, 1, 1)));
}

// Groups too small to share the threads (conv2d_groups_serial) go to the workers whole, a group
// per worker's scratch: the same values as one worker, bit for bit (each group's arithmetic is
// unchanged), for more workers than groups, batch 2, a residual and ReLU, and strided layers; a
// shape whose groups are large enough keeps one worker's scratch.
TEST_P(Conv2d, PlainWeightsReadInPlaceMatchTheReference) {
  // Deep layers of a small image, where plain weights are read in place: 3x3 on a 2x2 map (most
  // taps meet padding at its edges), stride 2, dilation 2 on 3x3, two groups, batch 2, pointwise
  // (B packed by the GEMM), pointwise with two groups, a K over several slices, oc not a
  // multiple of the panel rows.
  const std::vector<Conv2dShape> in_place = {
      shape(1, 40, 2, 2, 48, 3, 1, 1),       shape(1, 24, 6, 6, 37, 3, 2, 1),
      shape(1, 16, 3, 3, 20, 3, 1, 2, 2),    shape(1, 12, 4, 4, 40, 3, 1, 1, 1, 2),
      shape(2, 8, 3, 3, 19, 3, 1, 1),        shape(1, 300, 4, 4, 33, 1, 1, 0),
      shape(2, 12, 2, 3, 26, 1, 1, 0, 1, 2), shape(1, 130, 3, 3, 9, 3, 1, 1),
  };
  for (const Conv2dShape& s : in_place) {
    ASSERT_TRUE(s.valid()) << describe(s);
    EXPECT_TRUE(conv2d_weights_read_in_place(s)) << describe(s);
    const Operands o(s, 5);
    const auto& [in, w, bias, residual] = o;
    const int64_t out_numel = s.n * s.oc * s.oh() * s.ow();
    const auto scale = random_vector(s.n * s.c, 9);
    for (bool fused : {false, true}) {
      GemmEpilogue e;
      if (fused) e = epilogue_of(bias, residual.data(), Activation::Relu);
      Aligned scratch(conv2d_scratch_bytes(s, false));
      std::vector<float> out(static_cast<size_t>(out_numel), 99.0f);
      ASSERT_TRUE(conv2d(s, in.data(), w.data(), nullptr, e, out.data(), scratch.ptr,
                         fused ? scale.data() : nullptr))
          << describe(s);
      // The input scale is the same as convolving the scaled input.
      std::vector<float> scaled = in;
      for (size_t i = 0; fused && i < scaled.size(); ++i) {
        scaled[i] *= scale[i / static_cast<size_t>(s.h * s.w)];
      }
      const auto ref = reference(s, scaled, w, fused ? bias : std::vector<float>{},
                                 fused ? residual : std::vector<float>{}, fused);
      for (size_t i = 0; i < out.size(); ++i) {
        ASSERT_NEAR(out[i], ref[i], 1e-4) << describe(s) << (fused ? " fused" : "") << " at " << i;
      }
    }
  }
  // Packed where the weights are fewer than the pixels, or the pixels more than a few (7x7),
  // or the taps mostly padding (3x3 with dilation 4 on a 4x4 map: a quarter of them live), and
  // for depthwise layers.
  EXPECT_FALSE(conv2d_weights_read_in_place(shape(1, 16, 20, 20, 33, 3, 1, 1)));
  EXPECT_FALSE(conv2d_weights_read_in_place(shape(1, 8, 7, 7, 64, 3, 1, 1)));
  EXPECT_FALSE(conv2d_weights_read_in_place(shape(2, 8, 4, 4, 20, 3, 1, 1)));
  EXPECT_FALSE(conv2d_weights_read_in_place(shape(1, 16, 4, 4, 64, 3, 1, 4, 4)));
  EXPECT_FALSE(conv2d_weights_read_in_place(shape(1, 64, 2, 2, 64, 3, 1, 1, 1, 64)));
}

TEST_P(Conv2d, SmallGroupsSpreadOverWorkersGiveTheSameResult) {
  for (const Conv2dShape& s :
       {shape(2, 32, 12, 11, 32, 3, 1, 1, 1, 8), shape(1, 64, 9, 9, 64, 3, 2, 1, 1, 16),
        shape(1, 12, 7, 7, 6, 3, 1, 1, 1, 3), shape(2, 8, 10, 10, 16, 5, 1, 2, 2, 2)}) {
    ASSERT_TRUE(conv2d_groups_serial(s)) << describe(s);
    const Operands o(s, 31);
    const auto& [in, w, bias, residual] = o;
    const int64_t out_numel = s.n * s.oc * s.oh() * s.ow();
    const GemmEpilogue e = epilogue_of(bias, residual.data(), Activation::Relu);
    Aligned packed(conv2d_packed_weights_bytes(s, ConvRows::Channels));
    conv2d_pack_weights(s, w.data(), packed.ptr, ConvRows::Channels);
    std::vector<float> one(static_cast<size_t>(out_numel));
    Aligned scratch1(conv2d_scratch_bytes(s, true, ConvRows::Channels, 1));
    ASSERT_TRUE(conv2d(s, in.data(), w.data(), packed.ptr, e, one.data(), scratch1.ptr, nullptr,
                       DepthwisePath::Auto, ConvRows::Channels, {}, 1));
    for (int64_t workers : {2, 3, 64}) {
      EXPECT_GT(conv2d_scratch_bytes(s, true, ConvRows::Channels, workers),
                conv2d_scratch_bytes(s, true, ConvRows::Channels, 1));
      Aligned scratch(conv2d_scratch_bytes(s, true, ConvRows::Channels, workers));
      std::vector<float> got(static_cast<size_t>(out_numel), 99.0f);
      ASSERT_TRUE(conv2d(s, in.data(), w.data(), packed.ptr, e, got.data(), scratch.ptr, nullptr,
                         DepthwisePath::Auto, ConvRows::Channels, {}, workers));
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], one[i]) << describe(s) << " " << workers << " workers at " << i;
      }
    }
  }
  const Conv2dShape large = shape(1, 64, 56, 56, 64, 3, 1, 1, 1, 2);
  EXPECT_FALSE(conv2d_groups_serial(large));
  EXPECT_EQ(conv2d_scratch_bytes(large, true, ConvRows::Channels, 4),
            conv2d_scratch_bytes(large, true, ConvRows::Channels, 1));
}

TEST_P(Conv2d, RefusesInvalidShapesAndMissingScratch) {
  Conv2dShape s = shape(1, 6, 8, 8, 4, 3, 1, 1, 1, 4);  // 6 channels in 4 groups
  EXPECT_FALSE(s.valid());
  std::vector<float> buf(1024);
  EXPECT_FALSE(conv2d(s, buf.data(), buf.data(), nullptr, {}, buf.data(), nullptr));
  s = shape(1, 2, 2, 2, 2, 5, 1, 0);  // kernel larger than the padded input
  EXPECT_FALSE(s.valid());
  s = shape(1, 2, 8, 8, 2, 3, 1, 1);
  ASSERT_TRUE(s.valid());
  ASSERT_GT(conv2d_scratch_bytes(s, false), 0u);
  EXPECT_FALSE(conv2d(s, buf.data(), buf.data(), nullptr, {}, buf.data(), nullptr));
}

// Every depthwise path, chosen explicitly, matches the reference where it applies (Flat and
// Channels fall back to Rows where they do not).
TEST_P(Conv2d, DepthwisePathsAgree) {
  struct Case {
    Conv2dShape s;
    bool flat;
    bool channels = true;
  };
  Conv2dShape one_by_three = shape(1, 19, 6, 10, 19, 1, 1, 0, 1, 19);
  one_by_three.kw = 3;
  one_by_three.pw = 1;
  one_by_three.sw = 2;
  for (const Case& c : {
           // The channel-interleaved path: channels in several blocks and a partial one (37),
           // channel multiplier 2 with batch 2 at stride 2, a 7x7 kernel and a 1x3 kernel with
           // unequal strides (no compile-time kernel), planes of fewer pixels than a block
           // (3x4 in, 3x4 and 2x2 out), a plane in several bands.
           Case{shape(1, 37, 7, 7, 37, 3, 1, 1, 1, 37), true},
           Case{shape(2, 20, 14, 14, 40, 3, 2, 1, 1, 20), true},
           Case{shape(1, 18, 9, 9, 18, 7, 1, 3, 1, 18), false}, Case{one_by_three, false},
           Case{shape(1, 17, 3, 4, 17, 3, 1, 1, 1, 17), true},
           Case{shape(1, 17, 3, 4, 17, 3, 2, 1, 1, 17), true},
           Case{shape(1, 16, 30, 30, 16, 5, 1, 2, 1, 16), true},
           Case{shape(2, 8, 9, 7, 8, 3, 1, 1, 1, 8), true},
           Case{shape(2, 4, 12, 9, 4, 5, 1, 2, 1, 4), true},
           Case{shape(1, 4, 15, 15, 4, 3, 1, 2, 2, 4), true},  // dilated
           // Dilated rows wide enough for whole 16-output blocks, at stride 1 and 2.
           Case{shape(1, 2, 9, 40, 2, 3, 1, 2, 2, 2), true},
           // (Too wide for the interleaved band: 9 padded rows of 83 pixels.)
           Case{shape(1, 2, 9, 75, 2, 5, 2, 4, 2, 2), true, false},
           Case{shape(1, 4, 10, 10, 8, 3, 2, 1, 1, 4), true},  // stride 2, channel multiplier 2
           // Stride 2: odd and even padded sizes, 5x5, dilation (taps in every phase), a single
           // output row.
           Case{shape(2, 3, 11, 13, 3, 5, 2, 2, 1, 3), true},
           Case{shape(1, 2, 14, 9, 2, 3, 2, 0, 1, 2), true},
           Case{shape(1, 2, 13, 12, 2, 3, 2, 2, 2, 2), true},
           Case{shape(1, 2, 3, 40, 2, 5, 2, 1, 1, 2), true},
           // Padding wider than a 16-float block, at stride 1 and 2; planes narrower than a block
           // (the last rows are copied element by element: nothing past the input is read).
           Case{shape(1, 2, 6, 5, 2, 3, 1, 20, 1, 2), true},
           Case{shape(2, 3, 7, 9, 3, 5, 2, 17, 1, 3), true},
           Case{shape(2, 3, 5, 3, 3, 3, 1, 1, 1, 3), true},
           Case{shape(1, 5, 4, 7, 5, 3, 2, 1, 1, 5), true},
           // Planes larger than one band of the flat path: stride 1 and stride 2, 3x3 and 5x5.
           Case{shape(1, 2, 70, 66, 2, 3, 1, 1, 1, 2), true},
           Case{shape(1, 2, 70, 66, 2, 5, 2, 2, 1, 2), true},
           Case{shape(2, 2, 131, 37, 2, 5, 1, 2, 1, 2), true},
           // Rows too wide for a band of one output row: stride 1 and stride 2.
           Case{shape(1, 2, 4, 2100, 2, 3, 1, 1, 1, 2), false, false},
           Case{shape(1, 2, 5, 1100, 2, 3, 2, 1, 1, 2), false, false},
           Case{shape(1, 2, 10, 10, 2, 3, 3, 1, 1, 2), false},  // stride 3
       }) {
    const Conv2dShape& s = c.s;
    const auto in = random_vector(s.n * s.c * s.h * s.w, 1);
    const auto w = random_vector(s.oc * s.kh * s.kw, 2);
    const auto ref = reference(s, in, w, {}, {}, false);
    EXPECT_EQ(depthwise_flat_applies(s), c.flat) << describe(s);
    EXPECT_EQ(depthwise_channels_applies(s), c.channels) << describe(s);
    for (DepthwisePath path : {DepthwisePath::Rows, DepthwisePath::Flat, DepthwisePath::Channels}) {
      std::vector<float> out(ref.size(), 99.0f);
      ASSERT_TRUE(conv2d(s, in.data(), w.data(), nullptr, {}, out.data(), nullptr, nullptr, path));
      for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], ref[i], 1e-4) << describe(s);
    }
  }
}

// The depthwise paths apply bias, residual (or none) and activations as activate() does, NaN
// included (Relu gives 0, Clamp passes it): the clamps as they store, others after a row or a
// band, on rows of whole 16-output blocks, a last block that overlaps the one before, fewer than
// 16 inside columns, at stride 2 and over several flat bands; interleaved, with the residual
// where the outputs are stored and without it in the interleaved buffer.
TEST_P(Conv2d, DepthwiseEpilogueTreatsNaNAsActivateDoes) {
  for (const Conv2dShape& s :
       {shape(1, 3, 6, 70, 3, 3, 1, 1, 1, 3), shape(1, 2, 7, 43, 2, 3, 1, 1, 1, 2),
        shape(1, 2, 9, 12, 2, 5, 1, 2, 1, 2), shape(1, 3, 8, 75, 3, 3, 2, 1, 1, 3),
        shape(1, 2, 90, 50, 2, 3, 1, 1, 1, 2),  // in several flat bands
        shape(1, 19, 9, 9, 19, 3, 1, 1, 1, 19), shape(1, 2, 3, 4, 2, 3, 1, 1, 1, 2)}) {
    auto in = random_vector(s.n * s.c * s.h * s.w, 5);
    in[static_cast<size_t>(s.h / 2 * s.w + s.w / 2)] = std::numeric_limits<float>::quiet_NaN();
    const auto w = random_vector(s.oc * s.kh * s.kw, 6);
    const auto bias = random_vector(s.oc, 7);
    const int64_t out_numel = s.n * s.oc * s.oh() * s.ow();
    const auto residual = random_vector(out_numel, 8);
    for (bool with_residual : {true, false}) {
      const auto ref = reference(s, in, w, bias, with_residual ? residual : std::vector<float>{},
                                 false);  // bias (+ residual), no relu
      for (Activation act : {Activation::None, Activation::Relu, Activation::Clamp,
                             Activation::Silu, Activation::HardSwish}) {
        const GemmEpilogue e = epilogue_of(bias, with_residual ? residual.data() : nullptr, act);
        for (DepthwisePath path :
             {DepthwisePath::Rows, DepthwisePath::Flat, DepthwisePath::Channels}) {
          std::vector<float> out(ref.size(), 99.0f);
          ASSERT_TRUE(
              conv2d(s, in.data(), w.data(), nullptr, e, out.data(), nullptr, nullptr, path));
          int nans = 0;
          for (size_t i = 0; i < out.size(); ++i) {
            const float want = activate(static_cast<float>(ref[i]), act, e.clamp_min, e.clamp_max);
            if (std::isnan(want)) {
              ++nans;
              ASSERT_TRUE(std::isnan(out[i]))
                  << describe(s) << " activation " << int(act) << " at " << i;
            } else {
              ASSERT_NEAR(out[i], want, 1e-4)
                  << describe(s) << " activation " << int(act) << " at " << i;
            }
          }
          EXPECT_EQ(nans > 0, act != Activation::Relu) << describe(s);
        }
      }
    }
  }
}

// The direct path (dense convolutions other than unpadded stride-1 pointwise ones) applies bias,
// residual (or none) and every activation as activate() does, NaN included, as it copies the
// valid columns out of its flat result; so does the pixel-rows path (transposing its tiles, the
// activations other than clamps before that without a residual, after it with one).
TEST_P(Conv2d, DirectEpilogueAppliesEveryActivationAsActivateDoes) {
  // Small shapes (stride 1 and 2, a 1x1 at stride 2), K = 576 in several slices over two B
  // panels (the GEMM's A-panel-major order; 7 x 7 outputs: 7-row pixel panels with AVX-512, 5-row
  // ones with AVX2), and stems whose flat result (over 2 MB) is larger than half of L2, stored tile
  // by tile through the GEMM's column map; a pointwise one.
  for (const Conv2dShape& s :
       {shape(1, 5, 9, 11, 6, 3, 1, 1), shape(2, 4, 10, 13, 9, 3, 2, 1),
        shape(1, 3, 8, 8, 5, 1, 2, 0), shape(1, 64, 7, 7, 20, 3, 1, 1),
        shape(1, 3, 120, 120, 40, 3, 1, 1), shape(1, 3, 230, 230, 40, 3, 2, 1),
        shape(1, 33, 7, 9, 40, 1, 1, 0)}) {
    for (ConvRows rows : {ConvRows::Channels, ConvRows::Pixels}) {
      auto in = random_vector(s.n * s.c * s.h * s.w, 9);
      in[static_cast<size_t>(s.h / 2 * s.w + s.w / 2)] = std::numeric_limits<float>::quiet_NaN();
      const auto w = random_vector(s.oc * s.c_per_group() * s.kh * s.kw, 10);
      const auto bias = random_vector(s.oc, 11);
      const int64_t out_numel = s.n * s.oc * s.oh() * s.ow();
      const auto residual = random_vector(out_numel, 12);
      Aligned packed(conv2d_packed_weights_bytes(s, rows));
      conv2d_pack_weights(s, w.data(), packed.ptr, rows);
      Aligned scratch(conv2d_scratch_bytes(s, true, rows));
      const auto sums = reference(s, in, w, bias, {}, false);
      for (bool with_residual : {false, true}) {
        for (Activation act :
             {Activation::None, Activation::Relu, Activation::Clamp, Activation::Sigmoid,
              Activation::Tanh, Activation::HardSwish, Activation::Gelu, Activation::Silu}) {
          const GemmEpilogue e = epilogue_of(bias, with_residual ? residual.data() : nullptr, act);
          std::vector<float> out(sums.size(), 99.0f);
          ASSERT_TRUE(conv2d(s, in.data(), w.data(), packed.ptr, e, out.data(), scratch.ptr,
                             nullptr, DepthwisePath::Auto, rows));
          const char* path = rows == ConvRows::Pixels ? " pixel rows" : "";
          int nans = 0;
          for (size_t i = 0; i < out.size(); ++i) {
            const double v = with_residual ? sums[i] + residual[i] : sums[i];
            const float want = activate(static_cast<float>(v), act, e.clamp_min, e.clamp_max);
            if (std::isnan(want)) {
              ++nans;
              ASSERT_TRUE(std::isnan(out[i])) << describe(s) << " activation " << int(act) << path;
            } else {
              ASSERT_NEAR(out[i], want, 1e-4) << describe(s) << " activation " << int(act) << path
                                              << (with_residual ? " residual" : "") << " at " << i;
            }
          }
          EXPECT_EQ(nans > 0, act != Activation::Relu) << describe(s) << " activation " << int(act);
        }
      }
    }
  }
}

// An input scale (N x C) gives what the convolution of the scaled input gives, for the pointwise,
// im2col (grouped, strided), pixel-rows and Winograd paths; a depthwise convolution refuses it.
TEST_P(Conv2d, InputScaleEqualsConvolvingTheScaledInput) {
  for (const Conv2dShape& s : {shape(2, 12, 7, 9, 10, 1, 1, 0), shape(2, 6, 9, 8, 9, 3, 2, 1, 1, 3),
                               shape(1, 5, 11, 11, 7, 5, 1, 2), shape(2, 17, 13, 11, 19, 3, 1, 1),
                               shape(2, 24, 1, 1, 40, 1, 1, 0)}) {
    const auto in = random_vector(s.n * s.c * s.h * s.w, 1);
    const auto w = random_vector(s.oc * s.c_per_group() * s.kh * s.kw, 2);
    const auto scale = random_vector(s.n * s.c, 3);
    std::vector<float> scaled = in;
    for (size_t i = 0; i < scaled.size(); ++i) {
      scaled[i] *= scale[i / static_cast<size_t>(s.h * s.w)];  // (image, channel) of element i
    }
    const int64_t out_numel = s.n * s.oc * s.oh() * s.ow();
    std::vector<float> want(static_cast<size_t>(out_numel)), got(want.size());
    for (ConvRows rows : {ConvRows::Channels, ConvRows::Pixels}) {
      Aligned packed(conv2d_packed_weights_bytes(s, rows));
      conv2d_pack_weights(s, w.data(), packed.ptr, rows);
      Aligned scratch(conv2d_scratch_bytes(s, true, rows));
      ASSERT_TRUE(conv2d(s, scaled.data(), w.data(), packed.ptr, {}, want.data(), scratch.ptr,
                         nullptr, DepthwisePath::Auto, rows));
      ASSERT_TRUE(conv2d(s, in.data(), w.data(), packed.ptr, {}, got.data(), scratch.ptr,
                         scale.data(), DepthwisePath::Auto, rows))
          << describe(s);
      for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-5) << describe(s);
    }
    if (!winograd_applies(s)) continue;
    for (WinogradVariant v : {WinogradVariant::F2x2, WinogradVariant::F4x4}) {
      Aligned wpacked(winograd_packed_weights_bytes(s, v));
      winograd_pack_weights(s, v, w.data(), wpacked.ptr);
      Aligned wscratch(winograd_scratch_bytes(s, v, 0, 2));  // two workers, two scaled images
      ASSERT_TRUE(conv2d_winograd(s, v, in.data(), wpacked.ptr, {}, got.data(), 0, wscratch.ptr,
                                  scale.data(), 2));
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], 1e-3) << describe(s) << " " << to_string(v);
      }
    }
  }
  const Conv2dShape depthwise = shape(1, 4, 6, 6, 4, 3, 1, 1, 1, 4);
  std::vector<float> buf(1024, 1.0f);
  EXPECT_FALSE(
      conv2d(depthwise, buf.data(), buf.data(), nullptr, {}, buf.data(), nullptr, buf.data()));
}

// Every case once per Winograd variant.
template <typename Case>
std::vector<std::pair<Case, WinogradVariant>> cases_by_variant(const std::vector<Case>& cases) {
  std::vector<std::pair<Case, WinogradVariant>> out;
  for (const Case& c : cases) {
    for (WinogradVariant v : {WinogradVariant::F2x2, WinogradVariant::F4x4}) out.push_back({c, v});
  }
  return out;
}

// Winograd F(2x2, 3x3) and F(4x4, 3x3) against the direct reference: odd and even output sizes
// (partial tiles), padding 0 / 1 / larger than the kernel, batch 2, channel counts that are not
// multiples of the microkernel's panels, several passes with the last one partial, and chosen
// chunks.
TEST_P(Conv2d, WinogradMatchesDirectReference) {
  struct Case {
    Conv2dShape s;
    int64_t chunk;
  };
  const std::vector<Case> cases = {
      {shape(1, 3, 9, 9, 8, 3, 1, 1), 0},           // odd output: partial tiles at the edges
      {shape(2, 5, 8, 12, 7, 3, 1, 1), 0},          // batch 2, non-square
      {shape(1, 4, 6, 7, 5, 3, 1, 0), 0},           // no padding: 4x5 output
      {shape(1, 2, 3, 3, 3, 3, 1, 4), 0},           // padding larger than the kernel
      {shape(1, 3, 1, 1, 4, 3, 1, 1), 0},           // 1x1 image
      {shape(1, 64, 40, 37, 9, 3, 1, 1), 0},        // several passes
      {shape(1, 17, 23, 19, 33, 3, 1, 1), 16},      // chosen chunk: many passes, the last partial
      {shape(1, 17, 23, 19, 33, 3, 1, 1), 20},      // a chunk that is not a multiple of nr
      {shape(1, 17, 23, 19, 33, 3, 1, 1), 100000},  // larger than the image: one pass
  };
  for (const auto& [c, v] : cases_by_variant(cases)) {
    const Conv2dShape& s = c.s;
    ASSERT_TRUE(winograd_applies(s)) << describe(s);
    const auto in = random_vector(s.n * s.c * s.h * s.w, 1);
    const auto w = random_vector(s.oc * s.c * 9, 2);
    const auto bias = random_vector(s.oc, 3);
    const int64_t out_numel = s.n * s.oc * s.oh() * s.ow();
    const auto residual = random_vector(out_numel, 4);
    Aligned packed(winograd_packed_weights_bytes(s, v));
    winograd_pack_weights(s, v, w.data(), packed.ptr);
    // One worker, and three (the passes split among up to three threads, one slot each).
    for (int64_t workers : {1, 3}) {
      Aligned scratch(winograd_scratch_bytes(s, v, c.chunk, workers));
      const auto sums = reference(s, in, w, bias, {}, false);
      // Nothing fused; then bias + residual + relu, bias + residual + clamp (applied as the tiles
      // are stored), bias + GELU and bias + residual + SiLU (run over each stored row).
      struct Epilogue {
        bool fused;
        bool with_residual;
        Activation act;
      };
      for (const Epilogue& ep :
           {Epilogue{false, false, Activation::None}, Epilogue{true, true, Activation::Relu},
            Epilogue{true, true, Activation::Clamp}, Epilogue{true, false, Activation::Gelu},
            Epilogue{true, true, Activation::Silu}}) {
        GemmEpilogue e;
        if (ep.fused) e = epilogue_of(bias, ep.with_residual ? residual.data() : nullptr, ep.act);
        std::vector<float> out(static_cast<size_t>(out_numel), 99.0f);
        ASSERT_TRUE(conv2d_winograd(s, v, in.data(), packed.ptr, e, out.data(), c.chunk,
                                    scratch.ptr, nullptr, workers))
            << describe(s);
        const auto plain = ep.fused ? std::vector<double>{} : reference(s, in, w, {}, {}, false);
        // |error| grows with the number of products summed: F(2x2) 1e-4 per 9 x C terms of size
        // <= 1, F(4x4) (transforms scaling by up to 8, weights by 1/24) ten times that.
        const double per_term = v == WinogradVariant::F4x4 ? 1e-4 : 1e-5;
        const double tol = per_term * static_cast<double>(9 * s.c);
        for (size_t i = 0; i < out.size(); ++i) {
          const double want =
              ep.fused
                  ? activate(static_cast<float>(ep.with_residual ? sums[i] + residual[i] : sums[i]),
                             ep.act, e.clamp_min, e.clamp_max)
                  : plain[i];
          ASSERT_NEAR(out[i], want, tol)
              << describe(s) << " " << to_string(v) << " chunk " << c.chunk << " workers "
              << workers << " activation " << int(ep.act) << " at " << i;
        }
      }
    }
  }
}

TEST_P(Conv2d, WinogradRefusesShapesItDoesNotCompute) {
  std::vector<float> buf(4096);
  const Conv2dShape ok = shape(1, 2, 8, 8, 2, 3, 1, 1);
  ASSERT_TRUE(winograd_applies(ok));
  for (const Conv2dShape& s : {shape(1, 4, 10, 10, 6, 3, 2, 1), shape(1, 4, 9, 9, 5, 3, 1, 2, 2),
                               shape(1, 6, 8, 8, 4, 3, 1, 1, 1, 2), shape(1, 3, 9, 9, 8, 5, 1, 2),
                               shape(1, 3, 9, 9, 8, 1, 1, 0)}) {
    EXPECT_FALSE(winograd_applies(s)) << describe(s);
    EXPECT_FALSE(winograd_preferred(s)) << describe(s);
    for (WinogradVariant v : {WinogradVariant::F2x2, WinogradVariant::F4x4}) {
      EXPECT_EQ(winograd_scratch_bytes(s, v, 0), 0u) << describe(s);
      EXPECT_FALSE(conv2d_winograd(s, v, buf.data(), buf.data(), {}, buf.data(), 0, buf.data()))
          << describe(s);
    }
  }
  for (WinogradVariant v : {WinogradVariant::F2x2, WinogradVariant::F4x4}) {
    EXPECT_FALSE(conv2d_winograd(ok, v, buf.data(), buf.data(), {}, buf.data(), 0, nullptr));
    EXPECT_FALSE(conv2d_winograd(ok, v, buf.data(), buf.data(), {}, buf.data(), -1, buf.data()));
    EXPECT_FALSE(conv2d_winograd(ok, v, buf.data(), buf.data(), {}, buf.data(), 0, buf.data(),
                                 nullptr, 0));  // no worker
    EXPECT_EQ(winograd_scratch_bytes(ok, v, 0, 0), 0u);
  }
}

// N x C x H x W planes into blocks of b channels (conv2d.h's blocked layout), or (`back`) blocks
// into planes.
std::vector<float> reblock(const std::vector<float>& values, int64_t n, int64_t c, int64_t hw,
                           int64_t b, bool back = false) {
  std::vector<float> out(values.size());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t x = 0; x < hw; ++x) {
        const auto planar = static_cast<size_t>((i * c + ch) * hw + x);
        const auto blocked = static_cast<size_t>(((i * c / b + ch / b) * hw + x) * b + ch % b);
        if (back) {
          out[planar] = values[blocked];
        } else {
          out[blocked] = values[planar];
        }
      }
    }
  }
  return out;
}

// A blocked input or output (conv2d.h) gives the planar result in blocks: output pixels as rows
// (pointwise with batch 2 and K over several slices, strided 1x1, 3x3 unpadded on a 7x7 output)
// and the channel-interleaved depthwise path (stride 1 and 2, 5x5, a plane of several bands), with
// a clamp and with GELU.
// Paths and epilogues that cannot take blocks refuse them.
TEST_P(Conv2d, BlockedLayoutsMatchPlanes) {
  const int64_t b = blocked_channels();
  ASSERT_EQ(b, gemm_tile(active_gemm_isa()).nr / 2);
  for (const Conv2dShape& s :
       {shape(2, 32, 7, 9, 48, 1, 1, 0), shape(1, 160, 6, 6, 32, 1, 1, 0),
        shape(1, 16, 12, 12, 32, 1, 2, 0), shape(1, 32, 9, 9, 16, 3, 1, 0),
        shape(2, 32, 14, 14, 32, 3, 1, 1, 1, 32), shape(1, 48, 13, 13, 48, 3, 2, 1, 1, 48),
        shape(1, 32, 10, 10, 32, 5, 1, 2, 1, 32), shape(1, 16, 40, 40, 16, 3, 1, 1, 1, 16),
        // Depthwise layers read in place: 5x5 stride 2 on a non-square odd plane, planes
        // narrower than the kernel, no padding, one pixel; a dilated one packs its blocks.
        shape(1, 32, 11, 9, 32, 5, 2, 2, 1, 32), shape(2, 16, 2, 3, 16, 3, 1, 1, 1, 16),
        shape(1, 32, 9, 9, 32, 3, 2, 0, 1, 32), shape(1, 16, 1, 1, 16, 3, 2, 1, 1, 16),
        shape(1, 16, 4, 4, 16, 5, 1, 2, 1, 16), shape(1, 32, 12, 12, 32, 3, 1, 2, 2, 32),
        // One pixel: the blocks are the plain channels.
        shape(2, 32, 1, 1, 48, 1, 1, 0)}) {
    const ConvRows rows = ConvRows::Pixels;
    const DepthwisePath path = DepthwisePath::Channels;
    ASSERT_TRUE(conv2d_reads_blocked(s, path, rows)) << describe(s);
    ASSERT_TRUE(conv2d_writes_blocked(s, path, rows)) << describe(s);
    const int64_t hw = s.h * s.w, ohw = s.oh() * s.ow();
    const auto in = random_vector(s.n * s.c * hw, 21);
    const auto w = random_vector(s.oc * s.c_per_group() * s.kh * s.kw, 22);
    const auto bias = random_vector(s.oc, 23);
    Aligned packed(conv2d_packed_weights_bytes(s, rows));
    conv2d_pack_weights(s, w.data(), packed.ptr, rows);
    Aligned scratch(conv2d_scratch_bytes(s, true, rows));
    const float* pw = s.depthwise() ? nullptr : packed.ptr;
    for (Activation act : {Activation::Clamp, Activation::Gelu, Activation::Silu}) {
      const GemmEpilogue e = epilogue_of(bias, nullptr, act);
      std::vector<float> want(static_cast<size_t>(s.n * s.oc * ohw));
      ASSERT_TRUE(
          conv2d(s, in.data(), w.data(), pw, e, want.data(), scratch.ptr, nullptr, path, rows));
      const auto in_blocks = reblock(in, s.n, s.c, hw, b);
      for (ConvLayouts layouts :
           {ConvLayouts{true, false}, ConvLayouts{false, true}, ConvLayouts{true, true}}) {
        std::vector<float> got(want.size(), 99.0f);
        ASSERT_TRUE(conv2d(s, layouts.input_blocked ? in_blocks.data() : in.data(), w.data(), pw, e,
                           got.data(), scratch.ptr, nullptr, path, rows, layouts))
            << describe(s);
        if (layouts.output_blocked) got = reblock(got, s.n, s.oc, ohw, b, true);
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_NEAR(got[i], want[i], 1e-5)
              << describe(s) << " activation " << int(act) << " blocked in/out "
              << layouts.input_blocked << layouts.output_blocked << " at " << i;
        }
      }
    }
  }
  // Auto runs depthwise layers channel-interleaved on small planes, and at any size for kernels
  // the plane paths have no vector kernel for (7x7); 3x3 on wide planes stays on the planes.
  EXPECT_TRUE(depthwise_channels_preferred(shape(1, 48, 32, 32, 48, 7, 1, 3, 1, 48)));
  EXPECT_TRUE(depthwise_channels_preferred(shape(1, 48, 14, 14, 48, 3, 1, 1, 1, 48)));
  EXPECT_FALSE(depthwise_channels_preferred(shape(1, 48, 56, 56, 48, 3, 1, 1, 1, 48)));
  // Refused: a residual with a blocked output, a padded pixel-rows input, channel counts that
  // are not whole blocks, the per-plane depthwise paths.
  const Conv2dShape padded = shape(1, 32, 9, 9, 32, 3, 1, 1);
  EXPECT_FALSE(conv2d_reads_blocked(padded, DepthwisePath::Auto, ConvRows::Pixels));
  EXPECT_TRUE(conv2d_writes_blocked(padded, DepthwisePath::Auto, ConvRows::Pixels));
  EXPECT_FALSE(conv2d_writes_blocked(shape(1, 32, 9, 9, 3 * b / 2, 1, 1, 0), DepthwisePath::Auto,
                                     ConvRows::Pixels));
  EXPECT_FALSE(conv2d_reads_blocked(shape(1, 32, 70, 70, 32, 3, 1, 1, 1, 32), DepthwisePath::Rows,
                                    ConvRows::Auto));
  const Conv2dShape pointwise = shape(1, 32, 7, 7, 32, 1, 1, 0);
  const auto x = random_vector(32 * 49, 24);
  const auto bias = random_vector(32, 25);
  Aligned scratch(conv2d_scratch_bytes(pointwise, false, ConvRows::Pixels));
  std::vector<float> out(32 * 49);
  const GemmEpilogue with_residual = epilogue_of(bias, x.data(), Activation::Relu);
  EXPECT_FALSE(conv2d(pointwise, x.data(), x.data(), nullptr, with_residual, out.data(),
                      scratch.ptr, nullptr, DepthwisePath::Auto, ConvRows::Pixels,
                      ConvLayouts{false, true}));
  EXPECT_FALSE(conv2d(padded, x.data(), x.data(), nullptr, {}, out.data(), scratch.ptr, nullptr,
                      DepthwisePath::Auto, ConvRows::Pixels, ConvLayouts{true, false}));
}

// The default choice follows the measured thresholds: F(4x4) from c oc / (c + oc) = 24 and 7 x 7
// of its tiles, F(2x2) from 64 and 32 of its tiles, else the direct convolution.
// Auto takes output pixels as rows where the channel-major product's columns waste more (small
// planes, strided 3x3 layers), with every microkernel's panels; not for large stride-1 pointwise
// planes, nor for few output channels (a fraction of a panel) or groups.
TEST_P(Conv2d, PixelRowsPreferredWhereTheColumnsWasteMore) {
  EXPECT_TRUE(conv2d_pixels_preferred(shape(1, 512, 7, 7, 512, 3, 1, 1)));
  EXPECT_TRUE(conv2d_pixels_preferred(shape(1, 64, 13, 13, 256, 3, 1, 1)));
  EXPECT_TRUE(conv2d_pixels_preferred(shape(1, 960, 7, 7, 160, 1, 1, 0)));
  EXPECT_TRUE(conv2d_pixels_preferred(shape(1, 128, 28, 28, 256, 3, 2, 1)));
  EXPECT_FALSE(conv2d_pixels_preferred(shape(1, 24, 56, 56, 144, 1, 1, 0)));
  EXPECT_FALSE(conv2d_pixels_preferred(shape(1, 128, 13, 13, 4, 1, 1, 0)));
  EXPECT_FALSE(conv2d_pixels_preferred(shape(1, 64, 7, 7, 64, 3, 1, 1, 1, 2)));
  EXPECT_FALSE(conv2d_pixels_applies(shape(1, 64, 7, 7, 64, 3, 1, 1, 1, 64)));
  // Strided 1x1: Pixels at equal rows while the input fits in L2 (0.6 MB), not past it (3.2 MB).
  EXPECT_TRUE(conv2d_pixels_preferred(shape(1, 64, 48, 48, 128, 1, 2, 0)));
  EXPECT_FALSE(conv2d_pixels_preferred(shape(1, 256, 56, 56, 512, 1, 2, 0)));
}

TEST(WinogradPreferred, PicksTheVariantByChannelsAndTiles) {
  auto pick = [](int64_t c, int64_t hw, int64_t oc) {
    const Conv2dShape s = shape(1, c, hw, hw, oc, 3, 1, 1);
    WinogradVariant v = WinogradVariant::F2x2;
    if (!winograd_preferred(s, &v)) return std::string("direct");
    return std::string(to_string(v));
  };
  EXPECT_EQ(pick(128, 28, 128), "F(4x4, 3x3)");
  EXPECT_EQ(pick(96, 28, 96), "F(4x4, 3x3)");
  EXPECT_EQ(pick(256, 14, 256), "F(2x2, 3x3)");
  EXPECT_EQ(pick(512, 7, 512), "direct");
  EXPECT_EQ(pick(64, 56, 64), "F(4x4, 3x3)");
  EXPECT_EQ(pick(48, 56, 48), "F(4x4, 3x3)");
  EXPECT_EQ(pick(32, 56, 32), "F(4x4, 3x3)");
  EXPECT_EQ(pick(32, 104, 64), "F(4x4, 3x3)");
  EXPECT_EQ(pick(16, 55, 64), "direct");  // too few channels for the transforms to pay
  EXPECT_EQ(pick(16, 112, 16), "direct");
  EXPECT_EQ(pick(128, 14, 128), "F(2x2, 3x3)");
  EXPECT_EQ(pick(96, 14, 96), "direct");  // too few channels for F(2x2), too few tiles for F(4x4)
  // F(2x2)'s transformed weights over 6 MiB: 16 x 256 x 512 floats are 8 MiB.
  EXPECT_EQ(pick(256, 13, 512), "direct");
  EXPECT_EQ(pick(512, 14, 512), "direct");
  EXPECT_EQ(pick(256, 13, 320), "F(2x2, 3x3)");  // 5 MiB
}

INSTANTIATE_TEST_SUITE_P(IsaThreads, Conv2d,
                         ::testing::Combine(::testing::Values(GemmIsa::Generic, GemmIsa::Avx2,
                                                              GemmIsa::Avx512),
                                            ::testing::Values(1, 2)),
                         [](const auto& p) {
                           return std::string(to_string(std::get<0>(p.param))) + "_" +
                                  std::to_string(std::get<1>(p.param)) + "threads";
                         });

}  // namespace
}  // namespace ptec::kernels::optimized
