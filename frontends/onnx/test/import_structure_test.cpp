// Structure of imported graphs: which ATen ops, with which arguments, and the program's
// signature, state_dict and provenance.

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/test/test_util.h"

namespace ptec::onnx_import::testing {
namespace {

using ::testing::ElementsAre;
using V = std::vector<int64_t>;

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

ModelBuilder conv_model(const std::string& auto_pad, V pads = {}, V strides = {2, 2}) {
  ModelBuilder b;
  b.input("x", {1, 3, 8, 8}).output("y");
  b.init_float("w", {4, 3, 3, 3}, iota(108));
  b.init_float("bias", {4}, iota(4));
  auto& n = b.node("Conv", {"x", "w", "bias"}, {"y"}, "conv1");
  if (!auto_pad.empty()) set_attr(n, "auto_pad", auto_pad);
  if (!pads.empty()) set_attr(n, "pads", pads);
  set_attr(n, "strides", strides);
  return b;
}

// Attention-style Einsum contracts with one bmm per product: no tensor of the broadcast product
// (b, h, i, j, d) is ever formed.
TEST(OnnxImportStructure, EinsumContractsWithBatchedMatmul) {
  ModelBuilder b(13);
  b.input("q", {2, 3, 5, 4}).input("k", {2, 3, 6, 4}).output("y");
  set_attr(b.node("Einsum", {"q", "k"}, {"y"}, "scores"), "equation", "bhid,bhjd->bhij");
  const ir::ExportedProgram p = import(b);
  const std::vector<std::string> ops = calls(p);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "aten::bmm"), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "aten::mul.Tensor"), 0);
  for (const ir::Node* node : p.graph().nodes()) {
    for (const ir::TensorSpec& spec : node->meta().val) EXPECT_LE(spec.shape.size(), 4u);
  }
  EXPECT_EQ(out_sizes(p), (V{2, 3, 5, 6}));
}

// A subscript repeated within one operand takes the diagonal (index_select of the flattened pair
// of dims); summed when the output does not have it.
TEST(OnnxImportStructure, EinsumDiagonal) {
  for (const auto& [equation, sizes] :
       std::vector<std::pair<std::string, V>>{{"bii->bi", V{2, 4}}, {"bii->b", V{2}}}) {
    ModelBuilder b(13);
    b.input("x", {2, 4, 4}).output("y");
    set_attr(b.node("Einsum", {"x"}, {"y"}, "diag"), "equation", equation);
    const ir::ExportedProgram p = import(b);
    EXPECT_NE(first_call(p, "aten::index_select"), nullptr) << equation;
    EXPECT_EQ(out_sizes(p), sizes) << equation;
  }
}

// An If whose condition is known at export (here a comparison of a static dim with 4) imports
// as its taken branch; the branch reads outer values and its own initializers.
ModelBuilder if_model(bool dynamic_condition) {
  ModelBuilder b;
  b.input("x", {2, 4}).output("y");
  if (dynamic_condition) {
    b.input("c", {});
    b.model()
        .mutable_graph()
        ->mutable_input(1)
        ->mutable_type()
        ->mutable_tensor_type()
        ->set_elem_type(onnx::TensorProto::BOOL);
  } else {
    b.init_int64("four", {}, {4});
    b.init_int64("one", {1}, {1});
    b.node("Shape", {"x"}, {"shape"}, "shape");
    b.node("Gather", {"shape", "one"}, {"dim"}, "dim");
    b.node("Equal", {"dim", "four"}, {"c"}, "is_four");
  }
  auto& n = b.node("If", {"c"}, {"y"}, "if");
  auto branch = [](const std::string& op, bool with_initializer) {
    onnx::GraphProto g;
    g.set_name(op);
    auto* node = g.add_node();
    node->set_op_type(op);
    node->add_input("x");
    if (with_initializer) {
      auto* t = g.add_initializer();
      t->set_name("half");
      t->set_data_type(onnx::TensorProto::FLOAT);
      t->add_float_data(0.5f);
      node->add_input("half");
    }
    node->add_output(op + "_out");
    auto* out = g.add_output();
    out->set_name(op + "_out");
    out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    return g;
  };
  auto* then_branch = n.add_attribute();
  then_branch->set_name("then_branch");
  then_branch->set_type(onnx::AttributeProto::GRAPH);
  *then_branch->mutable_g() = branch("Mul", true);
  auto* else_branch = n.add_attribute();
  else_branch->set_name("else_branch");
  else_branch->set_type(onnx::AttributeProto::GRAPH);
  *else_branch->mutable_g() = branch("Relu", false);
  return b;
}

TEST(OnnxImportStructure, IfWithAConditionKnownAtExportIsItsTakenBranch) {
  ModelBuilder b = if_model(false);
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::mul.Scalar"));  // dim 1 is 4: then_branch
  EXPECT_EQ(first_call(p, "aten::mul.Scalar")->meta().source, "if/Mul_0");
  EXPECT_EQ(out_sizes(p), (V{2, 4}));
  // A run-time condition imports both branches and picks by it (if_test.cpp runs them).
  ModelBuilder c = if_model(true);
  const ir::ExportedProgram both = import(c);
  EXPECT_THAT(calls(both),
              ::testing::IsSupersetOf({"aten::mul.Scalar", "aten::relu",
                                       "aten::_local_scalar_dense", "aten::where.self"}));
  EXPECT_EQ(out_sizes(both), (V{2, 4}));
}

TEST(OnnxImportStructure, ConvSameUpperPadsTheExcessAtTheEnd) {
  ModelBuilder b = conv_model("SAME_UPPER");
  const ir::ExportedProgram p = import(b);
  // in 8, stride 2, kernel 3: out 4, total padding 1 → begin 0, end 1 (on both dims).
  EXPECT_THAT(calls(p), ElementsAre("aten::constant_pad_nd", "aten::convolution"));
  EXPECT_EQ(first_call(p, "aten::constant_pad_nd")->arg("pad").to_int_vector(), (V{0, 1, 0, 1}));
  const ir::Node* conv = first_call(p, "aten::convolution");
  EXPECT_EQ(conv->arg("padding").to_int_vector(), (V{0, 0}));
  EXPECT_EQ(conv->arg("stride").to_int_vector(), (V{2, 2}));
  EXPECT_EQ(conv->arg("groups").as_int(), 1);
  EXPECT_EQ(out_sizes(p), (V{1, 4, 4, 4}));
  EXPECT_EQ(conv->meta().source, "conv1");
}

TEST(OnnxImportStructure, ConvSameLowerPadsTheExcessAtTheBegin) {
  ModelBuilder b = conv_model("SAME_LOWER");
  const ir::ExportedProgram p = import(b);
  EXPECT_EQ(first_call(p, "aten::constant_pad_nd")->arg("pad").to_int_vector(), (V{1, 0, 1, 0}));
  EXPECT_EQ(out_sizes(p), (V{1, 4, 4, 4}));
}

TEST(OnnxImportStructure, ConvSymmetricPadsGoIntoTheConvolution) {
  ModelBuilder b = conv_model("", {1, 1, 1, 1}, {1, 1});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::convolution"));
  EXPECT_EQ(first_call(p, "aten::convolution")->arg("padding").to_int_vector(), (V{1, 1}));
  EXPECT_EQ(out_sizes(p), (V{1, 4, 8, 8}));
}

TEST(OnnxImportStructure, ConvValidAndAsymmetricExplicitPads) {
  ModelBuilder valid = conv_model("VALID", {}, {1, 1});
  EXPECT_EQ(out_sizes(import(valid)), (V{1, 4, 6, 6}));
  ModelBuilder asym = conv_model("", {0, 1, 2, 1}, {1, 1});
  const ir::ExportedProgram p = import(asym);
  // pads [top, left, bottom, right] = [0, 1, 2, 1]: conv takes min per dim (0, 1), the pad the
  // rest.
  EXPECT_EQ(first_call(p, "aten::constant_pad_nd")->arg("pad").to_int_vector(), (V{0, 0, 0, 2}));
  EXPECT_EQ(first_call(p, "aten::convolution")->arg("padding").to_int_vector(), (V{0, 1}));
  EXPECT_EQ(out_sizes(p), (V{1, 4, 8, 8}));
}

TEST(OnnxImportStructure, Conv1dAndGroups) {
  ModelBuilder b;
  b.input("x", {1, 4, 10}).output("y");
  b.init_float("w", {4, 1, 3}, iota(12));
  auto& n = b.node("Conv", {"x", "w"}, {"y"});
  set_attr(n, "group", int64_t{4});
  set_attr(n, "dilations", V{2});
  const ir::ExportedProgram p = import(b);
  const ir::Node* conv = first_call(p, "aten::convolution");
  EXPECT_EQ(conv->arg("groups").as_int(), 4);
  EXPECT_EQ(conv->arg("dilation").to_int_vector(), (V{2}));
  EXPECT_TRUE(conv->arg("bias").is_none());
  EXPECT_EQ(out_sizes(p), (V{1, 4, 6}));
  EXPECT_EQ(conv->meta().source, "Conv_0");  // unnamed node: <op_type>_<index>
}

TEST(OnnxImportStructure, MaxPoolCeilModeAndGetitem) {
  ModelBuilder b(11);
  b.input("x", {1, 2, 5, 5}).output("y");
  auto& n = b.node("MaxPool", {"x"}, {"y"}, "pool");
  set_attr(n, "kernel_shape", V{2, 2});
  set_attr(n, "strides", V{2, 2});
  set_attr(n, "ceil_mode", int64_t{1});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::max_pool2d_with_indices", "getitem"));
  const ir::Node* pool = first_call(p, "aten::max_pool2d_with_indices");
  EXPECT_TRUE(pool->arg("ceil_mode").as_bool());
  EXPECT_EQ(pool->arg("kernel_size").to_int_vector(), (V{2, 2}));
  EXPECT_EQ(out_sizes(p), (V{1, 2, 3, 3}));
}

TEST(OnnxImportStructure, MaxPool1dRunsAsA2dPool) {
  ModelBuilder b(13);
  b.input("x", {1, 2, 9}).output("y");
  auto& n = b.node("MaxPool", {"x"}, {"y"});
  set_attr(n, "kernel_shape", V{3});
  set_attr(n, "strides", V{2});
  set_attr(n, "pads", V{1, 1});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::view_copy", "aten::max_pool2d_with_indices", "getitem",
                                    "aten::view_copy"));
  EXPECT_EQ(first_call(p, "aten::max_pool2d_with_indices")->arg("padding").to_int_vector(),
            (V{0, 1}));
  EXPECT_EQ(out_sizes(p), (V{1, 2, 5}));
}

TEST(OnnxImportStructure, AveragePoolArgumentsAndGlobalPools) {
  ModelBuilder b(13);
  b.input("x", {1, 2, 6, 6}).output("y").output("g").output("m");
  auto& n = b.node("AveragePool", {"x"}, {"y"});
  set_attr(n, "kernel_shape", V{3, 3});
  set_attr(n, "pads", V{1, 1, 1, 1});
  set_attr(n, "count_include_pad", int64_t{1});
  b.node("GlobalAveragePool", {"x"}, {"g"});
  b.node("GlobalMaxPool", {"x"}, {"m"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::avg_pool2d", "aten::mean.dim", "aten::amax"));
  const ir::Node* pool = first_call(p, "aten::avg_pool2d");
  EXPECT_TRUE(pool->arg("count_include_pad").as_bool());
  EXPECT_EQ(pool->arg("padding").to_int_vector(), (V{1, 1}));
  EXPECT_EQ(pool->arg("stride").to_int_vector(), (V{1, 1}));
  EXPECT_EQ(first_call(p, "aten::mean.dim")->arg("dim").to_int_vector(), (V{2, 3}));
  EXPECT_TRUE(first_call(p, "aten::mean.dim")->arg("keepdim").as_bool());
  EXPECT_EQ(out_sizes(p, 0), (V{1, 2, 6, 6}));
  EXPECT_EQ(out_sizes(p, 1), (V{1, 2, 1, 1}));
  EXPECT_EQ(out_sizes(p, 2), (V{1, 2, 1, 1}));
}

TEST(OnnxImportStructure, SignatureOrderAndInitializerPayloadIsNotCopied) {
  ModelBuilder b = conv_model("", {1, 1, 1, 1}, {1, 1});
  const onnx::TensorProto& w = b.graph().initializer(0);
  const void* protobuf_bytes = w.raw_data().data();
  const ir::ExportedProgram p = import(b);
  // The Buffer owns the very heap block the protobuf string held: moved, not copied.
  ASSERT_EQ(p.state_dict().count("w"), 1u);
  EXPECT_EQ(static_cast<const void*>(p.state_dict().at("w").data->data()), protobuf_bytes);
  EXPECT_EQ(p.state_dict().at("w").spec.to_string(), "f32[4, 3, 3, 3]");
  const auto& inputs = p.signature().inputs;
  ASSERT_EQ(inputs.size(), 3u);
  EXPECT_EQ(inputs[0].kind, ir::InputKind::Parameter);
  EXPECT_EQ(inputs[0].target, "w");
  EXPECT_EQ(inputs[1].kind, ir::InputKind::Parameter);
  EXPECT_EQ(inputs[1].target, "bias");
  EXPECT_EQ(inputs[2].kind, ir::InputKind::UserInput);
  EXPECT_EQ(inputs[2].name, "x");
  // Placeholders are in signature order.
  const std::vector<ir::Node*> ph = p.graph().placeholders();
  ASSERT_EQ(ph.size(), 3u);
  for (size_t i = 0; i < ph.size(); ++i) EXPECT_EQ(ph[i]->name(), inputs[i].name);
  ASSERT_EQ(p.signature().outputs.size(), 1u);
  EXPECT_EQ(p.signature().outputs[0].kind, ir::OutputKind::UserOutput);
  EXPECT_EQ(p.stage(), ir::Stage::Aten);
  ASSERT_FALSE(p.provenance().empty());
  EXPECT_EQ(p.provenance()[0].stage, "import");
  EXPECT_EQ(p.provenance()[0].detail,
            "onnx: test.onnx (opset 13, ir_version 8, producer ptec-test)");
}

TEST(OnnxImportStructure, SymbolicDimsAreSpecializedAndRecorded) {
  ModelBuilder b;
  b.input("input.1", {std::string("batch"), 3}).output("y");
  b.node("Relu", {"input.1"}, {"y"});
  const ir::ExportedProgram p = import(b);
  const ir::Node* x = p.graph().placeholders().at(0);
  EXPECT_EQ(x->name(), "input_1");  // sanitized; the ONNX name stays in meta.source
  EXPECT_EQ(x->meta().source, "input.1");
  EXPECT_EQ(x->spec().upper_bound_sizes(), (V{1, 3}));
  EXPECT_EQ(x->meta().extra.at("onnx_shape"), "[batch, 3]");
  ASSERT_EQ(p.provenance().size(), 2u);
  EXPECT_EQ(p.provenance()[1].stage, "specialize");
  EXPECT_EQ(p.provenance()[1].detail,
            "input 'input.1' dim 0 ('batch') = 1 (default for a symbolic dim)");

  ModelBuilder b2;
  b2.input("input.1", {std::string("batch"), 3}).output("y");
  b2.node("Relu", {"input.1"}, {"y"});
  OnnxImportOptions options;
  options.input_shapes["input.1"] = {4, 3};
  const ir::ExportedProgram p2 = import(b2, options);
  EXPECT_EQ(out_sizes(p2), (V{4, 3}));
}

TEST(OnnxImportStructure, GemmWithTransposedInitializerGetsOneNewWeight) {
  ModelBuilder b;
  b.input("x", {2, 4}).output("y").output("z");
  b.init_float("fc.weight", {3, 4}, iota(12));
  b.init_float("fc.bias", {3}, iota(3));
  auto& g = b.node("Gemm", {"x", "fc.weight", "fc.bias"}, {"y"}, "fc");
  set_attr(g, "transB", int64_t{1});
  set_attr(g, "alpha", 0.5f);
  auto& g2 = b.node("Gemm", {"x", "fc.weight"}, {"z"}, "fc2");
  set_attr(g2, "transB", int64_t{1});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::addmm", "aten::mm"));
  const ir::Node* addmm = first_call(p, "aten::addmm");
  EXPECT_DOUBLE_EQ(addmm->arg("alpha").to_double(), 0.5);
  EXPECT_DOUBLE_EQ(addmm->arg("beta").to_double(), 1.0);
  // One transposed copy, shared by both Gemms; the original is not materialized.
  EXPECT_EQ(p.state_dict().count("fc.weight"), 0u);
  ASSERT_EQ(p.state_dict().count("fc.weight.T"), 1u);
  const ir::TensorData& wt = p.state_dict().at("fc.weight.T");
  EXPECT_EQ(wt.spec.to_string(), "f32[4, 3]");
  const float* f = reinterpret_cast<const float*>(wt.data->data());
  EXPECT_EQ(f[1], 4.0f);  // W^T[0][1] = W[1][0]
  EXPECT_EQ(addmm->arg("mat2").as_node(), first_call(p, "aten::mm")->arg("mat2").as_node());
  EXPECT_EQ(out_sizes(p), (V{2, 3}));
}

TEST(OnnxImportStructure, GemmTransAOfAUserInputUsesPermute) {
  ModelBuilder b;
  b.input("a", {4, 2}).input("bm", {4, 3}).output("y");
  auto& g = b.node("Gemm", {"a", "bm"}, {"y"});
  set_attr(g, "transA", int64_t{1});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::permute_copy", "aten::mm"));
  EXPECT_EQ(out_sizes(p), (V{2, 3}));
}

TEST(OnnxImportStructure, MatMulFlattensOrBatches) {
  ModelBuilder b;
  b.input("a", {2, 3, 4, 5}).input("c", {2, 1, 4, 5}).input("d", {3, 5, 6}).output("y").output("z");
  b.init_float("w", {5, 6}, iota(30));
  b.node("MatMul", {"a", "w"}, {"y"});
  b.node("MatMul", {"c", "d"}, {"z"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::view_copy", "aten::mm", "aten::view_copy",
                                    "aten::expand_copy", "aten::view_copy", "aten::expand_copy",
                                    "aten::view_copy", "aten::bmm", "aten::view_copy"));
  EXPECT_EQ(out_sizes(p, 0), (V{2, 3, 4, 6}));
  EXPECT_EQ(out_sizes(p, 1), (V{2, 3, 4, 6}));
}

TEST(OnnxImportStructure, SoftmaxBeforeOpset13FlattensTo2d) {
  ModelBuilder old(11);
  old.input("x", {2, 3, 4}).output("y");
  old.node("Softmax", {"x"}, {"y"});  // axis 1: softmax over 3*4 = 12 values per row
  const ir::ExportedProgram p = import(old);
  EXPECT_THAT(calls(p), ElementsAre("aten::view_copy", "aten::_softmax", "aten::view_copy"));
  EXPECT_EQ(first_call(p, "aten::view_copy")->arg("size").to_int_vector(), (V{2, 12}));
  EXPECT_EQ(first_call(p, "aten::_softmax")->arg("dim").as_int(), 1);

  ModelBuilder cur(13);
  cur.input("x", {2, 3, 4}).output("y");
  cur.node("LogSoftmax", {"x"}, {"y"});
  const ir::ExportedProgram p2 = import(cur);
  EXPECT_THAT(calls(p2), ElementsAre("aten::_log_softmax"));
  EXPECT_EQ(first_call(p2, "aten::_log_softmax")->arg("dim").as_int(), 2);
}

TEST(OnnxImportStructure, ActivationsDecomposeIntoCoreOps) {
  ModelBuilder b(14);
  b.input("x", {2, 3}).output("hs").output("hsig").output("clip");
  b.node("HardSwish", {"x"}, {"hs"});
  auto& hsig = b.node("HardSigmoid", {"x"}, {"hsig"});
  set_attr(hsig, "alpha", 0.25f);
  b.init_float("lo", {}, {0.0f});
  b.init_float("hi", {}, {6.0f});
  b.node("Clip", {"x", "lo", "hi"}, {"clip"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::add.Scalar", "aten::hardtanh", "aten::mul.Tensor",
                                    "aten::div.Scalar", "aten::mul.Scalar", "aten::add.Scalar",
                                    "aten::clamp", "aten::clamp"));
  const ir::Node* clip = p.graph().outputs().at(2);
  EXPECT_DOUBLE_EQ(clip->arg("min").to_double(), 0.0);
  EXPECT_DOUBLE_EQ(clip->arg("max").to_double(), 6.0);
  EXPECT_TRUE(p.state_dict().empty());  // bounds became Scalars, not parameters
}

TEST(OnnxImportStructure, ClipBeforeOpset11UsesAttributes) {
  ModelBuilder b(9);
  b.input("x", {2, 3}).output("y");
  auto& n = b.node("Clip", {"x"}, {"y"});
  set_attr(n, "min", -1.0f);
  const ir::ExportedProgram p = import(b);
  const ir::Node* clip = first_call(p, "aten::clamp");
  EXPECT_DOUBLE_EQ(clip->arg("min").to_double(), -1.0);
  EXPECT_TRUE(clip->arg("max").is_none());
}

TEST(OnnxImportStructure, BinaryOpsUseScalarOverloadsAndTruncatingIntDivision) {
  ModelBuilder b;
  b.input("x", {2, 3})
      .input("i", {2, 3}, onnx::TensorProto::INT64)
      .input("j", {3}, onnx::TensorProto::INT64);
  b.output("a")
      .output("s")
      .output("d", onnx::TensorProto::INT64)
      .output("e", onnx::TensorProto::INT64);
  b.init_float("two", {}, {2.0f});
  b.node("Add", {"x", "two"}, {"a"});
  b.node("Sub", {"two", "x"}, {"s"});
  b.node("Div", {"i", "j"}, {"d"});
  b.init_int64("k", {1}, {3});
  b.node("Div", {"i", "k"}, {"e"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::add.Scalar", "aten::rsub.Scalar",
                                    "aten::div.Tensor_mode", "aten::div.Scalar_mode"));
  EXPECT_EQ(first_call(p, "aten::div.Tensor_mode")->arg("rounding_mode").as_string(), "trunc");
  EXPECT_EQ(first_call(p, "aten::div.Scalar_mode")->arg("other").as_int(), 3);
  EXPECT_EQ(out_sizes(p, 2), (V{2, 3}));
}

TEST(OnnxImportStructure, BatchNormIsInferenceBatchNormPlusGetitem) {
  ModelBuilder b;
  b.input("x", {1, 2, 4, 4}).output("y");
  for (const char* n : {"s", "bb", "m", "v"}) b.init_float(n, {2}, {1.0f, 2.0f});
  auto& n = b.node("BatchNormalization", {"x", "s", "bb", "m", "v"}, {"y"}, "bn");
  set_attr(n, "epsilon", 1e-3f);
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::_native_batch_norm_legit_no_training", "getitem"));
  const ir::Node* bn = first_call(p, "aten::_native_batch_norm_legit_no_training");
  EXPECT_NEAR(bn->arg("eps").to_double(), 1e-3, 1e-9);
  EXPECT_NEAR(bn->arg("momentum").to_double(), 0.1, 1e-6);
  EXPECT_EQ(p.state_dict().size(), 4u);
}

TEST(OnnxImportStructure, BitShiftIsABitwiseShiftOfTheUnsignedType) {
  ModelBuilder b(11);
  b.input("x", {2, 3}, onnx::TensorProto::UINT32)
      .input("n", {3}, onnx::TensorProto::UINT32)
      .output("l", onnx::TensorProto::UINT32)
      .output("r", onnx::TensorProto::UINT32);
  set_attr(b.node("BitShift", {"x", "n"}, {"l"}), "direction", std::string("LEFT"));
  set_attr(b.node("BitShift", {"x", "n"}, {"r"}), "direction", std::string("RIGHT"));
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p),
              ElementsAre("aten::bitwise_left_shift.Tensor", "aten::bitwise_right_shift.Tensor"));
  EXPECT_EQ(p.graph().outputs().at(1)->spec().dtype, DType::UInt32);
  EXPECT_EQ(out_sizes(p, 1), (V{2, 3}));

  ModelBuilder bad(11);
  bad.input("x", {2}, onnx::TensorProto::UINT8).input("n", {2}, onnx::TensorProto::UINT8);
  bad.output("y", onnx::TensorProto::UINT8);
  set_attr(bad.node("BitShift", {"x", "n"}, {"y"}, "bs"), "direction", std::string("UP"));
  try {
    import(bad);
    ADD_FAILURE() << "no error";
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("node 'bs' (BitShift, opset 11): direction must be "
                                               "\"LEFT\" or \"RIGHT\", got \"UP\""));
  }
}

TEST(OnnxImportStructure, SplitSliceConcatTransposeFlatten) {
  ModelBuilder b;
  b.input("x", {2, 6, 4}).output("a").output("b").output("c").output("t").output("f");
  b.init_int64("split", {2}, {2, 4});
  auto& s = b.node("Split", {"x", "split"}, {"a", "b"});
  set_attr(s, "axis", int64_t{1});
  b.init_int64("starts", {2}, {1, -1});
  b.init_int64("ends", {2}, {INT64_MAX, INT64_MIN});
  b.init_int64("axes", {2}, {1, 2});
  b.init_int64("steps", {2}, {2, -2});
  b.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"c"});
  auto& t = b.node("Transpose", {"x"}, {"t"});
  set_attr(t, "perm", V{0, 2, 1});
  b.node("Flatten", {"x"}, {"f"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p),
              ElementsAre("aten::split_with_sizes_copy", "getitem", "getitem",
                          "aten::slice_copy.Tensor", "aten::flip", "aten::slice_copy.Tensor",
                          "aten::permute_copy", "aten::view_copy"));
  EXPECT_EQ(out_sizes(p, 0), (V{2, 2, 4}));
  EXPECT_EQ(out_sizes(p, 1), (V{2, 4, 4}));
  EXPECT_EQ(out_sizes(p, 2), (V{2, 3, 2}));  // dim 1: 1,3,5; dim 2: 3,1
  EXPECT_EQ(out_sizes(p, 3), (V{2, 4, 6}));
  EXPECT_EQ(out_sizes(p, 4), (V{2, 24}));
  EXPECT_TRUE(p.state_dict().empty());  // split sizes and slice bounds are arguments
}

TEST(OnnxImportStructure, GatherWithConstantIndicesAndReduceMean) {
  ModelBuilder b;
  b.input("x", {3, 4}).output("row").output("rows").output("mean");
  b.init_int64("one", {}, {-1});
  b.init_int64("idx", {2}, {0, 2});
  b.node("Gather", {"x", "one"}, {"row"});
  b.node("Gather", {"x", "idx"}, {"rows"});
  auto& r = b.node("ReduceMean", {"x"}, {"mean"});
  set_attr(r, "axes", V{-1});
  set_attr(r, "keepdims", int64_t{0});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p),
              ElementsAre("aten::select_copy.int", "aten::index_select", "aten::mean.dim"));
  EXPECT_EQ(first_call(p, "aten::select_copy.int")->arg("index").as_int(), 2);
  EXPECT_EQ(first_call(p, "aten::mean.dim")->arg("dim").to_int_vector(), (V{1}));
  EXPECT_EQ(out_sizes(p, 0), (V{4}));
  EXPECT_EQ(out_sizes(p, 1), (V{2, 4}));
  EXPECT_EQ(out_sizes(p, 2), (V{3}));
}

TEST(OnnxImportStructure, PadModesAndDropoutAndCast) {
  ModelBuilder b;
  b.input("x", {1, 2, 4, 4})
      .output("c")
      .output("r")
      .output("d")
      .output("k", onnx::TensorProto::INT64);
  b.init_int64("pads", {8}, {0, 0, 1, 2, 0, 0, 3, 3});
  auto& pc = b.node("Pad", {"x", "pads"}, {"c"});
  set_attr(pc, "mode", std::string("constant"));
  auto& pr = b.node("Pad", {"x", "pads"}, {"r"});
  set_attr(pr, "mode", std::string("reflect"));
  b.node("Dropout", {"x"}, {"d"});
  auto& cast = b.node("Cast", {"x"}, {"k"});
  set_attr(cast, "to", int64_t{onnx::TensorProto::INT64});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p),
              ElementsAre("aten::constant_pad_nd", "aten::reflection_pad2d", "aten::_to_copy"));
  EXPECT_EQ(first_call(p, "aten::constant_pad_nd")->arg("pad").to_int_vector(), (V{2, 3, 1, 3}));
  EXPECT_EQ(out_sizes(p, 0), (V{1, 2, 8, 9}));
  EXPECT_EQ(out_sizes(p, 1), (V{1, 2, 8, 9}));
  EXPECT_EQ(p.graph().outputs().at(2)->name(), "x");  // Dropout is the identity
  EXPECT_EQ(p.graph().outputs().at(3)->spec().dtype, DType::Long);
}

TEST(OnnxImportStructure, TrainingDropoutWithRatioZeroIsTheIdentity) {
  // torch.onnx writes dropouts with p = 0 and training=True this way (torchvision's Swin).
  ModelBuilder b;
  b.input("x", {2, 3}).output("y").output("mask", onnx::TensorProto::BOOL, {2, 3});
  b.init_float("ratio", {}, {0.0f});
  b.init_int64("one", {}, {1});
  auto& cast = b.node("Cast", {"one"}, {"training"});
  set_attr(cast, "to", int64_t{onnx::TensorProto::BOOL});
  b.node("Dropout", {"x", "ratio", "training"}, {"y", "mask"});
  const ir::ExportedProgram p = import(b);
  EXPECT_EQ(p.graph().outputs().at(0)->name(), "x");
  ASSERT_EQ(p.constants().size(), 1u);
  const ir::TensorData& mask = p.constants().begin()->second;
  EXPECT_EQ(mask.spec.to_string(), "bool[2, 3]");
  EXPECT_EQ(std::vector<uint8_t>(mask.data->data(), mask.data->data() + 6),
            std::vector<uint8_t>(6, 1));
}

TEST(OnnxImportStructure, SupportedOpsTableListsTheFamilies) {
  const std::vector<SupportedOp> ops = supported_ops();
  auto has = [&](const std::string& name) {
    for (const SupportedOp& o : ops) {
      if (o.op_type == name) return true;
    }
    return false;
  };
  for (const char* name : {"Conv", "MaxPool", "Gemm", "Reshape", "Softmax", "BatchNormalization",
                           "Slice", "ReduceMean", "HardSwish", "Erf"}) {
    EXPECT_TRUE(has(name)) << name;
  }
}

}  // namespace
}  // namespace ptec::onnx_import::testing
