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

template <typename A, typename B>
inline void kernel(int64_t kc, A a, B b, float* c, int64_t ldc, bool accumulate) {
  __m512 acc[kAvx512Mr][2];
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
  for (int64_t r = 0; r < kAvx512Mr; ++r) {
    float* row = c + r * ldc;
    if (accumulate) {
      acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_loadu_ps(row));
      acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_loadu_ps(row + 16));
    }
    _mm512_storeu_ps(row, acc[r][0]);
    _mm512_storeu_ps(row + 16, acc[r][1]);
  }
}

}  // namespace

void microkernel_avx512_8x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             bool accumulate) {
  kernel(kc, PackedA{a}, PackedB{b}, c, ldc, accumulate);
}

void microkernel_avx512_8x32_indirect(int64_t kc, const float* a, const float* const* b_rows,
                                      int64_t j, float* c, int64_t ldc, bool accumulate) {
  kernel(kc, PackedA{a}, IndirectB{b_rows, j}, c, ldc, accumulate);
}

void microkernel_avx512_8x32_rows_a(int64_t kc, const float* const* a_rows, const float* b,
                                    float* c, int64_t ldc, bool accumulate) {
  kernel(kc, RowsA{a_rows}, PackedB{b}, c, ldc, accumulate);
}

}  // namespace ptec::kernels::optimized::detail
