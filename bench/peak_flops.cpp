// Measures this machine's fp32 peak on one core: a tight loop of independent FMAs (enough chains
// to hide their latency) for each vector ISA the CPU has. bench/compare.sh divides measured
// throughput by this number ("fraction of peak").
//
//   build/release/bin/peak_flops        prints {"avx2": GFLOP/s, "avx512": GFLOP/s, "best": ...}

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace {

constexpr long kIterations = 100'000'000;

__attribute__((target("avx2,fma"))) float fma_avx2(long iterations) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 m = _mm256_set1_ps(0.9999f), a = _mm256_set1_ps(1e-4f);
  for (long n = 0; n < iterations; ++n) {
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], m, a);
  }
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  return _mm256_cvtss_f32(s);
}

__attribute__((target("avx512f"))) float fma_avx512(long iterations) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 m = _mm512_set1_ps(0.9999f), a = _mm512_set1_ps(1e-4f);
  for (long n = 0; n < iterations; ++n) {
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

// Best of three timings of `f`, in GFLOP/s for `flops_per_iteration`.
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

}  // namespace

int main() {
  __builtin_cpu_init();
  double avx2 = 0.0, avx512 = 0.0;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    avx2 = best_gflops(fma_avx2, 12 * 8 * 2, kIterations);
  }
  if (__builtin_cpu_supports("avx512f")) {
    avx512 = best_gflops(fma_avx512, 16 * 16 * 2, kIterations / 2);
  }
  std::printf("{\"avx2\": %.1f, \"avx512\": %.1f, \"best\": %.1f}\n", avx2, avx512,
              std::max(avx2, avx512));
  return 0;
}
