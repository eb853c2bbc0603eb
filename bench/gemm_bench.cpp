// GEMM throughput of ptec's fp32 microkernels (kernels/optimized/gemm.h), in GFLOP/s, for the
// shapes that dominate CNNs and transformers. One thread. With AVX2 or AVX-512, `of_peak` divides
// it by that ISA's FMA peak on this core (bench/peak_probe.h, what bench/peak_flops prints),
// measured once before the first product.
//
//   build/release/bin/gemm_bench [--benchmark_filter=...]
//
// Where oneDNN is installed, BM_OneDnnMatmul times its matmul on the linear layers' shapes for
// reference; alternate it with ptec's (the linear rows, weights:1):
//
//   build/release/bin/gemm_bench --benchmark_filter='weights:1|OneDnn'
//       --benchmark_repetitions=9 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true   (one command line)
//
// Shapes are (M, N, K) with C = A (M x K) * B (K x N): convolution as weights x im2col columns
// (M = output channels, N = output pixels, K = in_channels * kh * kw), linear layers as
// activations x weights.

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <vector>

#if defined(__x86_64__)
#include "bench/peak_probe.h"
#endif

#include "kernels/optimized/gemm.h"
#include "kernels/optimized/threadpool.h"

#if defined(PTEC_BENCH_HAVE_DNNL)
#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#endif

namespace {

using namespace ptec::kernels::optimized;

struct Buffer {
  explicit Buffer(size_t bytes) : ptr(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64)) {}
  ~Buffer() { std::free(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* ptr;
};

std::vector<float> random_vector(int64_t n) {
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

#if defined(__x86_64__)
// This core's FMA peak for AVX-512 or AVX2 (GFLOP/s), measured on first use.
double peak_gflops(bool avx512) {
  static const double avx2 = ptec::bench::peak_gflops(false);
  static const double wide =
      __builtin_cpu_supports("avx512f") ? ptec::bench::peak_gflops(true) : 0.0;
  return avx512 ? wide : avx2;
}
#endif

// args: M, N, K, isa (0 generic, 1 avx2, 2 avx512), weights: 0 = A prepacked and B packed per
// call (a convolution's weights x columns), 1 = B prepacked and A read in place (a linear layer's
// activations x weights), 2 = both prepacked (the kernel and its blocking alone), 3 = neither
// (the optimized mm / addmm kernels outside the CPU backend: B packed per call).
void BM_Gemm(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const auto isa = static_cast<GemmIsa>(state.range(3));
  const bool prepack_a = state.range(4) == 0 || state.range(4) == 2;
  const bool prepack_b = state.range(4) == 1 || state.range(4) == 2;
  if (!set_gemm_isa(isa)) {
    state.SkipWithError("ISA not available on this CPU");
    return;
  }
  ptec::set_num_threads(1);  // GFLOP/s of one core, against bench/peak_flops
  const auto a = random_vector(m * k);
  const auto b = random_vector(k * n);
  std::vector<float> c(static_cast<size_t>(m * n));
  Buffer packed(prepack_a ? packed_a_bytes(m, k) : 0);
  // A linear layer's weights (A read in place) are packed as the CPU backend packs them
  // (pack_weights); with both operands prepacked, B is packed as A, in the same depth.
  const bool linear = prepack_b && !prepack_a;
  Buffer packed_b(!prepack_b ? 0 : linear ? packed_weights_bytes(k, n) : packed_b_bytes(k, n));
  PackedMatrix pa, pb;
  const int64_t depth = prepack_b ? gemm_weights_depth(k) : gemm_slice_depth();
  auto* pb_out = static_cast<float*>(packed_b.ptr);
  if (prepack_a) pa = pack_a(m, k, a.data(), k, false, static_cast<float*>(packed.ptr), depth);
  if (linear) pb = pack_weights(k, n, b.data(), n, false, pb_out);
  if (prepack_b && !linear) pb = pack_b(k, n, b.data(), n, false, pb_out, depth);
  Buffer scratch(gemm_scratch_bytes(m, n, k, prepack_a, prepack_b));
  const GemmOperand ao = prepack_a ? GemmOperand::prepacked(pa) : GemmOperand::matrix(a.data(), k);
  const GemmOperand bo = prepack_b ? GemmOperand::prepacked(pb) : GemmOperand::matrix(b.data(), n);
#if defined(__x86_64__)
  const double peak = isa == GemmIsa::Avx512 ? peak_gflops(true)
                      : isa == GemmIsa::Avx2 ? peak_gflops(false)
                                             : 0.0;
#endif
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    gemm(m, n, k, ao, bo, c.data(), n, {}, scratch.ptr);
    benchmark::DoNotOptimize(c.data());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double flops = 2.0 * static_cast<double>(m * n * k);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
#if defined(__x86_64__)
  if (peak > 0.0 && seconds > 0.0) {
    state.counters["of_peak"] =
        flops * static_cast<double>(state.iterations()) / seconds / (peak * 1e9);
  }
#endif
  set_gemm_isa(detected_gemm_isa());
}

void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "N", "K", "isa", "weights"});
  // {M, N, K, weights}: convolutions multiply packed weights by columns packed per call, linear
  // layers read their activations in place against prepacked weights; 2: both prepacked.
  const std::vector<std::vector<int64_t>> shapes = {
      {64, 3136, 576, 0},   // ResNet-18 layer1 3x3 conv (64 ch, 56x56)
      {128, 784, 1152, 0},  // layer2 3x3 conv
      {256, 196, 2304, 0},  // layer3 3x3 conv
      {512, 49, 4608, 0},   // layer4 3x3 conv
      {64, 1024, 1024, 1},  // linear, 64 tokens
      {512, 512, 512, 1},   // linear, 512 tokens
      {128, 256, 256, 1},   // transformer d=256 projection, seq 128
      {197, 768, 192, 1},   // ViT-Ti MLP up-projection (d=192, 197 tokens)
      {197, 192, 768, 1},   // ViT-Ti MLP down-projection
      {64, 1024, 1024, 2},  // the same without any packing
      {512, 512, 512, 2},
      {64, 1024, 1024, 3},  // the linear layers with weights packed per call
      {512, 512, 512, 3},
      {128, 768, 768, 3},     // BERT-base projection, seq 128 (dynamic shapes: not delegated)
      {150, 1024, 12544, 3},  // Faster R-CNN's box head fc6 (a run-time box count)
  };
  for (const auto& s : shapes) {
    for (int64_t isa : {0, 1, 2}) b->Args({s[0], s[1], s[2], isa, s[3]});
  }
}

BENCHMARK(BM_Gemm)->Apply(Shapes)->Unit(benchmark::kMillisecond)->UseRealTime();

#if defined(PTEC_BENCH_HAVE_DNNL)
// oneDNN's matmul on the linear layers' shapes, for reference: activations row-major, weights in
// the layout oneDNN picks for itself (format_tag::any, reordered once), one OpenMP thread. On
// x86 it runs its brgemm kernels (AVX-512 or AVX2 JIT), the fastest fp32 GEMM on this machine
// besides ptec's; `of_peak` divides by the same FMA peak as BM_Gemm's for the ISA it would pick.
// Compare the two alternating: --benchmark_enable_random_interleaving=true with repetitions.
void BM_OneDnnMatmul(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  omp_set_num_threads(1);
  using dnnl::memory;
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const memory::desc a_desc({m, k}, memory::data_type::f32, memory::format_tag::ab);
  const memory::desc b_plain({k, n}, memory::data_type::f32, memory::format_tag::ab);
  const memory::desc b_any({k, n}, memory::data_type::f32, memory::format_tag::any);
  const memory::desc c_desc({m, n}, memory::data_type::f32, memory::format_tag::ab);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_desc, b_any, c_desc), engine);
  auto a = random_vector(m * k);
  auto b = random_vector(k * n);
  std::vector<float> c(static_cast<size_t>(m * n));
  memory a_mem(a_desc, engine, a.data()), b_src(b_plain, engine, b.data());
  memory b_mem(pd.weights_desc(), engine), c_mem(c_desc, engine, c.data());
  dnnl::reorder(b_src, b_mem).execute(stream, b_src, b_mem);
  const dnnl::matmul matmul(pd);
  const std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_mem}, {DNNL_ARG_DST, c_mem}};
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    matmul.execute(stream, args);
    stream.wait();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double flops = 2.0 * static_cast<double>(m * n * k);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  state.SetLabel(pd.impl_info_str());
#if defined(__x86_64__)
  const double peak = peak_gflops(detected_gemm_isa() == GemmIsa::Avx512);
  if (peak > 0.0 && seconds > 0.0) {
    state.counters["of_peak"] =
        flops * static_cast<double>(state.iterations()) / seconds / (peak * 1e9);
  }
#endif
}

BENCHMARK(BM_OneDnnMatmul)
    ->ArgNames({"M", "N", "K"})
    ->Args({64, 1024, 1024})
    ->Args({512, 512, 512})
    ->Args({128, 256, 256})
    ->Args({197, 768, 192})
    ->Args({197, 192, 768})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#endif

}  // namespace

BENCHMARK_MAIN();
