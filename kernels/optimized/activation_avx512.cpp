// AVX-512F activation loops (activation_simd.h). Built with -mavx512f; keep includes to
// <immintrin.h>, activation_simd.h and vector_math_avx512.h.

// GCC 12's AVX-512 intrinsics pass _mm512_undefined_*() as the unused source of their masked
// forms, which -Wuninitialized reports (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <immintrin.h>

#include "kernels/optimized/activation_simd.h"
#include "kernels/optimized/vector_math_avx512.h"

namespace ptec::kernels::optimized::detail {
namespace {

// e^x (exp_reduced512).
__m512 exp512(__m512 v) {
  // NaN passes through (max / min return their second operand when either is NaN).
  const __m512 x = _mm512_min_ps(_mm512_set1_ps(88.3f), _mm512_max_ps(_mm512_set1_ps(-87.3f), v));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return exp_reduced512(x, n);
}

__m512 sigmoid512(__m512 v) {
  const __m512 s = reciprocal512(
      _mm512_add_ps(_mm512_set1_ps(1.0f), exp512(_mm512_sub_ps(_mm512_setzero_ps(), v))));
  return _mm512_mask_mov_ps(s, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v);
}

// Cephes' tanhf: an odd polynomial below |x| = 0.625, else 1 - 2 / (e^{2|x|} + 1) with x's sign.
__m512 tanh512(__m512 v) {
  const __m512 sign = _mm512_castsi512_ps(_mm512_set1_epi32(static_cast<int>(0x80000000u)));
  const __m512 ax =
      _mm512_castsi512_ps(_mm512_andnot_si512(_mm512_castps_si512(sign), _mm512_castps_si512(v)));
  const __m512 z = _mm512_mul_ps(v, v);
  __m512 p = _mm512_set1_ps(-5.70498872745e-3f);
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(2.06390887954e-2f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-5.37397155531e-2f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(1.33314422036e-1f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-3.33332819422e-1f));
  const __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(p, z), v, v);
  const __m512 e = exp512(_mm512_add_ps(ax, ax));
  const __m512 big_abs =
      _mm512_fnmadd_ps(_mm512_set1_ps(2.0f), reciprocal512(_mm512_add_ps(e, _mm512_set1_ps(1.0f))),
                       _mm512_set1_ps(1.0f));
  const __m512 big = _mm512_castsi512_ps(
      _mm512_or_si512(_mm512_castps_si512(big_abs),
                      _mm512_and_si512(_mm512_castps_si512(sign), _mm512_castps_si512(v))));
  const __m512 t =
      _mm512_mask_mov_ps(big, _mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.625f), _CMP_LT_OQ), small);
  return _mm512_mask_mov_ps(t, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v);
}

// erfc(z) for z >= 0 (Abramowitz and Stegun 7.1.26): t P(t) e^{-z^2}, t = 1 / (1 + 0.3275911 z).
// z stops at 9, where erfc is 4e-37: the reciprocal never sees infinity and no product below is
// subnormal (slow on many CPUs).
__m512 erfc_nonnegative512(__m512 z) {
  z = _mm512_min_ps(z, _mm512_set1_ps(9.0f));
  const __m512 t =
      reciprocal512(_mm512_fmadd_ps(z, _mm512_set1_ps(0.3275911f), _mm512_set1_ps(1.0f)));
  __m512 p = _mm512_set1_ps(1.061405429f);
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-1.453152027f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.421413741f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-0.284496736f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.254829592f));
  return _mm512_mul_ps(_mm512_mul_ps(p, t),
                       exp512(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_mul_ps(z, z))));
}

__m512 abs512(__m512 v) {
  return _mm512_castsi512_ps(
      _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff)));
}

// 0.5 x (1 + erf(x / sqrt 2)): 1 + erf = 2 - erfc(z) for x >= 0 and erfc(z) for x < 0, z = |x| /
// sqrt 2 (no cancellation on the negative side).
__m512 gelu512(__m512 v) {
  const __m512 erfc =
      erfc_nonnegative512(_mm512_mul_ps(abs512(v), _mm512_set1_ps(0.70710678118654752f)));
  __m512 one_plus_erf =
      _mm512_mask_mov_ps(_mm512_sub_ps(_mm512_set1_ps(2.0f), erfc),
                         _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), erfc);
  // Below x = -9 sqrt 2, where erfc stops, 1 + erf is 0 (-0 out, NaN for -infinity).
  one_plus_erf = _mm512_maskz_mov_ps(
      _mm512_cmp_ps_mask(v, _mm512_set1_ps(-12.727922f), _CMP_NLT_UQ), one_plus_erf);
  return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), v), one_plus_erf);
}

// erf(x): below |x| = 0.5 its Taylor series to x^13 (relative error under 3e-8 there, where
// 1 - erfc would lose the small values' digits), above sign(x) (1 - erfc(|x|)); NaN stays NaN.
__m512 erf512(__m512 v) {
  const __m512 ax = abs512(v);
  const __m512 x2 = _mm512_mul_ps(v, v);
  __m512 p = _mm512_set1_ps(1.2055332981789664e-4f);
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-8.548327023450853e-4f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(5.223977625442188e-3f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-2.6866170645131252e-2f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(1.1283791670955126e-1f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(-3.7612638903183754e-1f));
  p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(1.1283791670955126f));
  const __m512 small = _mm512_mul_ps(p, v);
  const __m512 magnitude = _mm512_sub_ps(_mm512_set1_ps(1.0f), erfc_nonnegative512(ax));
  const __m512 big = _mm512_castsi512_ps(_mm512_or_si512(
      _mm512_castps_si512(magnitude),
      _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(static_cast<int>(0x80000000u)))));
  const __m512 result =
      _mm512_mask_mov_ps(big, _mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.5f), _CMP_LT_OQ), small);
  return _mm512_mask_mov_ps(result, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v);
}

__m512 hardswish512(__m512 v) {
  const __m512 gate =
      _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(v, _mm512_set1_ps(3.0f)), _mm512_setzero_ps()),
                    _mm512_set1_ps(6.0f));
  return _mm512_div_ps(_mm512_mul_ps(v, gate), _mm512_set1_ps(6.0f));  // NaN stays NaN
}

template <__m512 (*F)(__m512)>
void apply(float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, F(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const auto mask = static_cast<__mmask16>((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(x + i, mask, F(_mm512_maskz_loadu_ps(mask, x + i)));
  }
}

__mmask16 tail_mask(int64_t rest) { return static_cast<__mmask16>((1u << rest) - 1u); }

float max512(const float* x, int64_t n) {
  __m512 m = _mm512_set1_ps(-__builtin_inff());
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(x + i));
  if (i < n)
    m = _mm512_mask_max_ps(m, tail_mask(n - i), m, _mm512_maskz_loadu_ps(tail_mask(n - i), x + i));
  return _mm512_reduce_max_ps(m);
}

__m512 exp_shifted(__m512 v, __m512 shift) {
  const __m512 d = _mm512_sub_ps(v, shift);
  return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(d, _mm512_set1_ps(-87.3f), _CMP_NLT_UQ), exp512(d));
}

float exp_shifted_sum512(const float* x, float* y, int64_t n, float shift) {
  const __m512 s = _mm512_set1_ps(shift);
  __m512 sum = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 e = exp_shifted(_mm512_loadu_ps(x + i), s);
    _mm512_storeu_ps(y + i, e);
    sum = _mm512_add_ps(sum, e);
  }
  if (i < n) {
    const __mmask16 mask = tail_mask(n - i);
    const __m512 e = _mm512_maskz_mov_ps(mask, exp_shifted(_mm512_maskz_loadu_ps(mask, x + i), s));
    _mm512_mask_storeu_ps(y + i, mask, e);
    sum = _mm512_add_ps(sum, e);
  }
  return _mm512_reduce_add_ps(sum);
}

}  // namespace

const ActivationLoops kActivationAvx512{
    apply<sigmoid512>,   apply<silu512>, apply<tanh512>, apply<gelu512>,
    apply<hardswish512>, apply<erf512>,  max512,         exp_shifted_sum512};

}  // namespace ptec::kernels::optimized::detail
