// AVX-512F microkernel, 8 x 32 (sixteen 16-wide accumulators). Built with -mavx512f
// (kernels/optimized/CMakeLists.txt); keep includes to <immintrin.h> so that no inline library
// function is compiled for AVX-512 here.

#include <immintrin.h>

#include "kernels/optimized/gemm_microkernel.h"

namespace ptec::kernels::optimized::detail {

namespace {

// Where the microkernel reads column p of its A panel: a packed panel (mr floats per column) or
// the rows of a row-major A in place (row r is rows[r]).
struct PackedA {
  const float* a;
  const float* at(int64_t p, int64_t r) const { return a + p * kAvx512Mr + r; }
};
struct RowsA {
  const float* const* rows;
  const float* at(int64_t p, int64_t r) const { return rows[r] + p; }
};
// A read through per-row offsets: element (r, p) is cols[p][off[r]] (a convolution's output pixel
// r and tap p, in place in the input; the offsets are copied so that they stay in registers).
struct OffsetsA {
  const float* const* cols;
  int64_t off[kAvx512Mr];
  OffsetsA(const float* const* c, const int64_t* offsets) : cols(c) {
    for (int64_t r = 0; r < kAvx512Mr; ++r) off[r] = offsets[r];
  }
  const float* at(int64_t p, int64_t r) const { return cols[p] + off[r]; }
};

// Where the microkernel reads row p of its B panel: a packed panel (aligned, nr floats per row)
// or row pointers (an implicit im2col: row p is rows[p] + j, unaligned).
struct PackedB {
  const float* b;
  const float* row(int64_t p) const { return b + p * kAvx512Nr; }
  static __m512 load(const float* x) { return _mm512_load_ps(x); }
};
struct IndirectB {
  const float* const* rows;
  int64_t j;
  const float* row(int64_t p) const { return rows[p] + j; }
  static __m512 load(const float* x) { return _mm512_loadu_ps(x); }
};

// Row r of the tile (v0: columns 0-15, v1: 16-31) through the epilogue, in activate()'s order
// and NaN rules: max(v, 0) gives 0 for NaN (Relu), max(lo, v) and min(hi, v) pass it (Clamp).
__attribute__((always_inline)) inline void finish(const TileEpilogue& e, int64_t r, __m512& v0,
                                                  __m512& v1) {
  if (e.row_bias != nullptr) {
    const __m512 bias = _mm512_set1_ps(e.row_bias[r]);
    v0 = _mm512_add_ps(v0, bias);
    v1 = _mm512_add_ps(v1, bias);
  }
  if (e.col_bias != nullptr) {
    v0 = _mm512_add_ps(v0, _mm512_loadu_ps(e.col_bias));
    v1 = _mm512_add_ps(v1, _mm512_loadu_ps(e.col_bias + 16));
  }
  if (e.residual != nullptr) {
    const float* res = e.residual + r * e.ldr;
    v0 = _mm512_add_ps(v0, _mm512_loadu_ps(res));
    v1 = _mm512_add_ps(v1, _mm512_loadu_ps(res + 16));
  }
  const __m512 lo = _mm512_set1_ps(e.lo);
  if (e.relu) {
    v0 = _mm512_max_ps(v0, lo);
    v1 = _mm512_max_ps(v1, lo);
    return;
  }
  const __m512 hi = _mm512_set1_ps(e.hi);
  v0 = _mm512_min_ps(hi, _mm512_max_ps(lo, v0));
  v1 = _mm512_min_ps(hi, _mm512_max_ps(lo, v1));
}

template <typename A, typename B>
inline void kernel(int64_t kc, A a, B b, float* c, int64_t ldc, bool accumulate,
                   const TileEpilogue* epilogue) {
  __m512 acc[kAvx512Mr][2];
#pragma GCC unroll 8
  for (int64_t r = 0; r < kAvx512Mr; ++r) {
    acc[r][0] = _mm512_setzero_ps();
    acc[r][1] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    const float* row = b.row(p);
    const __m512 b0 = B::load(row);
    const __m512 b1 = B::load(row + 16);
    for (int64_t r = 0; r < kAvx512Mr; ++r) {  // unrolled by the compiler (constant trip count)
      const __m512 av = _mm512_set1_ps(*a.at(p, r));
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 8
  for (int64_t r = 0; r < kAvx512Mr; ++r) {
    float* row = c + r * ldc;
    if (accumulate) {
      acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_loadu_ps(row));
      acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_loadu_ps(row + 16));
    }
    if (epilogue != nullptr) finish(*epilogue, r, acc[r][0], acc[r][1]);
    _mm512_storeu_ps(row, acc[r][0]);
    _mm512_storeu_ps(row + 16, acc[r][1]);
  }
}

}  // namespace

void microkernel_avx512_8x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             bool accumulate, const TileEpilogue* epilogue) {
  kernel(kc, PackedA{a}, PackedB{b}, c, ldc, accumulate, epilogue);
}

void microkernel_avx512_8x32_indirect(int64_t kc, const float* a, const float* const* b_rows,
                                      int64_t j, float* c, int64_t ldc, bool accumulate,
                                      const TileEpilogue* epilogue) {
  kernel(kc, PackedA{a}, IndirectB{b_rows, j}, c, ldc, accumulate, epilogue);
}

void microkernel_avx512_8x32_rows_a(int64_t kc, const float* const* a_rows, const float* b,
                                    float* c, int64_t ldc, bool accumulate,
                                    const TileEpilogue* epilogue) {
  kernel(kc, RowsA{a_rows}, PackedB{b}, c, ldc, accumulate, epilogue);
}

// (flatten: the offsets are copied into registers, not passed through memory)
__attribute__((flatten)) void microkernel_avx512_8x32_offsets_a(
    int64_t kc, const float* const* a_cols, const int64_t* a_offsets, const float* b, float* c,
    int64_t ldc, bool accumulate, const TileEpilogue* epilogue) {
  kernel(kc, OffsetsA(a_cols, a_offsets), PackedB{b}, c, ldc, accumulate, epilogue);
}

}  // namespace ptec::kernels::optimized::detail
