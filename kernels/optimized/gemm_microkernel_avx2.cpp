// AVX2 + FMA microkernels, 6 x 16, and 5 x 16 for the offsets kernel. Built with -mavx2 -mfma
// (kernels/optimized/CMakeLists.txt); keep includes to <immintrin.h> so that no inline library
// function is compiled for AVX2 here.

#include <immintrin.h>

#include "kernels/optimized/gemm_microkernel.h"

namespace ptec::kernels::optimized::detail {

namespace {

// Column p of the A panel: packed (mr floats per column) or the rows of a row-major A in place.
struct PackedA {
  const float* a;
  const float* at(int64_t p, int64_t r) const { return a + p * kAvx2Mr + r; }
};
struct RowsA {
  const float* const* rows;
  const float* at(int64_t p, int64_t r) const { return rows[r] + p; }
};
// A read through per-row offsets: element (r, p) is cols[p][off[r]] (a convolution's output pixel
// r and tap p, in place in the input; the offsets are copied so that they stay in registers).
struct OffsetsA {
  const float* const* cols;
  int64_t off[kAvx2Mr];
  OffsetsA(const float* const* c, const int64_t* offsets) : cols(c) {
    for (int64_t r = 0; r < kAvx2Mr; ++r) off[r] = offsets[r];
  }
  const float* at(int64_t p, int64_t r) const { return cols[p] + off[r]; }
};

// Row p of the B panel: packed (aligned, nr floats per row) or through row pointers (an implicit
// im2col: rows[p] + j, unaligned).
struct PackedB {
  const float* b;
  const float* row(int64_t p) const { return b + p * kAvx2Nr; }
  static __m256 load(const float* x) { return _mm256_load_ps(x); }
};
struct IndirectB {
  const float* const* rows;
  int64_t j;
  const float* row(int64_t p) const { return rows[p] + j; }
  static __m256 load(const float* x) { return _mm256_loadu_ps(x); }
};

// Row r of the tile (v0: columns 0-7, v1: 8-15) through the epilogue, in activate()'s order
// and NaN rules: max(v, 0) gives 0 for NaN (Relu), max(lo, v) and min(hi, v) pass it (Clamp).
inline void finish(const TileEpilogue& e, int64_t r, __m256& v0, __m256& v1) {
  if (e.row_bias != nullptr) {
    const __m256 bias = _mm256_set1_ps(e.row_bias[r]);
    v0 = _mm256_add_ps(v0, bias);
    v1 = _mm256_add_ps(v1, bias);
  }
  if (e.col_bias != nullptr) {
    v0 = _mm256_add_ps(v0, _mm256_loadu_ps(e.col_bias));
    v1 = _mm256_add_ps(v1, _mm256_loadu_ps(e.col_bias + 8));
  }
  if (e.residual != nullptr) {
    const float* res = e.residual + r * e.ldr;
    v0 = _mm256_add_ps(v0, _mm256_loadu_ps(res));
    v1 = _mm256_add_ps(v1, _mm256_loadu_ps(res + 8));
  }
  const __m256 lo = _mm256_set1_ps(e.lo);
  if (e.relu) {
    v0 = _mm256_max_ps(v0, lo);
    v1 = _mm256_max_ps(v1, lo);
    return;
  }
  const __m256 hi = _mm256_set1_ps(e.hi);
  v0 = _mm256_min_ps(hi, _mm256_max_ps(lo, v0));
  v1 = _mm256_min_ps(hi, _mm256_max_ps(lo, v1));
}

// C's first R rows (R < kAvx2Mr: a shorter panel, see the 5 x 16 kernel) = A panel * B panel
// over kc steps, accumulated into C and through the epilogue as asked. Fully unrolled over the
// rows: the 2 R accumulators, two B vectors and the broadcast fit the 16 AVX registers.
template <int64_t R = kAvx2Mr, typename A, typename B, typename P = NoPrefetch>
__attribute__((always_inline)) inline void kernel(int64_t kc, A a, B b, float* c, int64_t ldc,
                                                  bool accumulate, const TileEpilogue* epilogue,
                                                  P prefetch = {}) {
  __m256 acc[R][2];
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r) {
    acc[r][0] = _mm256_setzero_ps();
    acc[r][1] = _mm256_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    prefetch.step(p);
    const float* row = b.row(p);
    const __m256 b0 = B::load(row);
    const __m256 b1 = B::load(row + 8);
#pragma GCC unroll 8
    for (int64_t r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a.at(p, r));
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r) {
    float* out = c + r * ldc;
    if (accumulate) {
      acc[r][0] = _mm256_add_ps(acc[r][0], _mm256_loadu_ps(out));
      acc[r][1] = _mm256_add_ps(acc[r][1], _mm256_loadu_ps(out + 8));
    }
    if (epilogue != nullptr) finish(*epilogue, r, acc[r][0], acc[r][1]);
    _mm256_storeu_ps(out, acc[r][0]);
    _mm256_storeu_ps(out + 8, acc[r][1]);
  }
}

}  // namespace

void microkernel_avx2_6x16(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                           bool accumulate, const TileEpilogue* epilogue, const void* prefetch) {
  with_prefetch(prefetch, [&](auto p) {
    kernel(kc, PackedA{a}, PackedB{b}, c, ldc, accumulate, epilogue, p);
  });
}

void microkernel_avx2_6x16_indirect(int64_t kc, const float* a, const float* const* b_rows,
                                    int64_t j, float* c, int64_t ldc, bool accumulate,
                                    const TileEpilogue* epilogue) {
  kernel(kc, PackedA{a}, IndirectB{b_rows, j}, c, ldc, accumulate, epilogue);
}

void microkernel_avx2_6x16_rows_a(int64_t kc, const float* const* a_rows, const float* b, float* c,
                                  int64_t ldc, bool accumulate, const TileEpilogue* epilogue,
                                  const void* prefetch) {
  with_prefetch(prefetch, [&](auto p) {
    kernel(kc, RowsA{a_rows}, PackedB{b}, c, ldc, accumulate, epilogue, p);
  });
}

// (flatten: the offsets are copied into registers, not passed through memory)
__attribute__((flatten)) void microkernel_avx2_6x16_offsets_a(
    int64_t kc, const float* const* a_cols, const int64_t* a_offsets, const float* b, float* c,
    int64_t ldc, bool accumulate, const TileEpilogue* epilogue, const void* prefetch) {
  with_prefetch(prefetch, [&](auto p) {
    kernel(kc, OffsetsA(a_cols, a_offsets), PackedB{b}, c, ldc, accumulate, epilogue, p);
  });
}

// 5 x 16: the offsets kernel for panels of 5 pixels (a 7 x 7 output is 10 panels of 5, where 6-row
// panels compute 54 rows).
__attribute__((flatten)) void microkernel_avx2_5x16_offsets_a(
    int64_t kc, const float* const* a_cols, const int64_t* a_offsets, const float* b, float* c,
    int64_t ldc, bool accumulate, const TileEpilogue* epilogue, const void* prefetch) {
  with_prefetch(prefetch, [&](auto p) {
    kernel<5>(kc, OffsetsA(a_cols, a_offsets), PackedB{b}, c, ldc, accumulate, epilogue, p);
  });
}

}  // namespace ptec::kernels::optimized::detail
