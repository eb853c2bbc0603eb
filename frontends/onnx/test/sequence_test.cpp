// Sequence ops (frontends/onnx/ops/sequence.cpp): sequences whose length is known at import are
// lists of values, rearranged at import; SplitToSequence slices, ConcatFromSequence
// concatenates or stacks. Graphs built here run with the portable kernels.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frontends/onnx/test/run_util.h"

namespace ptec::onnx_import::testing {
namespace {

/// Output 0 of `b` run on x = f32[2, 3] holding 0..5.
PortableProgram::Output run_on_x(ModelBuilder& b) {
  PortableProgram program(b);
  std::vector<runtime::OwnedTensor> inputs;
  inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {2, 3}, {0, 1, 2, 3, 4, 5}));
  std::vector<PortableProgram::Output> out = program.run(inputs);
  return out.empty() ? PortableProgram::Output{} : out[0];
}

// x split into columns [0] and [1, 2]; x + 10 inserted in front; the item at -1 (columns 1-2)
// erased; the rest concatenated along the columns: [x + 10 | x[:, 0]].
TEST(Sequence, SplitInsertEraseConcat) {
  ModelBuilder b(13);
  b.input("x", {2, 3});
  b.init_int64("split", {2}, {1, 2});
  set_attr(b.node("SplitToSequence", {"x", "split"}, {"parts"}), "axis", int64_t{1});
  b.init_float("ten", {}, {10.0f});
  b.node("Add", {"x", "ten"}, {"x10"});
  b.init_int64("front", {}, {0});
  b.node("SequenceInsert", {"parts", "x10", "front"}, {"with_x10"});
  b.init_int64("last", {}, {-1});
  b.node("SequenceErase", {"with_x10", "last"}, {"kept"});
  set_attr(b.node("ConcatFromSequence", {"kept"}, {"y"}), "axis", int64_t{1});
  b.output("y", onnx::TensorProto::FLOAT, {2, 4});
  const PortableProgram::Output y = run_on_x(b);
  EXPECT_EQ(y.sizes, (std::vector<int32_t>{2, 4}));
  EXPECT_EQ(y.values, (std::vector<float>{10, 11, 12, 0, 13, 14, 15, 3}));
}

// Rows of x without the axis (keepdims 0), stacked on a new last axis: the transpose, scaled by
// the sequence's length (2), plus the first two values of its item 1 ({3, 4}).
TEST(Sequence, RowsStackedOnANewAxis) {
  ModelBuilder b(13);
  b.input("x", {2, 3});
  set_attr(b.node("SplitToSequence", {"x"}, {"rows"}), "keepdims", int64_t{0});
  onnx::NodeProto& cat = b.node("ConcatFromSequence", {"rows"}, {"t"});
  set_attr(cat, "axis", int64_t{-1});
  set_attr(cat, "new_axis", int64_t{1});
  b.node("SequenceLength", {"rows"}, {"n"});
  set_attr(b.node("Cast", {"n"}, {"nf"}), "to", int64_t{onnx::TensorProto::FLOAT});
  b.node("Mul", {"t", "nf"}, {"t2"});
  b.init_int64("one", {}, {1});
  b.node("SequenceAt", {"rows", "one"}, {"row1"});
  b.init_int64("starts", {1}, {0});
  b.init_int64("ends", {1}, {2});
  b.node("Slice", {"row1", "starts", "ends"}, {"row1_2"});
  b.node("Add", {"t2", "row1_2"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {3, 2});
  const PortableProgram::Output y = run_on_x(b);
  EXPECT_EQ(y.sizes, (std::vector<int32_t>{3, 2}));
  EXPECT_EQ(y.values, (std::vector<float>{3, 10, 5, 12, 7, 14}));
}

// torch's repeat_interleave(x, 2, dim=0) with a dynamic dim exports a Loop that reads a split
// sequence and appends to a carried one.
TEST(Sequence, LoopCarriesASequence) {
  ModelBuilder body;
  body.input("i", {}, onnx::TensorProto::INT64);
  body.input("c", {}, onnx::TensorProto::BOOL);
  body.input("acc", {});
  body.node("SequenceAt", {"rows", "i"}, {"row"});
  body.node("SequenceInsert", {"acc", "row"}, {"acc1"});
  body.node("SequenceInsert", {"acc1", "row"}, {"acc2"});
  body.node("Identity", {"c"}, {"c_out"});
  body.output("c_out", onnx::TensorProto::BOOL, {});
  body.graph().add_output()->set_name("acc2");
  body.graph()
      .mutable_input(2)
      ->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::FLOAT);
  body.graph()
      .mutable_output(1)
      ->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::FLOAT);
  ModelBuilder b(13);
  b.input("x", {2, 3});
  b.node("SplitToSequence", {"x"}, {"rows"});
  set_attr(b.node("SequenceEmpty", {}, {"empty"}), "dtype", int64_t{onnx::TensorProto::FLOAT});
  b.init_int64("M", {}, {2});
  onnx::NodeProto& loop = b.node("Loop", {"M", "", "empty"}, {"seq"});
  auto* a = loop.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = body.graph();
  set_attr(b.node("ConcatFromSequence", {"seq"}, {"y"}), "axis", int64_t{0});
  b.output("y", onnx::TensorProto::FLOAT, {4, 3});
  const PortableProgram::Output y = run_on_x(b);
  EXPECT_EQ(y.sizes, (std::vector<int32_t>{4, 3}));
  EXPECT_EQ(y.values, (std::vector<float>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
}

TEST(Sequence, PositionOutOfRangeFails) {
  ModelBuilder b(13);
  b.input("x", {2, 3});
  b.node("SplitToSequence", {"x"}, {"rows"});
  b.init_int64("five", {}, {5});
  b.node("SequenceAt", {"rows", "five"}, {"y"}, "at_five");
  b.output("y");
  const std::string what = import_error(b);
  EXPECT_NE(what.find("at_five"), std::string::npos) << what;
  EXPECT_NE(what.find("position 5 is out of range for a sequence of 2"), std::string::npos) << what;
}

// A sequence never reaches the program: one as a graph output is refused, naming it.
TEST(Sequence, SequenceOutputFails) {
  ModelBuilder b(13);
  b.input("x", {2, 3});
  b.node("SplitToSequence", {"x"}, {"rows"});
  onnx::ValueInfoProto* out = b.graph().add_output();
  out->set_name("rows");
  out->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::FLOAT);
  const std::string what = import_error(b);
  EXPECT_NE(what.find("'rows' is a sequence, used as a tensor"), std::string::npos) << what;
}

}  // namespace
}  // namespace ptec::onnx_import::testing
