#pragma once

// AVX-512F vector math shared by the activation loops (activation_avx512.cpp) and the
// microkernels that apply SiLU to their tiles (gemm_microkernel_avx512.cpp). Include it only from
// translation units built with -mavx512f: its functions have internal linkage, so each such unit
// gets its own copy and no AVX-512 code leaks into a unit built for another ISA.

#include <immintrin.h>

namespace ptec::kernels::optimized::detail {

// e^x for n = round(x / ln2), the polynomial of exp_approx (activation.h): x = n ln2 + r,
// |r| <= ln2 / 2.
static inline __m512 exp_reduced512(__m512 x, __m512 n) {
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

// 1 / d for d >= 1: the 14-bit estimate and one Newton step (relative error ~2^-27).
static inline __m512 reciprocal512(__m512 d) {
  const __m512 r = _mm512_rcp14_ps(d);
  return _mm512_fmadd_ps(r, _mm512_fnmadd_ps(d, r, _mm512_set1_ps(1.0f)), r);
}

// x / (1 + e^-x) by exp_reduced512: n = round(-x / ln2) by the 1.5 * 2^23 shift (one FMA and a
// subtraction, where roundscale takes two uops and a multiply), and no NaN mask: a NaN passes
// every step (max / min return it as their second operand).
static inline __m512 silu512(__m512 v) {
  const __m512 y =
      _mm512_min_ps(_mm512_set1_ps(88.3f),
                    _mm512_max_ps(_mm512_set1_ps(-87.3f), _mm512_sub_ps(_mm512_setzero_ps(), v)));
  const __m512 shift = _mm512_set1_ps(12582912.0f);
  const __m512 n =
      _mm512_sub_ps(_mm512_fmadd_ps(y, _mm512_set1_ps(1.44269504088896341f), shift), shift);
  const __m512 silu =
      _mm512_mul_ps(v, reciprocal512(_mm512_add_ps(_mm512_set1_ps(1.0f), exp_reduced512(y, n))));
  // -inf / (1 + inf) is NaN, as x * sigmoid(x) (the clamped exponent would give -inf).
  const __mmask16 minus_inf = _mm512_cmp_ps_mask(v, _mm512_set1_ps(-__builtin_inff()), _CMP_EQ_OQ);
  return _mm512_mask_mov_ps(silu, minus_inf, _mm512_set1_ps(__builtin_nanf("")));
}

}  // namespace ptec::kernels::optimized::detail
