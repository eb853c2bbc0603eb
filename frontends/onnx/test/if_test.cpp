// If whose condition is computed at run time (frontends/onnx/if_import.cpp): both branches are
// imported and each output is picked by the condition. Small graphs built here are imported,
// lowered, emitted and run with the portable kernels on inputs that take each branch.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frontends/onnx/test/run_util.h"

namespace ptec::onnx_import::testing {
namespace {

void set_branch(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g;
}

/// y = c ? x * 0.5 : relu(x), c a bool graph input: both branches f32[2, 3].
ModelBuilder same_shape_if() {
  ModelBuilder b(13);
  b.input("x", {2, 3});
  b.input("c", {}, onnx::TensorProto::BOOL);
  ModelBuilder then_b;
  then_b.init_float("half", {}, {0.5f});
  then_b.node("Mul", {"x", "half"}, {"halved"});
  then_b.output("halved", onnx::TensorProto::FLOAT, {2, 3});
  ModelBuilder else_b;
  else_b.node("Relu", {"x"}, {"relu"});
  else_b.output("relu", onnx::TensorProto::FLOAT, {2, 3});
  onnx::NodeProto& n = b.node("If", {"c"}, {"y"}, "if");
  set_branch(n, "then_branch", then_b.graph());
  set_branch(n, "else_branch", else_b.graph());
  b.output("y", onnx::TensorProto::FLOAT, {2, 3});
  return b;
}

std::vector<float> run_same_shape(PortableProgram& p, bool c) {
  std::vector<runtime::OwnedTensor> inputs;
  inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {2, 3}, {-2, 4, -6, 8, 0, 1}));
  inputs.push_back(runtime::OwnedTensor::full(DType::Bool, {}, c ? 1.0 : 0.0));
  std::vector<PortableProgram::Output> out = p.run(inputs);
  return out.empty() ? std::vector<float>{} : out[0].values;
}

TEST(RunTimeIf, SameShapedOutputsArePickedElementwise) {
  ModelBuilder b = same_shape_if();
  PortableProgram p(b);
  EXPECT_EQ(run_same_shape(p, true), (std::vector<float>{-1, 2, -3, 4, 0, 0.5f}));
  EXPECT_EQ(run_same_shape(p, false), (std::vector<float>{0, 4, 0, 8, 0, 1}));
}

/// torchvision's batched_nms guard on the positives of x (f32[2, 3]):
/// `if pos.numel() == 0: return empty else: return pos * 2`, as torch exports it (Shape ->
/// ReduceProd -> Equal -> If, the then branch a Constant of no elements).
ModelBuilder empty_guard_if() {
  ModelBuilder b(13);
  positives_of_x(b, "pos");
  b.node("Shape", {"pos"}, {"pos_shape"});
  set_attr(b.node("ReduceProd", {"pos_shape"}, {"numel"}), "keepdims", int64_t{0});
  b.init_int64("no_elements", {}, {0});
  b.node("Equal", {"numel", "no_elements"}, {"is_empty"});
  ModelBuilder then_b;
  then_b.init_float("empty", {0}, {});
  then_b.node("Identity", {"empty"}, {"nothing"});
  then_b.output("nothing", onnx::TensorProto::FLOAT, {0});
  ModelBuilder else_b;
  else_b.init_float("two", {}, {2.0f});
  else_b.node("Mul", {"pos", "two"}, {"doubled"});
  else_b.output("doubled", onnx::TensorProto::FLOAT, {std::string("n")});
  onnx::NodeProto& n = b.node("If", {"is_empty"}, {"y"}, "guard");
  set_branch(n, "then_branch", then_b.graph());
  set_branch(n, "else_branch", else_b.graph());
  b.output("y", onnx::TensorProto::FLOAT, {std::string("m")});
  return b;
}

PortableProgram::Output run_guard(PortableProgram& p, const std::vector<float>& x) {
  std::vector<runtime::OwnedTensor> inputs;
  inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {2, 3}, x));
  std::vector<PortableProgram::Output> out = p.run(inputs);
  return out.empty() ? PortableProgram::Output{} : out[0];
}

TEST(RunTimeIf, EmptyGuardKeepsTheChosenBranchsRows) {
  ModelBuilder b = empty_guard_if();
  PortableProgram p(b);
  const PortableProgram::Output some = run_guard(p, {1, -2, 3, -4, 0, 6});
  EXPECT_EQ(some.sizes, (std::vector<int32_t>{3}));
  EXPECT_EQ(some.values, (std::vector<float>{2, 6, 12}));
  const PortableProgram::Output none = run_guard(p, {0, -1, 0, -1, 0, -1});
  EXPECT_EQ(none.sizes, (std::vector<int32_t>{0}));
  const PortableProgram::Output all = run_guard(p, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(all.sizes, (std::vector<int32_t>{6}));
}

TEST(RunTimeIf, OutputsOfDifferentRanksAreRefusedNamingTheCondition) {
  ModelBuilder b(13);
  b.input("x", {2, 3});
  b.input("c", {}, onnx::TensorProto::BOOL);
  ModelBuilder then_b;
  then_b.node("Relu", {"x"}, {"relu"});
  then_b.output("relu", onnx::TensorProto::FLOAT, {2, 3});
  ModelBuilder else_b;
  else_b.init_int64("flat", {1}, {6});
  else_b.node("Reshape", {"x", "flat"}, {"row"});
  else_b.output("row", onnx::TensorProto::FLOAT, {6});
  onnx::NodeProto& n = b.node("If", {"c"}, {"y"}, "if");
  set_branch(n, "then_branch", then_b.graph());
  set_branch(n, "else_branch", else_b.graph());
  b.output("y", onnx::TensorProto::FLOAT, {2, 3});
  const std::string error = import_error(b);
  EXPECT_NE(error.find("node 'if' (If, opset 13): the condition ('c') is computed at run time; "
                       "it must be known at import time where output 0 is f32[2, 3] in one "
                       "branch and f32[6] in the other"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace ptec::onnx_import::testing
