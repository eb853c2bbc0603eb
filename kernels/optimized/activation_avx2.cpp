// AVX2 + FMA activation loops (activation_simd.h). Built with -mavx2 -mfma; keep includes to
// <immintrin.h> and activation_simd.h.

#include <immintrin.h>

#include "kernels/optimized/activation_simd.h"

namespace ptec::kernels::optimized::detail {
namespace {

__m256 set(float v) { return _mm256_set1_ps(v); }

// e^x, the polynomial of exp_approx (activation.h): x = n ln2 + r, |r| <= ln2 / 2, 2^n built
// in the exponent field (n is in [-126, 127] after the clamp).
__m256 exp256(__m256 v) {
  // NaN passes through (max / min return their second operand when either is NaN).
  const __m256 x = _mm256_min_ps(set(88.3f), _mm256_max_ps(set(-87.3f), v));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, set(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, set(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, set(-2.12194440e-4f), r);
  __m256 p = set(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, set(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, set(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, set(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, set(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, set(5.0000001201e-1f));
  p = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), set(1.0f));
  const __m256i bits =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

__m256 keep_nan(__m256 result, __m256 v) {
  return _mm256_blendv_ps(result, v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

__m256 abs256(__m256 v) { return _mm256_andnot_ps(set(-0.0f), v); }

__m256 sigmoid256(__m256 v) {
  const __m256 e = exp256(_mm256_sub_ps(_mm256_setzero_ps(), v));
  return keep_nan(_mm256_div_ps(set(1.0f), _mm256_add_ps(set(1.0f), e)), v);
}

__m256 silu256(__m256 v) {
  const __m256 e = exp256(_mm256_sub_ps(_mm256_setzero_ps(), v));
  // -inf / (1 + inf) is NaN, as x * sigmoid(x) (the clamped exponent would give -inf).
  return _mm256_blendv_ps(_mm256_div_ps(v, _mm256_add_ps(set(1.0f), e)), set(__builtin_nanf("")),
                          _mm256_cmp_ps(v, set(-__builtin_inff()), _CMP_EQ_OQ));
}

__m256 hardswish256(__m256 v) {
  const __m256 gate =
      _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, set(3.0f)), set(0.0f)), set(6.0f));
  return _mm256_div_ps(_mm256_mul_ps(v, gate), set(6.0f));  // NaN: v * anything stays NaN
}

// Cephes' tanhf: an odd polynomial below |x| = 0.625, else 1 - 2 / (e^{2|x|} + 1) with x's sign.
__m256 tanh256(__m256 v) {
  const __m256 ax = abs256(v);
  const __m256 z = _mm256_mul_ps(v, v);
  __m256 p = set(-5.70498872745e-3f);
  p = _mm256_fmadd_ps(p, z, set(2.06390887954e-2f));
  p = _mm256_fmadd_ps(p, z, set(-5.37397155531e-2f));
  p = _mm256_fmadd_ps(p, z, set(1.33314422036e-1f));
  p = _mm256_fmadd_ps(p, z, set(-3.33332819422e-1f));
  const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(p, z), v, v);
  const __m256 e = exp256(_mm256_add_ps(ax, ax));
  const __m256 big_abs =
      _mm256_sub_ps(set(1.0f), _mm256_div_ps(set(2.0f), _mm256_add_ps(e, set(1.0f))));
  const __m256 big = _mm256_or_ps(big_abs, _mm256_and_ps(set(-0.0f), v));
  return keep_nan(_mm256_blendv_ps(big, small, _mm256_cmp_ps(ax, set(0.625f), _CMP_LT_OQ)), v);
}

// erfc(z) for z >= 0 (Abramowitz and Stegun 7.1.26): t P(t) e^{-z^2}, t = 1 / (1 + 0.3275911 z).
// z stops at 9, where erfc is 4e-37: no product below is subnormal (slow on many CPUs).
__m256 erfc_nonnegative256(__m256 z) {
  z = _mm256_min_ps(z, set(9.0f));
  const __m256 t = _mm256_div_ps(set(1.0f), _mm256_fmadd_ps(z, set(0.3275911f), set(1.0f)));
  __m256 p = set(1.061405429f);
  p = _mm256_fmadd_ps(p, t, set(-1.453152027f));
  p = _mm256_fmadd_ps(p, t, set(1.421413741f));
  p = _mm256_fmadd_ps(p, t, set(-0.284496736f));
  p = _mm256_fmadd_ps(p, t, set(0.254829592f));
  return _mm256_mul_ps(_mm256_mul_ps(p, t),
                       exp256(_mm256_sub_ps(_mm256_setzero_ps(), _mm256_mul_ps(z, z))));
}

// 0.5 x (1 + erf(x / sqrt 2)): 1 + erf = 2 - erfc(z) for x >= 0 and erfc(z) for x < 0, z = |x| /
// sqrt 2 (no cancellation on the negative side). Below x = -9 sqrt 2, where erfc stops, 1 + erf
// is 0 as in float arithmetic: the result is -0, and NaN for -infinity (as ATen's).
__m256 gelu256(__m256 v) {
  const __m256 erfc = erfc_nonnegative256(_mm256_mul_ps(abs256(v), set(0.70710678118654752f)));
  __m256 one_plus_erf = _mm256_blendv_ps(_mm256_sub_ps(set(2.0f), erfc), erfc,
                                         _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ));
  one_plus_erf = _mm256_andnot_ps(_mm256_cmp_ps(v, set(-12.727922f), _CMP_LT_OQ), one_plus_erf);
  return _mm256_mul_ps(_mm256_mul_ps(set(0.5f), v), one_plus_erf);
}

// erf(x): below |x| = 0.5 its Taylor series to x^13 (relative error under 3e-8 there, where
// 1 - erfc would lose the small values' digits), above sign(x) (1 - erfc(|x|)); NaN stays NaN.
__m256 erf256(__m256 v) {
  const __m256 ax = abs256(v);
  const __m256 x2 = _mm256_mul_ps(v, v);
  __m256 p = set(1.2055332981789664e-4f);
  p = _mm256_fmadd_ps(p, x2, set(-8.548327023450853e-4f));
  p = _mm256_fmadd_ps(p, x2, set(5.223977625442188e-3f));
  p = _mm256_fmadd_ps(p, x2, set(-2.6866170645131252e-2f));
  p = _mm256_fmadd_ps(p, x2, set(1.1283791670955126e-1f));
  p = _mm256_fmadd_ps(p, x2, set(-3.7612638903183754e-1f));
  p = _mm256_fmadd_ps(p, x2, set(1.1283791670955126f));
  const __m256 small = _mm256_mul_ps(p, v);
  const __m256 magnitude = _mm256_sub_ps(set(1.0f), erfc_nonnegative256(ax));
  const __m256 big = _mm256_or_ps(magnitude, _mm256_and_ps(set(-0.0f), v));
  return keep_nan(_mm256_blendv_ps(big, small, _mm256_cmp_ps(ax, set(0.5f), _CMP_LT_OQ)), v);
}

// Lanes [0, rest) of a vector, for the loops' tails.
__m256i tail_mask(int64_t rest) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(rest)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <__m256 (*F)(__m256)>
void apply(float* x, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, F(_mm256_loadu_ps(x + i)));
  if (i < n) {
    const __m256i mask = tail_mask(n - i);
    _mm256_maskstore_ps(x + i, mask, F(_mm256_maskload_ps(x + i, mask)));
  }
}

float reduce(__m256 v, __m128 (*op)(__m128, __m128)) {
  __m128 r = op(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  r = op(r, _mm_movehl_ps(r, r));
  r = op(r, _mm_shuffle_ps(r, r, 1));
  return _mm_cvtss_f32(r);
}

__m128 max128(__m128 a, __m128 b) { return _mm_max_ps(a, b); }
__m128 add128(__m128 a, __m128 b) { return _mm_add_ps(a, b); }

float max256(const float* x, int64_t n) {
  const __m256 lowest = set(-__builtin_inff());
  __m256 m = lowest;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(x + i));
  if (i < n) {
    const __m256i mask = tail_mask(n - i);
    const __m256 v =
        _mm256_blendv_ps(lowest, _mm256_maskload_ps(x + i, mask), _mm256_castsi256_ps(mask));
    m = _mm256_max_ps(m, v);
  }
  return reduce(m, max128);
}

__m256 exp_shifted(__m256 v, __m256 shift) {
  const __m256 d = _mm256_sub_ps(v, shift);
  return _mm256_and_ps(exp256(d), _mm256_cmp_ps(d, set(-87.3f), _CMP_NLT_UQ));
}

float exp_shifted_sum256(const float* x, float* y, int64_t n, float shift) {
  const __m256 s = set(shift);
  __m256 sum = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = exp_shifted(_mm256_loadu_ps(x + i), s);
    _mm256_storeu_ps(y + i, e);
    sum = _mm256_add_ps(sum, e);
  }
  if (i < n) {
    const __m256i mask = tail_mask(n - i);
    const __m256 e =
        _mm256_and_ps(exp_shifted(_mm256_maskload_ps(x + i, mask), s), _mm256_castsi256_ps(mask));
    _mm256_maskstore_ps(y + i, mask, e);
    sum = _mm256_add_ps(sum, e);
  }
  return reduce(sum, add128);
}

}  // namespace

const ActivationLoops kActivationAvx2{
    apply<sigmoid256>,   apply<silu256>, apply<tanh256>, apply<gelu256>,
    apply<hardswish256>, apply<erf256>,  max256,         exp_shifted_sum256};

}  // namespace ptec::kernels::optimized::detail
