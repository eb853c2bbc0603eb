#include "kernels/optimized/max_pool2d.h"

#include <algorithm>
#include <limits>

#include "kernels/optimized/threadpool.h"
#include "kernels/optimized/window.h"

namespace ptec::kernels::optimized {
namespace {

// The larger of a and v, NaN once either is NaN (ATen's max pooling propagates NaN).
inline float max_nan(float a, float v) { return v > a || v != v ? v : a; }

// dst[ox] = max(dst[ox], row[ox * stride + off]) for ox in [lo, hi), the stride a compile-time
// constant where it can be (1 and 2) so that the loop vectorizes.
inline void max_strided(float* dst, const float* row, int64_t off, int64_t lo, int64_t hi,
                        int64_t stride) {
  if (stride == 1) {
    for (int64_t ox = lo; ox < hi; ++ox) dst[ox] = max_nan(dst[ox], row[ox + off]);
  } else if (stride == 2) {
    for (int64_t ox = lo; ox < hi; ++ox) dst[ox] = max_nan(dst[ox], row[2 * ox + off]);
  } else {
    for (int64_t ox = lo; ox < hi; ++ox) dst[ox] = max_nan(dst[ox], row[ox * stride + off]);
  }
}

// Output columns [lo, hi) of a row whose K x K window (dilation 1) lies inside the input: the
// largest of the K rows per input column into a small buffer, then the largest of K neighbouring
// columns at stride S. Both passes are contiguous (or constant-stride) loops that vectorize; a
// window-at-a-time loop would gather.
template <int K, int S>
__attribute__((always_inline)) inline void max_interior(float* dst, const float* const* rows,
                                                        int64_t lo, int64_t hi, int64_t off) {
  constexpr int64_t kChunk = 256;  // output columns per pass
  float col_max[kChunk * S + K];
  for (int64_t j0 = lo; j0 < hi; j0 += kChunk) {
    const int64_t cols = std::min(kChunk, hi - j0);
    const int64_t span = (cols - 1) * S + K;
    const int64_t x0 = j0 * S + off;  // >= 0: lo is inside
    for (int64_t x = 0; x < span; ++x) {
      float best = rows[0][x0 + x];
      for (int ky = 1; ky < K; ++ky) best = max_nan(best, rows[ky][x0 + x]);
      col_max[x] = best;
    }
    float* __restrict d = dst + j0;
    for (int64_t j = 0; j < cols; ++j) {
      float best = col_max[j * S];
      for (int kx = 1; kx < K; ++kx) best = max_nan(best, col_max[j * S + kx]);
      d[j] = best;
    }
  }
}

// One output of the window at (oy, ox), taps outside the input skipped.
inline float max_pixel(const MaxPool2dShape& s, const float* in, int64_t oy, int64_t ox) {
  float best = -std::numeric_limits<float>::infinity();
  for (int64_t ky = 0; ky < s.kh; ++ky) {
    const int64_t iy = oy * s.sh - s.ph + ky * s.dh;
    if (iy < 0 || iy >= s.h) continue;
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      const int64_t ix = ox * s.sw - s.pw + kx * s.dw;
      if (ix >= 0 && ix < s.w) best = max_nan(best, in[iy * s.w + ix]);
    }
  }
  return best;
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void max_pool_plane(
    const MaxPool2dShape& s, const float* in, float* out) {
  // Columns where every tap is inside.
  const ColumnRange inside = columns_with_all_taps_inside(s.pw, s.sw, s.dw, s.kw, s.w, s.ow);
  const int64_t in_lo = inside.lo, in_hi = inside.hi;
  const int64_t fused = s.kh == s.kw && (s.kh == 2 || s.kh == 3) && (s.sw == 1 || s.sw == 2) &&
                                s.dw == 1 && in_lo < in_hi
                            ? s.kh * 10 + s.sw
                            : 0;
  for (int64_t oy = 0; oy < s.oh; ++oy) {
    float* dst = out + oy * s.ow;
    const int64_t iy0 = oy * s.sh - s.ph;
    if (fused != 0 && iy0 >= 0 && iy0 + (s.kh - 1) * s.dh < s.h) {
      const float* rows[3] = {};
      for (int64_t ky = 0; ky < s.kh; ++ky) rows[ky] = in + (iy0 + ky * s.dh) * s.w;
      switch (fused) {
        case 21: max_interior<2, 1>(dst, rows, in_lo, in_hi, -s.pw); break;
        case 22: max_interior<2, 2>(dst, rows, in_lo, in_hi, -s.pw); break;
        case 31: max_interior<3, 1>(dst, rows, in_lo, in_hi, -s.pw); break;
        default: max_interior<3, 2>(dst, rows, in_lo, in_hi, -s.pw); break;
      }
      for (int64_t ox = 0; ox < in_lo; ++ox) dst[ox] = max_pixel(s, in, oy, ox);
      for (int64_t ox = in_hi; ox < s.ow; ++ox) dst[ox] = max_pixel(s, in, oy, ox);
      continue;
    }
    std::fill(dst, dst + s.ow, -std::numeric_limits<float>::infinity());
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      const int64_t iy = iy0 + ky * s.dh;
      if (iy < 0 || iy >= s.h) continue;
      const float* row = in + iy * s.w;
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const int64_t off = kx * s.dw - s.pw;
        const ColumnRange x = columns_reading_inside(off, s.sw, s.w, s.ow);
        if (x.lo < x.hi) max_strided(dst, row, off, x.lo, x.hi, s.sw);
      }
    }
  }
}

}  // namespace

bool MaxPool2dShape::valid() const {
  return planes >= 0 && h > 0 && w > 0 && oh >= 0 && ow >= 0 && kh > 0 && kw > 0 && sh > 0 &&
         sw > 0 && ph >= 0 && pw >= 0 && dh > 0 && dw > 0;
}

bool max_pool2d(const MaxPool2dShape& s, const float* in, float* out) {
  if (!s.valid()) return false;
  parallel_for(s.planes,
               [&](int64_t p) { max_pool_plane(s, in + p * s.h * s.w, out + p * s.oh * s.ow); });
  return true;
}

}  // namespace ptec::kernels::optimized
