// PtecCpuBackend on tensors of rows whose count each run gives (a dynamic sequence, the boxes a
// detector kept): the partitioner claims the row-wise ops on them, preprocess writes their bounds
// and Tensor.dynamic_dim, and the runtime runs each call at its own row count. Compared with the
// portable kernels at several counts, and the blob's checks at init.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/aot/cpu_backend.h"
#include "backends/cpu/aot/cpu_ops.h"
#include "backends/cpu/cpu_delegate_generated.h"
#include "backends/cpu/runtime/cpu_backend_runtime.h"
#include "backends/cpu/test/cpu_test_util.h"
#include "frontends/builder/graph_builder.h"
#include "kernels/optimized/threadpool.h"
#include "program/to_edge.h"

namespace ptec::backends::cpu {
namespace {

using builder::Value;
using cpu_test::tensor;

class CpuBackendRows : public cpu_test::CpuBackendTest {};

// x [1, n, 12] (n in [1, 40]) → squeeze → linear 12→16 + bias → gelu → linear 16→12 (permuted
// weight) → + x → layer norm → * constant row → mean of the last dim, kept → - that → unsqueeze →
// relu: row-wise ops only.
ir::ExportedProgram row_block() {
  builder::GraphBuilder b("row_block");
  ir::SymInt n = b.symbol("n", 1, 40);
  Value x = b.input("x", DType::Float, {1, n, 12});
  Value w1 = b.parameter("w1", tensor({12, 16}, 1));
  Value b1 = b.parameter("b1", tensor({16}, 2));
  Value w2 = b.parameter("w2", tensor({12, 16}, 3));
  Value b2 = b.parameter("b2", tensor({12}, 4));
  Value g = b.parameter("g", tensor({12}, 5));
  Value gamma = b.parameter("gamma", tensor({12}, 6));
  Value beta = b.parameter("beta", tensor({12}, 7));
  Value rows = b.call("aten::squeeze_copy.dims", {x, std::vector<int64_t>{0}});
  Value h = b.call("aten::addmm", {b1, rows, w1});
  Value a = b.call("aten::gelu", {h});
  Value y = b.call("aten::addmm",
                   {b2, a, b.call("aten::permute_copy", {w2, std::vector<int64_t>{1, 0}})});
  Value r = b.call("aten::add.Tensor", {y, rows});
  Value ln =
      b.call_multi("aten::native_layer_norm", {r, std::vector<int64_t>{12}, gamma, beta, 1e-5})[0];
  Value s = b.call("aten::mul.Tensor", {ln, g});
  Value m = b.call("aten::mean.dim", {s, std::vector<int64_t>{-1}, true});
  Value d = b.call("aten::sub.Tensor", {s, m});
  Value out = b.call("aten::relu", {b.call("aten::unsqueeze_copy", {d, 0})});
  b.output({out});
  return b.build();
}

// A linear layer reading the method's input itself, which holds this run's rows only (the
// sanitizer build catches a read of the bound's).
ir::ExportedProgram linear_on_input() {
  builder::GraphBuilder b("linear_on_input");
  ir::SymInt n = b.symbol("n", 0, 64);
  Value x = b.input("x", DType::Float, {n, 24});
  Value w = b.parameter("w", tensor({24, 40}, 1));
  Value bias = b.parameter("bias", tensor({40}, 2));
  b.output({b.call("aten::relu", {b.call("aten::addmm", {bias, x, w})})});
  return b.build();
}

TEST_F(CpuBackendRows, RowWiseOpsOnDynamicRowsRunInOneDelegateAtEveryCount) {
  for (int64_t n : {1, 5, 64}) {
    SCOPED_TRACE(n);
    EXPECT_EQ(expect_same(linear_on_input, {{n, 24}}), 1u);
  }
  for (int64_t n : {1, 7, 40}) {
    SCOPED_TRACE(n);
    EXPECT_EQ(expect_same(row_block, {{1, n, 12}}), 1u);
  }
  set_num_threads(2);
  EXPECT_EQ(expect_same(row_block, {{1, 33, 12}}), 1u);
  set_num_threads(1);
}

TEST_F(CpuBackendRows, BlobCarriesTheBoundsAndTheDynamicDim) {
  const partition::PreprocessResult r = CpuBackend().preprocess(program::to_edge(row_block()), {});
  const auto* graph = ptec_cpu_fb::GetGraph(r.processed_bytes->data());
  EXPECT_EQ(graph->version(), 11u);
  const auto* in = graph->tensors()->Get(graph->inputs()->Get(0));
  EXPECT_EQ(in->dynamic_dim(), 1);
  EXPECT_EQ(std::vector<int64_t>(in->sizes()->begin(), in->sizes()->end()),
            (std::vector<int64_t>{1, 40, 12}));
  size_t dynamic = 0, constants = 0;
  for (const auto* t : *graph->tensors()) {
    if (t->constant() != nullptr && t->constant()->size() > 0) {
      ++constants;
      EXPECT_EQ(t->dynamic_dim(), -1);
    }
    dynamic += t->dynamic_dim() >= 0;
  }
  EXPECT_GE(dynamic, 6u);
  EXPECT_EQ(constants, 7u);
}

// A CNN on a batch of n images (n in [1, 4]): conv + relu, batch norm after it, a conv whose
// output is added back, cat along the channels, max and average pooling, a depthwise conv,
// global average pooling, a linear classifier and softmax: one delegate at every batch size.
ir::ExportedProgram image_block() {
  builder::GraphBuilder b("image_block");
  ir::SymInt n = b.symbol("n", 0, 4);
  Value x = b.input("x", DType::Float, {n, 3, 10, 9});
  Value w1 = b.parameter("w1", tensor({8, 3, 3, 3}, 1));
  Value b1 = b.parameter("b1", tensor({8}, 2));
  Value w2 = b.parameter("w2", tensor({8, 8, 3, 3}, 3));
  Value wd = b.parameter("wd", tensor({16, 1, 3, 3}, 4));
  Value bn_w = b.parameter("bn_w", tensor({8}, 5));
  Value bn_b = b.parameter("bn_b", tensor({8}, 6));
  Value bn_m = b.parameter("bn_m", tensor({8}, 7));
  const std::vector<float> var = {0.5f, 1.0f, 0.25f, 2.0f, 0.75f, 1.5f, 0.3f, 0.9f};
  Value bn_v = b.parameter(
      "bn_v", ir::TensorData{ir::TensorSpec(DType::Float, std::vector<int64_t>{8}),
                             ir::Buffer::copy_of(var.data(), var.size() * sizeof(float))});
  Value fc_w = b.parameter("fc_w", tensor({5, 16}, 9));
  Value fc_b = b.parameter("fc_b", tensor({5}, 10));
  const std::vector<int64_t> one = {1, 1}, zero = {0, 0}, two = {2, 2};
  Value c1 = b.call("aten::relu",
                    {b.call("aten::convolution", {x, w1, b1, one, one, one, false, zero, 1})});
  Value bn = b.call_multi("aten::_native_batch_norm_legit_no_training",
                          {c1, bn_w, bn_b, bn_m, bn_v, 0.1, 1e-5})[0];
  Value c2 = b.call("aten::convolution", {bn, w2, nullptr, one, one, one, false, zero, 1});
  Value r = b.call("aten::relu", {b.call("aten::add.Tensor", {c2, c1})});
  Value cat = b.call("aten::cat", {std::vector<Value>{r, c1}, 1});  // 16 channels
  Value p = b.call_multi("aten::max_pool2d_with_indices",
                         {cat, std::vector<int64_t>{3, 3}, two, one, one, false})[0];
  Value a = b.call("aten::avg_pool2d", {p, std::vector<int64_t>{2, 2}, one, zero, false, true});
  Value d = b.call("aten::convolution", {a, wd, nullptr, one, one, one, false, zero, 16});
  Value m = b.call("aten::mean.dim",
                   {b.call("aten::hardtanh", {d, 0.0, 6.0}), std::vector<int64_t>{-1, -2}, false});
  Value t = b.call("aten::permute_copy", {fc_w, std::vector<int64_t>{1, 0}});
  b.output({b.call("aten::_softmax", {b.call("aten::addmm", {fc_b, m, t}), 1, false})});
  return b.build();
}

TEST_F(CpuBackendRows, ImagesOfADynamicBatchRunInOneDelegateAtEverySize) {
  for (int64_t n : {1, 3, 4}) {
    SCOPED_TRACE(n);
    EXPECT_EQ(expect_same(image_block, {{n, 3, 10, 9}}), 1u);
  }
  set_num_threads(2);
  EXPECT_EQ(expect_same(image_block, {{2, 3, 10, 9}}), 1u);
  set_num_threads(1);
}

// No rows at all (no boxes kept, an empty batch): every node runs on nothing, and the outputs
// are empty.
TEST_F(CpuBackendRows, ZeroRowsGiveEmptyOutputs) {
  const std::vector<std::pair<ir::ExportedProgram (*)(), std::vector<int32_t>>> cases = {
      {linear_on_input, {0, 24}}, {image_block, {0, 3, 10, 9}}};
  for (const auto& [build, sizes] : cases) {
    runtime::OwnedTensor x = runtime::OwnedTensor::from(DType::Float, sizes, std::vector<float>{});
    EXPECT_EQ(count_delegates(build()), 1u);
    EXPECT_TRUE(run(export_pte(build(), true), {&x}).empty());
  }
}

// softmax over the rows (dim 0) is not row-wise: it stays on the portable kernels, between two
// delegates, and the result is still the portable one.
TEST_F(CpuBackendRows, AnOpAcrossTheRowsSplitsTheDelegates) {
  auto build = [] {
    builder::GraphBuilder b("across");
    ir::SymInt n = b.symbol("n", 1, 16);
    Value x = b.input("x", DType::Float, {n, 8});
    Value w = b.parameter("w", tensor({8, 8}, 1));
    Value w2 = b.parameter("w2", tensor({8, 4}, 2));
    Value h = b.call("aten::relu", {b.call("aten::mm", {x, w})});
    Value s = b.call("aten::_softmax", {h, 0, false});
    b.output({b.call("aten::mm", {s, w2})});
    return b.build();
  };
  EXPECT_EQ(expect_same(build, {{5, 8}}), 2u);
  EXPECT_EQ(expect_same(build, {{16, 8}}), 2u);
  const ir::ExportedProgram edge = program::to_edge(build());
  for (const ir::Node* node : edge.graph().nodes()) {
    if (node->is_op("aten::_softmax")) {
      EXPECT_EQ(classify(edge, *node), CpuOpKind::Unsupported);
    }
    if (node->is_op("aten::relu")) {
      EXPECT_EQ(classify(edge, *node), CpuOpKind::Unary);
    }
  }
}

// Two symbols (or a static and a dynamic node) never share a delegate: their row counts differ.
TEST_F(CpuBackendRows, NodesOfOtherRowCountsGetTheirOwnDelegates) {
  auto build = [] {
    builder::GraphBuilder b("two_counts");
    ir::SymInt n = b.symbol("n", 1, 16);
    ir::SymInt m = b.symbol("m", 1, 16);
    Value x = b.input("x", DType::Float, {n, 8});
    Value y = b.input("y", DType::Float, {m, 8});
    Value z = b.input("z", DType::Float, {3, 8});
    Value w = b.parameter("w", tensor({8, 8}, 1));
    Value a = b.call("aten::relu", {b.call("aten::mm", {x, w})});
    Value c = b.call("aten::sigmoid", {y});
    Value e = b.call("aten::tanh", {z});
    b.output({a, c, e});
    return b.build();
  };
  const ir::ExportedProgram edge = program::to_edge(build());
  EXPECT_EQ(count_delegates(build()), 3u);
  for (const ir::Node* node : edge.graph().nodes()) {
    if (node->is_op("aten::relu")) {
      EXPECT_EQ(rows_symbol(edge, *node), "n");
    }
    if (node->is_op("aten::sigmoid")) {
      EXPECT_EQ(rows_symbol(edge, *node), "m");
    }
    if (node->is_op("aten::tanh")) {
      EXPECT_EQ(rows_symbol(edge, *node), "");
    }
  }
}

// row_dim: one symbolic dim, not the last.
TEST_F(CpuBackendRows, RowDimIsTheOnlySymbolicDimBeforeTheLast) {
  auto n = std::make_shared<ir::Symbol>(ir::Symbol{"n", 1, 8});
  auto m = std::make_shared<ir::Symbol>(ir::Symbol{"m", 1, 8});
  EXPECT_EQ(row_dim(ir::TensorSpec(DType::Float, {ir::SymInt(n), ir::SymInt(4)})), 0u);
  EXPECT_EQ(row_dim(ir::TensorSpec(DType::Float, {ir::SymInt(2), ir::SymInt(n), ir::SymInt(4)})),
            1u);
  EXPECT_FALSE(row_dim(ir::TensorSpec(DType::Float, {ir::SymInt(4), ir::SymInt(n)})));
  EXPECT_FALSE(
      row_dim(ir::TensorSpec(DType::Float, {ir::SymInt(n), ir::SymInt(m), ir::SymInt(4)})));
  EXPECT_FALSE(row_dim(ir::TensorSpec(DType::Float, {ir::SymInt(3), ir::SymInt(4)})));
}

// init with the blob of `build`'s program (row_block by default) after `edit` changed it.
template <typename F>
Error init_edited(F edit, ir::ExportedProgram (*build)() = row_block) {
  return cpu_test::init_edited_blob(CpuBackend().preprocess(program::to_edge(build()), {}), edit);
}

TEST_F(CpuBackendRows, MalformedDynamicDimsAreRefusedAtInit) {
  using K = ptec_cpu_fb::NodeKind;
  EXPECT_EQ(init_edited([](ptec_cpu_fb::GraphT&) {}), Error::Ok);
  // Version 10 knows no dynamic dims.
  EXPECT_EQ(init_edited([](ptec_cpu_fb::GraphT& g) { g.version = 10; }), Error::InvalidProgram);
  // A dim past the rank, or a constant with one.
  EXPECT_EQ(init_edited([](ptec_cpu_fb::GraphT& g) { g.tensors[g.inputs[0]]->dynamic_dim = 3; }),
            Error::InvalidProgram);
  EXPECT_EQ(init_edited([](ptec_cpu_fb::GraphT& g) {
              for (auto& t : g.tensors) {
                if (!t->constant.empty()) t->dynamic_dim = 0;
              }
            }),
            Error::InvalidProgram);
  // No input gives the count.
  EXPECT_EQ(init_edited([](ptec_cpu_fb::GraphT& g) { g.tensors[g.inputs[0]]->dynamic_dim = -1; }),
            Error::InvalidProgram);
  // A node that is not row-wise on dynamic rows.
  EXPECT_EQ(init_edited([](ptec_cpu_fb::GraphT& g) {
              for (auto& n : g.nodes) {
                if (n->kind == K::LayerNorm) n->kind = K::BatchMatMul;
              }
            }),
            Error::InvalidProgram);
  // A static output of a node on dynamic rows.
  EXPECT_EQ(init_edited([](ptec_cpu_fb::GraphT& g) {
              g.tensors[g.nodes.back()->outputs[0]]->dynamic_dim = -1;
            }),
            Error::InvalidProgram);
  // Images: the batch must be the dynamic dim, and a cat must not run along it.
  EXPECT_EQ(init_edited([](ptec_cpu_fb::GraphT&) {}, image_block), Error::Ok);
  EXPECT_EQ(init_edited(
                [](ptec_cpu_fb::GraphT& g) {
                  for (auto& t : g.tensors) {
                    if (t->dynamic_dim == 0 && t->sizes.size() == 4) t->dynamic_dim = 1;
                  }
                },
                image_block),
            Error::InvalidProgram);
  EXPECT_EQ(init_edited(
                [](ptec_cpu_fb::GraphT& g) {
                  for (auto& n : g.nodes) {
                    if (n->kind == K::Cat) n->ints = {0};
                  }
                },
                image_block),
            Error::InvalidProgram);
  // A softmax along the rows.
  EXPECT_EQ(init_edited(
                [](ptec_cpu_fb::GraphT& g) {
                  for (auto& n : g.nodes) {
                    if (n->kind == K::Softmax) n->ints = {0};
                  }
                },
                image_block),
            Error::InvalidProgram);
}

}  // namespace
}  // namespace ptec::backends::cpu
