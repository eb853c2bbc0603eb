// PtecCpuBackend's int8 path: programs in quantized_decomposed form (what quant/'s convert
// emits: q → dq → conv / linear with dq'd int8 weights → [ReLU / clamp] → q → dq, and q / dq
// around max pool, add, mean and cat) lowered with CpuPartitioner must run as int8 nodes and match
// the portable quantized_decomposed + portable kernels on the same inputs within one quantization
// step of the output, in odd shapes (1x1, non-square, channel counts that are not multiples of
// any block size, batch > 1, padding, groups, depthwise), per-tensor and per-channel weights,
// symmetric and asymmetric, uint8 and int8 activations.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/aot/cpu_backend.h"
#include "backends/cpu/aot/cpu_partitioner.h"
#include "backends/cpu/cpu_delegate_generated.h"
#include "backends/cpu/runtime/cpu_backend_runtime.h"
#include "frontends/builder/graph_builder.h"
#include "kernels/optimized/ops/register.h"
#include "kernels/optimized/qgemm.h"
#include "kernels/quantized/register.h"
#include "program/to_edge_transform_and_lower.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::backends::cpu {
namespace {

using builder::Value;
using K = ptec_cpu_fb::NodeKind;
using Ints = std::vector<int64_t>;

ir::Shape shape(const Ints& sizes) { return ir::Shape(sizes.begin(), sizes.end()); }

std::vector<float> random_vector(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

size_t numel(const Ints& sizes) {
  size_t n = 1;
  for (int64_t s : sizes) n *= static_cast<size_t>(s);
  return n;
}

template <typename T>
ir::TensorData data_of(DType dtype, const Ints& sizes, const std::vector<T>& v) {
  return ir::TensorData{ir::TensorSpec(dtype, sizes),
                        ir::Buffer::copy_of(v.data(), v.size() * sizeof(T))};
}

// Activation quantization: uint8 (zero point 128 - 3) or int8 (zero point -3).
struct Act {
  double scale;
  bool is_signed;
  int64_t zp() const { return is_signed ? -3 : 125; }
  int64_t lo() const { return is_signed ? -128 : 0; }
  int64_t hi() const { return is_signed ? 127 : 255; }
  DType dtype() const { return is_signed ? DType::Char : DType::Byte; }
};

Value quantize(builder::GraphBuilder& b, Value x, const Act& a) {
  return b.call("quantized_decomposed::quantize_per_tensor",
                {x, a.scale, a.zp(), a.lo(), a.hi(), a.dtype()});
}
Value dequantize(builder::GraphBuilder& b, Value q, const Act& a) {
  return b.call("quantized_decomposed::dequantize_per_tensor",
                {q, a.scale, a.zp(), a.lo(), a.hi(), a.dtype()});
}
Value qdq(builder::GraphBuilder& b, Value x, const Act& a) {
  return dequantize(b, quantize(b, x, a), a);
}

// A float weight of `sizes` (channel axis `axis`) quantized to int8 per channel (or per tensor),
// symmetric or not, dequantized in the graph.
Value weight(builder::GraphBuilder& b, const std::string& name, const Ints& sizes, int64_t axis,
             bool per_channel, bool asymmetric, uint32_t seed) {
  const std::vector<float> w = random_vector(numel(sizes), seed, 0.5f);
  const int64_t channels = per_channel ? sizes[static_cast<size_t>(axis)] : 1;
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < sizes.size(); ++d) inner *= sizes[d];
  std::vector<double> scales(static_cast<size_t>(channels));
  std::vector<int64_t> zps(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    scales[static_cast<size_t>(c)] = (0.5 + 0.1 * static_cast<double>(c % 5)) / 127.0;
    zps[static_cast<size_t>(c)] = asymmetric ? (c % 3) - 1 : 0;
  }
  std::vector<int8_t> q(w.size());
  for (size_t i = 0; i < w.size(); ++i) {
    const size_t c = per_channel ? (i / static_cast<size_t>(inner)) %
                                       static_cast<size_t>(sizes[static_cast<size_t>(axis)])
                                 : 0;
    const double v = std::nearbyint(w[i] / scales[c]) + static_cast<double>(zps[c]);
    q[i] = static_cast<int8_t>(std::clamp(v, -127.0, 127.0));
  }
  Value wq = b.parameter(name, data_of(DType::Char, sizes, q));
  if (!per_channel) {
    return b.call("quantized_decomposed::dequantize_per_tensor",
                  {wq, scales[0], zps[0], -127, 127, DType::Char});
  }
  Value s = b.constant(name + "_scales", data_of(DType::Double, {channels}, scales));
  Value z = b.constant(name + "_zero_points", data_of(DType::Long, {channels}, zps));
  return b.call("quantized_decomposed::dequantize_per_channel",
                {wq, s, z, axis, -127, 127, DType::Char});
}

Value bias(builder::GraphBuilder& b, const std::string& name, int64_t n, uint32_t seed) {
  return b.parameter(name,
                     data_of(DType::Float, {n}, random_vector(static_cast<size_t>(n), seed, 0.3f)));
}

Value activation(builder::GraphBuilder& b, Value y, const std::string& act) {
  if (act == "relu") return b.call("aten::relu", {y});
  if (act == "hardtanh") return b.call("aten::hardtanh", {y, 0.0, 1.5});
  if (act == "clamp") return b.call("aten::clamp", {y, -0.5, nullptr});
  return y;
}

std::vector<K> blob_kinds(const ir::ExportedProgram& program) {
  const partition::PreprocessResult r = CpuBackend().preprocess(program, {});
  const auto* graph = ptec_cpu_fb::GetGraph(r.processed_bytes->data());
  EXPECT_EQ(graph->version(), kCpuBlobVersion);
  std::vector<K> kinds;
  for (const auto* n : *graph->nodes()) kinds.push_back(n->kind());
  return kinds;
}

class CpuBackendQdq : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    register_cpu_backend_aot();
    ASSERT_EQ(register_cpu_backend_runtime(), Error::Ok);
    ASSERT_EQ(kernels::register_optimized_kernels(), Error::Ok);
    ASSERT_EQ(kernels::register_quantized_kernels(), Error::Ok);
  }

  static std::vector<uint8_t> export_pte(const ir::ExportedProgram& program, bool lower) {
    program::TransformAndLowerOptions options;
    if (lower) {
      options.partitioners = program::PartitionerList{std::make_shared<CpuPartitioner>()};
    }
    return program::to_edge_transform_and_lower(program, options).to_executorch().buffer();
  }

  static size_t count_delegates(const ir::ExportedProgram& program, size_t* other_calls) {
    program::TransformAndLowerOptions options;
    options.partitioners = program::PartitionerList{std::make_shared<CpuPartitioner>()};
    const auto edge = program::to_edge_transform_and_lower(program, options);
    size_t n = 0;
    *other_calls = 0;
    for (const ir::Node* node : edge.exported_program("forward").graph().nodes()) {
      if (!node->is_call()) continue;
      if (node->is_op("executorch_call_delegate")) {
        ++n;
      } else if (!node->is_op("getitem")) {
        ++*other_calls;
      }
    }
    return n;
  }

  static std::vector<float> run(const std::vector<uint8_t>& bytes,
                                std::vector<runtime::OwnedTensor>& inputs) {
    std::unique_ptr<uint8_t[]> aligned(new (std::align_val_t(64)) uint8_t[bytes.size()]);
    std::memcpy(aligned.get(), bytes.data(), bytes.size());
    std::vector<float> values;
    {
      runtime::Module module(aligned.get(), bytes.size());
      std::vector<runtime::EValue> args;
      for (runtime::OwnedTensor& t : inputs) args.push_back(t.evalue());
      auto out = module.execute("forward", args);
      EXPECT_TRUE(out.ok()) << to_string(out.error());
      if (out.ok()) {
        const runtime::Tensor& t = (*out)[0].to_tensor();
        values.assign(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
      }
    }
    ::operator delete[](aligned.release(), std::align_val_t(64));
    return values;
  }

  // The lowered program runs in one delegate with nothing left outside and agrees with the
  // portable run within one step of the output scale `step`.
  static void expect_within_one_step(const ir::ExportedProgram& program,
                                     const std::vector<Ints>& input_sizes, double step) {
    std::vector<runtime::OwnedTensor> inputs;
    uint32_t seed = 100;
    for (const Ints& sizes : input_sizes) {
      inputs.push_back(runtime::OwnedTensor::from(DType::Float,
                                                  std::vector<int32_t>(sizes.begin(), sizes.end()),
                                                  random_vector(numel(sizes), seed++)));
    }
    const std::vector<float> ref = run(export_pte(program, false), inputs);
    const std::vector<float> got = run(export_pte(program, true), inputs);
    ASSERT_EQ(got.size(), ref.size());
    ASSERT_FALSE(ref.empty());
    size_t bad = 0, nonzero = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      nonzero += ref[i] != 0.0f;
      if (std::fabs(got[i] - ref[i]) > step * 1.001 + 1e-6 && ++bad <= 3) {
        ADD_FAILURE() << "output " << i << ": " << got[i] << " vs portable " << ref[i] << " (step "
                      << step << ")";
      }
    }
    EXPECT_EQ(bad, 0u);
    EXPECT_GT(nonzero, 0u);
    size_t others = 0;
    EXPECT_EQ(count_delegates(program, &others), 1u);
    EXPECT_EQ(others, 0u) << "nodes left outside the delegate";
  }
};

struct ConvCase {
  Ints input;  // N, C, H, W
  int64_t out_channels;
  Ints kernel, stride, padding;
  int64_t groups;
  bool has_bias, per_channel, asymmetric, s8;
  std::string act;
};

ir::ExportedProgram conv_program(const ConvCase& c, const Act& in, const Act& out) {
  builder::GraphBuilder b("qconv");
  Value x = b.input("x", DType::Float, shape(c.input));
  Value w = weight(b, "w", {c.out_channels, c.input[1] / c.groups, c.kernel[0], c.kernel[1]}, 0,
                   c.per_channel, c.asymmetric, 1);
  builder::Arg bb = nullptr;
  if (c.has_bias) bb = bias(b, "b", c.out_channels, 2);
  Value y = b.call("aten::convolution", {qdq(b, x, in), w, bb, c.stride, c.padding, Ints{1, 1},
                                         false, Ints{0, 0}, c.groups});
  y = activation(b, y, c.act);
  b.output({qdq(b, y, out)});
  return b.build();
}

TEST_F(CpuBackendQdq, ConvolutionShapesSchemesAndActivations) {
  const std::vector<ConvCase> cases = {
      {{1, 3, 1, 1}, 5, {1, 1}, {1, 1}, {0, 0}, 1, true, true, false, false, ""},
      {{3, 7, 5, 9}, 13, {1, 1}, {1, 1}, {0, 0}, 1, true, false, false, true, "relu"},
      {{1, 5, 11, 7}, 9, {3, 3}, {1, 1}, {1, 1}, 1, false, true, true, false, "hardtanh"},
      {{2, 6, 9, 10}, 10, {3, 2}, {2, 1}, {2, 0}, 2, true, true, false, true, "clamp"},
      {{1, 8, 10, 10}, 8, {3, 3}, {2, 2}, {1, 1}, 8, true, true, false, false, "relu"},
      {{2, 4, 6, 6}, 8, {5, 5}, {1, 1}, {4, 4}, 4, true, false, true, false, ""},
      {{1, 17, 12, 12}, 33, {3, 3}, {1, 1}, {1, 1}, 1, true, true, false, false, "relu"},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "input " << c.input[0] << "x" << c.input[1] << "x" << c.input[2] << "x"
                 << c.input[3] << " oc " << c.out_channels << " groups " << c.groups << " " << c.act
                 << (c.s8 ? " s8" : " u8"));
    const Act in{2.0 / 255.0, c.s8};
    const Act out{0.04, c.s8};
    const ir::ExportedProgram p = conv_program(c, in, out);
    const std::vector<K> kinds = blob_kinds(p);
    EXPECT_EQ(kinds, (std::vector<K>{K::Quantize, K::QConv2d, K::Dequantize}));
    expect_within_one_step(p, {c.input}, out.scale);
  }
}

TEST_F(CpuBackendQdq, ConsecutiveInt8NodesKeepActivationsQuantized) {
  // conv → q → dq → max pool → q → dq → conv → q → dq → add(dq, dq) → relu → q → dq
  // → mean → q → dq → linear → q → dq: one Quantize at the input, one Dequantize at the output.
  builder::GraphBuilder b("qnet");
  const Act a{2.0 / 255.0, false}, h{0.03, false};
  Value x = b.input("x", DType::Float, shape({2, 3, 12, 10}));
  Value y = b.call("aten::convolution",
                   {qdq(b, x, a), weight(b, "w1", {8, 3, 3, 3}, 0, true, false, 1),
                    bias(b, "b1", 8, 2), Ints{1, 1}, Ints{1, 1}, Ints{1, 1}, false, Ints{0, 0}, 1});
  y = qdq(b, b.call("aten::relu", {y}), h);
  y = qdq(b,
          b.call_multi("aten::max_pool2d_with_indices",
                       {y, Ints{2, 2}, Ints{2, 2}, Ints{0, 0}, Ints{1, 1}, false})[0],
          h);
  Value z = b.call("aten::convolution",
                   {y, weight(b, "w2", {8, 8, 3, 3}, 0, true, false, 3), bias(b, "b2", 8, 4),
                    Ints{1, 1}, Ints{1, 1}, Ints{1, 1}, false, Ints{0, 0}, 1});
  z = qdq(b, z, h);
  Value s = qdq(b, b.call("aten::relu", {b.call("aten::add.Tensor", {z, y})}), h);
  Value m = qdq(b, b.call("aten::mean.dim", {s, Ints{2, 3}, false}), h);
  Value l = b.call(
      "aten::addmm",
      {bias(b, "b3", 5, 6), m,
       b.call("aten::permute_copy", {weight(b, "w3", {5, 8}, 0, true, true, 5), Ints{1, 0}})});
  b.output({qdq(b, l, Act{0.02, false})});
  const ir::ExportedProgram p = b.build();
  EXPECT_EQ(blob_kinds(p), (std::vector<K>{K::Quantize, K::QConv2d, K::QMaxPool2d, K::QConv2d,
                                           K::QAdd, K::QGlobalAvgPool, K::QLinear, K::Dequantize}));
  expect_within_one_step(p, {{2, 3, 12, 10}}, 0.02);
}

TEST_F(CpuBackendQdq, LinearLayersOverRowsAndTokens) {
  struct LinearCase {
    Ints input;
    int64_t out_features;
    bool addmm, transposed, per_channel, asymmetric, s8;
    std::string act;
  };
  const std::vector<LinearCase> cases = {
      {{1, 1}, 1, true, true, true, false, false, ""},
      {{7, 33}, 19, true, true, true, true, true, "relu"},
      {{5, 64}, 40, false, false, true, false, false, ""},
      {{2, 9, 24}, 17, false, false, false, false, true, "hardtanh"},
  };
  for (const LinearCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "rank " << c.input.size() << " k " << c.input.back()
                                      << " n " << c.out_features);
    builder::GraphBuilder b("qlinear");
    const int64_t k = c.input.back();
    const Act in{2.0 / 255.0, c.s8}, out{0.03, c.s8};
    Value x = qdq(b, b.input("x", DType::Float, shape(c.input)), in);
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < c.input.size(); ++d) rows *= c.input[d];
    if (c.input.size() != 2) x = b.call("aten::view_copy", {x, Ints{rows, k}});
    Value w = c.transposed
                  ? b.call("aten::permute_copy",
                           {weight(b, "w", {c.out_features, k}, 0, c.per_channel, c.asymmetric, 1),
                            Ints{1, 0}})
                  : weight(b, "w", {k, c.out_features}, 1, c.per_channel, c.asymmetric, 1);
    Value y = c.addmm ? b.call("aten::addmm", {bias(b, "b", c.out_features, 2), x, w})
                      : b.call("aten::mm", {x, w});
    if (c.input.size() != 2) {
      Ints sizes(c.input.begin(), c.input.end() - 1);
      sizes.push_back(c.out_features);
      y = b.call("aten::view_copy", {y, sizes});
    }
    y = activation(b, y, c.act);
    b.output({qdq(b, y, out)});
    const ir::ExportedProgram p = b.build();
    EXPECT_EQ(blob_kinds(p), (std::vector<K>{K::Quantize, K::QLinear, K::Dequantize}));
    expect_within_one_step(p, {c.input}, out.scale);
  }
}

TEST_F(CpuBackendQdq, LinearOverAFlattenedTensor) {
  // ONNX's GlobalAveragePool → Q → DQ → Flatten → Gemm: the int8 linear reads the [N, C, 1, 1]
  // quantized tensor as [N, C] rows.
  builder::GraphBuilder b("qflat");
  const Act a{0.01, false}, o{0.02, false};
  Value x = qdq(b, b.input("x", DType::Float, shape({3, 12, 1, 1})), a);
  Value f = b.call("aten::view_copy", {x, Ints{3, 12}});
  Value w = b.call("aten::permute_copy", {weight(b, "w", {10, 12}, 0, true, false, 1), Ints{1, 0}});
  b.output({qdq(b, b.call("aten::addmm", {bias(b, "b", 10, 2), f, w}), o)});
  const ir::ExportedProgram p = b.build();
  EXPECT_EQ(blob_kinds(p), (std::vector<K>{K::Quantize, K::QLinear, K::Dequantize}));
  expect_within_one_step(p, {{3, 12, 1, 1}}, o.scale);
}

TEST_F(CpuBackendQdq, CatRequantizeAndSignedActivations) {
  builder::GraphBuilder b("qcat");
  const Act a{0.01, true}, c{0.02, true}, o{0.025, true};
  Value x = qdq(b, b.input("x", DType::Float, shape({2, 3, 4, 5})), a);
  Value y = qdq(b, b.input("y", DType::Float, shape({2, 6, 4, 5})), c);
  Value cat = qdq(b, b.call("aten::cat", {std::vector<Value>{x, y}, 1}), o);
  b.output({qdq(b, cat, c)});  // dq → q with other parameters: a Requantize
  const ir::ExportedProgram p = b.build();
  EXPECT_EQ(blob_kinds(p),
            (std::vector<K>{K::Quantize, K::Quantize, K::QCat, K::Requantize, K::Dequantize}));
  expect_within_one_step(p, {{2, 3, 4, 5}, {2, 6, 4, 5}}, c.scale);
}

TEST_F(CpuBackendQdq, Int8KernelsOfEveryIsaAgree) {
  // The same conv net on each int8 microkernel this CPU runs (weights are packed at init).
  const ConvCase c{{2, 6, 9, 7}, 11, {3, 3}, {1, 1}, {1, 1}, 1, true, true, true, false, "relu"};
  const Act in{2.0 / 255.0, false}, out{0.04, false};
  for (auto isa : {kernels::optimized::QGemmIsa::Generic, kernels::optimized::QGemmIsa::Avx2,
                   kernels::optimized::QGemmIsa::Avx512Vnni}) {
    if (!kernels::optimized::set_qgemm_isa(isa)) continue;
    SCOPED_TRACE(kernels::optimized::to_string(isa));
    expect_within_one_step(conv_program(c, in, out), {c.input}, out.scale);
  }
  kernels::optimized::set_qgemm_isa(kernels::optimized::detected_qgemm_isa());
}

}  // namespace
}  // namespace ptec::backends::cpu
