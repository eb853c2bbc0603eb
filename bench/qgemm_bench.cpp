// Throughput of ptec's int8 kernels (kernels/optimized/qgemm.h, qconv2d.h) in GOP/s (one
// multiply-add = 2 operations), for ResNet-18's convolution shapes and transformer-sized linear
// layers. One thread unless --threads is given to the process via PTEC's setting.
//
//   build/release/bin/qgemm_bench [--benchmark_filter=...]
//
// QGemm shapes are (M, N, K): M weight rows (output channels), N activation columns (pixels or
// tokens), K the reduction; the requantizing epilogue is included. The isa argument is
// 0 generic, 1 avx2, 2 avx512vnni (skipped when the CPU lacks it).

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/optimized/qconv2d.h"
#include "kernels/optimized/qgemm.h"
#include "kernels/optimized/threadpool.h"

namespace {

using namespace ptec::kernels::optimized;

struct Buffer {
  explicit Buffer(size_t bytes) : ptr(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64)) {}
  ~Buffer() { std::free(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* ptr;
};

std::vector<uint8_t> random_bytes(int64_t n) {
  std::mt19937 rng(0);
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<uint8_t> v(static_cast<size_t>(n));
  for (uint8_t& x : v) x = static_cast<uint8_t>(dist(rng));
  return v;
}

bool use_isa(benchmark::State& state, int64_t isa) {
  if (!set_qgemm_isa(static_cast<QGemmIsa>(isa))) {
    state.SkipWithError("this CPU lacks the ISA");
    return false;
  }
  ptec::set_num_threads(1);
  return true;
}

// args: M, N, K, isa
void BM_QGemm(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  if (!use_isa(state, state.range(3))) return;
  const std::vector<uint8_t> a = random_bytes(m * k);
  const std::vector<uint8_t> b = random_bytes(k * n);
  std::vector<uint8_t> c(static_cast<size_t>(m * n));
  Buffer packed(qpacked_a_bytes(m, k));
  const QPackedA pa = qpack_a(m, k, reinterpret_cast<const int8_t*>(a.data()), k, packed.ptr);
  Buffer scratch(qgemm_scratch_bytes(n, k));
  std::vector<float> scale(static_cast<size_t>(m), 1e-4f);
  QEpilogue e;
  e.b_zero_point = 128;
  e.scale = scale.data();
  e.scale_per_row = true;
  for (auto _ : state) {
    qgemm(m, n, k, pa, b.data(), n, false, false, e, c.data(), n, false, scratch.ptr);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GOP/s"] =
      benchmark::Counter(2.0 * static_cast<double>(m * n * k) * state.iterations(),
                         benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  set_qgemm_isa(detected_qgemm_isa());
}

// args: C, H (=W), OC, kernel, stride, isa
void BM_QConv(benchmark::State& state) {
  Conv2dShape s;
  s.c = state.range(0);
  s.h = s.w = state.range(1);
  s.oc = state.range(2);
  s.kh = s.kw = state.range(3);
  s.sh = s.sw = state.range(4);
  s.ph = s.pw = s.kh / 2;
  if (!use_isa(state, state.range(5))) return;
  const std::vector<uint8_t> x = random_bytes(s.c * s.h * s.w);
  const std::vector<uint8_t> w = random_bytes(s.oc * s.k());
  std::vector<uint8_t> out(static_cast<size_t>(s.oc * s.oh() * s.ow()));
  const auto* wp = reinterpret_cast<const int8_t*>(w.data());
  Buffer packed(qconv2d_packed_weights_bytes(s) + 64);
  qconv2d_pack_weights(s, wp, packed.ptr);
  Buffer scratch(qconv2d_scratch_bytes(s));
  std::vector<float> scale(static_cast<size_t>(s.oc), 1e-4f);
  QEpilogue e;
  e.scale = scale.data();
  e.scale_per_row = true;
  for (auto _ : state) {
    qconv2d(s, x.data(), false, 128, wp, packed.ptr, e, out.data(), scratch.ptr);
    benchmark::DoNotOptimize(out.data());
  }
  const double macs = static_cast<double>(s.oc * s.oh() * s.ow() * s.k());
  state.counters["GOP/s"] = benchmark::Counter(
      2.0 * macs * state.iterations(), benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
  set_qgemm_isa(detected_qgemm_isa());
}

void QGemmShapes(benchmark::internal::Benchmark* b) {
  for (int64_t isa : {1, 2}) {
    b->Args({64, 3136, 576, isa});   // ResNet-18 layer1 3x3 as GEMM
    b->Args({256, 196, 2304, isa});  // layer3 3x3
    b->Args({512, 49, 4608, isa});   // layer4 3x3
    b->Args({512, 512, 512, isa});
    b->Args({1024, 64, 1024, isa});  // linear: 1024 outputs, 64 tokens
  }
  b->Args({64, 3136, 576, 0});
}

void QConvShapes(benchmark::internal::Benchmark* b) {
  for (int64_t isa : {1, 2}) {
    b->Args({3, 224, 64, 7, 2, isa});  // stem
    b->Args({64, 56, 64, 3, 1, isa});  // layer1
    b->Args({128, 28, 128, 3, 1, isa});
    b->Args({256, 14, 256, 3, 1, isa});
    b->Args({512, 7, 512, 3, 1, isa});
    b->Args({64, 56, 128, 1, 2, isa});  // downsample 1x1 stride 2
  }
}

BENCHMARK(BM_QGemm)->Apply(QGemmShapes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_QConv)->Apply(QConvShapes)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
