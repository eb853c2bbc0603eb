// AVX-512 VNNI int8 microkernel, 8 x 32, and its vectorized requantization. Built with
// -mavx512f -mavx512bw -mavx512vl -mavx512vnni (kernels/optimized/CMakeLists.txt); keep includes
// to <immintrin.h> so that no inline library function is compiled for AVX-512 here.

#include <immintrin.h>

#include "kernels/optimized/qgemm_microkernel.h"

namespace ptec::kernels::optimized::detail {

void qmicrokernel_avx512vnni_8x32(int64_t kq, const int8_t* a, const uint8_t* b, int32_t* tile) {
  __m512i acc[kQAvx512Mr][2];
  for (int64_t r = 0; r < kQAvx512Mr; ++r) {
    acc[r][0] = _mm512_setzero_si512();
    acc[r][1] = _mm512_setzero_si512();
  }
  for (int64_t p = 0; p < kq; ++p) {
    const __m512i b0 = _mm512_loadu_si512(b);
    const __m512i b1 = _mm512_loadu_si512(b + 64);
    for (int64_t r = 0; r < kQAvx512Mr; ++r) {  // unrolled by the compiler
      int32_t quad;
      __builtin_memcpy(&quad, a + r * 4, 4);
      const __m512i av = _mm512_set1_epi32(quad);
      // vpdpbusd: the first multiplicand is unsigned (B, activations), the second signed (A).
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], b0, av);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], b1, av);
    }
    a += kQAvx512Mr * 4;
    b += kQAvx512Nr * 4;
  }
  for (int64_t r = 0; r < kQAvx512Mr; ++r) {
    _mm512_storeu_si512(tile + r * kQAvx512Nr, acc[r][0]);
    _mm512_storeu_si512(tile + r * kQAvx512Nr + 16, acc[r][1]);
  }
}

void qrequant_row_avx512(const int32_t* acc, int64_t n, int32_t offset, int32_t a_zp,
                         const int32_t* colsum, float scale, float bias, int32_t zp, int32_t lo,
                         int32_t hi, bool out_signed, void* out) {
  const __m512i voff = _mm512_set1_epi32(offset);
  const __m512i vazp = _mm512_set1_epi32(a_zp);
  const __m512 vscale = _mm512_set1_ps(scale);
  const __m512 vbias = _mm512_set1_ps(bias);
  const __m512 fmin = _mm512_set1_ps(-1e9f);
  const __m512 fmax = _mm512_set1_ps(1e9f);
  const __m512i vzp = _mm512_set1_epi32(zp);
  const __m512i vlo = _mm512_set1_epi32(lo);
  const __m512i vhi = _mm512_set1_epi32(hi);
  auto* dst = static_cast<char*>(out);
  for (int64_t j = 0; j < n; j += 16) {
    const int64_t left = n - j;
    const __mmask16 mask =
        left >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << left) - 1u);
    __m512i v = _mm512_add_epi32(_mm512_maskz_loadu_epi32(mask, acc + j), voff);
    if (colsum != nullptr) {
      v = _mm512_sub_epi32(v, _mm512_mullo_epi32(vazp, _mm512_maskz_loadu_epi32(mask, colsum + j)));
    }
    __m512 f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(v), vscale, vbias);
    f = _mm512_min_ps(_mm512_max_ps(f, fmin), fmax);
    // Round half to even (the default MXCSR mode), then the zero point and the bounds.
    __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), vzp);
    q = _mm512_min_epi32(_mm512_max_epi32(q, vlo), vhi);
    // In range for the output type, so truncating to 8 bits keeps the value (u8 or s8 alike).
    (void)out_signed;
    _mm_mask_storeu_epi8(dst + j, mask, _mm512_cvtepi32_epi8(q));
  }
}

}  // namespace ptec::kernels::optimized::detail
