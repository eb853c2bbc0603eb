// AVX2 int8 microkernel, 4 x 16. Built with -mavx2 (kernels/optimized/CMakeLists.txt); keep
// includes to <immintrin.h> so that no inline library function is compiled for AVX2 here.
//
// vpmaddubsw multiplies u8 (B) by s8 (A) and adds adjacent pairs into a saturating int16: two
// products of 255 * -128 would saturate. B is therefore split into lo = b & 0x7f and hi =
// (b >> 7) & 1: pairs of lo * a stay within +-32512 and pairs of hi * a within +-256, so neither
// saturates; vpmaddwd widens each to int32 (summing the two pairs of a quad), weighting hi by 128.

#include <immintrin.h>

#include "kernels/optimized/qgemm_microkernel.h"

namespace ptec::kernels::optimized::detail {

void qmicrokernel_avx2_4x16(int64_t kq, const int8_t* a, const uint8_t* b, int32_t* tile) {
  const __m256i low7 = _mm256_set1_epi8(0x7f);
  const __m256i one8 = _mm256_set1_epi8(1);
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i w128 = _mm256_set1_epi16(128);
  __m256i acc[kQAvx2Mr][2];
  for (int64_t r = 0; r < kQAvx2Mr; ++r) {
    acc[r][0] = _mm256_setzero_si256();
    acc[r][1] = _mm256_setzero_si256();
  }
  for (int64_t p = 0; p < kq; ++p) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32));
    const __m256i lo0 = _mm256_and_si256(b0, low7);
    const __m256i lo1 = _mm256_and_si256(b1, low7);
    const __m256i hi0 = _mm256_and_si256(_mm256_srli_epi16(b0, 7), one8);
    const __m256i hi1 = _mm256_and_si256(_mm256_srli_epi16(b1, 7), one8);
    for (int64_t r = 0; r < kQAvx2Mr; ++r) {
      int32_t quad;
      __builtin_memcpy(&quad, a + r * 4, 4);
      const __m256i av = _mm256_set1_epi32(quad);
      const __m256i l0 = _mm256_madd_epi16(_mm256_maddubs_epi16(lo0, av), ones);
      const __m256i h0 = _mm256_madd_epi16(_mm256_maddubs_epi16(hi0, av), w128);
      const __m256i l1 = _mm256_madd_epi16(_mm256_maddubs_epi16(lo1, av), ones);
      const __m256i h1 = _mm256_madd_epi16(_mm256_maddubs_epi16(hi1, av), w128);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_add_epi32(l0, h0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_add_epi32(l1, h1));
    }
    a += kQAvx2Mr * 4;
    b += kQAvx2Nr * 4;
  }
  for (int64_t r = 0; r < kQAvx2Mr; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tile + r * kQAvx2Nr), acc[r][0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tile + r * kQAvx2Nr + 8), acc[r][1]);
  }
}

}  // namespace ptec::kernels::optimized::detail
