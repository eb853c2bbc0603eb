#include "kernels/optimized/conv2d_depthwise_channels.h"

#include <algorithm>
#include <cstring>

#include "kernels/optimized/activation.h"
#include "kernels/optimized/gemm.h"
#include "kernels/optimized/lane_vectors.h"
#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

constexpr int64_t kMaxLanes = 16;     // channels per block: 16 with AVX-512, 8 with AVX2, else 4
constexpr int64_t kInFloats = 8192;   // a band's interleaved padded input rows (32 KiB)
constexpr int64_t kOutFloats = 4096;  // a band's interleaved outputs (16 KiB)
constexpr int64_t kMaxTaps = 64;

// A band of `rows` output rows reads (rows - 1) * sh + span padded input rows of `pitch` pixels.
struct Bands {
  int64_t pitch, span;
  int64_t rows;  // output rows per band; 0: not even one fits
};

Bands bands_of(const Conv2dShape& s, int64_t lanes) {
  Bands g{s.w + 2 * s.pw, (s.kh - 1) * s.dh + 1, 0};
  const int64_t in_rows = kInFloats / (g.pitch * lanes);
  const int64_t out_rows = kOutFloats / (s.ow() * lanes);
  if (in_rows < g.span || out_rows < 1) return g;
  g.rows = std::min({s.oh(), (in_rows - g.span) / s.sh + 1, out_rows});
  return g;
}

// One block of L output channels of one image: each lane's input, output and residual planes
// (lanes past the last channel are zero in the weights and bias and never stored), and its
// weights interleaved per tap.
template <int L>
struct Block {
  alignas(64) float w[kMaxTaps * L];  // w[t * L + lane]: tap t of the lane's channel
  alignas(64) float bias[L];
  const float* in[L];
  float* out[L];
  const float* res[L];  // null: no residual
  int64_t lanes;        // valid channels
  // The block's input and output where they are blocked (conv2d.h: its L channels side by side,
  // pixel after pixel, as the band buffers hold them), else null.
  const float* in_block = nullptr;
  float* out_block = nullptr;
};

// Padded input rows [r0, r0 + count) of the block into `buf`, interleaved: padded pixel x of row
// i holds the L lanes' values at buf[(i * pitch + x) * L, + L). The rows inside the input are one
// run of pixels per channel, transposed L pixels at a time into place.
template <int L>
__attribute__((always_inline)) inline void pack_rows(const Conv2dShape& s, const Bands& g,
                                                     const Block<L>& blk, int64_t r0, int64_t count,
                                                     float* buf) {
  using Vec = typename Lanes<L>::Vec;
  const Vec zero = {};
  int64_t first = -1, last = -1;  // the band rows inside the input
  for (int64_t i = 0; i < count; ++i) {
    float* row = buf + i * g.pitch * L;
    const int64_t iy = r0 + i - s.ph;
    if (iy < 0 || iy >= s.h) {
      for (int64_t x = 0; x < g.pitch; ++x) std::memcpy(row + x * L, &zero, sizeof(zero));
      continue;
    }
    if (first < 0) first = i;
    last = i;
    for (int64_t x = 0; x < s.pw; ++x) std::memcpy(row + x * L, &zero, sizeof(zero));
    for (int64_t x = s.pw + s.w; x < g.pitch; ++x) std::memcpy(row + x * L, &zero, sizeof(zero));
  }
  if (first < 0) return;
  const int64_t offset = (r0 + first - s.ph) * s.w;
  if (blk.in_block != nullptr) {  // already interleaved: a row at a time
    for (int64_t i = first; i <= last; ++i) {
      std::memcpy(buf + (i * g.pitch + s.pw) * L, blk.in_block + (offset + (i - first) * s.w) * L,
                  static_cast<size_t>(s.w * L) * sizeof(float));
    }
    return;
  }
  const float* run = nullptr;  // (per lane: blk.in[c] + offset)
  const int64_t pixels = (last - first + 1) * s.w;
  if (pixels < L) {  // a tiny plane: lane by lane
    for (int64_t c = 0; c < L; ++c) {
      run = c < blk.lanes ? blk.in[c] + offset : nullptr;
      for (int64_t p = 0; p < pixels; ++p) {
        buf[((first + p / s.w) * g.pitch + s.pw + p % s.w) * L + c] =
            run != nullptr ? run[p] : 0.0f;
      }
    }
    return;
  }
  // L pixels at a time; the last group is the L ending at the last pixel (some packed twice).
  for (int64_t g0 = 0; g0 < pixels; g0 += L) {
    const int64_t p0 = std::min(g0, pixels - L);
    Vec v[L];
    for (int64_t c = 0; c < L; ++c) {
      if (c < blk.lanes) {
        std::memcpy(&v[c], blk.in[c] + offset + p0, sizeof(Vec));
      } else {
        v[c] = zero;
      }
    }
    transpose<L>(v);
    int64_t y = first + p0 / s.w, x = p0 % s.w;
    for (int64_t j = 0; j < L; ++j) {
      std::memcpy(buf + (y * g.pitch + s.pw + x) * L, &v[j], sizeof(Vec));
      if (++x == s.w) {
        x = 0;
        ++y;
      }
    }
  }
}

// `rows` output rows from the packed band `buf` into `obuf` (interleaved like the input: output
// pixel i of the band at obuf[i * L, + L)), bias included, clamped when `clamp` is not null. K
// and S are the kernel size and stride as compile-time constants (undilated), or 0: the shape's.
template <int L, int K, int S>
__attribute__((always_inline)) inline void compute_rows(const Conv2dShape& s, const Bands& g,
                                                        const Block<L>& blk, const float* buf,
                                                        int64_t rows, const ClampBounds* clamp,
                                                        float* obuf) {
  using Vec = typename Lanes<L>::Vec;
  const int64_t kh = K > 0 ? K : s.kh, kw = K > 0 ? K : s.kw;
  const int64_t sh = S > 0 ? S : s.sh, sw = S > 0 ? S : s.sw;
  const int64_t dh = K > 0 ? 1 : s.dh, dw = K > 0 ? 1 : s.dw;
  const int64_t ow = s.ow();
  // The weights in registers where the kernel size is a constant.
  Vec wv[K > 0 ? K * K : 1];
  for (int t = 0; t < K * K; ++t) std::memcpy(&wv[t], blk.w + t * L, sizeof(Vec));
  Vec bias;
  std::memcpy(&bias, blk.bias, sizeof(bias));
  const VecClamp<Vec> clamped(clamp != nullptr ? *clamp : ClampBounds{});
  for (int64_t y = 0; y < rows; ++y) {
    const float* top = buf + y * sh * g.pitch * L;
    float* dst = obuf + y * ow * L;
    for (int64_t ox = 0; ox < ow; ++ox) {
      Vec acc = bias;
      for (int64_t ky = 0; ky < kh; ++ky) {
        const float* src = top + (ky * dh * g.pitch + ox * sw) * L;
        for (int64_t kx = 0; kx < kw; ++kx) {
          Vec x, w;
          std::memcpy(&x, src + kx * dw * L, sizeof(x));
          if constexpr (K > 0) {
            w = wv[ky * K + kx];
          } else {
            std::memcpy(&w, blk.w + (ky * kw + kx) * L, sizeof(w));
          }
          acc += w * x;
        }
      }
      if (clamp != nullptr) clamped.apply(acc);
      std::memcpy(dst + ox * L, &acc, sizeof(acc));
    }
  }
}

// `rows` output rows from oy0 of a blocked input read in place (blk.in_block: the block's pixels,
// L lanes each), into `obuf` as compute_rows does. Input rows above or below the image read `zero`
// (a zeroed row); outputs whose window leaves a row's ends skip the taps outside it. No copy: the
// band buffer's rows are what the input already holds, and copying them cost more than the
// convolution (a 3x3 layer of 48 channels at 56x56 stride 2 spent 70% of its time in memcpy).
template <int L, int K, int S>
__attribute__((always_inline)) inline void compute_rows_in_place(
    const Conv2dShape& s, const Block<L>& blk, const float* zero, int64_t oy0, int64_t rows,
    const ClampBounds* clamp, float* obuf) {
  using Vec = typename Lanes<L>::Vec;
  const int64_t ow = s.ow(), w = s.w;
  // Outputs [lo, hi) read no padding column.
  const int64_t lo = std::min(ow, (s.pw + S - 1) / S);
  const int64_t hi = std::max(lo, std::min(ow, w - K + s.pw >= 0 ? (w - K + s.pw) / S + 1 : 0));
  Vec wv[K * K];
  for (int t = 0; t < K * K; ++t) std::memcpy(&wv[t], blk.w + t * L, sizeof(Vec));
  Vec bias;
  std::memcpy(&bias, blk.bias, sizeof(bias));
  const VecClamp<Vec> clamped(clamp != nullptr ? *clamp : ClampBounds{});
  // acc += the taps of output ox inside the row (an output at a row's ends).
  auto edge = [&](const float* const* in_rows, int64_t ox, Vec& acc) {
    for (int64_t ky = 0; ky < K; ++ky) {
      for (int64_t kx = 0; kx < K; ++kx) {
        const int64_t ix = ox * S - s.pw + kx;
        if (ix < 0 || ix >= w) continue;
        Vec x;
        std::memcpy(&x, in_rows[ky] + ix * L, sizeof(x));
        acc += wv[ky * K + kx] * x;
      }
    }
  };
  for (int64_t y = 0; y < rows; ++y) {
    const float* in_rows[K];
    for (int64_t ky = 0; ky < K; ++ky) {
      const int64_t iy = (oy0 + y) * S - s.ph + ky;
      in_rows[ky] = iy >= 0 && iy < s.h ? blk.in_block + iy * w * L : zero;
    }
    float* dst = obuf + y * ow * L;
    for (int64_t ox = 0; ox < ow; ++ox) {
      Vec acc = bias;
      if (ox < lo || ox >= hi) {
        edge(in_rows, ox, acc);
      } else {
        const int64_t x0 = (ox * S - s.pw) * L;
        for (int64_t ky = 0; ky < K; ++ky) {
          for (int64_t kx = 0; kx < K; ++kx) {
            Vec x;
            std::memcpy(&x, in_rows[ky] + x0 + kx * L, sizeof(x));
            acc += wv[ky * K + kx] * x;
          }
        }
      }
      if (clamp != nullptr) clamped.apply(acc);
      std::memcpy(dst + ox * L, &acc, sizeof(acc));
    }
  }
}

// The block, band by band: pack (or read a blocked input in place), compute (into a blocked output
// where it goes), then copy each lane's outputs into its plane with the epilogue. A clamp (Relu,
// Clamp) without a residual runs in compute_rows; with one, where the residual is added. Other
// activations run over the interleaved outputs (no residual) or over each lane's stored run (after
// the residual).
template <int L>
__attribute__((always_inline)) inline void run_block(const Conv2dShape& s, const Bands& g,
                                                     const Block<L>& blk, const GemmEpilogue& e) {
  using Vec = typename Lanes<L>::Vec;
  alignas(64) float buf[kInFloats];
  alignas(64) float obuf[kOutFloats];
  const int64_t oh = s.oh(), ow = s.ow(), lanes = blk.lanes;
  const bool residual = blk.res[0] != nullptr;
  const bool clamp_only = is_clamp(e.activation);
  const ClampBounds bounds =
      clamp_bounds(clamp_only ? e.activation : Activation::None, e.clamp_min, e.clamp_max);
  const ClampBounds* fused =
      clamp_only && !residual && e.activation != Activation::None ? &bounds : nullptr;
  const bool undilated = s.dh == 1 && s.dw == 1 && s.kh == s.kw && s.sh == s.sw;
  const int64_t kernel = undilated ? s.kh * 10 + s.sh : 0;
  // A blocked input is read in place by the undilated 3x3 and 5x5 kernels of stride 1 and 2,
  // with `buf` as the zero row for the padding rows; other kernels pack it like planes.
  const bool in_place =
      blk.in_block != nullptr && (kernel == 31 || kernel == 32 || kernel == 51 || kernel == 52);
  if (in_place) std::fill(buf, buf + s.w * L, 0.0f);
  for (int64_t oy0 = 0; oy0 < oh; oy0 += g.rows) {
    const int64_t rows = std::min(g.rows, oh - oy0);
    const int64_t base = oy0 * ow;
    // A blocked output is computed where it goes (no residual: conv2d_writes_blocked).
    float* computed = blk.out_block != nullptr ? blk.out_block + base * L : obuf;
    if (in_place) {
      switch (kernel) {
        case 31: compute_rows_in_place<L, 3, 1>(s, blk, buf, oy0, rows, fused, computed); break;
        case 32: compute_rows_in_place<L, 3, 2>(s, blk, buf, oy0, rows, fused, computed); break;
        case 51: compute_rows_in_place<L, 5, 1>(s, blk, buf, oy0, rows, fused, computed); break;
        default: compute_rows_in_place<L, 5, 2>(s, blk, buf, oy0, rows, fused, computed); break;
      }
    } else {
      pack_rows<L>(s, g, blk, oy0 * s.sh, (rows - 1) * s.sh + g.span, buf);
      switch (kernel) {
        case 31: compute_rows<L, 3, 1>(s, g, blk, buf, rows, fused, computed); break;
        case 32: compute_rows<L, 3, 2>(s, g, blk, buf, rows, fused, computed); break;
        case 51: compute_rows<L, 5, 1>(s, g, blk, buf, rows, fused, computed); break;
        case 52: compute_rows<L, 5, 2>(s, g, blk, buf, rows, fused, computed); break;
        default: compute_rows<L, 0, 0>(s, g, blk, buf, rows, fused, computed); break;
      }
    }
    const int64_t count = rows * ow;
    if (!clamp_only && !residual) {
      activate_in_place(computed, count * L, e.activation, e.clamp_min, e.clamp_max);
    }
    if (blk.out_block != nullptr) continue;
    // Back into the planes L outputs at a time, transposed so that vector c holds lane c's
    // outputs; the last group is the L ending at the band's last output (some stored twice).
    if (count < L) {  // a tiny plane: lane by lane
      for (int64_t c = 0; c < lanes; ++c) {
        for (int64_t i = 0; i < count; ++i) {
          const float v = obuf[i * L + c];
          blk.out[c][base + i] = residual ? apply_clamp(v + blk.res[c][base + i], bounds) : v;
        }
      }
    }
    const VecClamp<Vec> clamped(bounds);
    for (int64_t g0 = 0; g0 < count && count >= L; g0 += L) {
      const int64_t i0 = std::min(g0, count - L);
      Vec v[L];
      for (int64_t j = 0; j < L; ++j) std::memcpy(&v[j], obuf + (i0 + j) * L, sizeof(Vec));
      transpose<L>(v);
      for (int64_t c = 0; c < lanes; ++c) {
        if (residual) {
          Vec r;
          std::memcpy(&r, blk.res[c] + base + i0, sizeof(r));
          v[c] += r;
          clamped.apply(v[c]);
        }
        std::memcpy(blk.out[c] + base + i0, &v[c], sizeof(Vec));
      }
    }
    if (residual && !clamp_only) {
      for (int64_t c = 0; c < lanes; ++c) {
        activate_in_place(blk.out[c] + base, count, e.activation, e.clamp_min, e.clamp_max);
      }
    }
  }
}

// A convolution's blocks: block `item` is channels [item % blocks * L, + L) of image
// item / blocks.
struct Job {
  const Conv2dShape& s;
  const float* input;
  const float* weights;
  const GemmEpilogue& e;
  float* output;
  Bands g;
  int64_t blocks;
  ConvLayouts layouts;
};

template <int L>
__attribute__((always_inline)) inline void run_item(const Job& job, int64_t item) {
  const Conv2dShape& s = job.s;
  const GemmEpilogue& e = job.e;
  const int64_t mult = s.oc / s.c, taps = s.kh * s.kw;
  const int64_t hw = s.h * s.w, ohw = s.oh() * s.ow();
  const int64_t b = item / job.blocks, o0 = item % job.blocks * L;
  Block<L> blk;
  blk.lanes = std::min<int64_t>(L, s.oc - o0);
  for (int64_t c = 0; c < L; ++c) {
    const bool valid = c < blk.lanes;
    const int64_t o = o0 + c;
    blk.in[c] = valid ? job.input + (b * s.c + o / mult) * hw : nullptr;
    blk.out[c] = valid ? job.output + (b * s.oc + o) * ohw : nullptr;
    blk.res[c] = valid && e.residual != nullptr ? e.residual + (b * s.oc + o) * ohw : nullptr;
    blk.bias[c] = valid && e.bias != nullptr ? e.bias[o] : 0.0f;
    for (int64_t t = 0; t < taps; ++t) blk.w[t * L + c] = valid ? job.weights[o * taps + t] : 0.0f;
  }
  // Blocked tensors hold block o0 / L of image b (channel multiplier 1, so in and out alike).
  if (job.layouts.input_blocked) blk.in_block = job.input + (b * s.c + o0) * hw;
  if (job.layouts.output_blocked) blk.out_block = job.output + (b * s.oc + o0) * ohw;
  run_block<L>(s, job.g, blk, e);
}

// One block per instruction set, each compiled for it with vectors as wide as its registers.
constexpr int64_t kAvx512Lanes = 16, kAvx2Lanes = 8, kGenericLanes = 4;
#if defined(PTEC_GEMM_HAVE_AVX2)
__attribute__((target("avx512f"))) void run_item_avx512(const Job& job, int64_t item) {
  run_item<kAvx512Lanes>(job, item);
}
__attribute__((target("avx2,fma"))) void run_item_avx2(const Job& job, int64_t item) {
  run_item<kAvx2Lanes>(job, item);
}
#endif
void run_item_generic(const Job& job, int64_t item) { run_item<kGenericLanes>(job, item); }

}  // namespace

bool depthwise_channels_applies(const Conv2dShape& s) {
  return s.valid() && s.depthwise() && s.kh * s.kw <= kMaxTaps && bands_of(s, kMaxLanes).rows > 0;
}

void depthwise_channels(const Conv2dShape& s, const float* input, const float* weights,
                        const GemmEpilogue& e, float* output, ConvLayouts layouts) {
  const GemmIsa isa = active_gemm_isa();
  const int64_t lanes = isa == GemmIsa::Avx512 ? kAvx512Lanes
                        : isa == GemmIsa::Avx2 ? kAvx2Lanes
                                               : kGenericLanes;
  void (*run)(const Job&, int64_t) = run_item_generic;
#if defined(PTEC_GEMM_HAVE_AVX2)
  if (isa == GemmIsa::Avx512) run = run_item_avx512;
  if (isa == GemmIsa::Avx2) run = run_item_avx2;
#endif
  const int64_t blocks = (s.oc + lanes - 1) / lanes;
  const Job job{s, input, weights, e, output, bands_of(s, lanes), blocks, layouts};
  parallel_for(s.n * blocks, [&](int64_t item) { run(job, item); });
}

}  // namespace ptec::kernels::optimized
