// Import-time evaluation: Shape/Gather/Unsqueeze/Concat chains fold away, Constant values become
// CONSTANT_TENSORs only when an op needs them as tensors, and the evaluator's semantics.

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontends/onnx/const_eval.h"
#include "frontends/onnx/test/test_util.h"

namespace ptec::onnx_import::testing {
namespace {

using ::testing::ElementsAre;
using V = std::vector<int64_t>;

TEST(OnnxConstFold, ShapeGatherUnsqueezeConcatReshapeChainFoldsAway) {
  // y = x.reshape(x.shape[0], -1), as torch.onnx exports it.
  ModelBuilder b;
  b.input("x", {std::string("batch"), 3, 4}).output("y", onnx::TensorProto::FLOAT, {2, 12});
  b.node("Shape", {"x"}, {"shape"}, "/Shape");
  b.init_int64("zero", {}, {0});
  b.node("Gather", {"shape", "zero"}, {"dim0"}, "/Gather");
  b.init_int64("axes", {1}, {0});
  b.node("Unsqueeze", {"dim0", "axes"}, {"dim0_1d"}, "/Unsqueeze");
  auto& c = b.node("Constant", {}, {"minus_one"}, "/Constant");
  set_attr(c, "value_ints", V{-1});
  auto& cat = b.node("Concat", {"dim0_1d", "minus_one"}, {"target"}, "/Concat");
  set_attr(cat, "axis", int64_t{0});
  b.node("Reshape", {"x", "target"}, {"y"}, "/Reshape");
  OnnxImportOptions options;
  options.input_shapes["x"] = {2, 3, 4};
  const ir::ExportedProgram p = import(b, options);
  EXPECT_THAT(calls(p), ElementsAre("aten::view_copy"));
  const ir::Node* view = p.graph().outputs().at(0);
  EXPECT_EQ(view->arg("size").to_int_vector(), (V{2, 12}));
  EXPECT_EQ(view->meta().source, "/Reshape");
  // Nothing of the chain became a graph input.
  EXPECT_EQ(p.graph().placeholders().size(), 1u);
  EXPECT_TRUE(p.constants().empty());
  EXPECT_TRUE(p.state_dict().empty());
}

TEST(OnnxConstFold, ConstantsUsedAsTensorsBecomeConstantTensorPlaceholders) {
  ModelBuilder b;
  b.input("x", {2, 3}).output("y");
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(3);
  for (float f : {1.0f, 2.0f, 3.0f}) t.add_float_data(f);
  auto& c = b.node("Constant", {}, {"c"}, "const_node");
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = t;
  b.node("Mul", {"x", "c"}, {"y"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::mul.Tensor"));
  ASSERT_EQ(p.constants().size(), 1u);
  EXPECT_EQ(p.constants().begin()->first, "c");
  EXPECT_EQ(p.constants().begin()->second.spec.to_string(), "f32[3]");
  const auto& inputs = p.signature().inputs;
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].kind, ir::InputKind::ConstantTensor);
  EXPECT_EQ(inputs[0].target, "c");
  EXPECT_EQ(p.graph().get(inputs[0].name).meta().source, "const_node");
}

TEST(OnnxConstFold, ArithmeticOnShapesAndConstantOfShapeAndRange) {
  ModelBuilder b;
  b.input("x", {4, 6}).output("y", onnx::TensorProto::FLOAT, {2, 3});
  b.node("Shape", {"x"}, {"s"});
  b.init_int64("two", {}, {2});
  b.node("Div", {"s", "two"}, {"half"});           // [2, 3]
  b.node("ConstantOfShape", {"half"}, {"zeros"});  // f32[2, 3] of 0
  b.init_int64("start", {}, {0});
  b.init_int64("limit", {}, {3});
  b.init_int64("delta", {}, {1});
  b.node("Range", {"start", "limit", "delta"}, {"r"});  // [0, 1, 2]
  auto& cast = b.node("Cast", {"r"}, {"rf"});
  set_attr(cast, "to", int64_t{onnx::TensorProto::FLOAT});
  b.node("Add", {"zeros", "rf"}, {"grid"});  // [[0, 1, 2], [0, 1, 2]]
  b.init_int64("starts", {2}, {0, 0});
  b.node("Slice", {"x", "starts", "half"}, {"xs"});  // x[0:2, 0:3]
  b.node("Mul", {"xs", "grid"}, {"y"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::slice_copy.Tensor", "aten::slice_copy.Tensor",
                                    "aten::mul.Tensor"));
  EXPECT_EQ(out_sizes(p), (V{2, 3}));
  ASSERT_EQ(p.constants().size(), 1u);
  const ir::TensorData& grid = p.constants().at("grid");
  EXPECT_EQ(grid.spec.to_string(), "f32[2, 3]");
  const float* g = reinterpret_cast<const float*>(grid.data->data());
  EXPECT_EQ(std::vector<float>(g, g + 6), (std::vector<float>{0, 1, 2, 0, 1, 2}));
}

TEST(OnnxConstFold, EvaluatorSemantics) {
  using eval::BinaryOp;
  const ConstTensor a = ConstTensor::from_int64(DType::Long, {2}, {-7, 7});
  const ConstTensor two = ConstTensor::from_int64(DType::Long, {}, {2});
  EXPECT_EQ(eval::binary(BinaryOp::Div, a, two).to_int64(), (V{-3, 3}));  // truncates
  EXPECT_THROW(eval::binary(BinaryOp::Div, a, ConstTensor::from_int64(DType::Long, {}, {0})),
               Exception);
  const ConstTensor f = ConstTensor::from_double(DType::Float, {3}, {-1.5, 2.7, 3.0});
  EXPECT_EQ(eval::cast(f, DType::Int).to_int64(), (V{-1, 2, 3}));
  const ConstTensor m = ConstTensor::from_int64(DType::Long, {2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(eval::gather(m, ConstTensor::from_int64(DType::Long, {1}, {-1}), 1).to_int64(),
            (V{2, 5}));
  EXPECT_EQ(eval::transpose(m, {1, 0}).to_int64(), (V{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(eval::concat({&m, &m}, 1).sizes, (V{2, 6}));
  EXPECT_EQ(eval::concat({&m, &m}, 1).to_int64(), (V{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
  const eval::SliceAxis rev = eval::normalize_slice(1, 3, -1, INT64_MIN, -1);
  EXPECT_EQ(eval::slice(m, {rev}).to_int64(), (V{2, 1, 0, 5, 4, 3}));
  const eval::SliceAxis clamp = eval::normalize_slice(1, 3, 1, INT64_MAX, 1);
  EXPECT_EQ(clamp.length, 2);
  EXPECT_EQ(eval::expand(two, {2, 2}).to_int64(), (V{2, 2, 2, 2}));
  EXPECT_EQ(eval::range(0, 5, 2, DType::Long).to_int64(), (V{0, 2, 4}));
  EXPECT_EQ(eval::broadcast_sizes({3, 1}, {4}), (V{3, 4}));
  EXPECT_THROW(eval::broadcast_sizes({3}, {4}), Exception);
  const ConstTensor h =
      eval::cast(ConstTensor::from_double(DType::Float, {2}, {1.5, -0.25}), DType::Half);
  EXPECT_EQ(h.to_double(), (std::vector<double>{1.5, -0.25}));
}

TEST(OnnxConstFold, ModAndComparisonSemantics) {
  using eval::BinaryOp;
  const ConstTensor x = ConstTensor::from_int64(DType::Long, {4}, {-7, 7, -7, 7});
  const ConstTensor y = ConstTensor::from_int64(DType::Long, {4}, {3, 3, -3, -3});
  EXPECT_EQ(eval::binary(BinaryOp::Mod, x, y).to_int64(), (V{2, 1, -1, -2}));   // divisor's sign
  EXPECT_EQ(eval::binary(BinaryOp::FMod, x, y).to_int64(), (V{-1, 1, -1, 1}));  // dividend's
  const ConstTensor min = ConstTensor::from_int64(DType::Long, {}, {INT64_MIN});
  const ConstTensor minus_one = ConstTensor::from_int64(DType::Long, {}, {-1});
  EXPECT_EQ(eval::binary(BinaryOp::Mod, min, minus_one).to_int64(), (V{0}));
  EXPECT_THROW(eval::binary(BinaryOp::Mod, x, ConstTensor::from_int64(DType::Long, {}, {0})),
               Exception);
  const ConstTensor f = ConstTensor::from_double(DType::Float, {2}, {-5.5, 5.5});
  const ConstTensor two = ConstTensor::from_double(DType::Float, {}, {2.0});
  EXPECT_EQ(eval::binary(BinaryOp::FMod, f, two).to_double(), (std::vector<double>{-1.5, 1.5}));
  EXPECT_EQ(eval::binary(BinaryOp::Mod, f, two).to_double(), (std::vector<double>{0.5, 1.5}));
  const ConstTensor three = ConstTensor::from_int64(DType::Long, {}, {3});
  EXPECT_EQ(eval::binary(BinaryOp::LessEqual, y, three).to_int64(), (V{1, 1, 1, 1}));
  EXPECT_EQ(eval::binary(BinaryOp::GreaterEqual, x, three).to_int64(), (V{0, 1, 0, 1}));
  EXPECT_EQ(eval::binary(BinaryOp::GreaterEqual, x, three).dtype, DType::Bool);
  const ConstTensor p = ConstTensor::from_int64(DType::Bool, {4}, {0, 0, 1, 1});
  const ConstTensor q = ConstTensor::from_int64(DType::Bool, {4}, {0, 1, 0, 1});
  EXPECT_EQ(eval::binary(BinaryOp::Xor, p, q).to_int64(), (V{0, 1, 1, 0}));
}

TEST(OnnxConstFold, ModOfConstantsFeedsAnImportTimePad) {
  // Swin's window padding, as torch.onnx exports it: pads = (window - size % window) % window.
  ModelBuilder b;
  b.input("x", {1, 5, 6}).output("y", onnx::TensorProto::FLOAT, {1, 7, 7});
  b.init_int64("size", {2}, {5, 6});
  b.init_int64("window", {}, {7});
  b.node("Mod", {"size", "window"}, {"rem"});
  b.node("Sub", {"window", "rem"}, {"gap"});
  b.node("Mod", {"gap", "window"}, {"pad"});  // {2, 1}
  b.init_int64("begin", {3}, {0, 0, 0});
  b.init_int64("zero", {1}, {0});
  auto& cat = b.node("Concat", {"begin", "zero", "pad"}, {"pads"});
  set_attr(cat, "axis", int64_t{0});
  b.node("Pad", {"x", "pads"}, {"y"});
  const ir::ExportedProgram p = import(b);
  EXPECT_EQ(out_sizes(p), (V{1, 7, 7}));
  EXPECT_TRUE(p.constants().empty());
}

TEST(OnnxConstFold, SumAndOrderedComparisonsAndXorOfConstantsFold) {
  ModelBuilder b;
  b.input("x", {2, 6}).output("y", onnx::TensorProto::FLOAT, {3, 4});
  b.init_int64("a", {2}, {1, 2});
  b.init_int64("c", {2}, {1, 1});
  b.node("Sum", {"a", "c", "c"}, {"shape"});            // {3, 4}
  b.node("GreaterOrEqual", {"shape", "a"}, {"ge"});     // {1, 1}
  b.node("LessOrEqual", {"shape", "a"}, {"le"});        // {0, 0}
  b.node("Xor", {"ge", "le"}, {"pick"});                // {1, 1}
  b.node("Where", {"pick", "shape", "a"}, {"target"});  // {3, 4}
  b.node("Reshape", {"x", "target"}, {"y"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::view_copy"));
  EXPECT_EQ(out_sizes(p), (V{3, 4}));
  EXPECT_TRUE(p.constants().empty());
}

TEST(OnnxConstFold, ReshapeOfAnInitializerSharesItsBuffer) {
  ModelBuilder b;
  b.input("x", {2, 3}).output("y");
  b.init_float("w", {6}, {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f});  // > 15 bytes: no SSO
  b.init_int64("shape", {2}, {2, 3});
  b.node("Reshape", {"w", "shape"}, {"w2"});
  b.node("Mul", {"x", "w2"}, {"y"});
  const void* bytes = b.graph().initializer(0).raw_data().data();
  const ir::ExportedProgram p = import(b);
  ASSERT_EQ(p.constants().size(), 1u);
  EXPECT_EQ(p.constants().begin()->second.spec.to_string(), "f32[2, 3]");
  EXPECT_EQ(static_cast<const void*>(p.constants().begin()->second.data->data()), bytes);
}

// torchvision's detection transform computes its resize from the image size in float:
// floor(size * min(a / min(size), b / max(size))). With a static image every step is exact
// arithmetic on constants (Reciprocal, Min, ReduceMin/Max, Floor, Cast) and folds, so that
// Resize gets constant sizes.
TEST(OnnxConstFold, FloatShapeArithmeticFolds) {
  ModelBuilder b(13);
  b.input("x", {1, 1, 6, 8}).output("y", onnx::TensorProto::FLOAT, {1, 1, 3, 4});
  b.node("Shape", {"x"}, {"shape"});
  b.init_int64("starts", {1}, {2});
  b.init_int64("ends", {1}, {4});
  b.node("Slice", {"shape", "starts", "ends"}, {"hw"});
  set_attr(b.node("Cast", {"hw"}, {"hwf"}), "to", int64_t{onnx::TensorProto::FLOAT});
  set_attr(b.node("ReduceMin", {"hwf"}, {"lo"}), "keepdims", int64_t{0});
  set_attr(b.node("ReduceMax", {"hwf"}, {"hi"}), "keepdims", int64_t{0});
  b.node("Reciprocal", {"lo"}, {"inv_lo"});
  b.node("Reciprocal", {"hi"}, {"inv_hi"});
  b.init_float("three", {}, {3.0f});
  b.init_float("four", {}, {4.0f});
  b.node("Mul", {"inv_lo", "three"}, {"s1"});
  b.node("Mul", {"inv_hi", "four"}, {"s2"});
  b.node("Min", {"s1", "s2"}, {"scale"});
  b.node("Mul", {"hwf", "scale"}, {"scaled"});
  b.node("Floor", {"scaled"}, {"floored"});
  set_attr(b.node("Cast", {"floored"}, {"out_hw"}), "to", int64_t{onnx::TensorProto::INT64});
  b.init_int64("nc", {2}, {1, 1});
  set_attr(b.node("Concat", {"nc", "out_hw"}, {"sizes"}), "axis", int64_t{0});
  b.node("Resize", {"x", "", "", "sizes"}, {"y"});
  const ir::ExportedProgram p = import(b);
  EXPECT_THAT(calls(p), ElementsAre("aten::upsample_nearest2d.vec"));  // sizes [3, 4]
}

// Each op on a constant folds (the program keeps only the Add, whose other operand is the
// folded value, cast to float: a constant tensor, or inline for a scalar).
TEST(OnnxConstFold, ExactUnaryAndReductionFoldsFollowTheKernels) {
  const auto fold = [](const std::string& op, int32_t type, const std::vector<double>& in) {
    ModelBuilder b(13);
    b.input("x", {1}).output("y");
    onnx::TensorProto& c = *b.graph().add_initializer();
    c.set_name("c");
    c.set_data_type(type);
    c.add_dims(static_cast<int64_t>(in.size()));
    for (double v : in) {
      if (type == onnx::TensorProto::FLOAT) {
        c.add_float_data(static_cast<float>(v));
      } else {
        c.add_int64_data(static_cast<int64_t>(v));
      }
    }
    auto& n = b.node(op, {"c"}, {"r"});
    if (op.rfind("Reduce", 0) == 0) set_attr(n, "keepdims", int64_t{0});
    set_attr(b.node("Cast", {"r"}, {"rf"}), "to", int64_t{onnx::TensorProto::FLOAT});
    b.node("Add", {"x", "rf"}, {"y"});
    const ir::ExportedProgram p = import(b);
    std::vector<float> out;
    if (calls(p) == std::vector<std::string>{"aten::add.Scalar"}) {  // a scalar result, inlined
      out.push_back(
          static_cast<float>(first_call(p, "aten::add.Scalar")->arg("other").to_double()));
      return out;
    }
    EXPECT_THAT(calls(p), ElementsAre("aten::add.Tensor")) << op;
    if (p.constants().size() != 1) return out;
    const ir::TensorData& t = p.constants().begin()->second;
    const auto* f = reinterpret_cast<const float*>(t.data->data());
    out.assign(f, f + t.data->size() / sizeof(float));
    return out;
  };
  using F = std::vector<float>;
  constexpr int32_t kF32 = onnx::TensorProto::FLOAT, kI64 = onnx::TensorProto::INT64;
  EXPECT_EQ(fold("Floor", kF32, {2.5, -2.5}), (F{2, -3}));
  EXPECT_EQ(fold("Ceil", kF32, {2.5, -2.5}), (F{3, -2}));
  EXPECT_EQ(fold("Round", kF32, {2.5, 3.5}), (F{2, 4}));  // half to even
  EXPECT_EQ(fold("Reciprocal", kF32, {4, 0.5}), (F{0.25f, 2}));
  EXPECT_EQ(fold("Sqrt", kF32, {2}), (F{std::sqrt(2.0f)}));
  EXPECT_EQ(fold("Sign", kF32, {-3, 0, 2}), (F{-1, 0, 1}));
  EXPECT_EQ(fold("ReduceMin", kF32, {2, -1, 5}), (F{-1}));
  EXPECT_EQ(fold("ReduceMax", kF32, {2, -1, 5}), (F{5}));
  EXPECT_EQ(fold("ReduceSum", kI64, {2, 3, 4}), (F{9}));
  EXPECT_EQ(fold("ReduceProd", kI64, {2, 3, 4}), (F{24}));
}

}  // namespace
}  // namespace ptec::onnx_import::testing
