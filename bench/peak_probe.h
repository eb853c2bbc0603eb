#pragma once

// One core's fp32 FMA peak: a tight loop of independent FMAs (enough chains to hide their latency)
// for each vector ISA, alone on the core (a loop interleaved with GEMMs runs 10-15% slower: the
// core lowers its clock under their load, which is part of their cost, not of the peak).
// bench/peak_flops prints it; gemm_bench divides its GFLOP/s by it.

#include <immintrin.h>

#include <algorithm>
#include <chrono>

namespace ptec::bench {

// FLOPs of one iteration of each loop: its chains times the vector's lanes times 2.
inline constexpr double kAvx2FlopsPerIteration = 12 * 8 * 2;
inline constexpr double kAvx512FlopsPerIteration = 16 * 16 * 2;

__attribute__((target("avx2,fma"), noinline)) inline float fma_avx2(long iterations) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 m = _mm256_set1_ps(0.9999f), a = _mm256_set1_ps(1e-4f);
  for (long n = 0; n < iterations; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], m, a);
  }
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  return _mm256_cvtss_f32(s);
}

__attribute__((target("avx512f"), noinline)) inline float fma_avx512(long iterations) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 m = _mm512_set1_ps(0.9999f), a = _mm512_set1_ps(1e-4f);
  for (long n = 0; n < iterations; ++n) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, a);
  }
  // Every accumulator feeds the result, or the compiler drops the chains nothing reads (and
  // the probe reports several times the real peak).
  __m512 s = acc[0];
  for (int i = 1; i < 16; ++i) s = _mm512_add_ps(s, acc[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  return lanes[0];
}

// Best of three timings of `f` (one of the loops above) over `iterations`, in GFLOP/s.
template <typename F>
double best_gflops(F f, double flops_per_iteration, long iterations) {
  double best = 0.0;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    volatile float sink = f(iterations);
    (void)sink;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, flops_per_iteration * static_cast<double>(iterations) / s / 1e9);
  }
  return best;
}

// The peak in GFLOP/s of one core for AVX-512 or AVX2 (runs of about 0.1 s).
inline double peak_gflops(bool avx512) {
  constexpr long kIterations = 100'000'000;
  return avx512 ? best_gflops(fma_avx512, kAvx512FlopsPerIteration, kIterations / 2)
                : best_gflops(fma_avx2, kAvx2FlopsPerIteration, kIterations);
}

}  // namespace ptec::bench
