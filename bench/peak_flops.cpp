// Measures this machine's fp32 peak on one core: a tight loop of independent FMAs (enough chains
// to hide their latency) for each vector ISA the CPU has. bench/compare.sh divides measured
// throughput by this number ("fraction of peak").
//
//   build/release/bin/peak_flops        prints {"avx2": GFLOP/s, "avx512": GFLOP/s, "best": ...}

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "bench/peak_probe.h"

namespace {

constexpr long kIterations = 100'000'000;

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
    avx2 = best_gflops(ptec::bench::fma_avx2, ptec::bench::kAvx2FlopsPerIteration, kIterations);
  }
  if (__builtin_cpu_supports("avx512f")) {
    avx512 = best_gflops(ptec::bench::fma_avx512, ptec::bench::kAvx512FlopsPerIteration,
                         kIterations / 2);
  }
  std::printf("{\"avx2\": %.1f, \"avx512\": %.1f, \"best\": %.1f}\n", avx2, avx512,
              std::max(avx2, avx512));
  return 0;
}
