#include "kernels/optimized/max_pool2d.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/optimized/gemm.h"
#include "kernels/optimized/lane_vectors.h"
#include "kernels/optimized/threadpool.h"
#include "kernels/optimized/window.h"

namespace ptec::kernels::optimized {
namespace {

// The larger of a and v, NaN once either is NaN (ATen's max pooling propagates NaN).
inline float max_nan(float a, float v) { return v > a || v != v ? v : a; }

// dst[ox] = max(dst[ox], row[ox * stride + off]) for ox in [lo, hi), the stride a compile-time
// constant where it can be (1 and 2) so that the loop vectorizes.
__attribute__((always_inline)) inline void max_strided(float* dst, const float* row, int64_t off,
                                                       int64_t lo, int64_t hi, int64_t stride) {
  if (stride == 1) {
    for (int64_t ox = lo; ox < hi; ++ox) dst[ox] = max_nan(dst[ox], row[ox + off]);
  } else if (stride == 2) {
    for (int64_t ox = lo; ox < hi; ++ox) dst[ox] = max_nan(dst[ox], row[2 * ox + off]);
  } else {
    for (int64_t ox = lo; ox < hi; ++ox) dst[ox] = max_nan(dst[ox], row[ox * stride + off]);
  }
}

// Vectors go by reference only: the functions below are inlined into ones compiled for an ISA
// whose registers are that wide, and a vector passed by value would change the calling
// convention of the plain ones (lane_vectors.h).

// a = the larger of a and v in each lane, NaN where either is NaN. (Written as two selects that
// each depend on the one before: GCC would merge independent ones into one select on the OR of
// two masks, which it lowers lane by lane here, before this is inlined into its ISA's function.)
template <typename Vec>
__attribute__((always_inline)) inline void max_into(Vec& a, const Vec& v) {
  const Vec nan_or_a = v == v ? a : v;
  a = v > nan_or_a ? v : nan_or_a;  // a NaN stays: the comparison is false
}

template <typename Vec>
__attribute__((always_inline)) inline void load(Vec& v, const float* p) {
  std::memcpy(&v, p, sizeof(Vec));
}

template <typename Vec>
__attribute__((always_inline)) inline void store(float* p, const Vec& v) {
  std::memcpy(p, &v, sizeof(Vec));
}

// even, odd = lanes 0, 2, 4, ... and 1, 3, 5, ... of the 2L floats of a then b.
template <int L>
__attribute__((always_inline)) inline void deinterleave(const typename Lanes<L>::Vec& a,
                                                        const typename Lanes<L>::Vec& b,
                                                        typename Lanes<L>::Vec& even,
                                                        typename Lanes<L>::Vec& odd) {
  using Index = typename Lanes<L>::Index;
  if constexpr (L == 4) {
    even = __builtin_shuffle(a, b, Index{0, 2, 4, 6});
    odd = __builtin_shuffle(a, b, Index{1, 3, 5, 7});
  } else if constexpr (L == 8) {
    even = __builtin_shuffle(a, b, Index{0, 2, 4, 6, 8, 10, 12, 14});
    odd = __builtin_shuffle(a, b, Index{1, 3, 5, 7, 9, 11, 13, 15});
  } else {
    even =
        __builtin_shuffle(a, b, Index{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30});
    odd = __builtin_shuffle(a, b, Index{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31});
  }
}

// next = lanes 1 .. L - 1 of v, then `last`.
template <int L>
__attribute__((always_inline)) inline void shift_in(const typename Lanes<L>::Vec& v, float last,
                                                    typename Lanes<L>::Vec& next) {
  using Vec = typename Lanes<L>::Vec;
  using Index = typename Lanes<L>::Index;
  const Vec tail = Vec{} + last;
  if constexpr (L == 4) {
    next = __builtin_shuffle(v, tail, Index{1, 2, 3, 4});
  } else if constexpr (L == 8) {
    next = __builtin_shuffle(v, tail, Index{1, 2, 3, 4, 5, 6, 7, 8});
  } else {
    next = __builtin_shuffle(v, tail, Index{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  }
}

// The start of the L-wide vector after the one at x, covering [0, n) for n >= L: at 0, L, 2L,
// ..., the last one moved back to end at n (it overlaps its neighbour, which recomputes a few
// values rather than finishing the row one scalar at a time). Loops stop once x + L >= n.
inline int64_t next_vector(int64_t x, int64_t lanes, int64_t n) {
  return std::min(x + lanes, n - lanes);
}

// Output columns [lo, lo + cols) of a row whose K x K window (dilation 1) lies inside the input,
// cols >= L, L at a time: the largest of the window's K rows for each input column it needs,
// then the largest of K neighbouring columns at stride S, all in registers (a pass through a
// buffer would reload each vector from two unfinished stores).
template <int K, int S, int L>
__attribute__((always_inline)) inline void max_interior_run(float* dst, const float* const* rows,
                                                            int64_t lo, int64_t cols, int64_t off) {
  using Vec = typename Lanes<L>::Vec;
  // Column maxima of the L input columns from input column x.
  auto column_max = [rows](Vec & best, int64_t x) __attribute__((always_inline)) {
    Vec v;
    load(best, rows[0] + x);
    for (int ky = 1; ky < K; ++ky) {
      load(v, rows[ky] + x);
      max_into(best, v);
    }
  };
  for (int64_t j = 0;; j = next_vector(j, L, cols)) {
    const int64_t x = (lo + j) * S + off;  // >= 0: lo is inside
    Vec best, a, b;
    if constexpr (S == 1) {
      column_max(best, x);
      for (int kx = 1; kx < K; ++kx) {
        column_max(a, x + kx);
        max_into(best, a);
      }
    } else {
      // Stride 2: the even and odd columns of the 2L from x, and for K = 3 the even ones one
      // lane on, the last lane column x + 2L (the last window's last column) on its own.
      Vec odd;
      column_max(a, x);
      column_max(b, x + L);
      deinterleave<L>(a, b, best, odd);
      if constexpr (K == 3) {
        float last = rows[0][x + 2 * L];
        for (int ky = 1; ky < K; ++ky) last = max_nan(last, rows[ky][x + 2 * L]);
        Vec next;
        shift_in<L>(best, last, next);
        max_into(odd, next);
      }
      max_into(best, odd);
    }
    store(dst + lo + j, best);
    if (j + L >= cols) break;
  }
}

// Output columns [lo, hi) of a row whose window lies inside the input, in the widest vectors
// (L, L / 2, ... 4 floats) that the row fills; fewer than 4 columns go window by window.
template <int K, int S, int L>
__attribute__((always_inline)) inline void max_interior(float* dst, const float* const* rows,
                                                        int64_t lo, int64_t hi, int64_t off) {
  const int64_t cols = hi - lo;
  if (cols >= L) {
    max_interior_run<K, S, L>(dst, rows, lo, cols, off);
  } else if (L >= 16 && cols >= 8) {
    max_interior_run<K, S, 8>(dst, rows, lo, cols, off);
  } else if (L >= 8 && cols >= 4) {
    max_interior_run<K, S, 4>(dst, rows, lo, cols, off);
  } else {
    for (int64_t j = lo; j < hi; ++j) {
      float best = rows[0][j * S + off];
      for (int ky = 0; ky < K; ++ky) {
        for (int kx = 0; kx < K; ++kx) best = max_nan(best, rows[ky][j * S + off + kx]);
      }
      dst[j] = best;
    }
  }
}

// One output of the window at (oy, ox), taps outside the input skipped.
__attribute__((always_inline)) inline float max_pixel(const MaxPool2dShape& s, const float* in,
                                                      int64_t oy, int64_t ox) {
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

// The flat path's padded copy of a plane holds at most this many floats (on the stack).
constexpr int64_t kFlatFloats = 4096;

// The flat path's geometry for a stride-1 undilated pool: the plane at row ph, column pw of a
// buffer of `rows` rows of `pitch` floats, -inf around it and far enough right and down for the
// last window (ceil mode may reach past the padding).
struct FlatPlane {
  int64_t rows = 0, pitch = 0;
  bool fits = false;
};
FlatPlane flat_plane(const MaxPool2dShape& s) {
  FlatPlane f;
  f.rows = std::max(s.ph + s.h, s.oh - 1 + s.kh) + 1;  // + 1: the last row's overrun
  f.pitch = std::max(s.pw + s.w, s.ow - 1 + s.kw);
  f.fits = s.sh == 1 && s.sw == 1 && s.dh == 1 && s.dw == 1 && s.kh <= 7 && s.kw <= 7 && s.w < 32 &&
           s.oh > 0 && s.ow > 0 && f.rows * f.pitch + 16 <= kFlatFloats;
  return f;
}

// A stride-1 plane with short rows (Inception's 3x3 branch pools at 14x14 and 7x7): the plane is
// copied into a -inf-padded buffer, and the outputs of the flat range [0, oh pitch) are the
// largest of the K x K offsets, L at a time (each row's pitch - ow extra columns computed and
// dropped), then copied out by rows. Handling each row's edges one by one cost more than the
// maxima on such planes (480 planes of 14x14, 3x3 with padding 1: 0.29 -> 0.08 ms; 832 of 7x7
// 0.26 -> 0.07). At stride 2 computing every stride-1 maximum and keeping a quarter lost (480
// planes of 28x28: 0.16 -> 0.28 ms).
template <int L>
__attribute__((always_inline)) inline void max_pool_plane_flat(const MaxPool2dShape& s,
                                                               const FlatPlane& f, const float* in,
                                                               float* out) {
  using Vec = typename Lanes<L>::Vec;
  float buf[kFlatFloats];
  float flat[kFlatFloats];
  const int64_t n = s.oh * f.pitch;  // <= rows * pitch - pitch
  const int64_t used = (n + L - 1) / L * L + (s.kh - 1) * f.pitch + s.kw - 1;
  std::fill(buf, buf + std::min<int64_t>(kFlatFloats, used + L),
            -std::numeric_limits<float>::infinity());
  for (int64_t y = 0; y < s.h; ++y) {
    std::memcpy(buf + (s.ph + y) * f.pitch + s.pw, in + y * s.w,
                static_cast<size_t>(s.w) * sizeof(float));
  }
  for (int64_t i = 0; i < n; i += L) {
    Vec best, v;
    load(best, buf + i);
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        if (ky + kx == 0) continue;
        load(v, buf + i + ky * f.pitch + kx);
        max_into(best, v);
      }
    }
    store(flat + i, best);
  }
  for (int64_t oy = 0; oy < s.oh; ++oy) {
    std::memcpy(out + oy * s.ow, flat + oy * f.pitch, static_cast<size_t>(s.ow) * sizeof(float));
  }
}

template <int L>
__attribute__((always_inline)) inline void max_pool_plane(const MaxPool2dShape& s, const float* in,
                                                          float* out) {
  if (const FlatPlane f = flat_plane(s); f.fits) {
    max_pool_plane_flat<L>(s, f, in, out);
    return;
  }
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
        case 21: max_interior<2, 1, L>(dst, rows, in_lo, in_hi, -s.pw); break;
        case 22: max_interior<2, 2, L>(dst, rows, in_lo, in_hi, -s.pw); break;
        case 31: max_interior<3, 1, L>(dst, rows, in_lo, in_hi, -s.pw); break;
        default: max_interior<3, 2, L>(dst, rows, in_lo, in_hi, -s.pw); break;
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

// One plane per instruction set, each compiled for it with vectors as wide as its registers.
#if defined(PTEC_GEMM_HAVE_AVX2)
__attribute__((target("avx512f"))) void max_pool_plane_avx512(const MaxPool2dShape& s,
                                                              const float* in, float* out) {
  max_pool_plane<16>(s, in, out);
}
__attribute__((target("avx2"))) void max_pool_plane_avx2(const MaxPool2dShape& s, const float* in,
                                                         float* out) {
  max_pool_plane<8>(s, in, out);
}
#endif
void max_pool_plane_generic(const MaxPool2dShape& s, const float* in, float* out) {
  max_pool_plane<4>(s, in, out);
}

}  // namespace

bool MaxPool2dShape::valid() const {
  return planes >= 0 && h > 0 && w > 0 && oh >= 0 && ow >= 0 && kh > 0 && kw > 0 && sh > 0 &&
         sw > 0 && ph >= 0 && pw >= 0 && dh > 0 && dw > 0;
}

bool max_pool2d(const MaxPool2dShape& s, const float* in, float* out) {
  if (!s.valid()) return false;
  void (*plane)(const MaxPool2dShape&, const float*, float*) = max_pool_plane_generic;
#if defined(PTEC_GEMM_HAVE_AVX2)
  const GemmIsa isa = active_gemm_isa();
  if (isa == GemmIsa::Avx512) plane = max_pool_plane_avx512;
  if (isa == GemmIsa::Avx2) plane = max_pool_plane_avx2;
#endif
  parallel_for(s.planes, [&](int64_t p) { plane(s, in + p * s.h * s.w, out + p * s.oh * s.ow); });
  return true;
}

}  // namespace ptec::kernels::optimized
