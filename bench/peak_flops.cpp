// Measures this machine's fp32 peak on one core: a tight loop of independent FMAs (enough chains
// to hide their latency) for each vector ISA the CPU has. bench/compare.sh divides measured
// throughput by this number ("fraction of peak").
//
//   build/release/bin/peak_flops        prints {"avx2": GFLOP/s, "avx512": GFLOP/s, "best": ...}

#include <algorithm>
#include <cstdio>

#include "bench/peak_probe.h"

int main() {
  __builtin_cpu_init();
  double avx2 = 0.0, avx512 = 0.0;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    avx2 = ptec::bench::peak_gflops(false);
  }
  if (__builtin_cpu_supports("avx512f")) avx512 = ptec::bench::peak_gflops(true);
  std::printf("{\"avx2\": %.1f, \"avx512\": %.1f, \"best\": %.1f}\n", avx2, avx512,
              std::max(avx2, avx512));
  return 0;
}
