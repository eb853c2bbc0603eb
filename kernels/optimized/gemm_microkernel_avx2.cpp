// AVX2 + FMA microkernel, 6 x 16. Built with -mavx2 -mfma (kernels/optimized/CMakeLists.txt);
// keep includes to <immintrin.h> so that no inline library function is compiled for AVX2 here.

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

template <typename A, typename B>
inline void kernel(int64_t kc, A a, B b, float* c, int64_t ldc, bool accumulate,
                   const TileEpilogue* epilogue) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p) {
    const float* row = b.row(p);
    const __m256 b0 = B::load(row);
    const __m256 b1 = B::load(row + 8);
    __m256 av = _mm256_broadcast_ss(a.at(p, 0));
    c00 = _mm256_fmadd_ps(av, b0, c00);
    c01 = _mm256_fmadd_ps(av, b1, c01);
    av = _mm256_broadcast_ss(a.at(p, 1));
    c10 = _mm256_fmadd_ps(av, b0, c10);
    c11 = _mm256_fmadd_ps(av, b1, c11);
    av = _mm256_broadcast_ss(a.at(p, 2));
    c20 = _mm256_fmadd_ps(av, b0, c20);
    c21 = _mm256_fmadd_ps(av, b1, c21);
    av = _mm256_broadcast_ss(a.at(p, 3));
    c30 = _mm256_fmadd_ps(av, b0, c30);
    c31 = _mm256_fmadd_ps(av, b1, c31);
    av = _mm256_broadcast_ss(a.at(p, 4));
    c40 = _mm256_fmadd_ps(av, b0, c40);
    c41 = _mm256_fmadd_ps(av, b1, c41);
    av = _mm256_broadcast_ss(a.at(p, 5));
    c50 = _mm256_fmadd_ps(av, b0, c50);
    c51 = _mm256_fmadd_ps(av, b1, c51);
  }
  float* r0 = c;
  float* r1 = c + ldc;
  float* r2 = c + 2 * ldc;
  float* r3 = c + 3 * ldc;
  float* r4 = c + 4 * ldc;
  float* r5 = c + 5 * ldc;
  if (accumulate) {
    c00 = _mm256_add_ps(c00, _mm256_loadu_ps(r0));
    c01 = _mm256_add_ps(c01, _mm256_loadu_ps(r0 + 8));
    c10 = _mm256_add_ps(c10, _mm256_loadu_ps(r1));
    c11 = _mm256_add_ps(c11, _mm256_loadu_ps(r1 + 8));
    c20 = _mm256_add_ps(c20, _mm256_loadu_ps(r2));
    c21 = _mm256_add_ps(c21, _mm256_loadu_ps(r2 + 8));
    c30 = _mm256_add_ps(c30, _mm256_loadu_ps(r3));
    c31 = _mm256_add_ps(c31, _mm256_loadu_ps(r3 + 8));
    c40 = _mm256_add_ps(c40, _mm256_loadu_ps(r4));
    c41 = _mm256_add_ps(c41, _mm256_loadu_ps(r4 + 8));
    c50 = _mm256_add_ps(c50, _mm256_loadu_ps(r5));
    c51 = _mm256_add_ps(c51, _mm256_loadu_ps(r5 + 8));
  }
  if (epilogue != nullptr) {
    finish(*epilogue, 0, c00, c01);
    finish(*epilogue, 1, c10, c11);
    finish(*epilogue, 2, c20, c21);
    finish(*epilogue, 3, c30, c31);
    finish(*epilogue, 4, c40, c41);
    finish(*epilogue, 5, c50, c51);
  }
  _mm256_storeu_ps(r0, c00);
  _mm256_storeu_ps(r0 + 8, c01);
  _mm256_storeu_ps(r1, c10);
  _mm256_storeu_ps(r1 + 8, c11);
  _mm256_storeu_ps(r2, c20);
  _mm256_storeu_ps(r2 + 8, c21);
  _mm256_storeu_ps(r3, c30);
  _mm256_storeu_ps(r3 + 8, c31);
  _mm256_storeu_ps(r4, c40);
  _mm256_storeu_ps(r4 + 8, c41);
  _mm256_storeu_ps(r5, c50);
  _mm256_storeu_ps(r5 + 8, c51);
}

}  // namespace

void microkernel_avx2_6x16(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                           bool accumulate, const TileEpilogue* epilogue) {
  kernel(kc, PackedA{a}, PackedB{b}, c, ldc, accumulate, epilogue);
}

void microkernel_avx2_6x16_indirect(int64_t kc, const float* a, const float* const* b_rows,
                                    int64_t j, float* c, int64_t ldc, bool accumulate,
                                    const TileEpilogue* epilogue) {
  kernel(kc, PackedA{a}, IndirectB{b_rows, j}, c, ldc, accumulate, epilogue);
}

void microkernel_avx2_6x16_rows_a(int64_t kc, const float* const* a_rows, const float* b, float* c,
                                  int64_t ldc, bool accumulate, const TileEpilogue* epilogue) {
  kernel(kc, RowsA{a_rows}, PackedB{b}, c, ldc, accumulate, epilogue);
}

// (flatten: the offsets are copied into registers, not passed through memory)
__attribute__((flatten)) void microkernel_avx2_6x16_offsets_a(
    int64_t kc, const float* const* a_cols, const int64_t* a_offsets, const float* b, float* c,
    int64_t ldc, bool accumulate, const TileEpilogue* epilogue) {
  kernel(kc, OffsetsA(a_cols, a_offsets), PackedB{b}, c, ldc, accumulate, epilogue);
}

}  // namespace ptec::kernels::optimized::detail
