// AVX-512F microkernel, 8 x 32 (sixteen 16-wide accumulators). Built with -mavx512f
// (kernels/optimized/CMakeLists.txt); keep includes to <immintrin.h> so that no inline library
// function is compiled for AVX-512 here.

#include <immintrin.h>

#include "kernels/optimized/gemm_microkernel.h"

namespace ptec::kernels::optimized::detail {

void microkernel_avx512_8x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             bool accumulate) {
  __m512 acc[kAvx512Mr][2];
  for (int64_t r = 0; r < kAvx512Mr; ++r) {
    acc[r][0] = _mm512_setzero_ps();
    acc[r][1] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_load_ps(b);
    const __m512 b1 = _mm512_load_ps(b + 16);
    for (int64_t r = 0; r < kAvx512Mr; ++r) {  // unrolled by the compiler (constant trip count)
      const __m512 av = _mm512_set1_ps(a[r]);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
    a += kAvx512Mr;
    b += kAvx512Nr;
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

}  // namespace ptec::kernels::optimized::detail
