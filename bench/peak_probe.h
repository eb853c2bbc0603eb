#pragma once

// One core's fp32 FMA peak: a tight loop of independent FMAs (enough chains to hide their latency)
// for each vector ISA. bench/peak_flops prints it; gemm_bench runs short bursts of it between its
// timed products, so that its fraction of peak compares the two at the same moment (this VM's
// speed drifts by tens of percent within minutes).

#include <immintrin.h>

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

// Bursts of one ISA's loop, and their FLOP/s so far.
class PeakProbe {
 public:
  explicit PeakProbe(bool avx512) : avx512_(avx512) {}

  // One burst of about 0.1-0.2 ms.
  void run() {
    constexpr long kIterations = 100'000;
    const auto t0 = std::chrono::steady_clock::now();
    volatile float sink = avx512_ ? fma_avx512(kIterations) : fma_avx2(kIterations);
    (void)sink;
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    flops_ += static_cast<double>(kIterations) *
              (avx512_ ? kAvx512FlopsPerIteration : kAvx2FlopsPerIteration);
  }

  double flops_per_second() const { return seconds_ > 0.0 ? flops_ / seconds_ : 0.0; }

 private:
  bool avx512_;
  double seconds_ = 0.0;
  double flops_ = 0.0;
};

}  // namespace ptec::bench
