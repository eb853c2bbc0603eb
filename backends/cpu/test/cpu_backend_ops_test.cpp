// Every op the CpuPartitioner claims and every fusion the lowering makes, one small program each,
// in odd shapes (1x1, non-square, padding larger than the kernel, channel counts that are not a
// multiple of any block size, batch > 1): the lowered program must run in exactly one delegate
// and match the portable kernels within 1e-4 x max(1, |ref|) (cpu_test_util.h).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/test/cpu_test_util.h"
#include "frontends/builder/graph_builder.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::backends::cpu {
namespace {

using builder::Value;
using cpu_test::blob_kinds;
using cpu_test::tensor;
using K = ptec_cpu_fb::NodeKind;
using Ints = std::vector<int64_t>;

class CpuBackendOps : public cpu_test::CpuBackendTest {
 protected:
  // Runs the lowered `program` once (inputs of ones) and returns how many backend nodes ran.
  static size_t nodes_run(const ir::ExportedProgram& program,
                          const std::vector<std::vector<int64_t>>& input_sizes);
};

ir::Shape shape(const Ints& sizes) { return ir::Shape(sizes.begin(), sizes.end()); }

struct ConvCase {
  Ints input;  // N, C, H, W
  int64_t out_channels;
  Ints kernel, stride, padding, dilation;
  int64_t groups;
  bool bias;
  std::string activation;  // "", or an aten op applied to the conv's output
};

ir::ExportedProgram conv_program(const ConvCase& c) {
  builder::GraphBuilder b("conv");
  Value x = b.input("x", DType::Float, shape(c.input));
  Value w = b.parameter(
      "w", tensor({c.out_channels, c.input[1] / c.groups, c.kernel[0], c.kernel[1]}, 1));
  builder::Arg bias = nullptr;
  if (c.bias) bias = b.parameter("b", tensor({c.out_channels}, 2));
  Value y = b.call("aten::convolution",
                   {x, w, bias, c.stride, c.padding, c.dilation, false, Ints{0, 0}, c.groups});
  if (c.activation == "aten::hardtanh") {
    y = b.call("aten::hardtanh", {y, 0.0, 6.0});
  } else if (c.activation == "aten::clamp") {
    y = b.call("aten::clamp", {y, -0.25, nullptr});
  } else if (c.activation == "aten::leaky_relu") {
    y = b.call("aten::leaky_relu", {y, 0.2});
  } else if (!c.activation.empty()) {
    y = b.call(c.activation, {y});
  }
  b.output({y});
  return b.build();
}

TEST_F(CpuBackendOps, ConvolutionShapesAndFusedActivations) {
  const std::vector<ConvCase> cases = {
      // 1x1 input and kernel, 3 -> 5 channels.
      {{1, 3, 1, 1}, 5, {1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true, ""},
      // Pointwise on an odd spatial size, batch 3, channels not a multiple of 8/16.
      {{3, 17, 5, 7}, 33, {1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, false, "aten::relu"},
      // Padding larger than the kernel.
      {{2, 3, 4, 5}, 7, {2, 2}, {1, 1}, {3, 2}, {1, 1}, 1, true, ""},
      {{1, 5, 3, 3}, 6, {1, 1}, {1, 1}, {2, 2}, {1, 1}, 1, false, "aten::sigmoid"},
      // Non-square kernel, stride and dilation.
      {{2, 4, 7, 13}, 9, {3, 5}, {2, 1}, {1, 2}, {1, 2}, 1, true, "aten::relu"},
      // Stride larger than the kernel.
      {{1, 2, 11, 9}, 3, {2, 3}, {3, 4}, {0, 1}, {1, 1}, 1, true, "aten::tanh"},
      // Dilations as large as the input (DeepLab's atrous rates): taps that read only padding,
      // left out at init; in both dims, and only in the rows.
      {{1, 6, 5, 7}, 4, {3, 3}, {1, 1}, {6, 6}, {6, 6}, 1, true, "aten::relu"},
      {{2, 5, 6, 9}, 4, {3, 3}, {1, 1}, {7, 2}, {7, 2}, 1, false, ""},
      // DeepLab's rate 12 at 14x14: every tap live but mostly on padding, run tap by tap.
      {{1, 24, 14, 14}, 16, {3, 3}, {1, 1}, {12, 12}, {12, 12}, 1, true, "aten::relu"},
      // YOLO's conv + LeakyReLU(0.1): the slope rides in the node's clamp_min; a 3x3 stride 1
      // of enough channels takes Winograd.
      {{1, 17, 9, 11}, 19, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, "aten::leaky_relu"},
      {{1, 64, 14, 14}, 64, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, false, "aten::leaky_relu"},
      // Grouped.
      {{2, 6, 6, 5}, 9, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 3, true, "aten::gelu"},
      // Depthwise, multiplier 1, stride 2, odd channel count.
      {{3, 17, 9, 8}, 17, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 17, true, "aten::hardtanh"},
      // Depthwise, multiplier 2, non-square kernel, padding larger than the kernel, dilated.
      {{1, 5, 6, 7}, 10, {5, 3}, {1, 2}, {3, 4}, {2, 1}, 5, false, "aten::gelu"},
      // Larger channel counts with remainders against every microkernel width.
      {{1, 37, 10, 6}, 45, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, "aten::clamp"},
      // 3x3 stride 1, odd sizes, batch 2.
      {{2, 19, 13, 11}, 21, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, "aten::relu"},
      {{1, 16, 16, 16}, 24, {3, 3}, {1, 1}, {0, 0}, {1, 1}, 1, false, "aten::sigmoid"},
  };
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.input) + " -> " + std::to_string(c.out_channels) +
                 " k" + ::testing::PrintToString(c.kernel) + " s" +
                 ::testing::PrintToString(c.stride) + " p" + ::testing::PrintToString(c.padding) +
                 " d" + ::testing::PrintToString(c.dilation) + " g" + std::to_string(c.groups) +
                 " " + c.activation);
    EXPECT_EQ(expect_same([&] { return conv_program(c); }, {c.input}), 1u);
    // The activation is fused into the convolution: one node in the blob.
    EXPECT_EQ(blob_kinds(conv_program(c)), std::vector<K>{K::Conv2d});
  }
}

// Transposed convolutions (GAN generators' and U-Net decoders' upsampling): strides 1 to 3,
// padding, output padding, dilation, groups, batch > 1, odd channel counts, with and without
// bias, the activation after them fused (unary, or SiLU as x * sigmoid(x)).
TEST_F(CpuBackendOps, TransposedConvolutions) {
  struct Case {
    Ints input;  // N, C, H, W
    int64_t out_per_group;
    Ints kernel, stride, padding, dilation, output_padding;
    int64_t groups;
    bool bias;
    std::string activation;  // "", "silu" (x * sigmoid(x)) or an aten op
  };
  const std::vector<Case> cases = {
      {{1, 8, 1, 1}, 16, {4, 4}, {1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, false, "aten::relu"},
      {{2, 5, 4, 3}, 7, {4, 4}, {2, 2}, {1, 1}, {1, 1}, {0, 0}, 1, true, "aten::tanh"},
      {{1, 6, 5, 7}, 3, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 2, true, ""},
      {{1, 3, 4, 4}, 5, {2, 3}, {3, 1}, {0, 1}, {1, 2}, {2, 0}, 1, true, "silu"},
      {{2, 17, 3, 5}, 9, {2, 2}, {2, 2}, {0, 0}, {1, 1}, {0, 0}, 1, false, "aten::sigmoid"},
  };
  for (const Case& c : cases) {
    auto build = [&] {
      builder::GraphBuilder b("conv_transpose");
      Value x = b.input("x", DType::Float, shape(c.input));
      Value w =
          b.parameter("w", tensor({c.input[1], c.out_per_group, c.kernel[0], c.kernel[1]}, 1));
      builder::Arg bias = nullptr;
      if (c.bias) bias = b.parameter("b", tensor({c.out_per_group * c.groups}, 2));
      Value y = b.call("aten::convolution", {x, w, bias, c.stride, c.padding, c.dilation, true,
                                             c.output_padding, c.groups});
      if (c.activation == "silu") {
        y = b.call("aten::mul.Tensor", {y, b.call("aten::sigmoid", {y})});
      } else if (!c.activation.empty()) {
        y = b.call(c.activation, {y});
      }
      b.output({y});
      return b.build();
    };
    const std::string trace =
        ::testing::PrintToString(c.input) + " k" + ::testing::PrintToString(c.kernel) + " s" +
        ::testing::PrintToString(c.stride) + " g" + std::to_string(c.groups) + " " + c.activation;
    EXPECT_EQ(expect_same(build, {c.input}), 1u) << trace;
    EXPECT_EQ(blob_kinds(build()), std::vector<K>{K::ConvTranspose2d}) << trace;
  }
}

// 3x3 stride-1 convolutions of the sizes the runtime computes with Winograd by default:
// F(4x4, 3x3) at 96 channels on 28x28 (odd size 27: partial tiles; batch 2), F(2x2, 3x3) at 128
// channels on 14x14. F(4x4)'s transforms scale by up to 8 and its weights by 1/24: its rounding
// error over 864 products is within 1e-3 x max(1, |ref|) (kernels/optimized/conv2d_winograd.h).
TEST_F(CpuBackendOps, ConvolutionsOfWinogradSizes) {
  const std::vector<std::pair<ConvCase, double>> cases = {
      {{{2, 96, 27, 27}, 96, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, "aten::relu"}, 1e-3},
      {{{1, 128, 14, 14}, 128, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true, ""}, 1e-4},
  };
  for (const auto& [c, tolerance] : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.input));
    EXPECT_EQ(expect_same([&] { return conv_program(c); }, {c.input}, tolerance), 1u);
  }
}

TEST_F(CpuBackendOps, ConvolutionWithResidualAddAndRelu) {
  for (const Ints& input : {Ints{1, 3, 1, 1}, Ints{2, 5, 7, 3}}) {
    auto build = [&] {
      builder::GraphBuilder b("residual");
      Value x = b.input("x", DType::Float, shape(input));
      Value w = b.parameter("w", tensor({input[1], input[1], 3, 3}, 3));
      Value bias = b.parameter("b", tensor({input[1]}, 4));
      Value c = b.call("aten::convolution",
                       {x, w, bias, Ints{1, 1}, Ints{1, 1}, Ints{1, 1}, false, Ints{0, 0}, 1});
      Value s = b.call("aten::add.Tensor", {c, x});
      b.output({b.call("aten::relu", {s})});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {input}), 1u);
    EXPECT_EQ(blob_kinds(build()), std::vector<K>{K::Conv2d});
  }
}

// Squeeze-and-excite: y = conv(h * sigmoid(conv(mean(h)))). The convolution reading the product
// scales its input channels itself (no Binary node) for pointwise, 3x3 (Winograd-sized) and
// grouped readers, batch 1 and 2; a depthwise reader, a gate shared by the batch, or a product
// with a second reader keep the mul.
TEST_F(CpuBackendOps, SqueezeExciteGateIsFoldedIntoTheConvolutionReadingIt) {
  struct Case {
    std::string name;
    int64_t batch, kernel, groups;
    bool batch_gate, second_reader, fused;
  };
  const int64_t c = 20, hw = 13;
  for (const Case& k : std::vector<Case>{{"pointwise", 1, 1, 1, true, false, true},
                                         {"3x3, batch 2", 2, 3, 1, true, false, true},
                                         {"grouped 3x3", 1, 3, 4, true, false, true},
                                         {"depthwise reader", 1, 3, c, true, false, false},
                                         {"gate shared by the batch", 2, 1, 1, false, false, false},
                                         {"second reader", 1, 1, 1, true, true, false}}) {
    SCOPED_TRACE(k.name);
    auto build = [&] {
      builder::GraphBuilder b("se");
      Value x = b.input("x", DType::Float, shape({k.batch, c, hw, hw}));
      const Ints one = {1, 1}, zero = {0, 0};
      auto conv = [&](Value in, int64_t oc, int64_t kernel, int64_t groups, uint32_t seed) {
        Value w =
            b.parameter("w" + std::to_string(seed),
                        tensor({oc, in.spec().shape[1].value() / groups, kernel, kernel}, seed));
        const Ints pad = {kernel / 2, kernel / 2};
        return b.call("aten::convolution", {in, w, nullptr, one, pad, one, false, zero, groups});
      };
      Value h = b.call("aten::relu", {conv(x, c, 1, 1, 1)});
      Value pooled = b.call("aten::mean.dim", {h, Ints{2, 3}, true});
      // The gate as EfficientNet computes it: reduce, SiLU (x * sigmoid(x) on a [N, C/4, 1, 1]
      // tensor, which must stay SiLU), expand, sigmoid.
      Value reduced = conv(pooled, c / 4, 1, 1, 2);
      Value silu = b.call("aten::mul.Tensor", {reduced, b.call("aten::sigmoid", {reduced})});
      Value gate = k.batch_gate ? b.call("aten::sigmoid", {conv(silu, c, 1, 1, 4)})
                                : b.parameter("g", tensor({1, c, 1, 1}, 9));  // one for all images
      Value scaled = k.batch == 1 ? b.call("aten::mul.Tensor", {gate, h})
                                  : b.call("aten::mul.Tensor", {h, gate});
      Value y = conv(scaled, k.groups == c ? c : 24, k.kernel, k.groups, 3);
      if (k.second_reader) {
        b.output({y, b.call("aten::tanh", {scaled})});
      } else {
        b.output({y});
      }
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {{k.batch, c, hw, hw}}), 1u);
    const std::vector<K> kinds = blob_kinds(build());
    EXPECT_EQ(std::count(kinds.begin(), kinds.end(), K::Binary), k.fused ? 0 : 1)
        << ::testing::PrintToString(kinds);
  }
}

TEST_F(CpuBackendOps, SiluWrittenAsMulBySigmoidIsFused) {
  const Ints input = {2, 5, 7, 6};
  for (const bool sigmoid_first : {false, true}) {
    auto build = [&] {
      builder::GraphBuilder b("silu");
      Value x = b.input("x", DType::Float, shape(input));
      Value w = b.parameter("w", tensor({9, 5, 3, 3}, 7));
      Value bias = b.parameter("b", tensor({9}, 8));
      Value c = b.call("aten::convolution",
                       {x, w, bias, Ints{1, 1}, Ints{1, 1}, Ints{1, 1}, false, Ints{0, 0}, 1});
      Value s = b.call("aten::sigmoid", {c});
      b.output({sigmoid_first ? b.call("aten::mul.Tensor", {s, c})
                              : b.call("aten::mul.Tensor", {c, s})});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {input}), 1u);
    EXPECT_EQ(blob_kinds(build()), std::vector<K>{K::Conv2d}) << sigmoid_first;
  }
  // The conv's output is also a program output: not fused, still correct.
  auto shared = [&] {
    builder::GraphBuilder b("silu_shared");
    Value x = b.input("x", DType::Float, shape(input));
    Value w = b.parameter("w", tensor({9, 5, 3, 3}, 7));
    Value c = b.call("aten::convolution",
                     {x, w, nullptr, Ints{1, 1}, Ints{1, 1}, Ints{1, 1}, false, Ints{0, 0}, 1});
    Value s = b.call("aten::sigmoid", {c});
    b.output({b.call("aten::mul.Tensor", {c, s}), c});
    return b.build();
  };
  EXPECT_EQ(expect_same(shared, {input}), 1u);
  EXPECT_EQ(blob_kinds(shared()), (std::vector<K>{K::Conv2d, K::Unary, K::Binary}));
}

// x * hardsigmoid(x) in the forms exporters write (match_hardswish), after a convolution and after
// a Linear: fused as the HardSwish activation, so the backend runs one node.
TEST_F(CpuBackendOps, HardSwishWrittenAsExportersWriteItIsFused) {
  enum class Form { OnnxHardSigmoidMul, OnnxHardSigmoidMulSwapped, HardtanhDiv, ClampDiv };
  const Ints input = {2, 5, 7, 6};
  auto hardswish = [](builder::GraphBuilder& b, Value c, Form form) {
    switch (form) {
      case Form::OnnxHardSigmoidMul:
      case Form::OnnxHardSigmoidMulSwapped: {
        Value s = b.call("aten::mul.Scalar", {c, static_cast<double>(1.0f / 6.0f)});
        Value h = b.call("aten::clamp", {b.call("aten::add.Scalar", {s, 0.5}), 0.0, 1.0});
        return form == Form::OnnxHardSigmoidMul ? b.call("aten::mul.Tensor", {c, h})
                                                : b.call("aten::mul.Tensor", {h, c});
      }
      case Form::HardtanhDiv:
      case Form::ClampDiv: {
        Value shifted = b.call("aten::add.Scalar", {c, 3.0});
        Value g = form == Form::HardtanhDiv ? b.call("aten::hardtanh", {shifted, 0.0, 6.0})
                                            : b.call("aten::clamp", {shifted, 0.0, 6.0});
        return b.call("aten::div.Scalar", {b.call("aten::mul.Tensor", {c, g}), 6.0});
      }
    }
    return c;
  };
  for (const Form form : {Form::OnnxHardSigmoidMul, Form::OnnxHardSigmoidMulSwapped,
                          Form::HardtanhDiv, Form::ClampDiv}) {
    auto conv = [&] {
      builder::GraphBuilder b("hardswish_conv");
      Value x = b.input("x", DType::Float, shape(input));
      Value w = b.parameter("w", tensor({9, 5, 3, 3}, 7, 1.0f));  // outputs across [-3, 3]
      Value c = b.call("aten::convolution",
                       {x, w, nullptr, Ints{1, 1}, Ints{1, 1}, Ints{1, 1}, false, Ints{0, 0}, 1});
      b.output({hardswish(b, c, form)});
      return b.build();
    };
    EXPECT_EQ(expect_same(conv, {input}), 1u) << static_cast<int>(form);
    EXPECT_EQ(blob_kinds(conv()), std::vector<K>{K::Conv2d}) << static_cast<int>(form);
    auto linear = [&] {
      builder::GraphBuilder b("hardswish_linear");
      Value x = b.input("x", DType::Float, {3, 40});
      Value w = b.parameter("w", tensor({17, 40}, 5, 1.0f));
      Value t = b.call("aten::permute_copy", {w, Ints{1, 0}});
      b.output({hardswish(b, b.call("aten::mm", {x, t}), form)});
      return b.build();
    };
    EXPECT_EQ(expect_same(linear, {{3, 40}}), 1u) << static_cast<int>(form);
    EXPECT_EQ(blob_kinds(linear()), std::vector<K>{K::Linear}) << static_cast<int>(form);
  }
  // ONNX's default HardSigmoid (alpha 0.2) is not a hard swish: its nodes run as they are.
  auto other = [&] {
    builder::GraphBuilder b("hardsigmoid_default");
    Value x = b.input("x", DType::Float, shape(input));
    Value w = b.parameter("w", tensor({9, 5, 3, 3}, 7, 1.0f));
    Value c = b.call("aten::convolution",
                     {x, w, nullptr, Ints{1, 1}, Ints{1, 1}, Ints{1, 1}, false, Ints{0, 0}, 1});
    Value s = b.call("aten::mul.Scalar", {c, 0.2});
    Value h = b.call("aten::clamp", {b.call("aten::add.Scalar", {s, 0.5}), 0.0, 1.0});
    b.output({b.call("aten::mul.Tensor", {c, h})});
    return b.build();
  };
  EXPECT_EQ(expect_same(other, {input}), 1u);
  EXPECT_EQ(blob_kinds(other()),
            (std::vector<K>{K::Conv2d, K::ScalarBinary, K::ScalarBinary, K::Unary, K::Binary}));
}

// x[M, K] @ w[N, K]^T (+ b) (+ activation), as ONNX's Gemm and PyTorch's Linear export it.
ir::ExportedProgram linear_program(int64_t m, int64_t k, int64_t n, bool bias,
                                   const std::string& activation) {
  builder::GraphBuilder b("linear");
  Value x = b.input("x", DType::Float, {m, k});
  Value w = b.parameter("w", tensor({n, k}, 5));
  Value t = b.call("aten::permute_copy", {w, Ints{1, 0}});
  Value y = bias ? b.call("aten::addmm", {b.parameter("b", tensor({n}, 6)), x, t})
                 : b.call("aten::mm", {x, t});
  if (!activation.empty()) y = b.call(activation, {y});
  b.output({y});
  return b.build();
}

TEST_F(CpuBackendOps, LinearShapesAndFusedActivations) {
  struct Case {
    int64_t m, k, n;
    bool bias;
    std::string activation;
  };
  const std::vector<Case> cases = {
      {1, 1, 1, true, ""},
      {1, 7, 3, false, "aten::relu"},
      {5, 33, 17, true, "aten::gelu"},
      {13, 65, 31, true, "aten::tanh"},
      {37, 9, 70, false, "aten::sigmoid"},
      {19, 600, 45, true, "aten::relu"},  // K over several slices (deep where the L1 holds them)
      {6, 40, 21, true, "aten::leaky_relu"},  // default slope 0.01
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + std::to_string(c.n) + " " +
                 c.activation);
    auto build = [&] { return linear_program(c.m, c.k, c.n, c.bias, c.activation); };
    EXPECT_EQ(expect_same(build, {{c.m, c.k}}), 1u);
    EXPECT_EQ(blob_kinds(build()), std::vector<K>{K::Linear});
  }
}

// ONNX MatMul + Add on 3-D activations: view → mm → view → add of a bias vector. The vector
// becomes the Linear's bias and the add aliases the view (no Binary node), and an activation that
// alone reads the sum (relu, GELU in its erf form) runs in the Linear too (no Unary node); a
// full-matrix addend or a view with a second user keep the add.
TEST_F(CpuBackendOps, BiasAddAfterAViewOfAProductIsFused) {
  struct Case {
    Ints bias;  // shape of the added constant
    bool second_user;
    std::string activation;  // "", "relu" or "gelu"
    bool fused;
  };
  const int64_t batch = 3, seq = 5, k = 17, n = 33;
  for (const Case& c : std::vector<Case>{{{n}, false, "", true},
                                         {{1, 1, n}, false, "relu", true},
                                         {{n}, false, "gelu", true},
                                         {{seq, n}, false, "relu", false},
                                         {{n}, true, "", false}}) {
    SCOPED_TRACE(::testing::PrintToString(c.bias) + (c.second_user ? " second user " : " ") +
                 c.activation);
    auto build = [&] {
      builder::GraphBuilder b("linear3d");
      Value x = b.input("x", DType::Float, shape({batch, seq, k}));
      Value w = b.parameter("w", tensor({k, n}, 7));
      Value bias = b.parameter("bias", tensor(c.bias, 8));
      Value flat = b.call("aten::view_copy", {x, Ints{batch * seq, k}});
      Value mm = b.call("aten::mm", {flat, w});
      Value y = b.call("aten::view_copy", {mm, Ints{batch, seq, n}});
      Value sum = b.call("aten::add.Tensor", {y, bias});
      if (c.activation == "relu") {
        sum = b.call("aten::relu", {sum});
      } else if (c.activation == "gelu") {
        Value erf = b.call("aten::erf", {b.call("aten::div.Scalar", {sum, 1.4142135})});
        Value gate = b.call("aten::add.Scalar", {erf, 1.0});
        sum = b.call("aten::mul.Scalar", {b.call("aten::mul.Tensor", {sum, gate}), 0.5});
      }
      if (c.second_user) {
        b.output({sum, b.call("aten::relu", {y})});
      } else {
        b.output({sum});
      }
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {{batch, seq, k}}), 1u);
    const std::vector<K> kinds = blob_kinds(build());
    const auto binaries = std::count(kinds.begin(), kinds.end(), K::Binary);
    const auto unaries = std::count(kinds.begin(), kinds.end(), K::Unary);
    EXPECT_EQ(binaries, c.fused ? 0 : 1) << ::testing::PrintToString(kinds);
    // The second user is a relu of its own.
    const int expected_unaries =
        (c.fused || c.activation.empty() ? 0 : 1) + (c.second_user ? 1 : 0);
    EXPECT_EQ(unaries, expected_unaries) << ::testing::PrintToString(kinds);
  }
}

TEST_F(CpuBackendOps, MatMulOfTwoActivations) {
  for (const auto& [a, b_sizes] : std::vector<std::pair<Ints, Ints>>{
           {{1, 1}, {1, 1}}, {{5, 7}, {7, 3}}, {{3, 5, 7}, {3, 7, 9}}, {{2, 1, 17}, {2, 17, 33}}}) {
    const char* op = a.size() == 2 ? "aten::mm" : "aten::bmm";
    auto build = [&] {
      builder::GraphBuilder b("matmul");
      Value x = b.input("x", DType::Float, shape(a));
      Value y = b.input("y", DType::Float, shape(b_sizes));
      b.output({b.call(op, {x, y})});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {a, b_sizes}), 1u) << op << ::testing::PrintToString(a);
  }
}

// A vector viewed as a matrix (an outer product, a matrix-vector product): the product reads
// the rank-1 tensor in place, which the runtime must accept.
TEST_F(CpuBackendOps, MatMulOfVectorsViewedAsMatrices) {
  auto build = [&] {
    builder::GraphBuilder b("vectors");
    Value u = b.input("u", DType::Float, shape({5}));
    Value v = b.input("v", DType::Float, shape({7}));
    Value m = b.input("m", DType::Float, shape({7, 3}));
    Value outer = b.call("aten::mm", {b.call("aten::view_copy", {u, Ints{5, 1}}),
                                      b.call("aten::view_copy", {v, Ints{1, 7}})});
    Value vm = b.call("aten::mm", {b.call("aten::view_copy", {v, Ints{1, 7}}), m});
    b.output({outer, vm});
    return b.build();
  };
  EXPECT_GE(expect_same(build, {{5}, {7}, {7, 3}}), 1u);
}

TEST_F(CpuBackendOps, MaxPoolShapes) {
  struct Case {
    Ints input, kernel, stride, padding, dilation;
    bool ceil_mode;
  };
  const std::vector<Case> cases = {
      {{1, 1, 1, 1}, {1, 1}, {1, 1}, {0, 0}, {1, 1}, false},
      {{2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, true},
      {{1, 5, 8, 11}, {2, 3}, {2, 1}, {1, 1}, {1, 1}, false},
      {{3, 2, 9, 9}, {3, 2}, {3, 2}, {0, 1}, {2, 1}, true},
  };
  for (const Case& c : cases) {
    auto build = [&] {
      builder::GraphBuilder b("maxpool");
      Value x = b.input("x", DType::Float, shape(c.input));
      Value p = b.call_multi("aten::max_pool2d_with_indices",
                             {x, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode})[0];
      b.output({p});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {c.input}), 1u) << ::testing::PrintToString(c.input);
  }
}

TEST_F(CpuBackendOps, AvgPoolShapes) {
  struct Case {
    Ints input, kernel, stride, padding;
    bool ceil_mode, count_include_pad;
    std::optional<int64_t> divisor;
  };
  const std::vector<Case> cases = {
      {{1, 1, 1, 1}, {1, 1}, {1, 1}, {0, 0}, false, true, std::nullopt},
      {{2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, true, true, std::nullopt},
      {{2, 3, 7, 9}, {3, 3}, {2, 2}, {1, 1}, true, false, std::nullopt},
      {{1, 5, 8, 11}, {2, 3}, {2, 1}, {1, 1}, false, false, std::nullopt},
      {{3, 2, 9, 9}, {3, 2}, {3, 2}, {0, 1}, true, true, 5},
      {{1, 17, 6, 5}, {4, 4}, {1, 1}, {2, 2}, true, false, std::nullopt},
      // Inception's 3x3 stride-1 pools (padding counted), DenseNet's 2x2 stride-2 transitions,
      // and a wide row with a stride of 3 and windows past the right edge.
      {{1, 4, 35, 35}, {3, 3}, {1, 1}, {1, 1}, false, true, std::nullopt},
      {{2, 3, 14, 14}, {2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt},
      {{1, 2, 5, 40}, {1, 5}, {1, 3}, {0, 2}, true, false, std::nullopt},
  };
  for (const Case& c : cases) {
    auto build = [&] {
      builder::GraphBuilder b("avgpool");
      Value x = b.input("x", DType::Float, shape(c.input));
      builder::Arg divisor = nullptr;
      if (c.divisor) divisor = *c.divisor;
      b.output({b.call("aten::avg_pool2d", {x, c.kernel, c.stride, c.padding, c.ceil_mode,
                                            c.count_include_pad, divisor})});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {c.input}), 1u)
        << ::testing::PrintToString(c.input) << " k" << ::testing::PrintToString(c.kernel)
        << " ceil " << c.ceil_mode << " include_pad " << c.count_include_pad;
    EXPECT_EQ(blob_kinds(build()), std::vector<K>{K::AvgPool2d});
  }
}

// An inference batch norm that no convolution absorbs (DenseNet's BN -> ReLU -> conv): ranks 2 to
// 4, channel counts off any block size, batch > 1, weight / bias absent, the activation after
// it fused; outputs 1 and 2 used: not claimed.
TEST_F(CpuBackendOps, BatchNormWithoutAConvolutionBeforeIt) {
  struct Case {
    Ints input;
    bool affine;
    std::string activation;
  };
  const std::vector<Case> cases = {
      {{2, 7, 5, 3}, true, "aten::relu"},
      {{1, 17, 1, 1}, true, ""},
      {{3, 5, 4}, false, "aten::hardtanh"},
      {{4, 9}, true, "aten::sigmoid"},
      {{2, 3, 6, 6}, false, ""},
  };
  for (const Case& c : cases) {
    const int64_t channels = c.input[1];
    auto build = [&] {
      builder::GraphBuilder b("batch_norm");
      Value x = b.input("x", DType::Float, shape(c.input));
      builder::Arg weight = nullptr, bias = nullptr;
      if (c.affine) {
        weight = b.parameter("weight", tensor({channels}, 3));
        bias = b.parameter("bias", tensor({channels}, 4));
      }
      Value mean = b.parameter("mean", tensor({channels}, 5));
      std::vector<float> v = cpu_test::random_vector(static_cast<size_t>(channels), 6);
      for (float& e : v) e = std::abs(e) + 0.1f;  // variances
      const ir::TensorData var{ir::TensorSpec(DType::Float, std::vector<int64_t>{channels}),
                               ir::Buffer::copy_of(v.data(), v.size() * sizeof(float))};
      Value y = b.call_multi("aten::_native_batch_norm_legit_no_training",
                             {x, weight, bias, mean, b.parameter("var", var), 0.1, 1e-5})[0];
      if (c.activation == "aten::hardtanh") {
        y = b.call("aten::hardtanh", {y, -0.5, 0.5});
      } else if (!c.activation.empty()) {
        y = b.call(c.activation, {y});
      }
      b.output({y});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {c.input}), 1u) << ::testing::PrintToString(c.input);
    EXPECT_EQ(blob_kinds(build()), std::vector<K>{K::BatchNorm})
        << ::testing::PrintToString(c.input);
  }
  // The normalized values also returned: the activation runs on its own.
  auto shared = [&] {
    builder::GraphBuilder b("batch_norm_shared");
    Value x = b.input("x", DType::Float, {2, 3, 4, 4});
    const std::vector<float> v = {0.5f, 1.5f, 2.0f};
    Value var =
        b.parameter("var", ir::TensorData{ir::TensorSpec(DType::Float, Ints{3}),
                                          ir::Buffer::copy_of(v.data(), 3 * sizeof(float))});
    Value y =
        b.call_multi("aten::_native_batch_norm_legit_no_training",
                     {x, nullptr, nullptr, b.parameter("mean", tensor({3}, 5)), var, 0.1, 1e-3})[0];
    b.output({b.call("aten::relu", {y}), y});
    return b.build();
  };
  EXPECT_EQ(expect_same(shared, {{2, 3, 4, 4}}), 1u);
  EXPECT_EQ(blob_kinds(shared()), (std::vector<K>{K::BatchNorm, K::Unary}));
}

// Group norm (diffusion models' GroupNorm -> SiLU): ranks 3 and 4, one group, one group per
// channel and in between, channel counts off any block size, batch > 1, weight / bias absent,
// the activation after it fused (SiLU as x * sigmoid(x) as ONNX exporters write it, relu,
// hardtanh); the normalized values also read elsewhere: the activation runs on its own.
TEST_F(CpuBackendOps, GroupNormWithTheActivationAfterIt) {
  struct Case {
    Ints input;
    int64_t groups;
    bool affine;
    std::string activation;  // "silu": x * sigmoid(x)
  };
  const std::vector<Case> cases = {
      {{2, 6, 5, 3}, 3, true, "silu"},
      {{1, 12, 7, 9}, 1, true, "aten::relu"},
      {{3, 5, 4}, 5, false, "silu"},
      {{2, 33, 3, 2}, 11, true, ""},
      {{1, 4, 1, 1}, 2, false, "aten::hardtanh"},
  };
  for (const Case& c : cases) {
    const int64_t channels = c.input[1];
    int64_t inner = 1;
    for (size_t i = 2; i < c.input.size(); ++i) inner *= c.input[i];
    auto build = [&] {
      builder::GraphBuilder b("group_norm");
      Value x = b.input("x", DType::Float, shape(c.input));
      builder::Arg weight = nullptr, bias = nullptr;
      if (c.affine) {
        weight = b.parameter("weight", tensor({channels}, 3));
        bias = b.parameter("bias", tensor({channels}, 4));
      }
      Value y = b.call_multi("aten::native_group_norm",
                             {x, weight, bias, c.input[0], channels, inner, c.groups, 1e-5})[0];
      if (c.activation == "silu") {
        y = b.call("aten::mul.Tensor", {y, b.call("aten::sigmoid", {y})});
      } else if (c.activation == "aten::hardtanh") {
        y = b.call("aten::hardtanh", {y, -0.5, 0.5});
      } else if (!c.activation.empty()) {
        y = b.call(c.activation, {y});
      }
      b.output({y});
      return b.build();
    };
    const std::string trace = ::testing::PrintToString(c.input) + " groups " +
                              std::to_string(c.groups) + " " + c.activation;
    EXPECT_EQ(expect_same(build, {c.input}), 1u) << trace;
    EXPECT_EQ(blob_kinds(build()), std::vector<K>{K::GroupNorm}) << trace;
  }
  auto shared = [&] {
    builder::GraphBuilder b("group_norm_shared");
    Value x = b.input("x", DType::Float, {2, 4, 3, 3});
    Value y = b.call_multi("aten::native_group_norm", {x, nullptr, nullptr, 2, 4, 9, 2, 1e-3})[0];
    b.output({b.call("aten::mul.Tensor", {y, b.call("aten::sigmoid", {y})}), y});
    return b.build();
  };
  EXPECT_EQ(expect_same(shared, {{2, 4, 3, 3}}), 1u);
  EXPECT_EQ(blob_kinds(shared()), (std::vector<K>{K::GroupNorm, K::Unary, K::Binary}));
}

// native_layer_norm over the last dim (ONNX LayerNormalization-17): with and without weight and
// bias, ranks 2 to 4, a size that is no multiple of the vector width; over two dims it is not
// claimed, and stays right.
TEST_F(CpuBackendOps, LayerNormOverTheLastDim) {
  struct Case {
    Ints input;
    bool affine;
  };
  for (const Case& c : std::vector<Case>{
           {{2, 7, 33}, true}, {{5, 16}, false}, {{1, 3, 4, 20}, true}, {{3, 1}, true}}) {
    const int64_t width = c.input.back();
    auto build = [&] {
      builder::GraphBuilder b("layer_norm");
      Value x = b.input("x", DType::Float, shape(c.input));
      builder::Arg weight = nullptr, bias = nullptr;
      if (c.affine) {
        weight = b.parameter("weight", tensor({width}, 3));
        bias = b.parameter("bias", tensor({width}, 4));
      }
      b.output({b.call_multi("aten::native_layer_norm", {x, Ints{width}, weight, bias, 1e-5})[0]});
      return b.build();
    };
    const std::string trace = ::testing::PrintToString(c.input);
    EXPECT_EQ(expect_same(build, {c.input}), 1u) << trace;
    EXPECT_EQ(blob_kinds(build()), std::vector<K>{K::LayerNorm}) << trace;
  }
  auto two_dims = [] {
    builder::GraphBuilder b("layer_norm_2d");
    Value x = b.input("x", DType::Float, {2, 3, 5});
    b.output({b.call("aten::relu", {b.call_multi("aten::native_layer_norm",
                                                 {x, Ints{3, 5}, nullptr, nullptr, 1e-5})[0]})});
    return b.build();
  };
  EXPECT_EQ(expect_same(two_dims, {{2, 3, 5}}), 1u);  // the relu
  program::TransformAndLowerOptions options;
  options.partitioners = program::PartitionerList{std::make_shared<CpuPartitioner>()};
  const auto edge = program::to_edge_transform_and_lower(two_dims(), options);
  size_t outside = 0;
  for (const ir::Node* node : edge.exported_program("forward").graph().nodes()) {
    outside += node->is_op("aten::native_layer_norm");
  }
  EXPECT_EQ(outside, 1u);
}

// One weight read by two linear layers with an op the backend does not take between them (the
// layers of ALBERT, a weight an exporter deduplicated): each layer's delegate gets the weight
// (a placeholder of its own, the same bytes stored once).
TEST_F(CpuBackendOps, LinearLayersSharingAWeightAreBothDelegated) {
  auto build = [] {
    builder::GraphBuilder b("shared_weight");
    Value x = b.input("x", DType::Float, {4, 12});
    Value w = b.parameter("w", tensor({12, 12}, 7));
    Value y = b.call("aten::mm", {x, w});
    y = b.call("aten::cumsum", {y, int64_t{1}});  // not the backend's: splits the partitions
    b.output({b.call("aten::mm", {y, w})});
    return b.build();
  };
  EXPECT_EQ(expect_same(build, {{4, 12}}), 2u);
  program::TransformAndLowerOptions options;
  options.partitioners = program::PartitionerList{std::make_shared<CpuPartitioner>()};
  const auto edge = program::to_edge_transform_and_lower(build(), options);
  for (const ir::Node* node : edge.exported_program("forward").graph().nodes()) {
    EXPECT_FALSE(node->is_op("aten::mm")) << "an mm was left out of the delegates";
  }
}

// addmm whose self is computed (a recurrent cell's input projection): added as the Linear's
// residual; and split_with_sizes_copy, each part its getitem's strided copy (an LSTM's gates).
TEST_F(CpuBackendOps, AddmmWithAComputedSelfAndSplits) {
  auto build = [] {
    builder::GraphBuilder b("cell");
    Value x = b.input("x", DType::Float, {3, 24});
    Value h = b.input("h", DType::Float, {3, 10});
    Value w = b.parameter("w", tensor({24, 40}, 5));  // [K, N]
    Value r = b.parameter("r", tensor({40, 10}, 6));  // [N, K]
    Value proj = b.call("aten::mm", {x, w});
    Value gates = b.call("aten::addmm", {proj, h, b.call("aten::permute_copy", {r, Ints{1, 0}})});
    std::vector<Value> parts =
        b.call_multi("aten::split_with_sizes_copy", {gates, Ints{10, 10, 20}, 1});
    Value a = b.call("aten::sigmoid", {parts[0]});
    Value c = b.call("aten::tanh", {parts[1]});
    // A split along dim 0 of the last part, one of whose pieces goes unused.
    std::vector<Value> rows = b.call_multi("aten::split_with_sizes_copy", {parts[2], Ints{1, 2}});
    b.output({b.call("aten::mul.Tensor", {a, c}), rows[1]});
    return b.build();
  };
  EXPECT_EQ(expect_same(build, {{3, 24}, {3, 10}}), 1u);
  const std::vector<K> kinds = blob_kinds(build());
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), K::Linear), 2)
      << ::testing::PrintToString(kinds);
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), K::StridedCopy), 4)
      << ::testing::PrintToString(kinds);
}

// A subgraph that reads only constants (the permuted weight of products the kernels outside the
// backend run: addmm with beta 2) has no inputs: its blob leaves the input list out, and the
// runtime takes it.
TEST_F(CpuBackendOps, SubgraphOfConstantsOnly) {
  auto build = [] {
    builder::GraphBuilder b("constants_only");
    Value x = b.input("x", DType::Float, {3, 1, 16});
    Value r = b.parameter("r", tensor({16, 16}, 3));
    Value rt = b.call("aten::permute_copy", {r, Ints{1, 0}});
    Value h = b.call("aten::select_copy.int", {x, 0, 0});
    for (int t = 1; t < 3; ++t) {
      Value xt = b.call("aten::select_copy.int", {x, 0, t});
      h = b.call("aten::tanh", {b.call("aten::addmm", {xt, h, rt, 2.0, 1.0})});
    }
    b.output({h});
    return b.build();
  };
  EXPECT_GE(expect_same(build, {{3, 1, 16}}), 2u);
}

TEST_F(CpuBackendOps, GlobalAveragePoolAndInnerMean) {
  for (const auto& [input, dims] : std::vector<std::pair<Ints, Ints>>{
           {{1, 1, 1, 1}, {2, 3}}, {{3, 17, 5, 7}, {-1, -2}}, {{2, 9, 13}, {-1}}, {{7}, {0}}}) {
    auto build = [&] {
      builder::GraphBuilder b("mean");
      Value x = b.input("x", DType::Float, shape(input));
      b.output({b.call("aten::mean.dim", {x, dims, true})});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {input}), 1u) << ::testing::PrintToString(input);
  }
}

TEST_F(CpuBackendOps, SoftmaxOverEveryDim) {
  const Ints input = {3, 5, 7};
  for (int64_t dim : {0, 1, 2, -1}) {
    auto build = [&] {
      builder::GraphBuilder b("softmax");
      Value x = b.input("x", DType::Float, shape(input));
      b.output({b.call("aten::_softmax", {x, dim, false})});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {input}), 1u) << "dim " << dim;
  }
}

// sum / mean over consecutive dims other than the last one alone (ConvNeXt-V2's GRN sums a
// channels-last tensor over H and W; a channels-first layer norm averages over dim 1): one
// strided reduction, against the portable kernels.
TEST_F(CpuBackendOps, ReductionsOverConsecutiveDims) {
  struct Case {
    const char* op;
    Ints input, dims;
    bool keepdim;
  };
  for (const Case& c : std::vector<Case>{{"aten::sum.dim_IntList", {2, 6, 5, 24}, {1, 2}, true},
                                         {"aten::mean.dim", {2, 24, 7, 5}, {1}, true},
                                         {"aten::sum.dim_IntList", {3, 17}, {-1}, false},
                                         {"aten::mean.dim", {4, 3, 9}, {0, 1}, false},
                                         {"aten::sum.dim_IntList", {2, 3, 4}, {0, 1, 2}, false}}) {
    auto build = [&] {
      builder::GraphBuilder b("reduce");
      Value x = b.input("x", DType::Float, shape(c.input));
      b.output({b.call("aten::relu", {b.call(c.op, {x, c.dims, c.keepdim, nullptr})})});
      return b.build();
    };
    const std::string trace =
        std::string(c.op) + ::testing::PrintToString(c.input) + ::testing::PrintToString(c.dims);
    EXPECT_EQ(expect_same(build, {c.input}), 1u) << trace;
  }
  // Not consecutive: left to the kernels.
  auto gap = [] {
    builder::GraphBuilder b("reduce_gap");
    Value x = b.input("x", DType::Float, {2, 3, 4});
    b.output({b.call("aten::sum.dim_IntList", {x, Ints{0, 2}, false, nullptr})});
    return b.build();
  };
  EXPECT_EQ(expect_same(gap, {{2, 3, 4}}), 0u);
}

// Attention's scale before the softmax over the last dim (x * c, x / c with c > 0) is applied
// by the softmax to its rows: no ScalarBinary node. Over another dim, with a negative factor or
// with a second reader of the scaled scores it stays a node of its own.
TEST_F(CpuBackendOps, SoftmaxAppliesTheScaleBeforeIt) {
  struct Case {
    const char* op;
    double factor;
    int64_t dim;
    bool second_reader;
    bool folded;
  };
  const Ints input = {2, 5, 9};
  for (const Case& c : std::vector<Case>{{"aten::mul.Scalar", 0.25, -1, false, true},
                                         {"aten::div.Scalar", 8.0, 2, false, true},
                                         {"aten::mul.Scalar", -0.5, -1, false, false},
                                         {"aten::mul.Scalar", 0.25, 1, false, false},
                                         {"aten::div.Scalar", 4.0, -1, true, false}}) {
    auto build = [&] {
      builder::GraphBuilder b("scaled_softmax");
      Value x = b.input("x", DType::Float, shape(input));
      Value scores = b.call("aten::bmm", {x, b.call("aten::permute_copy", {x, Ints{0, 2, 1}})});
      Value scaled = b.call(c.op, {scores, c.factor});
      Value p = b.call("aten::_softmax", {scaled, c.dim, false});
      b.output(c.second_reader ? std::vector<Value>{p, b.call("aten::relu", {scaled})}
                               : std::vector<Value>{p});
      return b.build();
    };
    const std::string trace =
        std::string(c.op) + " " + std::to_string(c.factor) + " dim " + std::to_string(c.dim);
    EXPECT_EQ(expect_same(build, {input}), 1u) << trace;
    const std::vector<K> kinds = blob_kinds(build());
    EXPECT_EQ(std::count(kinds.begin(), kinds.end(), K::ScalarBinary), c.folded ? 0 : 1) << trace;
  }
}

TEST_F(CpuBackendOps, UnaryAndMathOps) {
  const Ints input = {3, 13};
  for (const std::string op :
       {"aten::relu", "aten::sigmoid", "aten::tanh", "aten::gelu", "aten::hardtanh", "aten::clamp",
        "aten::exp", "aten::neg", "aten::abs", "aten::erf", "aten::sqrt", "aten::rsqrt",
        "aten::log", "aten::reciprocal"}) {
    auto build = [&] {
      builder::GraphBuilder b("unary");
      Value x = b.input("x", DType::Float, shape(input));
      // sqrt/rsqrt/log/reciprocal get positive inputs.
      Value v = b.call("aten::add.Scalar", {b.call("aten::abs", {x}), 0.5});
      Value in = (op == "aten::sqrt" || op == "aten::rsqrt" || op == "aten::log" ||
                  op == "aten::reciprocal")
                     ? v
                     : x;
      Value y = op == "aten::hardtanh" ? b.call(op, {in, -0.5, 0.25})
                : op == "aten::clamp"  ? b.call(op, {in, nullptr, 0.3})
                                       : b.call(op, {in});
      b.output({y});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {input}), 1u) << op;
  }
}

TEST_F(CpuBackendOps, BroadcastingBinaryAndScalarOps) {
  const std::vector<std::pair<Ints, Ints>> shapes = {
      {{1}, {1}}, {{3, 1, 5}, {4, 1}}, {{2, 3, 4}, {}}, {{7, 1}, {1, 9}}, {{2, 17}, {2, 17}}};
  for (const std::string op :
       {"aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor", "aten::div.Tensor"}) {
    for (const auto& [a, b_sizes] : shapes) {
      auto build = [&] {
        builder::GraphBuilder b("binary");
        Value x = b.input("x", DType::Float, shape(a));
        Value y = b.input("y", DType::Float, shape(b_sizes));
        if (op == "aten::div.Tensor")
          y = b.call("aten::add.Scalar", {b.call("aten::abs", {y}), 1.0});
        b.output({b.call(op, {x, y})});
        return b.build();
      };
      EXPECT_EQ(expect_same(build, {a, b_sizes}), 1u)
          << op << ::testing::PrintToString(a) << ::testing::PrintToString(b_sizes);
    }
  }
  for (const std::string op : {"aten::add.Scalar", "aten::sub.Scalar", "aten::mul.Scalar",
                               "aten::div.Scalar", "aten::pow.Tensor_Scalar"}) {
    auto build = [&] {
      builder::GraphBuilder b("scalar");
      Value x = b.input("x", DType::Float, {5, 3});
      b.output({b.call(op, {x, op == "aten::pow.Tensor_Scalar" ? 2.0 : 1.5})});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {{5, 3}}), 1u) << op;
  }
}

TEST_F(CpuBackendOps, CatAlongEveryDim) {
  for (int64_t dim : {0, 1, 2, -1}) {
    Ints a = {2, 3, 5}, b_sizes = a, c = a;
    const size_t d = static_cast<size_t>(dim < 0 ? dim + 3 : dim);
    b_sizes[d] = 1;
    c[d] = 4;
    auto build = [&] {
      builder::GraphBuilder b("cat");
      std::vector<Value> xs = {b.input("a", DType::Float, shape(a)),
                               b.input("b", DType::Float, shape(b_sizes)),
                               b.input("c", DType::Float, shape(c))};
      // A relu on each input keeps the cat's inputs inside the delegate.
      std::vector<Value> rs;
      for (const Value& x : xs) rs.push_back(b.call("aten::relu", {x}));
      b.output({b.call("aten::cat", {rs, dim})});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {a, b_sizes, c}), 1u) << "dim " << dim;
  }
}

// Counts the CPU backend's per-node events of one run.
class NodeEventCounter final : public runtime::EventTracer {
 public:
  runtime::EventTracerEntry start_profiling_delegate(const char*, int64_t id) override {
    runtime::EventTracerEntry e;
    e.delegate_debug_id = id;
    ++events;
    return e;
  }
  size_t events = 0;
};

size_t CpuBackendOps::nodes_run(const ir::ExportedProgram& program,
                                const std::vector<std::vector<int64_t>>& input_sizes) {
  const std::vector<uint8_t> bytes = export_pte(program, true);
  std::unique_ptr<uint8_t[]> aligned(new (std::align_val_t(64)) uint8_t[bytes.size()]);
  std::memcpy(aligned.get(), bytes.data(), bytes.size());
  NodeEventCounter counter;
  {
    runtime::Module module(aligned.get(), bytes.size(), &counter);
    std::vector<runtime::OwnedTensor> owned;
    std::vector<runtime::EValue> args;
    owned.reserve(input_sizes.size());
    for (const std::vector<int64_t>& sizes : input_sizes) {
      size_t n = 1;
      for (int64_t v : sizes) n *= static_cast<size_t>(v);
      owned.push_back(runtime::OwnedTensor::from(DType::Float,
                                                 std::vector<int32_t>(sizes.begin(), sizes.end()),
                                                 std::vector<float>(n, 1)));
      args.push_back(owned.back().evalue());
    }
    EXPECT_TRUE(module.execute("forward", args).ok());
  }
  ::operator delete[](aligned.release(), std::align_val_t(64));
  return counter.events;
}

// A Cat whose inputs are intermediates of the delegate and whose slices are contiguous (only
// size-1 dims before the cat dim) has its inputs computed in place: the Cat node does not run.
// Inputs that are graph inputs, repeated inputs, Cat outputs, or a batch above one before the
// cat dim keep the copy; every case matches the portable kernels.
TEST_F(CpuBackendOps, CatInputsAreComputedInPlaceWhenTheSlicesAreContiguous) {
  struct Case {
    std::string name;
    Ints x;
    int kind;  // 0: two intermediates; 1: a graph input among them; 2: one input twice;
               // 3: nested (the inner cat is placed, the outer keeps its copy)
    size_t cats_skipped;
  };
  for (const Case& c : std::vector<Case>{{"intermediates, batch 1", {1, 3, 4, 5}, 0, 1},
                                         {"intermediates, batch 2", {2, 3, 4, 5}, 0, 0},
                                         {"a graph input", {1, 3, 4, 5}, 1, 0},
                                         {"an input twice", {1, 3, 4, 5}, 2, 0},
                                         {"nested", {1, 3, 4, 5}, 3, 1}}) {
    SCOPED_TRACE(c.name);
    auto build = [&] {
      builder::GraphBuilder b("cat_in_place");
      Value x = b.input("x", DType::Float, shape(c.x));
      Value r = b.call("aten::relu", {x});
      Value t = b.call("aten::sigmoid", {x});
      std::vector<Value> parts = {r, t};
      if (c.kind == 1) parts = {r, x};
      if (c.kind == 2) parts = {r, r};
      Value cat = b.call("aten::cat", {parts, int64_t{1}});
      if (c.kind == 3) cat = b.call("aten::cat", {std::vector<Value>{cat, t}, int64_t{1}});
      // A reader after the cat of one of its inputs.
      b.output({b.call("aten::add.Tensor", {cat, cat}),
                b.call("aten::add.Tensor", {b.call("aten::tanh", {r}), t})});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {c.x}), 1u);
    const size_t nodes = blob_kinds(build()).size();
    EXPECT_EQ(nodes_run(build(), {c.x}), nodes - c.cats_skipped);
  }
}

TEST_F(CpuBackendOps, StridedCopiesAndViews) {
  auto build = [] {
    builder::GraphBuilder b("strided");
    Value x = b.input("x", DType::Float, {2, 5, 7});
    Value p = b.call("aten::permute_copy", {x, Ints{2, 0, 1}});    // 7, 2, 5
    Value s = b.call("aten::slice_copy.Tensor", {p, 0, 1, 6, 2});  // 3, 2, 5
    Value e = b.call("aten::select_copy.int", {s, 2, -1});         // 3, 2
    Value u = b.call("aten::unsqueeze_copy", {e, 1});              // 3, 1, 2
    Value x2 = b.call("aten::expand_copy", {u, Ints{3, 4, 2}});    // 3, 4, 2
    Value v = b.call("aten::view_copy", {x2, Ints{4, 6}});
    b.output({b.call("aten::relu", {v})});
    return b.build();
  };
  EXPECT_EQ(expect_same(build, {{2, 5, 7}}), 1u);
}

}  // namespace
}  // namespace ptec::backends::cpu
