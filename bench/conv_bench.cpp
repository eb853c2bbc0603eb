// Convolution throughput of ptec's optimized kernels (kernels/optimized/conv2d.h), in GFLOP/s,
// for ResNet-18's and MobileNet-V2's layer shapes, weights prepacked as the CPU backend does.
// BM_Winograd runs the 3x3 stride-1 shapes with Winograd F(2x2, 3x3) (variant 2) and F(4x4, 3x3)
// (variant 4); its GFLOP/s counts the direct convolution's FLOPs (effective rate), so all are
// comparable.
//
//   build/release/bin/conv_bench [--benchmark_filter=...]

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/optimized/conv2d.h"
#include "kernels/optimized/conv2d_winograd.h"
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

std::vector<float> random_vector(int64_t n) {
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// args: C, H (= W), OC, K, stride, groups, threads
void BM_Conv2d(benchmark::State& state) {
  Conv2dShape s;
  s.c = state.range(0);
  s.h = s.w = state.range(1);
  s.oc = state.range(2);
  s.kh = s.kw = state.range(3);
  s.sh = s.sw = state.range(4);
  s.ph = s.pw = s.kh / 2;
  s.groups = state.range(5);
  ptec::set_num_threads(static_cast<int>(state.range(6)));
  const auto in = random_vector(s.c * s.h * s.w);
  const auto w = random_vector(s.oc * s.c_per_group() * s.kh * s.kw);
  const auto bias = random_vector(s.oc);
  std::vector<float> out(static_cast<size_t>(s.oc * s.oh() * s.ow()));
  Buffer packed(conv2d_packed_weights_bytes(s));
  conv2d_pack_weights(s, w.data(), static_cast<float*>(packed.ptr));
  Buffer scratch(conv2d_scratch_bytes(s, true));
  GemmEpilogue e;
  e.bias = bias.data();
  e.activation = Activation::Relu;
  const float* pw = s.depthwise() ? nullptr : static_cast<const float*>(packed.ptr);
  for (auto _ : state) {
    conv2d(s, in.data(), w.data(), pw, e, out.data(), scratch.ptr);
    benchmark::DoNotOptimize(out.data());
  }
  const double flops =
      2.0 * static_cast<double>(s.oc * s.oh() * s.ow() * s.c_per_group() * s.kh * s.kw);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  ptec::set_num_threads(0);
}

// args: C, H (= W), OC, variant (2: F(2x2, 3x3), 4: F(4x4, 3x3)), chunk (0: default), threads
void BM_Winograd(benchmark::State& state) {
  Conv2dShape s;
  s.c = state.range(0);
  s.h = s.w = state.range(1);
  s.oc = state.range(2);
  s.kh = s.kw = 3;
  s.ph = s.pw = 1;
  const WinogradVariant v = state.range(3) == 4 ? WinogradVariant::F4x4 : WinogradVariant::F2x2;
  const int64_t chunk = state.range(4);
  ptec::set_num_threads(static_cast<int>(state.range(5)));
  const auto in = random_vector(s.c * s.h * s.w);
  const auto w = random_vector(s.oc * s.c * 9);
  const auto bias = random_vector(s.oc);
  std::vector<float> out(static_cast<size_t>(s.oc * s.oh() * s.ow()));
  Buffer packed(winograd_packed_weights_bytes(s, v));
  winograd_pack_weights(s, v, w.data(), static_cast<float*>(packed.ptr));
  const int64_t workers =
      state.range(5);  // the passes split among the threads, as the backend does
  Buffer scratch(winograd_scratch_bytes(s, v, chunk, workers));
  GemmEpilogue e;
  e.bias = bias.data();
  e.activation = Activation::Relu;
  for (auto _ : state) {
    conv2d_winograd(s, v, in.data(), static_cast<const float*>(packed.ptr), e, out.data(), chunk,
                    scratch.ptr, nullptr, workers);
    benchmark::DoNotOptimize(out.data());
  }
  const double flops = 2.0 * static_cast<double>(s.oc * s.oh() * s.ow() * s.c * 9);
  state.counters["GFLOP/s"] = benchmark::Counter(
      flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  ptec::set_num_threads(0);
}

void WinogradShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "HW", "OC", "variant", "chunk", "threads"});
  for (const auto& s : std::vector<std::vector<int64_t>>{
           {64, 56, 64}, {128, 28, 128}, {256, 14, 256}, {512, 7, 512}, {96, 28, 96}}) {
    for (int64_t variant : {2, 4}) {
      for (int64_t threads : {1, 2}) b->Args({s[0], s[1], s[2], variant, 0, threads});
    }
  }
}

void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "HW", "OC", "K", "stride", "groups", "threads"});
  const std::vector<std::vector<int64_t>> shapes = {
      {3, 224, 64, 7, 2, 1},      // ResNet-18 stem
      {64, 56, 64, 3, 1, 1},      // layer1
      {128, 28, 128, 3, 1, 1},    // layer2
      {256, 14, 256, 3, 1, 1},    // layer3
      {512, 7, 512, 3, 1, 1},     // layer4
      {96, 28, 96, 3, 1, 1},      // 3x3 at 96 channels (Winograd F(4x4)'s threshold)
      {64, 56, 128, 1, 2, 1},     // downsample 1x1 stride 2
      {96, 56, 24, 1, 1, 1},      // MobileNet-V2 pointwise
      {16, 112, 96, 1, 1, 1},     // MobileNet-V2 expansion at 112x112 (K = 16: stores dominate)
      {144, 56, 144, 3, 1, 144},  // MobileNet-V2 depthwise
      {240, 28, 240, 5, 1, 240},  // EfficientNet-B0 depthwise 5x5
      {240, 56, 240, 5, 2, 240},  // EfficientNet-B0 depthwise 5x5, stride 2
      {16, 55, 64, 3, 1, 1},      // SqueezeNet-1.1 fire expand 3x3 (K = 144)
      {32, 27, 128, 3, 1, 1},     // SqueezeNet-1.1 fire expand 3x3 (K = 288)
      {512, 13, 1000, 1, 1, 1},   // SqueezeNet-1.1 classifier
  };
  for (const auto& s : shapes) {
    for (int64_t threads : {1, 2}) b->Args({s[0], s[1], s[2], s[3], s[4], s[5], threads});
  }
}

BENCHMARK(BM_Conv2d)->Apply(Shapes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Winograd)->Apply(WinogradShapes)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
