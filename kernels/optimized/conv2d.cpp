#include "kernels/optimized/conv2d.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include "kernels/optimized/conv2d_depthwise_channels.h"
#include "kernels/optimized/conv2d_direct.h"
#include "kernels/optimized/conv2d_pixels.h"
#include "kernels/optimized/conv2d_sparse_taps.h"
#include "kernels/optimized/lane_vectors.h"
#include "kernels/optimized/threadpool.h"
#include "kernels/optimized/window.h"

namespace ptec::kernels::optimized {
namespace {

constexpr size_t kAlign = 64;
// Packed column chunks are kept near 1 MiB so that they stay in L2 while every block of weights
// meets them. Each chunk streams all the group's weights once, so large weights (deep layers,
// few pixels) get chunks up to 4 MiB: fewer passes over weights that do not fit in cache.
constexpr int64_t kMinChunkBytes = int64_t{1} << 20;
constexpr int64_t kMaxChunkBytes = int64_t{4} << 20;

size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

// Output pixels per column chunk: a multiple of the microkernel's nr.
int64_t chunk_pixels(const Conv2dShape& s) {
  const int64_t nr = gemm_tile(active_gemm_isa()).nr;
  const int64_t pixels = s.oh() * s.ow();
  const int64_t weight_bytes = s.oc_per_group() * s.k() * static_cast<int64_t>(sizeof(float));
  const int64_t bytes = std::clamp(weight_bytes, kMinChunkBytes, kMaxChunkBytes);
  int64_t chunk = bytes / static_cast<int64_t>(sizeof(float)) / std::max<int64_t>(1, s.k());
  chunk = std::max(nr, chunk / nr * nr);
  return std::min(chunk, (pixels + nr - 1) / nr * nr);
}

// Gathers the columns of output pixels [q0, q0 + count) of image `in` (the group's Cg channels)
// into packed-B panels: panel t holds, for each p = (c, ky, kx), the nr pixels' input values.
// The pixels are cut into runs that share an output row; for each tap a run reads one input row,
// contiguously when the stride is 1, with zeros where the window leaves the input.
// `scale` (may be null) multiplies input channel c of the group by scale[c].
void pack_columns_panel(const Conv2dShape& s, const float* in, int64_t q0, int64_t count,
                        int64_t nr, float* dst, const float* scale) {
  struct Run {
    int64_t t0, len;  // panel columns [t0, t0 + len)
    int64_t iy, ix;   // input coordinate of the run's first pixel for tap (0, 0)
  };
  Run runs[32];  // nr <= 32, so at most 32 runs
  int64_t num_runs = 0;
  const int64_t ow = s.ow();
  for (int64_t t = 0; t < count;) {
    const int64_t q = q0 + t, oy = q / ow, ox = q % ow;
    const int64_t len = std::min(count - t, ow - ox);
    runs[num_runs++] = Run{t, len, oy * s.sh - s.ph, ox * s.sw - s.pw};
    t += len;
  }
  const int64_t cg = s.c_per_group(), sw = s.sw;
  for (int64_t c = 0; c < cg; ++c) {
    const float* plane = in + c * s.h * s.w;
    const float sc = scale != nullptr ? scale[c] : 1.0f;
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        for (int64_t r = 0; r < num_runs; ++r) {
          const Run& run = runs[r];
          float* d = dst + run.t0;
          const int64_t iy = run.iy + ky * s.dh;
          if (iy < 0 || iy >= s.h) {
            std::fill(d, d + run.len, 0.0f);
            continue;
          }
          // Pixel i of the run reads column x0 + i * sw; those in [0, w) are inside.
          const int64_t x0 = run.ix + kx * s.dw;
          const int64_t lo = std::min(run.len, x0 >= 0 ? 0 : (-x0 + sw - 1) / sw);
          const int64_t hi =
              std::max(lo, std::min(run.len, x0 >= s.w ? 0 : (s.w - x0 + sw - 1) / sw));
          std::fill(d, d + lo, 0.0f);
          if (hi > lo) {
            const float* src = plane + iy * s.w + (x0 + lo * sw);
            if (sw == 1 && scale == nullptr) {
              std::memcpy(d + lo, src, static_cast<size_t>(hi - lo) * sizeof(float));
            } else {
              for (int64_t i = 0; i < hi - lo; ++i) d[lo + i] = src[i * sw] * sc;
            }
          }
          std::fill(d + hi, d + run.len, 0.0f);
        }
        std::fill(dst + count, dst + nr, 0.0f);
        dst += nr;
      }
    }
  }
}

// dst[ox] += wv * row[ox * stride + off] for ox in [lo, hi) (every index inside the row), the
// stride a compile-time constant where it can be (1 and 2) so that the loop vectorizes.
inline void axpy_strided(float* dst, const float* row, int64_t off, float wv, int64_t lo,
                         int64_t hi, int64_t stride) {
  if (stride == 1) {
    for (int64_t ox = lo; ox < hi; ++ox) dst[ox] += wv * row[ox + off];
  } else if (stride == 2) {
    for (int64_t ox = lo; ox < hi; ++ox) dst[ox] += wv * row[2 * ox + off];
  } else {
    for (int64_t ox = lo; ox < hi; ++ox) dst[ox] += wv * row[ox * stride + off];
  }
}

// What the depthwise paths apply to their outputs before storing them: + residual[ox] (null:
// none), then the clamp (ClampBounds, activation.h).
struct RowEpilogue {
  const float* residual = nullptr;
  ClampBounds clamp;
};

// 16 floats as one GCC vector: each target_clones clone compiles its operations to its ISA's
// vectors (one AVX-512 register, two AVX ones, four SSE ones). Helpers pass one by reference,
// never by value, so that no vector calling convention is involved.
using Float16 = float __attribute__((vector_size(64)));

// v = p[0], p[S], ..., p[15 S] for S = 1 or 2 (at stride 2: p[0, 16) and p[15, 31) shuffled to
// their even elements, so nothing past p[30] is read).
template <int S>
__attribute__((always_inline)) inline void load16(Float16& v, const float* p) {
  if constexpr (S == 1) {
    std::memcpy(&v, p, sizeof(v));
  } else {
    using Index16 = int __attribute__((vector_size(64)));
    constexpr Index16 kEven = {0, 2, 4, 6, 8, 10, 12, 14, 17, 19, 21, 23, 25, 27, 29, 31};
    Float16 a, b;
    std::memcpy(&a, p, sizeof(a));
    std::memcpy(&b, p + 15, sizeof(b));
    v = __builtin_shuffle(a, b, kEven);
  }
}

// Output columns [lo, hi) of a row whose K x K window lies inside the input, bias and `e`
// included: every tap in one pass over blocks of 16 outputs held in one vector, the kernel size,
// stride and (D > 0) dilation compile-time constants; a last partial block is the block ending
// at hi, computed again over outputs it shares with the one before (at least 16 columns), else
// column by column. r[ky] is input row ky of the window (its dilation already applied), read from
// column ox * S on for output ox; taps are D (D = 0: dw) columns apart. With a constant dilation
// each row's taps are one base register and constant offsets, and 3x3 weights stay in registers
// across the row.
template <int K, int S, int D>
__attribute__((always_inline)) inline void depthwise_interior(float* dst, const float* const* r,
                                                              const float* w, float bias,
                                                              int64_t lo, int64_t hi, int64_t dw,
                                                              const RowEpilogue& e) {
  constexpr int64_t kBlock = 16;
  const int64_t step = D > 0 ? D : dw;
  const VecClamp<Float16> clamped(e.clamp);
  Float16 wv[K * K];
  for (int t = 0; t < K * K; ++t) wv[t] = Float16{} + w[t];
  auto block = [&](int64_t o0) {  // outputs [o0, o0 + kBlock)
    Float16 acc = Float16{} + bias;
    for (int ky = 0; ky < K; ++ky) {
      const float* src = r[ky] + o0 * S;
      for (int kx = 0; kx < K; ++kx) {
        Float16 x;
        load16<S>(x, src + kx * step);
        acc += wv[ky * K + kx] * x;
      }
    }
    if (e.residual != nullptr) {
      Float16 res;
      load16<1>(res, e.residual + o0);
      acc += res;
    }
    clamped.apply(acc);
    std::memcpy(dst + o0, &acc, sizeof(acc));
  };
  int64_t ox = lo;
  for (; ox + kBlock <= hi; ox += kBlock) block(ox);
  if (ox == hi) return;
  if (hi - lo >= kBlock) {
    block(hi - kBlock);
    return;
  }
  for (; ox < hi; ++ox) {
    float acc = bias;
    for (int ky = 0; ky < K; ++ky) {
      for (int kx = 0; kx < K; ++kx) acc += w[ky * K + kx] * r[ky][ox * S + kx * step];
    }
    if (e.residual != nullptr) acc += e.residual[ox];
    dst[ox] = apply_clamp(acc, e.clamp);
  }
}

// Output ox of a row whose window rows lie inside the input but whose window columns do not all
// (an edge column), before residual and activation: rows[ky] as depthwise_interior reads them
// (input column x of window row ky at rows[ky][x + pw]), taps outside the input skipped. The
// kernel size and stride are compile-time constants and the rows are the window's own, so a tap
// costs one bounds check (rederiving rows and columns from the shape cost more than the row's
// vector blocks on 112-wide planes).
template <int K, int S>
__attribute__((always_inline)) inline float depthwise_edge(const Conv2dShape& s,
                                                           const float* const* rows, const float* w,
                                                           float bias, int64_t ox) {
  float acc = bias;
  for (int ky = 0; ky < K; ++ky) {
    for (int kx = 0; kx < K; ++kx) {
      const int64_t at = ox * S + kx * s.dw;  // padded column
      if (at >= s.pw && at < s.w + s.pw) acc += w[ky * K + kx] * rows[ky][at];
    }
  }
  return acc;
}

// A row whose window rows lie inside the input: its inside columns [lo, hi) in one fused pass
// (bias and `e` included), its edge columns one by one through the same rows (before residual
// and activation).
template <int K, int S, int D>
__attribute__((always_inline)) inline void depthwise_row(const Conv2dShape& s, float* dst,
                                                         const float* const* rows, const float* w,
                                                         float bias, int64_t lo, int64_t hi,
                                                         const RowEpilogue& e) {
  depthwise_interior<K, S, D>(dst, rows, w, bias, lo, hi, s.dw, e);
  const int64_t ow = s.ow();
  for (int64_t ox = 0; ox < lo; ++ox) dst[ox] = depthwise_edge<K, S>(s, rows, w, bias, ox);
  for (int64_t ox = hi; ox < ow; ++ox) dst[ox] = depthwise_edge<K, S>(s, rows, w, bias, ox);
}

// The flat path's phases hold at most this many floats (a band of output rows at a time); its
// buffers live on the stack.
constexpr int64_t kFlatPlaneFloats = 4096;
// Outputs the flat stencil computes per step (kept in registers across the taps).
constexpr int64_t kFlatBlock = 64;

// Geometry of the flat path: the zero-padded input split into S x S phases (S = stride), phase
// (py, px) holding padded rows py, py + S, ... and columns px, px + S, ... with row pitch q. A
// plane runs in bands of `band` output rows, each reading phase_rows rows of every phase.
struct FlatGeometry {
  int64_t stride, pitch;  // of the padded input
  int64_t q, phase_rows;  // of one phase, for one band
  int64_t band;           // output rows per band; 0: not even one row fits
  int64_t floats() const { return stride * stride * phase_rows * q; }
};

FlatGeometry flat_geometry(const Conv2dShape& s) {
  FlatGeometry g{s.sh, s.w + 2 * s.pw, 0, 0, 0};
  g.q = (g.pitch + g.stride - 1) / g.stride;
  // b output rows read (b - 1) S + span padded rows, ceil(that / S) rows of each phase.
  const int64_t span = (s.kh - 1) * s.dh + 1;
  const int64_t most_rows = kFlatPlaneFloats / (g.stride * g.stride * g.q);
  const int64_t band = (most_rows * g.stride - span) / g.stride + 1;
  if (most_rows * g.stride < span || band < 1) return g;
  g.band = std::min(s.oh(), band);
  g.phase_rows = ((g.band - 1) * g.stride + span + g.stride - 1) / g.stride;
  return g;
}

// A stride-S (1 or 2) K x K depthwise plane, then `e` (null: before residual and activation) when
// its outputs are stored, as one 1-D stencil:
// with the padded input split into phases (FlatGeometry), output (oy, ox) sums
// w[ky][kx] * phase(ky dh mod S, kx dw mod S)[(oy + ky dh / S) q + ox + kx dw / S], i.e.
// buffer[i + offset(ky, kx)] with i = oy q + ox, so a single loop over i (the rows' q - ow extra
// columns computed and dropped) runs every tap vectorized, however narrow the plane (7x7 and
// 14x14 rows are shorter than a vector). The taps run outermost within a block of kFlatBlock
// outputs, whose sums stay in registers. The phases are built and the outputs stored in blocks
// of 16 too: on planes this small, per-row library calls and scalar loops would cost more than
// the stencil.
template <int K, int S>
__attribute__((always_inline)) inline void depthwise_flat(const Conv2dShape& s,
                                                          const FlatGeometry& g, int64_t oy0,
                                                          int64_t oy1, const float* in,
                                                          const float* w, float bias,
                                                          const RowEpilogue* e, float* out) {
  constexpr int64_t kBlock = 16;  // one Float16
  alignas(64) float phases[kFlatPlaneFloats + kFlatBlock];
  alignas(64) float sums[kFlatPlaneFloats + kFlatBlock];
  const int64_t r0 = oy0 * S;  // the band's first padded row
  const int64_t hw = s.h * s.w;
  const Float16 zeros = {};
  // Padded row r (S q floats, zero past the padded width) into dst in blocks of 16, the last of
  // each part running up to 15 floats past it (into what is written next, or slack). Reads of
  // the input run past its row but never past the plane.
  auto padded_row = [&](float* dst, int64_t r) {
    const int64_t width = S * g.q;
    const int64_t iy = r - s.ph;
    if (iy < 0 || iy >= s.h) {
      for (int64_t x = 0; x < width; x += kBlock) std::memcpy(dst + x, &zeros, sizeof(zeros));
      return;
    }
    for (int64_t x = 0; x < s.pw; x += kBlock) std::memcpy(dst + x, &zeros, sizeof(zeros));
    const float* src = in + iy * s.w;
    int64_t x = 0;
    for (; x < s.w && iy * s.w + x + kBlock <= hw; x += kBlock) {
      Float16 v;
      load16<1>(v, src + x);
      std::memcpy(dst + s.pw + x, &v, sizeof(v));
    }
    for (; x < s.w; ++x) dst[s.pw + x] = src[x];
    for (x = s.pw + s.w; x < width; x += kBlock) std::memcpy(dst + x, &zeros, sizeof(zeros));
  };
  // Phase (py, px) row y, column x is padded row y S + py, column x S + px. Stride 1: the padded
  // plane itself, row after row. Stride 2: the whole padded plane (S q floats per row) first,
  // then its rows split into even and odd columns; splitting each row right after writing it
  // would read what the stores have not yet written to the cache (a store-forwarding stall per
  // block).
  if constexpr (S == 1) {
    for (int64_t r = 0; r < g.phase_rows; ++r) padded_row(phases + r * g.q, r0 + r);
  } else {
    alignas(64) float padded[kFlatPlaneFloats + 2 * kBlock];
    const int64_t pitch = S * g.q;
    for (int64_t r = 0; r < g.phase_rows * S; ++r) padded_row(padded + r * pitch, r0 + r);
    // The last row's odd-column blocks read up to 29 floats past it.
    std::fill(padded + g.floats(), padded + g.floats() + 2 * kBlock, 0.0f);
    // Phase by phase, so that each block's overrun lands in what is written after it.
    for (int64_t py = 0; py < S; ++py) {
      for (int64_t px = 0; px < S; ++px) {
        float* phase = phases + (py * S + px) * g.phase_rows * g.q;
        for (int64_t y = 0; y < g.phase_rows; ++y) {
          const float* src = padded + (y * S + py) * pitch + px;
          for (int64_t x = 0; x < g.q; x += kBlock) {  // reads src[2 x, 2 x + 31)
            Float16 v;
            load16<2>(v, src + 2 * x);
            std::memcpy(phase + y * g.q + x, &v, sizeof(v));
          }
        }
      }
    }
  }
  // The stencil's reads past the last phase find zeros.
  std::fill(phases + g.floats(), phases + g.floats() + kFlatBlock, 0.0f);

  float wl[K * K];
  int64_t off[K * K];
  for (int ky = 0; ky < K; ++ky) {
    for (int kx = 0; kx < K; ++kx) {
      const int64_t ry = ky * s.dh, rx = kx * s.dw;
      const int64_t phase = (ry % S) * S + rx % S;
      wl[ky * K + kx] = w[ky * K + kx];
      off[ky * K + kx] = phase * g.phase_rows * g.q + ry / S * g.q + rx / S;
    }
  }
  const int64_t ow = s.ow();
  const int64_t n = (oy1 - oy0 - 1) * g.q + ow;
  for (int64_t i0 = 0; i0 < n; i0 += kFlatBlock) {
    float acc[kFlatBlock];
    for (int64_t j = 0; j < kFlatBlock; ++j) acc[j] = bias;
#pragma GCC unroll 49
    for (int t = 0; t < K * K; ++t) {
      const float wv = wl[t];
      const float* src = phases + i0 + off[t];
      for (int64_t j = 0; j < kFlatBlock; ++j) acc[j] += wv * src[j];
    }
    std::memcpy(sums + i0, acc, sizeof(acc));
  }
  // The last row's blocks below read up to 15 sums past n.
  std::fill(sums + n, sums + n + kBlock, 0.0f);

  // Copy the valid columns out, through `e` (+ residual, clamp) unless it is null, in blocks that
  // may run past a row into the next one (stored after it) but never past the plane.
  const VecClamp<Float16> clamped(e != nullptr ? e->clamp : ClampBounds{});
  const int64_t ohw = s.oh() * ow;
  auto finish = [&](Float16& v, int64_t i) {  // output i of the plane
    if (e == nullptr) return;
    if (e->residual != nullptr) {
      Float16 r;
      load16<1>(r, e->residual + i);
      v += r;
    }
    clamped.apply(v);
  };
  for (int64_t oy = oy0; oy < oy1; ++oy) {
    const float* src = sums + (oy - oy0) * g.q;
    int64_t x = 0;
    for (; x < ow && oy * ow + x + kBlock <= ohw; x += kBlock) {
      Float16 v;
      load16<1>(v, src + x);
      finish(v, oy * ow + x);
      std::memcpy(out + oy * ow + x, &v, sizeof(v));
    }
    for (; x < ow; ++x) {
      float v = src[x];
      if (e != nullptr) {
        if (e->residual != nullptr) v += e->residual[oy * ow + x];
        v = apply_clamp(v, e->clamp);
      }
      out[oy * ow + x] = v;
    }
  }
}

// One output plane of a depthwise convolution on the flat path (depthwise_flat band by band; g
// is the shape's flat_geometry): out = act(sum_taps w * in + bias + residual), the clamps (and
// none) with the residual where the outputs are stored, other activations over each band when it
// is complete.
__attribute__((target_clones("avx512f", "avx2", "default"))) void depthwise_plane_flat(
    const Conv2dShape& s, const FlatGeometry& g, const float* in, const float* w, float bias,
    const float* residual, const GemmEpilogue& e, float* out) {
  const int64_t oh = s.oh(), ow = s.ow();
  const bool fused = is_clamp(e.activation);
  RowEpilogue plane;
  if (fused) plane.clamp = clamp_bounds(e.activation, e.clamp_min, e.clamp_max);
  plane.residual = residual;
  const RowEpilogue* pe = fused ? &plane : nullptr;
  for (int64_t oy0 = 0; oy0 < oh; oy0 += g.band) {
    const int64_t oy1 = std::min(oh, oy0 + g.band);
    switch (s.kh * 10 + s.sh) {
      case 31: depthwise_flat<3, 1>(s, g, oy0, oy1, in, w, bias, pe, out); break;
      case 32: depthwise_flat<3, 2>(s, g, oy0, oy1, in, w, bias, pe, out); break;
      case 51: depthwise_flat<5, 1>(s, g, oy0, oy1, in, w, bias, pe, out); break;
      default: depthwise_flat<5, 2>(s, g, oy0, oy1, in, w, bias, pe, out); break;
    }
    if (fused) continue;
    // The band's rows while they are in L1.
    float* rows = out + oy0 * ow;
    const int64_t count = (oy1 - oy0) * ow;
    if (residual != nullptr) {
      const float* res = residual + oy0 * ow;
      for (int64_t i = 0; i < count; ++i) rows[i] += res[i];
    }
    activate_in_place(rows, count, e.activation, e.clamp_min, e.clamp_max);
  }
}

// One output plane of a depthwise convolution on the row path: out = act(sum_taps w * in + bias
// + residual), one output row at a time. For 3x3 and 5x5 kernels at stride 1 or 2, a row whose
// window rows lie inside the input computes its inside columns in one fused pass and its few
// edge columns one by one; other rows (and other kernels) add tap by tap. The clamps (and none) run
// with the residual where the outputs are stored, other activations over each row when it is
// complete.
__attribute__((target_clones("avx512f", "avx2", "default"))) void depthwise_plane_rows(
    const Conv2dShape& s, const float* in, const float* w, float bias, const float* residual,
    const GemmEpilogue& e, float* out) {
  const int64_t oh = s.oh(), ow = s.ow();
  const bool fused = is_clamp(e.activation);
  const RowEpilogue none;  // stores the sums as they are
  RowEpilogue fused_epilogue;
  if (fused) fused_epilogue.clamp = clamp_bounds(e.activation, e.clamp_min, e.clamp_max);
  // The fused pass's kernel (called directly, so that each clone inlines its own copy).
  const int64_t kernel = s.kh == s.kw && (s.kh == 3 || s.kh == 5) && (s.sw == 1 || s.sw == 2)
                             ? s.kh * 100 + s.sw * 10 + (s.dw == 1 ? 1 : 0)
                             : 0;
  // Columns where every tap is inside.
  const ColumnRange inside = columns_with_all_taps_inside(s.pw, s.sw, s.dw, s.kw, s.w, ow);
  const int64_t in_lo = inside.lo, in_hi = inside.hi;
  const int64_t interior = in_lo < in_hi ? kernel : 0;
  for (int64_t oy = 0; oy < oh; ++oy) {
    float* dst = out + oy * ow;
    const int64_t iy0 = oy * s.sh - s.ph;
    if (interior != 0 && iy0 >= 0 && iy0 + (s.kh - 1) * s.dh < s.h) {
      // rows[ky] + ox * S: output ox's first tap in window row ky (read for ox >= in_lo only).
      const float* rows[5] = {};
      for (int64_t ky = 0; ky < s.kh; ++ky) rows[ky] = in + (iy0 + ky * s.dh) * s.w - s.pw;
      RowEpilogue re = fused ? fused_epilogue : none;
      if (fused && residual != nullptr) re.residual = residual + oy * ow;
      switch (interior) {
        case 311: depthwise_row<3, 1, 1>(s, dst, rows, w, bias, in_lo, in_hi, re); break;
        case 321: depthwise_row<3, 2, 1>(s, dst, rows, w, bias, in_lo, in_hi, re); break;
        case 511: depthwise_row<5, 1, 1>(s, dst, rows, w, bias, in_lo, in_hi, re); break;
        case 521: depthwise_row<5, 2, 1>(s, dst, rows, w, bias, in_lo, in_hi, re); break;
        case 310: depthwise_row<3, 1, 0>(s, dst, rows, w, bias, in_lo, in_hi, re); break;
        case 320: depthwise_row<3, 2, 0>(s, dst, rows, w, bias, in_lo, in_hi, re); break;
        case 510: depthwise_row<5, 1, 0>(s, dst, rows, w, bias, in_lo, in_hi, re); break;
        default: depthwise_row<5, 2, 0>(s, dst, rows, w, bias, in_lo, in_hi, re); break;
      }
      if (fused) {  // the edge columns' residual and activation
        auto edge = [&](int64_t ox) {
          const float v = re.residual != nullptr ? dst[ox] + re.residual[ox] : dst[ox];
          dst[ox] = activate(v, e.activation, e.clamp_min, e.clamp_max);
        };
        for (int64_t ox = 0; ox < in_lo; ++ox) edge(ox);
        for (int64_t ox = in_hi; ox < ow; ++ox) edge(ox);
        continue;
      }
    } else {
      for (int64_t ox = 0; ox < ow; ++ox) dst[ox] = bias;
      for (int64_t ky = 0; ky < s.kh; ++ky) {
        const int64_t iy = iy0 + ky * s.dh;
        if (iy < 0 || iy >= s.h) continue;
        const float* row = in + iy * s.w;
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          const int64_t off = kx * s.dw - s.pw;
          const ColumnRange x = columns_reading_inside(off, s.sw, s.w, ow);
          if (x.lo < x.hi) axpy_strided(dst, row, off, w[ky * s.kw + kx], x.lo, x.hi, s.sw);
        }
      }
    }
    if (residual != nullptr) {
      const float* res = residual + oy * ow;
      for (int64_t ox = 0; ox < ow; ++ox) dst[ox] += res[ox];
    }
    activate_in_place(dst, ow, e.activation, e.clamp_min, e.clamp_max);
  }
}

}  // namespace

bool depthwise_flat_applies(const Conv2dShape& s) {
  return s.sh == s.sw && (s.sh == 1 || s.sh == 2) && s.kh == s.kw && (s.kh == 3 || s.kh == 5) &&
         flat_geometry(s).band > 0;
}

// Measured with AVX-512, one thread (ms, best of Rows / Flat against Channels): 960x7x7 3x3
// 0.068 / 0.022, 576x14x14 0.080 / 0.039, 576x14x14 stride 2 0.070 / 0.020, 192x28x28 0.067 /
// 0.061, 1152x7x7 5x5 0.142 / 0.050, 672x14x14 5x5 0.151 / 0.093; but 144x56x56 0.222 / 0.234 and
// 32x112x112 0.187 / 0.217: rows of 56 and more are long enough for the per-plane paths'
// vectors, and interleaving costs a transpose each way.
// Other kernels (ConvNeXt's 7x7) have no vector kernel of their own on the plane paths, which
// add each tap's row into the outputs in memory: channel-interleaved wherever it applies (7x7,
// 48 channels: 32x32 0.63 -> 0.12 ms, 56x56 with 96 channels 2.5 -> 0.76).
bool depthwise_channels_preferred(const Conv2dShape& s) {
  const bool plane_kernel = s.kh == s.kw && (s.kh == 3 || s.kh == 5) && (s.sw == 1 || s.sw == 2);
  return depthwise_channels_applies(s) && (s.ow() <= 28 || !plane_kernel);
}

bool depthwise_flat_preferred(const Conv2dShape& s) {
  return depthwise_flat_applies(s) && (s.kh == 5 || s.ow() * s.sw < 64);
}

bool Conv2dShape::valid() const {
  if (n < 0 || c <= 0 || h <= 0 || w <= 0 || oc <= 0 || kh <= 0 || kw <= 0) return false;
  if (sh <= 0 || sw <= 0 || ph < 0 || pw < 0 || dh <= 0 || dw <= 0 || groups <= 0) return false;
  if (c % groups != 0 || oc % groups != 0) return false;
  return oh() >= 1 && ow() >= 1;
}

namespace {

// The first and last kernel index along one dim whose input position k * dilation - pad +
// o * stride lies in [0, size) for some output o in [0, out); first > last when none does.
std::pair<int64_t, int64_t> live_range(int64_t size, int64_t out, int64_t kernel, int64_t stride,
                                       int64_t pad, int64_t dilation) {
  auto live = [&](int64_t k) {
    const int64_t c = k * dilation - pad;                       // position of output 0
    const int64_t o = c >= 0 ? 0 : (-c + stride - 1) / stride;  // first output at or past 0
    return o < out && o * stride + c < size;
  };
  int64_t first = 0, last = kernel - 1;
  while (first < kernel && !live(first)) ++first;
  while (last >= first && !live(last)) --last;
  return {first, last};
}

}  // namespace

ConvTaps conv2d_live_taps(const Conv2dShape& s) {
  const auto [ky0, ky1] = live_range(s.h, s.oh(), s.kh, s.sh, s.ph, s.dh);
  const auto [kx0, kx1] = live_range(s.w, s.ow(), s.kw, s.sw, s.pw, s.dw);
  return {ky0, ky1, kx0, kx1};
}

bool conv2d_without_dead_taps(const Conv2dShape& s, Conv2dShape* reduced, ConvTaps* taps) {
  if (!s.valid() || s.depthwise()) return false;
  const ConvTaps t = conv2d_live_taps(s);
  // A dim whose taps are all dead (every window inside the padding) is left to the full
  // convolution, which computes its bias-only outputs.
  if (t.ky0 > t.ky1 || t.kx0 > t.kx1) return false;
  if (t.ky0 == 0 && t.ky1 == s.kh - 1 && t.kx0 == 0 && t.kx1 == s.kw - 1) return false;
  Conv2dShape r = s;
  r.kh = t.ky1 - t.ky0 + 1;
  r.kw = t.kx1 - t.kx0 + 1;
  r.ph = s.ph - t.ky0 * s.dh;
  r.pw = s.pw - t.kx0 * s.dw;
  if (r.kh == 1) r.dh = 1;
  if (r.kw == 1) r.dw = 1;
  if (r.ph < 0 || r.pw < 0 || !r.valid() || r.oh() != s.oh() || r.ow() != s.ow()) return false;
  *reduced = r;
  *taps = t;
  return true;
}

void conv2d_slice_taps(const Conv2dShape& s, const ConvTaps& taps, const float* weights,
                       float* out) {
  const int64_t rows = taps.ky1 - taps.ky0 + 1, cols = taps.kx1 - taps.kx0 + 1;
  const int64_t filters = s.oc * s.c_per_group();
  for (int64_t f = 0; f < filters; ++f) {
    const float* src = weights + f * s.kh * s.kw;
    for (int64_t ky = 0; ky < rows; ++ky) {
      for (int64_t kx = 0; kx < cols; ++kx) {
        *out++ = src[(taps.ky0 + ky) * s.kw + taps.kx0 + kx];
      }
    }
  }
}

namespace {

// The smallest share of live taps (conv2d_live_share) at which weights that are not packed are
// read in place rather than packed for the tap-by-tap path.
constexpr double kMostWastedTaps = 0.25;

// The most output pixels (of the batch) at which weights that are not packed are read in place.
// Past one microkernel tile of columns the GEMM sweeps each row block of A once per tile, and
// in place those rows arrive as short strided streams rather than packed panels: ResNet-18's
// 7 x 7 layers (224 x 224 input, 49 pixels, 9.4 MB of weights per layer) ran 36-38 ms packed
// against 40-44 ms in place, one thread.
constexpr int64_t kMostPixelsInPlace = 32;

// Whether `rows` runs a (non-depthwise) convolution tap by tap (conv2d_sparse_taps.h).
bool sparse_taps(const Conv2dShape& s, ConvRows rows) {
  return rows == ConvRows::Auto && conv2d_sparse_taps_preferred(s);
}

// Whether `rows` runs a (non-depthwise) convolution with the output pixels as the GEMM's rows.
bool pixel_rows(const Conv2dShape& s, ConvRows rows) {
  return rows == ConvRows::Pixels ? conv2d_pixels_applies(s)
         : rows == ConvRows::Auto ? !sparse_taps(s, rows) && conv2d_pixels_preferred(s)
                                  : false;
}

// The epilogue of image b's group g as a GEMM of the group's output channels (rows) by the
// image's output pixels: its slice of the bias and the residual.
GemmEpilogue group_epilogue(const Conv2dShape& s, const GemmEpilogue& epilogue, int64_t b,
                            int64_t g) {
  const int64_t ohw = s.oh() * s.ow(), ocg = s.oc_per_group();
  GemmEpilogue e = epilogue;
  e.bias_per_row = true;
  if (e.bias != nullptr) e.bias = epilogue.bias + g * ocg;
  if (e.residual != nullptr) e.residual = epilogue.residual + (b * s.oc + g * ocg) * ohw;
  e.ldr = ohw;
  return e;
}

// Whether a call with weights that are not packed reads them in place, as a row-major A, rather
// than packing them first (a layer's channels-as-rows paths read packed panels). Packing costs a
// pass over the weights on every call, where reading them in place costs a pass over the input's
// columns (im2col, or a pointwise layer's B packed) per image that the direct and indirect paths
// avoid: the weights are read in place where they are at least as many as the output pixels of
// the batch per output channel and those pixels are few (kMostPixelsInPlace; ResNet-18 at 64 x 64,
// outside the CPU backend: its 4 x 4 and 2 x 2 layers, most of its weights). Also where the
// tap-by-tap path would skip the taps that meet only padding, unless they are three quarters of the
// work (a dilated layer on a small map): that path packs its weights too. Not for the tap-by-tap
// and pixels-as-rows paths chosen by a caller, or blocked layouts.
bool weights_in_place(const Conv2dShape& s, ConvRows rows, ConvLayouts layouts) {
  return !s.depthwise() && rows == ConvRows::Auto && !layouts.input_blocked &&
         !layouts.output_blocked && s.oc_per_group() >= s.n * s.oh() * s.ow() &&
         s.n * s.oh() * s.ow() <= kMostPixelsInPlace &&
         (!sparse_taps(s, rows) || conv2d_live_share(s) > kMostWastedTaps);
}

// Scratch of conv2d_weights_in_place: a chunk's columns, or (pointwise) B packed by gemm().
size_t weights_in_place_scratch_bytes(const Conv2dShape& s) {
  if (s.pointwise()) {
    return gemm_scratch_bytes(s.oc_per_group(), s.oh() * s.ow(), s.k(), false, false);
  }
  return align_up(static_cast<size_t>(chunk_pixels(s) * s.k()) * sizeof(float));
}

// The convolution with its plain weights ([OC, C/groups, KH, KW], a row-major OC x K matrix per
// group) as the GEMM's A, read in place: B is the input's columns (gathered a chunk of pixels at
// a time) or, pointwise, its channel planes (packed by gemm()).
bool conv2d_weights_in_place(const Conv2dShape& s, const float* input, const float* weights,
                             const GemmEpilogue& epilogue, float* output, void* scratch,
                             const float* input_scale) {
  if (scratch == nullptr) return false;
  const int64_t ohw = s.oh() * s.ow(), in_image = s.c * s.h * s.w, out_image = s.oc * ohw;
  const int64_t ocg = s.oc_per_group(), cg = s.c_per_group(), k = s.k();
  const int64_t nr = gemm_tile(active_gemm_isa()).nr;
  const int64_t chunk = chunk_pixels(s);
  auto* columns = static_cast<float*>(scratch);
  for (int64_t b = 0; b < s.n; ++b) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const GemmOperand a = GemmOperand::matrix(weights + g * ocg * k, k);
      const float* in = input + b * in_image + g * cg * s.h * s.w;
      float* out = output + b * out_image + g * ocg * ohw;
      GemmEpilogue e = group_epilogue(s, epilogue, b, g);
      const float* scale = input_scale != nullptr ? input_scale + b * s.c + g * cg : nullptr;
      if (s.pointwise()) {
        GemmOperand bm = GemmOperand::matrix(in, ohw);
        bm.k_scale = scale;  // K is the group's input channels
        if (!gemm(ocg, ohw, k, a, bm, out, ohw, e, scratch)) return false;
        continue;
      }
      for (int64_t q0 = 0; q0 < ohw; q0 += chunk) {
        const int64_t count = std::min(chunk, ohw - q0);
        const int64_t panels = (count + nr - 1) / nr;
        parallel_for(panels, [&](int64_t t) {
          pack_columns_panel(s, in, q0 + t * nr, std::min(nr, count - t * nr), nr,
                             columns + t * nr * k, scale);
        });
        const PackedMatrix bm{columns, k, count, nr};
        GemmEpilogue ec = e;
        if (ec.residual != nullptr) ec.residual += q0;
        if (!gemm(ocg, count, k, a, GemmOperand::prepacked(bm), out + q0, ohw, ec, nullptr)) {
          return false;
        }
      }
    }
  }
  return true;
}

// Whether `path` runs a depthwise convolution channel-interleaved.
bool channels_path(const Conv2dShape& s, DepthwisePath path) {
  return path == DepthwisePath::Channels ? depthwise_channels_applies(s)
         : path == DepthwisePath::Auto   ? depthwise_channels_preferred(s)
                                         : false;
}

// Whether these choices run one of the paths that take channel blocks: channel-interleaved
// depthwise (multiplier 1) or output pixels as rows.
bool blocked_path(const Conv2dShape& s, DepthwisePath depthwise_path, ConvRows rows) {
  if (!s.valid()) return false;
  return s.depthwise() ? s.oc == s.c && channels_path(s, depthwise_path) : pixel_rows(s, rows);
}

}  // namespace

int64_t blocked_channels() { return gemm_tile(active_gemm_isa()).nr / 2; }

bool conv2d_weights_read_in_place(const Conv2dShape& s) {
  return s.valid() && weights_in_place(s, ConvRows::Auto, {});
}

bool conv2d_reads_blocked(const Conv2dShape& s, DepthwisePath depthwise_path, ConvRows rows) {
  // (pixel rows read a blocked input in place only: no padded copy)
  return blocked_path(s, depthwise_path, rows) && s.c % blocked_channels() == 0 &&
         (s.depthwise() || (s.ph == 0 && s.pw == 0));
}

bool conv2d_writes_blocked(const Conv2dShape& s, DepthwisePath depthwise_path, ConvRows rows) {
  return blocked_path(s, depthwise_path, rows) && s.oc % blocked_channels() == 0;
}

size_t conv2d_packed_weights_bytes(const Conv2dShape& s, ConvRows rows) {
  if (s.depthwise()) return 0;
  if (sparse_taps(s, rows)) return conv2d_sparse_taps_packed_weights_bytes(s);
  if (pixel_rows(s, rows)) return conv2d_pixels_packed_weights_bytes(s);
  return static_cast<size_t>(s.groups) * packed_a_bytes(s.oc_per_group(), s.k());
}

// The k slice depth a shape's weights are packed with: at most the deep depth
// (gemm_slice_depth(true)) where the direct path runs, the standard one elsewhere (measured: deep
// slices speed up the 3x3 and 7x7 layers, fewer passes over C, and slow down pointwise ones),
// cut into equal slices so that no short last slice pays a whole pass over C (a 3x3 layer of 64
// channels: K = 576 in 3 x 192 rows instead of 256 + 256 + 64, 2.5% faster).
int64_t weights_depth(const Conv2dShape& s) {
  const int64_t most = gemm_slice_depth(conv2d_direct_applies(s));
  const int64_t slices = (s.k() + most - 1) / most;
  return (s.k() + slices - 1) / slices;
}

void conv2d_pack_weights(const Conv2dShape& s, const float* weights, float* out, ConvRows rows) {
  if (s.depthwise()) return;
  if (sparse_taps(s, rows)) {
    conv2d_sparse_taps_pack_weights(s, weights, out);
    return;
  }
  if (pixel_rows(s, rows)) {
    conv2d_pixels_pack_weights(s, weights, out);
    return;
  }
  const int64_t ocg = s.oc_per_group(), k = s.k();
  const size_t per_group = packed_a_bytes(ocg, k) / sizeof(float);
  for (int64_t g = 0; g < s.groups; ++g) {
    pack_a(ocg, k, weights + g * ocg * k, k, false, out + static_cast<size_t>(g) * per_group,
           weights_depth(s));
  }
}

PackedMatrix conv2d_group_weights(const Conv2dShape& s, const float* packed_weights, int64_t g) {
  const int64_t ocg = s.oc_per_group(), k = s.k();
  const size_t per_group = packed_a_bytes(ocg, k) / sizeof(float);
  PackedMatrix a{packed_weights + static_cast<size_t>(g) * per_group, ocg, k};
  a.panel = gemm_tile(active_gemm_isa()).mr;
  a.slice_major = true;
  a.depth = weights_depth(s);
  return a;
}

size_t conv2d_scratch_bytes(const Conv2dShape& s, bool weights_packed, ConvRows rows,
                            int64_t workers) {
  if (s.depthwise()) return 0;
  // (a caller that asks for blocked layouts takes the paths below: the larger of the two)
  const size_t in_place =
      !weights_packed && weights_in_place(s, rows, {}) ? weights_in_place_scratch_bytes(s) : 0;
  size_t bytes = weights_packed ? 0 : conv2d_packed_weights_bytes(s, rows);
  const int64_t ohw = s.oh() * s.ow();
  if (sparse_taps(s, rows)) {
    bytes += conv2d_sparse_taps_scratch_bytes(s);
  } else if (pixel_rows(s, rows)) {
    bytes += conv2d_pixels_scratch_bytes(s);
  } else if (s.pointwise()) {  // B packed (with an input scale) or its row pointers
    bytes += std::max(gemm_scratch_bytes(s.oc_per_group(), ohw, s.k(), true, false),
                      align_up(static_cast<size_t>(s.k()) * sizeof(const float*)));
  } else if (conv2d_direct_applies(s)) {
    bytes += conv2d_direct_scratch_bytes(s, workers);
  } else {
    bytes += align_up(static_cast<size_t>(chunk_pixels(s) * s.k()) * sizeof(float));
  }
  return std::max(bytes, in_place);
}

bool conv2d(const Conv2dShape& s, const float* input, const float* weights,
            const float* packed_weights, const GemmEpilogue& epilogue, float* output, void* scratch,
            const float* input_scale, DepthwisePath depthwise_path, ConvRows rows,
            ConvLayouts layouts, int64_t workers) {
  if (!s.valid() || (input_scale != nullptr && s.depthwise())) return false;
  if ((layouts.input_blocked &&
       (!conv2d_reads_blocked(s, depthwise_path, rows) || input_scale != nullptr)) ||
      (layouts.output_blocked &&
       (!conv2d_writes_blocked(s, depthwise_path, rows) || epilogue.residual != nullptr))) {
    return false;
  }
  const int64_t oh = s.oh(), ow = s.ow(), ohw = oh * ow;
  const int64_t in_image = s.c * s.h * s.w, out_image = s.oc * ohw;

  if (s.depthwise()) {
    if (channels_path(s, depthwise_path)) {
      depthwise_channels(s, input, weights, epilogue, output, layouts);
      return true;
    }
    const int64_t mult = s.oc / s.c;
    const int64_t taps = s.kh * s.kw;
    const bool flat = depthwise_path == DepthwisePath::Flat   ? depthwise_flat_applies(s)
                      : depthwise_path == DepthwisePath::Auto ? depthwise_flat_preferred(s)
                                                              : false;
    const FlatGeometry g = flat_geometry(s);  // (divisions: once, not per plane)
    parallel_for(s.n * s.oc, [&](int64_t item) {
      const int64_t b = item / s.oc, o = item % s.oc;
      const float* res =
          epilogue.residual != nullptr ? epilogue.residual + b * out_image + o * ohw : nullptr;
      const float* in = input + b * in_image + (o / mult) * s.h * s.w;
      const float bias = epilogue.bias != nullptr ? epilogue.bias[o] : 0.0f;
      float* out = output + b * out_image + o * ohw;
      if (flat) {
        depthwise_plane_flat(s, g, in, weights + o * taps, bias, res, epilogue, out);
      } else {
        depthwise_plane_rows(s, in, weights + o * taps, bias, res, epilogue, out);
      }
    });
    return true;
  }

  if (conv2d_scratch_bytes(s, packed_weights != nullptr, rows, workers) > 0 && scratch == nullptr) {
    return false;
  }
  if (packed_weights == nullptr && weights_in_place(s, rows, layouts)) {
    return conv2d_weights_in_place(s, input, weights, epilogue, output, scratch, input_scale);
  }
  auto* bytes = static_cast<unsigned char*>(scratch);
  const int64_t ocg = s.oc_per_group(), cg = s.c_per_group(), k = s.k();
  if (packed_weights == nullptr) {
    auto* out = reinterpret_cast<float*>(bytes);
    conv2d_pack_weights(s, weights, out, rows);
    packed_weights = out;
    bytes += conv2d_packed_weights_bytes(s, rows);
  }
  if (sparse_taps(s, rows)) {
    return conv2d_sparse_taps(s, input, packed_weights, epilogue, output, bytes, input_scale);
  }
  if (pixel_rows(s, rows)) {
    return conv2d_pixels(s, input, packed_weights, epilogue, output, bytes, input_scale, layouts);
  }
  if (conv2d_direct_applies(s)) {
    return conv2d_direct(s, input, packed_weights, epilogue, output, bytes, input_scale, workers);
  }
  const int64_t nr = gemm_tile(active_gemm_isa()).nr;
  const int64_t chunk = chunk_pixels(s);
  std::optional<SerialRegion> serial;
  if (conv2d_groups_serial(s)) serial.emplace();

  for (int64_t b = 0; b < s.n; ++b) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const PackedMatrix a = conv2d_group_weights(s, packed_weights, g);
      const float* in = input + b * in_image + g * cg * s.h * s.w;
      float* out = output + b * out_image + g * ocg * ohw;
      GemmEpilogue e = group_epilogue(s, epilogue, b, g);
      const float* scale = input_scale != nullptr ? input_scale + b * s.c + g * cg : nullptr;
      if (s.pointwise() && scale == nullptr) {
        // B's rows are the input's channel planes, read in place.
        auto** planes = reinterpret_cast<const float**>(bytes);
        for (int64_t c = 0; c < cg; ++c) planes[c] = in + c * ohw;
        if (!gemm_indirect(ocg, ohw, k, a, planes, out, ohw, e)) return false;
        continue;
      }
      if (s.pointwise()) {  // scaled while packed
        GemmOperand bm = GemmOperand::matrix(in, ohw);
        bm.k_scale = scale;  // K is the group's input channels
        if (!gemm(ocg, ohw, k, GemmOperand::prepacked(a), bm, out, ohw, e, bytes)) return false;
        continue;
      }
      // Per chunk one parallel region: each item gathers a run of B panels and multiplies the
      // weights by just those columns (the GEMM runs serially inside), so the threads meet once
      // per chunk instead of twice, and a panel is used by the thread that packed it.
      auto* columns = reinterpret_cast<float*>(bytes);
      const int64_t threads = num_threads();
      for (int64_t q0 = 0; q0 < ohw; q0 += chunk) {
        const int64_t count = std::min(chunk, ohw - q0);
        const int64_t panels = (count + nr - 1) / nr;
        const int64_t per_item =
            threads > 1 ? (panels + 4 * threads - 1) / (4 * threads) : panels;  // a few per thread
        const int64_t items = (panels + per_item - 1) / per_item;
        std::atomic<bool> ok{true};
        parallel_for(items, [&](int64_t item) {
          const int64_t p0 = item * per_item, p1 = std::min(panels, p0 + per_item);
          for (int64_t t = p0; t < p1; ++t) {
            pack_columns_panel(s, in, q0 + t * nr, std::min(nr, count - t * nr), nr,
                               columns + t * nr * k, scale);
          }
          const int64_t c0 = p0 * nr, cols = std::min(count, p1 * nr) - c0;
          const PackedMatrix bm{columns + c0 * k, k, cols, nr};
          GemmEpilogue ec = e;
          if (ec.residual != nullptr) ec.residual += q0 + c0;
          if (!gemm(ocg, cols, k, GemmOperand::prepacked(a), GemmOperand::prepacked(bm),
                    out + q0 + c0, ohw, ec, nullptr)) {
            ok.store(false, std::memory_order_relaxed);
          }
        });
        if (!ok.load()) return false;
      }
    }
  }
  return true;
}

}  // namespace ptec::kernels::optimized
