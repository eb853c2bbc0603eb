// PtecCpuBackend end to end: programs built with the GraphBuilder, lowered with CpuPartitioner,
// run through ptec's runtime, compared with the same program on the portable kernels
// (cpu_test_util.h). Every claimed op in odd shapes: cpu_backend_ops_test.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <random>

#include "backends/cpu/aot/cpu_backend.h"
#include "backends/cpu/aot/cpu_ops.h"
#include "backends/cpu/aot/cpu_partitioner.h"
#include "backends/cpu/cpu_delegate_generated.h"
#include "backends/cpu/runtime/cpu_backend_runtime.h"
#include "backends/cpu/test/cpu_test_util.h"
#include "frontends/builder/graph_builder.h"
#include "kernels/optimized/ops/register.h"
#include "kernels/optimized/threadpool.h"
#include "program/to_edge.h"
#include "program/to_edge_transform_and_lower.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::backends::cpu {
namespace {

using builder::Value;

using cpu_test::blob_kinds;
using cpu_test::random_vector;
using cpu_test::tensor;

class CpuBackend : public cpu_test::CpuBackendTest {};

// x → conv3x3+bias → relu → conv3x3 → + (conv1 out) → relu → maxpool → depthwise conv (stride 2
// unless told, multiplier 2) → hardtanh → mean(H, W) → view → linear (addmm with permuted weight).
ir::ExportedProgram resnet_like(int64_t batch, int64_t depthwise_stride = 2) {
  builder::GraphBuilder b("resnet_like");
  Value x = b.input("x", DType::Float, {batch, 3, 9, 11});
  Value w1 = b.parameter("w1", tensor({8, 3, 3, 3}, 1));
  Value b1 = b.parameter("b1", tensor({8}, 2));
  Value w2 = b.parameter("w2", tensor({8, 8, 3, 3}, 3));
  Value wd = b.parameter("wd", tensor({16, 1, 3, 3}, 4));
  Value fc_w = b.parameter("fc_w", tensor({5, 16}, 5));
  Value fc_b = b.parameter("fc_b", tensor({5}, 6));
  const std::vector<int64_t> one = {1, 1}, zero = {0, 0}, two = {2, 2};
  Value c1 = b.call("aten::convolution", {x, w1, b1, one, one, one, false, zero, 1});
  Value r1 = b.call("aten::relu", {c1});
  Value c2 = b.call("aten::convolution", {r1, w2, nullptr, one, one, one, false, zero, 1});
  Value s = b.call("aten::add.Tensor", {c2, r1});
  Value r2 = b.call("aten::relu", {s});
  Value p = b.call_multi("aten::max_pool2d_with_indices",
                         {r2, std::vector<int64_t>{3, 3}, two, one, one, true})[0];
  const std::vector<int64_t> dw_stride = {depthwise_stride, depthwise_stride};
  Value d = b.call("aten::convolution", {p, wd, nullptr, dw_stride, one, one, false, zero, 8});
  Value h = b.call("aten::hardtanh", {d, 0.0, 6.0});
  Value m = b.call("aten::mean.dim", {h, std::vector<int64_t>{-1, -2}, false});
  Value v = b.call("aten::view_copy", {m, std::vector<int64_t>{batch, 16}});
  Value t = b.call("aten::permute_copy", {fc_w, std::vector<int64_t>{1, 0}});
  Value y = b.call("aten::addmm", {fc_b, v, t});
  b.output({y});
  return b.build();
}

TEST_F(CpuBackend, ConvolutionalNetMatchesPortableInOneDelegate) {
  EXPECT_EQ(expect_same([] { return resnet_like(1); }, {{1, 3, 9, 11}}), 1u);
}

TEST_F(CpuBackend, BatchAboveOneAndTwoThreads) {
  set_num_threads(2);
  EXPECT_EQ(expect_same([] { return resnet_like(3); }, {{3, 3, 9, 11}}), 1u);
  set_num_threads(0);
}

// ResNet's downsample block: both operands of the residual add are convolutions with a single
// use, so only one of them may absorb the add.
TEST_F(CpuBackend, BothOperandsOfAResidualAddAreConvolutions) {
  auto build = [] {
    builder::GraphBuilder b("downsample");
    Value x = b.input("x", DType::Float, {1, 4, 8, 8});
    Value wa = b.parameter("wa", tensor({6, 4, 3, 3}, 11));
    Value wb = b.parameter("wb", tensor({6, 4, 1, 1}, 12));
    const std::vector<int64_t> one = {1, 1}, zero = {0, 0}, two = {2, 2};
    Value a = b.call("aten::convolution", {x, wa, nullptr, two, one, one, false, zero, 1});
    Value c = b.call("aten::convolution", {x, wb, nullptr, two, zero, one, false, zero, 1});
    Value s = b.call("aten::add.Tensor", {a, c});
    Value r = b.call("aten::relu", {s});
    b.output({r});
    return b.build();
  };
  EXPECT_EQ(expect_same(build, {{1, 4, 8, 8}}), 1u);
}

// MobileNet-V2's inverted residual block: x → pointwise 32 → 64 → relu6 → depthwise 3x3 → relu6 →
// pointwise 64 → 32 → + x, on hw x hw planes, where the expansion's and the depthwise layer's
// outputs stay in channel blocks inside the delegate (each has one reader, and both ends take
// blocks; on 30x30 planes only because the backend chooses pixel rows for both pointwise layers
// and the channel-interleaved path for the depthwise one, which their planes would not take on
// their own). Shared: the expansion's output is also a graph output and the depthwise output also
// feeds another pointwise layer, so neither may be blocked; the first output (the one compared)
// is the expansion's (`shared` 1) or the sum of both pointwise layers reading the depthwise
// output (2). `shared` 3: only the expansion's output is also a graph output, so only the
// depthwise output is blocked; 4: only the depthwise output has a second reader, so only the
// expansion's output is blocked.
ir::ExportedProgram inverted_residual(int64_t batch, int shared, int64_t hw = 7) {
  builder::GraphBuilder b("inverted_residual");
  Value x = b.input("x", DType::Float, {batch, 32, hw, hw});
  Value we = b.parameter("we", tensor({64, 32, 1, 1}, 31));
  Value be = b.parameter("be", tensor({64}, 32));
  Value wd = b.parameter("wd", tensor({64, 1, 3, 3}, 33));
  Value bd = b.parameter("bd", tensor({64}, 34));
  Value wp = b.parameter("wp", tensor({32, 64, 1, 1}, 35));
  Value wq = b.parameter("wq", tensor({32, 64, 1, 1}, 36));
  const std::vector<int64_t> one = {1, 1}, zero = {0, 0};
  Value e = b.call("aten::convolution", {x, we, be, one, zero, one, false, zero, 1});
  Value e6 = b.call("aten::hardtanh", {e, 0.0, 6.0});
  Value d = b.call("aten::convolution", {e6, wd, bd, one, one, one, false, zero, 64});
  Value d6 = b.call("aten::hardtanh", {d, 0.0, 6.0});
  Value p = b.call("aten::convolution", {d6, wp, nullptr, one, zero, one, false, zero, 1});
  Value y = b.call("aten::add.Tensor", {p, x});
  if (shared == 3) {
    b.output({y, e6});
  } else if (shared > 0) {
    Value q = b.call("aten::convolution", {d6, wq, nullptr, one, zero, one, false, zero, 1});
    if (shared == 1) b.output({e6, y, q});
    if (shared == 2) b.output({b.call("aten::add.Tensor", {y, q}), e6});
    if (shared == 4) b.output({b.call("aten::add.Tensor", {y, q})});
  } else {
    b.output({y});
  }
  return b.build();
}

TEST_F(CpuBackend, InvertedResidualBlocksMatchPortable) {
  for (int shared : {0, 1, 2}) {
    EXPECT_EQ(expect_same([shared] { return inverted_residual(1, shared); }, {{1, 32, 7, 7}}), 1u)
        << "shared " << shared;
  }
  for (int shared : {0, 3, 4}) {
    EXPECT_EQ(expect_same([shared] { return inverted_residual(2, shared, 30); }, {{2, 32, 30, 30}}),
              1u)
        << "shared " << shared;
  }
  set_num_threads(2);
  EXPECT_EQ(expect_same([] { return inverted_residual(3, 0); }, {{3, 32, 7, 7}}), 1u);
  set_num_threads(0);
}

// Squeeze-excitation (mean → linear → sigmoid → broadcast mul), cat, sub/div and gelu/tanh.
TEST_F(CpuBackend, BroadcastingBinaryOpsCatAndActivations) {
  auto build = [] {
    builder::GraphBuilder b("se");
    Value x = b.input("x", DType::Float, {2, 6, 5, 4});
    Value w = b.parameter("w", tensor({6, 6}, 7));
    Value m = b.call("aten::mean.dim", {x, std::vector<int64_t>{2, 3}, true});
    Value v = b.call("aten::view_copy", {m, std::vector<int64_t>{2, 6}});
    Value l = b.call("aten::mm", {v, w});
    Value g = b.call("aten::sigmoid", {l});
    Value g4 = b.call("aten::view_copy", {g, std::vector<int64_t>{2, 6, 1, 1}});
    Value y = b.call("aten::mul.Tensor", {x, g4});
    Value z = b.call("aten::sub.Tensor", {y, x});
    Value q = b.call("aten::div.Tensor", {z, g4});
    Value c = b.call("aten::cat", {std::vector<Value>{q, y}, 1});
    Value e = b.call("aten::gelu", {c});
    Value f = b.call("aten::tanh", {e});
    b.output({f});
    return b.build();
  };
  EXPECT_EQ(expect_same(build, {{2, 6, 5, 4}}), 1u);
}

// An op the backend does not run (sin) between claimed ones splits the graph into convex
// delegates; the results still match.
TEST_F(CpuBackend, UnsupportedOpInTheMiddleGivesConvexDelegates) {
  auto build = [] {
    builder::GraphBuilder b("split");
    Value x = b.input("x", DType::Float, {1, 4, 6, 6});
    Value w = b.parameter("w", tensor({4, 4, 1, 1}, 8));
    const std::vector<int64_t> one = {1, 1}, zero = {0, 0};
    Value c = b.call("aten::convolution", {x, w, nullptr, one, zero, one, false, zero, 1});
    Value e = b.call("aten::sin", {c});
    Value s = b.call("aten::add.Tensor", {c, e});  // c reaches s directly and through sin
    Value r = b.call("aten::relu", {s});
    b.output({r});
    return b.build();
  };
  EXPECT_EQ(expect_same(build, {{1, 4, 6, 6}}), 2u);
}

// The decomposed LayerNorm of the last dim (as ONNX and torch export it), optionally with weight
// and bias.
Value decomposed_layer_norm(builder::GraphBuilder& b, Value x, std::optional<Value> weight,
                            std::optional<Value> bias, double eps) {
  const std::vector<int64_t> last = {-1};
  Value m = b.call("aten::mean.dim", {x, last, true});
  Value d = b.call("aten::sub.Tensor", {x, m});
  Value p = b.call("aten::pow.Tensor_Scalar", {d, 2.0});
  Value v = b.call("aten::mean.dim", {p, last, true});
  Value e = b.call("aten::add.Scalar", {v, eps});
  Value s = b.call("aten::sqrt", {e});
  Value y = b.call("aten::div.Tensor", {d, s});
  if (weight) y = b.call("aten::mul.Tensor", {y, *weight});
  if (bias) y = b.call("aten::add.Tensor", {y, *bias});
  return y;
}

// One post-norm transformer encoder layer on [batch, seq, d] with `heads` heads, as the Edge
// graphs of exported torch / ONNX encoders look: linear projections (addmm with permuted
// weights), slices of the fused QKV, head permutes, bmm, scaled softmax, residual adds,
// decomposed LayerNorms and the erf form of GELU.
ir::ExportedProgram encoder_layer(int64_t batch, int64_t seq, int64_t d, int64_t heads) {
  const int64_t hd = d / heads, bh = batch * heads, ff = 2 * d + 1;
  builder::GraphBuilder b("encoder_layer");
  Value x = b.input("x", DType::Float, {batch, seq, d});
  Value w_qkv = b.parameter("w_qkv", tensor({3 * d, d}, 11));
  Value b_qkv = b.parameter("b_qkv", tensor({3 * d}, 12));
  Value w_o = b.parameter("w_o", tensor({d, d}, 13));
  Value b_o = b.parameter("b_o", tensor({d}, 14));
  Value w_1 = b.parameter("w_1", tensor({ff, d}, 15));
  Value b_1 = b.parameter("b_1", tensor({ff}, 16));
  Value w_2 = b.parameter("w_2", tensor({d, ff}, 17));
  Value g_1 = b.parameter("g_1", tensor({d}, 18));
  Value be_1 = b.parameter("be_1", tensor({d}, 19));
  Value g_2 = b.parameter("g_2", tensor({d}, 20));
  Value be_2 = b.parameter("be_2", tensor({d}, 21));
  using V = std::vector<int64_t>;
  auto linear = [&](Value in, Value w, std::optional<Value> bias) {
    Value t = b.call("aten::permute_copy", {w, V{1, 0}});
    return bias ? b.call("aten::addmm", {*bias, in, t}) : b.call("aten::mm", {in, t});
  };
  Value x2 = b.call("aten::view_copy", {x, V{batch * seq, d}});
  Value qkv = b.call("aten::view_copy", {linear(x2, w_qkv, b_qkv), V{batch, seq, 3 * d}});
  auto head_split = [&](int64_t i) {
    Value part = b.call("aten::slice_copy.Tensor", {qkv, 2, i * d, (i + 1) * d, 1});
    Value v4 = b.call("aten::view_copy", {part, V{batch, seq, heads, hd}});
    Value p = b.call("aten::permute_copy", {v4, V{0, 2, 1, 3}});
    return b.call("aten::view_copy", {p, V{bh, seq, hd}});
  };
  Value q = head_split(0), k = head_split(1), v = head_split(2);
  Value kt = b.call("aten::permute_copy", {k, V{0, 2, 1}});
  Value scores = b.call("aten::bmm", {q, kt});
  Value scaled = b.call("aten::div.Scalar", {scores, std::sqrt(static_cast<double>(hd))});
  Value attn = b.call("aten::_softmax", {scaled, -1, false});
  Value ctx = b.call("aten::bmm", {attn, v});
  Value c4 = b.call("aten::view_copy", {ctx, V{batch, heads, seq, hd}});
  Value cp = b.call("aten::permute_copy", {c4, V{0, 2, 1, 3}});
  Value c2 = b.call("aten::view_copy", {cp, V{batch * seq, d}});
  Value o = b.call("aten::view_copy", {linear(c2, w_o, b_o), V{batch, seq, d}});
  Value h1 = decomposed_layer_norm(b, b.call("aten::add.Tensor", {x, o}), g_1, be_1, 1e-5);
  Value f1 = linear(b.call("aten::view_copy", {h1, V{batch * seq, d}}), w_1, b_1);
  // gelu(f1) = f1 * 0.5 * (1 + erf(f1 / sqrt(2)))
  Value erf = b.call("aten::erf", {b.call("aten::div.Scalar", {f1, 1.4142135623730951})});
  Value gate = b.call("aten::add.Scalar", {erf, 1.0});
  Value g = b.call("aten::mul.Scalar", {b.call("aten::mul.Tensor", {f1, gate}), 0.5});
  Value f2 = b.call("aten::view_copy", {linear(g, w_2, std::nullopt), V{batch, seq, d}});
  Value y = decomposed_layer_norm(b, b.call("aten::add.Tensor", {h1, f2}), g_2, be_2, 1e-6);
  b.output({y});
  return b.build();
}

TEST_F(CpuBackend, TransformerEncoderLayerRunsInOneDelegate) {
  EXPECT_EQ(expect_same([] { return encoder_layer(1, 7, 12, 2); }, {{1, 7, 12}}), 1u);
}

TEST_F(CpuBackend, TransformerEncoderLayerLowersToFusedNodes) {
  using K = ptec_cpu_fb::NodeKind;
  const partition::PreprocessResult r =
      backends::cpu::CpuBackend().preprocess(encoder_layer(1, 7, 12, 2), {});
  const auto* graph = ptec_cpu_fb::GetGraph(r.processed_bytes->data());
  std::map<K, int> kinds;
  for (const auto* n : *graph->nodes()) {
    ++kinds[n->kind()];
    // The first bmm reads Q and K^T in place from the fused QKV projection [1, 7, 36]: head h
    // of Q at offset 6 h (batch stride 6), rows 36 apart; K^T transposed, from offset 12.
    if (n->kind() == K::BatchMatMul && kinds[K::BatchMatMul] == 1) {
      ASSERT_NE(n->ints(), nullptr);
      const std::vector<int64_t> ints(n->ints()->begin(), n->ints()->end());
      EXPECT_EQ(ints, (std::vector<int64_t>{0, 6, 0, 6, 36, 0, 12, 6, 36, 1}));
    }
    if (n->kind() == K::Unary) {
      EXPECT_EQ(n->activation(), ptec_cpu_fb::Activation::Gelu);
    }
  }
  EXPECT_EQ(kinds[K::LayerNorm], 2);
  EXPECT_EQ(kinds[K::Unary], 1);  // the erf GELU
  EXPECT_EQ(kinds[K::BatchMatMul], 2);
  EXPECT_EQ(kinds[K::Softmax], 1);
  EXPECT_EQ(kinds[K::StridedCopy], 1);  // the context permute (Q, K, V are read in place)
  EXPECT_EQ(kinds[K::Linear], 4);
  EXPECT_EQ(kinds[K::ScalarBinary], 0);  // the scores' scale: applied by the softmax
  EXPECT_EQ(kinds[K::MeanInner] + kinds[K::Math], 0);
}

TEST_F(CpuBackend, TransformerEncoderLayerBatchAboveOneAndTwoThreads) {
  set_num_threads(2);
  EXPECT_EQ(expect_same([] { return encoder_layer(3, 5, 15, 3); }, {{3, 5, 15}}), 1u);
  set_num_threads(0);
}

TEST_F(CpuBackend, DecomposedLayerNormIsFusedWithAndWithoutAffine) {
  using K = ptec_cpu_fb::NodeKind;
  for (int affine = 0; affine < 3; ++affine) {
    auto build = [affine] {
      builder::GraphBuilder b("layer_norm");
      Value x = b.input("x", DType::Float, {3, 4, 7});
      std::optional<Value> w, bias;
      if (affine >= 1) w = b.parameter("w", tensor({7}, 30));
      if (affine >= 2) bias = b.parameter("bias", tensor({7}, 31));
      b.output({decomposed_layer_norm(b, x, w, bias, 1e-3)});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {{3, 4, 7}}), 1u) << "affine " << affine;
    EXPECT_EQ(blob_kinds(build()), std::vector<K>{K::LayerNorm}) << "affine " << affine;
  }
}

TEST_F(CpuBackend, ErfGeluPatternIsOneNode) {
  using K = ptec_cpu_fb::NodeKind;
  for (int variant = 0; variant < 2; ++variant) {
    auto build = [variant] {
      builder::GraphBuilder b("gelu");
      Value x = b.input("x", DType::Float, {2, 3, 11});
      Value erf = b.call("aten::erf", {b.call("aten::div.Scalar", {x, 1.4142135})});
      Value gate = b.call("aten::add.Scalar", {erf, 1.0});
      // variant 1: the product in the other order, and the half is not 0.5 (no GELU then).
      Value m = variant == 0 ? b.call("aten::mul.Tensor", {x, gate})
                             : b.call("aten::mul.Tensor", {gate, x});
      b.output({b.call("aten::mul.Scalar", {m, variant == 0 ? 0.5 : 0.25})});
      return b.build();
    };
    EXPECT_EQ(expect_same(build, {{2, 3, 11}}), 1u);
    const std::vector<K> kinds = blob_kinds(build());
    if (variant == 0) {
      EXPECT_EQ(kinds, std::vector<K>{K::Unary});
    } else {
      EXPECT_EQ(kinds.size(), 5u);
    }
  }
}

// Softmax and LayerNorm large enough to run on the thread pool.
TEST_F(CpuBackend, LargeSoftmaxAndLayerNormOnTwoThreads) {
  set_num_threads(2);
  auto build = [] {
    builder::GraphBuilder b("large");
    Value x = b.input("x", DType::Float, {2, 512, 257});
    Value s = b.call("aten::_softmax", {x, -1, false});
    b.output({decomposed_layer_norm(b, b.call("aten::add.Tensor", {s, x}), std::nullopt,
                                    std::nullopt, 1e-5)});
    return b.build();
  };
  EXPECT_EQ(expect_same(build, {{2, 512, 257}}), 1u);
  set_num_threads(0);
}

TEST_F(CpuBackend, NearMissLayerNormIsNotFusedButStillRuns) {
  using K = ptec_cpu_fb::NodeKind;
  // The variance's mean also feeds the output: not a LayerNorm any more.
  auto build = [] {
    builder::GraphBuilder b("near_miss");
    Value x = b.input("x", DType::Float, {2, 5, 9});
    const std::vector<int64_t> last = {-1};
    Value m = b.call("aten::mean.dim", {x, last, true});
    Value d = b.call("aten::sub.Tensor", {x, m});
    Value p = b.call("aten::pow.Tensor_Scalar", {d, 2.0});
    Value v = b.call("aten::mean.dim", {p, last, true});
    Value e = b.call("aten::add.Scalar", {v, 1e-5});
    Value s = b.call("aten::sqrt", {e});
    Value y = b.call("aten::div.Tensor", {d, s});
    b.output({b.call("aten::add.Tensor", {y, v})});
    return b.build();
  };
  EXPECT_EQ(expect_same(build, {{2, 5, 9}}), 1u);
  const std::vector<K> kinds = blob_kinds(build());
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), K::LayerNorm), 0);
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), K::MeanInner), 2);
}

// Softmax over an inner dim, strided copies (slice with step and negative start, select, expand,
// a 4-D permute), scalar ops and the element-wise math kinds, mean of the last dim without
// keepdim, and mm / bmm of computed operands.
TEST_F(CpuBackend, SoftmaxStridedCopiesScalarAndMathOps) {
  auto build = [] {
    using V = std::vector<int64_t>;
    builder::GraphBuilder b("misc");
    Value x = b.input("x", DType::Float, {3, 5, 7});
    Value sm = b.call("aten::_softmax", {x, 1, false});               // [3, 5, 7]
    Value sl = b.call("aten::slice_copy.Tensor", {sm, 2, -6, 7, 2});  // [3, 5, 3]
    Value se = b.call("aten::select_copy.int", {x, 1, -2});           // [3, 7]
    Value ex = b.call("aten::expand_copy", {b.call("aten::view_copy", {se, V{3, 1, 7}}),
                                            V{2, 3, 4, 7}});       // [2, 3, 4, 7]
    Value pe = b.call("aten::permute_copy", {ex, V{3, 1, 0, 2}});  // [7, 3, 2, 4]
    Value a = b.call("aten::exp", {b.call("aten::neg", {pe})});
    Value l = b.call("aten::log", {b.call("aten::add.Scalar", {b.call("aten::abs", {a}), 1.5})});
    Value r = b.call("aten::rsqrt", {b.call("aten::sub.Scalar", {l, -2.0, 3})});
    Value q = b.call("aten::reciprocal", {b.call("aten::mul.Scalar", {r, 3})});
    Value pw = b.call("aten::pow.Tensor_Scalar", {q, 1.5});  // [7, 3, 2, 4]
    Value mm = b.call("aten::mm", {b.call("aten::view_copy", {pw, V{21, 8}}),
                                   b.call("aten::view_copy", {ex, V{8, 21}})});  // [21, 21]
    Value bm = b.call("aten::bmm", {b.call("aten::view_copy", {mm, V{3, 7, 21}}),
                                    b.call("aten::view_copy", {mm, V{3, 21, 7}})});  // [3, 7, 7]
    Value m1 = b.call("aten::mean.dim", {bm, V{-1}, false});                         // [3, 7]
    Value m2 = b.call("aten::mean.dim", {sl, V{2}, false});                          // [3, 5]
    Value c = b.call("aten::cat", {std::vector<Value>{m1, m2}, 1});                  // [3, 12]
    Value out = b.call("aten::div.Scalar", {b.call("aten::sqrt", {c}), 2});
    b.output({b.call("aten::erf", {out})});
    return b.build();
  };
  EXPECT_EQ(expect_same(build, {{3, 5, 7}}), 1u);
}

// Independent claimed branches merge into one delegate (covered above), but not when a path leads
// from one to the other through an op the backend does not run: a = relu(x) reaches
// b2 = tanh(x) + sin(a) through sin, so c = a + tanh(x) must not merge the two groups.
TEST_F(CpuBackend, BranchesMergeOnlyWhenTheResultStaysConvex) {
  auto build = [] {
    builder::GraphBuilder b("branches");
    Value x = b.input("x", DType::Float, {2, 3, 5});
    Value a = b.call("aten::relu", {x});
    Value s = b.call("aten::sin", {a});
    Value b1 = b.call("aten::tanh", {x});
    Value b2 = b.call("aten::add.Tensor", {b1, s});
    Value c = b.call("aten::add.Tensor", {a, b1});
    b.output({b.call("aten::mul.Tensor", {c, b2})});
    return b.build();
  };
  EXPECT_EQ(expect_same(build, {{2, 3, 5}}), 2u);
}

TEST_F(CpuBackend, PartitionerLeavesOtherDtypesAlone) {
  builder::GraphBuilder b("ints");
  Value x = b.input("x", DType::Long, {4});
  Value y = b.call("aten::add.Tensor", {x, x});
  b.output({y});
  ir::ExportedProgram p = b.build();
  program::TransformAndLowerOptions options;
  options.partitioners = program::PartitionerList{std::make_shared<CpuPartitioner>()};
  const auto edge = program::to_edge_transform_and_lower(p, options);
  for (const ir::Node* node : edge.exported_program("forward").graph().nodes()) {
    EXPECT_FALSE(node->is_op("executorch_call_delegate"));
  }
}

TEST_F(CpuBackend, WeightsAreSharedNotCopiedIntoTheBlob) {
  program::TransformAndLowerOptions options;
  options.partitioners = program::PartitionerList{std::make_shared<CpuPartitioner>()};
  const ir::ExportedProgram p = resnet_like(1);
  const ir::TensorData* w2 = p.constant_for_placeholder("p_w2");
  ASSERT_NE(w2, nullptr);
  const auto et = program::to_edge_transform_and_lower(p, options).to_executorch();
  const std::vector<uint8_t> bytes = et.buffer();
  // The weights are stored once (named data), not inside the delegate blob as well.
  size_t hits = 0;
  const auto* needle = static_cast<const uint8_t*>(w2->data->data());
  const size_t size = w2->data->size();
  for (size_t i = 0; i + size <= bytes.size(); ++i) {
    if (std::memcmp(bytes.data() + i, needle, size) == 0) ++hits;
  }
  EXPECT_EQ(hits, 1u);
}

// Two weights of different names with the same bytes (an exporter that did not deduplicate
// them) are two named-data keys over one segment: the bytes are in the file once.
TEST_F(CpuBackend, EqualWeightsUnderTwoNamesAreStoredOnce) {
  std::vector<float> values(48 * 48);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.001f * static_cast<float>(i % 97);
  builder::GraphBuilder b("twins");
  Value x = b.input("x", DType::Float, {2, 48});
  Value w1 =
      b.parameter("w1", ir::TensorData{ir::TensorSpec(DType::Float, std::vector<int64_t>{48, 48}),
                                       ir::Buffer::copy_of(values.data(), values.size() * 4)});
  Value w2 =
      b.parameter("w2", ir::TensorData{ir::TensorSpec(DType::Float, std::vector<int64_t>{48, 48}),
                                       ir::Buffer::copy_of(values.data(), values.size() * 4)});
  b.output({b.call("aten::mm", {b.call("aten::mm", {x, w1}), w2})});
  program::TransformAndLowerOptions options;
  options.partitioners = program::PartitionerList{std::make_shared<CpuPartitioner>()};
  const auto et = program::to_edge_transform_and_lower(b.build(), options).to_executorch();
  const std::vector<uint8_t> bytes = et.buffer();
  size_t hits = 0;
  const auto* needle = reinterpret_cast<const uint8_t*>(values.data());
  const size_t size = values.size() * sizeof(float);
  for (size_t i = 0; i + size <= bytes.size(); ++i) {
    if (std::memcmp(bytes.data() + i, needle, size) == 0) ++hits;
  }
  EXPECT_EQ(hits, 1u);
}

TEST_F(CpuBackend, MalformedBlobIsRefusedAtInit) {
  CpuBackendRuntime backend;
  std::vector<uint8_t> junk(64, 0xAB);
  runtime::FreeableBuffer processed(junk.data(), junk.size(), nullptr);
  std::vector<uint8_t> arena(1 << 16);
  runtime::MemoryAllocator alloc(arena.data(), arena.size());
  runtime::BackendInitContext context(&alloc, nullptr, "forward", nullptr);
  auto handle = backend.init(context, &processed, {});
  EXPECT_FALSE(handle.ok());
  EXPECT_EQ(handle.error(), Error::InvalidProgram);
}

// init with `program`'s blob after `edit` changed its nodes.
template <typename F>
Error init_edited_program(const ir::ExportedProgram& program, F edit, uint32_t version) {
  return cpu_test::init_edited_blob(cpu::CpuBackend().preprocess(program, {}),
                                    [&](ptec_cpu_fb::GraphT& g) {
                                      for (auto& node : g.nodes) edit(*node);
                                      g.version = version;
                                    });
}

// init with resnet_like's blob after `edit` changed its nodes.
template <typename F>
Error init_edited(F edit, uint32_t version = kCpuBlobVersion, int64_t depthwise_stride = 2) {
  return init_edited_program(program::to_edge(resnet_like(1, depthwise_stride)), edit, version);
}

TEST_F(CpuBackend, ConvolutionAlgorithmOfTheBlobIsCheckedAtInit) {
  using ptec_cpu_fb::ConvAlgorithm;
  // The 3x3 stride-1 convolutions compute with either algorithm and any pass size.
  EXPECT_EQ(init_edited([](ptec_cpu_fb::NodeT&) {}), Error::Ok);
  EXPECT_EQ(init_edited([](ptec_cpu_fb::NodeT& n) {
              const bool three_by_three_s1 =
                  n.kind == ptec_cpu_fb::NodeKind::Conv2d && n.ints[0] == 1 && n.ints[6] == 1;
              if (three_by_three_s1) {
                n.algorithm = ConvAlgorithm::Winograd;
                n.block = 48;
              }
            }),
            Error::Ok);
  EXPECT_EQ(init_edited([](ptec_cpu_fb::NodeT& n) {
              const bool three_by_three_s1 =
                  n.kind == ptec_cpu_fb::NodeKind::Conv2d && n.ints[0] == 1 && n.ints[6] == 1;
              if (three_by_three_s1) n.algorithm = ConvAlgorithm::Winograd4x4;
            }),
            Error::Ok);
  // Winograd (either variant) for the depthwise stride-2 convolution, an unknown algorithm or a
  // negative blocking: InvalidProgram.
  for (ConvAlgorithm winograd : {ConvAlgorithm::Winograd, ConvAlgorithm::Winograd4x4}) {
    EXPECT_EQ(init_edited([&](ptec_cpu_fb::NodeT& n) {
                if (n.kind == ptec_cpu_fb::NodeKind::Conv2d) n.algorithm = winograd;
              }),
              Error::InvalidProgram);
  }
  EXPECT_EQ(init_edited([](ptec_cpu_fb::NodeT& n) {
              if (n.kind == ptec_cpu_fb::NodeKind::Conv2d) n.algorithm = ConvAlgorithm(8);
            }),
            Error::InvalidProgram);
  // The depthwise paths: rows, flat or channels for the depthwise stride-2 convolution; flat needs
  // stride 1 or 2; no depthwise path for a dense convolution.
  auto depthwise = [](const ptec_cpu_fb::NodeT& n) {
    return n.kind == ptec_cpu_fb::NodeKind::Conv2d && n.ints[6] > 1;
  };
  EXPECT_EQ(init_edited([&](ptec_cpu_fb::NodeT& n) {
              if (depthwise(n)) n.algorithm = ConvAlgorithm::DepthwiseRows;
            }),
            Error::Ok);
  auto flat = [&](ptec_cpu_fb::NodeT& n) {
    if (depthwise(n)) n.algorithm = ConvAlgorithm::DepthwiseFlat;
  };
  EXPECT_EQ(init_edited(flat), Error::Ok);
  EXPECT_EQ(init_edited([](ptec_cpu_fb::NodeT&) {}, kCpuBlobVersion, 3), Error::Ok);
  EXPECT_EQ(init_edited(flat, kCpuBlobVersion, 3), Error::InvalidProgram);
  EXPECT_EQ(init_edited([&](ptec_cpu_fb::NodeT& n) {
              if (depthwise(n)) n.algorithm = ConvAlgorithm::DepthwiseChannels;
            }),
            Error::Ok);
  // Output channels or output pixels as the GEMM's rows for the dense convolutions, not for the
  // depthwise one.
  for (ConvAlgorithm rows : {ConvAlgorithm::Gemm, ConvAlgorithm::GemmPixels}) {
    EXPECT_EQ(init_edited([&](ptec_cpu_fb::NodeT& n) {
                if (n.kind == ptec_cpu_fb::NodeKind::Conv2d && !depthwise(n)) n.algorithm = rows;
              }),
              Error::Ok);
  }
  EXPECT_EQ(init_edited([&](ptec_cpu_fb::NodeT& n) {
              if (depthwise(n)) n.algorithm = ConvAlgorithm::GemmPixels;
            }),
            Error::InvalidProgram);
  for (ConvAlgorithm path : {ConvAlgorithm::DepthwiseRows, ConvAlgorithm::DepthwiseChannels}) {
    EXPECT_EQ(init_edited([&](ptec_cpu_fb::NodeT& n) {
                if (n.kind == ptec_cpu_fb::NodeKind::Conv2d && !depthwise(n)) n.algorithm = path;
              }),
              Error::InvalidProgram);
  }
  EXPECT_EQ(init_edited([](ptec_cpu_fb::NodeT& n) {
              if (n.kind == ptec_cpu_fb::NodeKind::Conv2d) n.block = -1;
            }),
            Error::InvalidProgram);
}

// Blob version 5 added a Conv2d's fifth input (an input scale): a version-4 blob with one is
// refused, as is a scale of the wrong size.
TEST_F(CpuBackend, ConvolutionInputScaleNeedsVersionFiveAndNTimesCFloats) {
  // resnet_like's first convolution reads x (1 x 3 x 8 x 8); its bias has 8 floats, not 3.
  auto with_scale = [](ptec_cpu_fb::NodeT& n) {
    if (n.kind == ptec_cpu_fb::NodeKind::Conv2d && n.inputs.size() == 4 &&
        n.inputs[2] != 0xFFFFFFFFu) {
      n.inputs.push_back(n.inputs[2]);  // the bias as the scale: 8 floats, not 1 x 3
    }
  };
  EXPECT_EQ(init_edited(with_scale, 4), Error::InvalidProgram);
  EXPECT_EQ(init_edited(with_scale), Error::InvalidProgram);
  EXPECT_EQ(init_edited([](ptec_cpu_fb::NodeT&) {}, 4), Error::Ok);
}

// Operand layouts that would read outside their tensors, or that an older blob version cannot
// hold, are refused at init.
TEST_F(CpuBackend, BatchMatMulOperandLayoutsStayInsideTheirTensors) {
  const ir::ExportedProgram p = encoder_layer(1, 7, 12, 2);
  auto edit_first_bmm = [](int at, int64_t value) {
    return [at, value](ptec_cpu_fb::NodeT& n) {
      if (n.kind == ptec_cpu_fb::NodeKind::BatchMatMul && n.ints.size() == 10 && n.ints[2] == 0 &&
          n.ints[6] == 12) {
        n.ints[static_cast<size_t>(at)] = value;
      }
    };
  };
  EXPECT_EQ(init_edited_program(
                p, [](ptec_cpu_fb::NodeT&) {}, kCpuBlobVersion),
            Error::Ok);
  EXPECT_EQ(init_edited_program(
                p, [](ptec_cpu_fb::NodeT&) {}, 5),
            Error::InvalidProgram);
  // QKV has 252 floats. Q (2 heads of 7 x 6) reads up to offset + 6 + 6 ld + 5 (227; with offset
  // 24 or ld 40, 251), K^T up to offset + 6 + 5 + 6 * 36 (239).
  EXPECT_EQ(init_edited_program(p, edit_first_bmm(2, 24), kCpuBlobVersion), Error::Ok);
  EXPECT_EQ(init_edited_program(p, edit_first_bmm(2, 25), kCpuBlobVersion), Error::InvalidProgram);
  EXPECT_EQ(init_edited_program(p, edit_first_bmm(6, 25), kCpuBlobVersion), Error::InvalidProgram);
  EXPECT_EQ(init_edited_program(p, edit_first_bmm(4, 40), kCpuBlobVersion), Error::Ok);
  EXPECT_EQ(init_edited_program(p, edit_first_bmm(4, 41), kCpuBlobVersion), Error::InvalidProgram);
  EXPECT_EQ(init_edited_program(p, edit_first_bmm(3, -1), kCpuBlobVersion), Error::InvalidProgram);
  EXPECT_EQ(init_edited_program(p, edit_first_bmm(5, 2), kCpuBlobVersion), Error::InvalidProgram);
  EXPECT_EQ(init_edited_program(p, edit_first_bmm(7, int64_t{1} << 62), kCpuBlobVersion),
            Error::InvalidProgram);
}

// A version-5 BatchMatMul ([b transposed?], contiguous operands) still loads.
TEST_F(CpuBackend, BatchMatMulOfVersionFiveStillLoads) {
  builder::GraphBuilder b("bmm");
  Value x = b.input("x", DType::Float, {2, 3, 4});
  Value y = b.input("y", DType::Float, {2, 4, 5});
  b.output({b.call("aten::bmm", {x, y})});
  const ir::ExportedProgram p = b.build();
  auto legacy = [](int64_t trans) {
    return [trans](ptec_cpu_fb::NodeT& n) {
      if (n.kind == ptec_cpu_fb::NodeKind::BatchMatMul) n.ints = {trans};
    };
  };
  EXPECT_EQ(init_edited_program(p, legacy(0), 5), Error::Ok);
  EXPECT_EQ(init_edited_program(p, legacy(1), 5), Error::InvalidProgram);  // y is not [2, 5, 4]
  EXPECT_EQ(init_edited_program(
                p, [](ptec_cpu_fb::NodeT&) {}, kCpuBlobVersion),
            Error::Ok);
}

// A permute that moves only size-1 dims reads its input in order: the backend aliases it (a Copy
// node) instead of copying; one that moves data stays a StridedCopy. Both match the portable
// kernels.
TEST_F(CpuBackend, PermutesOfSizeOneDimsAreAliases) {
  using V = std::vector<int64_t>;
  auto program = [](V sizes) {
    return [sizes] {
      builder::GraphBuilder b("permute");
      Value x = b.input("x", DType::Float, {sizes[0], sizes[1], sizes[2]});
      Value p = b.call("aten::permute_copy", {x, V{1, 0, 2}});
      b.output({b.call("aten::relu", {b.call("aten::mul.Tensor", {p, p})})});
      return b.build();
    };
  };
  for (const auto& [sizes, alias] : {std::pair{V{3, 1, 4}, true}, std::pair{V{3, 2, 4}, false}}) {
    EXPECT_EQ(expect_same(program(sizes), {sizes}), 1u);
    const partition::PreprocessResult r = cpu::CpuBackend().preprocess(program(sizes)(), {});
    const auto* graph = ptec_cpu_fb::GetGraph(r.processed_bytes->data());
    int copies = 0, strided = 0;
    for (const auto* n : *graph->nodes()) {
      copies += n->kind() == ptec_cpu_fb::NodeKind::Copy;
      strided += n->kind() == ptec_cpu_fb::NodeKind::StridedCopy;
    }
    EXPECT_EQ(copies, alias ? 1 : 0) << sizes[1];
    EXPECT_EQ(strided, alias ? 0 : 1) << sizes[1];
  }
}

}  // namespace
}  // namespace ptec::backends::cpu
