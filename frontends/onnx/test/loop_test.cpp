// Loop and Scan import (frontends/onnx/loop_unroll.cpp): loops whose iteration count is known at
// export, and scans over static axes, are unrolled. Small graphs built here are imported, lowered,
// emitted and run with the portable kernels; the refusals name the value that would have to be
// known.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frontends/onnx/loop_unroll.h"
#include "frontends/onnx/test/run_util.h"

namespace ptec::onnx_import::testing {
namespace {

/// Outputs of `b` run on x = {1, 2, 3} (f32[3]), as float vectors.
std::vector<std::vector<float>> run(ModelBuilder& b) {
  PortableProgram program(b);
  std::vector<runtime::OwnedTensor> inputs;
  inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {3}, {1, 2, 3}));
  std::vector<std::vector<float>> result;
  for (PortableProgram::Output& o : program.run(inputs)) result.push_back(std::move(o.values));
  return result;
}

/// A body (iter, cond, acc) -> (cond_out, acc + x * (iter + 1), scan = acc * 2) over the outer
/// x; cond_out is `cond_expr` ("pass": the cond input; "below4": iter + 1 < 4).
onnx::GraphProto accumulate_body(const std::string& cond_expr) {
  ModelBuilder body;
  body.input("iter", {}, onnx::TensorProto::INT64);
  body.input("cond_in", {}, onnx::TensorProto::BOOL);
  body.input("acc", {3});
  body.init_int64("one", {}, {1});
  body.node("Add", {"iter", "one"}, {"iter1"});
  set_attr(body.node("Cast", {"iter1"}, {"iter1f"}), "to", int64_t{onnx::TensorProto::FLOAT});
  body.node("Mul", {"x", "iter1f"}, {"step"});
  body.node("Add", {"acc", "step"}, {"acc_out"});
  body.init_float("two", {}, {2.0f});
  body.node("Mul", {"acc", "two"}, {"scan"});
  if (cond_expr == "pass") {
    body.node("Identity", {"cond_in"}, {"cond_out"});
  } else {
    body.init_int64("four", {}, {4});
    body.node("Less", {"iter1", "four"}, {"cond_out"});
  }
  body.output("cond_out", onnx::TensorProto::BOOL, {});
  body.output("acc_out", onnx::TensorProto::FLOAT, {3});
  body.output("scan", onnx::TensorProto::FLOAT, {3});
  return body.graph();
}

void set_body(onnx::NodeProto& n, const onnx::GraphProto& g) {
  auto* a = n.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g;
}

/// y, scans = Loop(M, cond, acc0 = 0) with `body`; M and cond are initializers unless empty.
ModelBuilder loop_model(const std::vector<int64_t>& trip, bool with_cond,
                        const onnx::GraphProto& body, const std::string& name = "loop") {
  ModelBuilder b(13);
  b.input("x", {3});
  std::string m;
  if (!trip.empty()) {
    b.init_int64("M", {}, trip);
    m = "M";
  }
  std::string cond;
  if (with_cond) {
    onnx::TensorProto& c = *b.graph().add_initializer();
    c.set_name("cond");
    c.set_data_type(onnx::TensorProto::BOOL);
    c.add_int32_data(1);
    cond = "cond";
  }
  b.init_float("acc0", {3}, {0, 0, 0});
  set_body(b.node("Loop", {m, cond, "acc0"}, {"y", "scans"}, name), body);
  b.output("y", onnx::TensorProto::FLOAT, {3});
  b.output("scans");
  return b;
}

// acc after iteration i is x * (1 + ... + (i + 1)); the scan output holds 2 * acc before it.
TEST(Loop, TripCountIsUnrolled) {
  ModelBuilder b = loop_model({3}, true, accumulate_body("pass"));
  const auto out = run(b);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (std::vector<float>{6, 12, 18}));  // x * (1 + 2 + 3)
  EXPECT_EQ(out[1], (std::vector<float>{0, 0, 0, 2, 4, 6, 6, 12, 18}));
}

// No trip count: the body's condition (iter + 1 < 4, known once iter is) ends the loop after
// four iterations.
TEST(Loop, ConditionKnownAtImportEndsTheLoop) {
  ModelBuilder b = loop_model({}, true, accumulate_body("below4"));
  const auto out = run(b);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (std::vector<float>{10, 20, 30}));  // x * (1 + 2 + 3 + 4)
  EXPECT_EQ(out[1].size(), 12u);
}

TEST(Loop, ZeroIterationsKeepTheInitialValues) {
  ModelBuilder b(13);
  b.input("x", {3});
  b.init_int64("M", {}, {0});
  b.init_float("acc0", {3}, {5, 6, 7});
  set_body(b.node("Loop", {"M", "", "acc0"}, {"y0"}), accumulate_body("pass"));
  b.node("Add", {"y0", "x"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {3});
  const auto out = run(b);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (std::vector<float>{6, 8, 10}));
}

TEST(Loop, RunTimeTripCountFails) {
  ModelBuilder b(13);
  b.input("x", {3});
  b.input("n", {}, onnx::TensorProto::INT64);
  b.init_float("acc0", {3}, {0, 0, 0});
  set_body(b.node("Loop", {"n", "", "acc0"}, {"y", "scans"}, "count_loop"),
           accumulate_body("pass"));
  b.output("y", onnx::TensorProto::FLOAT, {3});
  const std::string what = import_error(b);
  EXPECT_NE(what.find("count_loop"), std::string::npos) << what;
  EXPECT_NE(what.find("the trip count ('n') is computed at run time"), std::string::npos) << what;
}

TEST(Loop, RunTimeConditionFails) {
  ModelBuilder body;
  body.input("iter", {}, onnx::TensorProto::INT64);
  body.input("cond_in", {}, onnx::TensorProto::BOOL);
  body.input("acc", {3});
  body.node("Add", {"acc", "x"}, {"acc_out"});
  body.init_float("ten", {}, {10.0f});
  body.node("ReduceSum", {"acc_out"}, {"total"});
  body.node("Less", {"total", "ten"}, {"cond_out"});
  body.output("cond_out", onnx::TensorProto::BOOL, {});
  body.output("acc_out", onnx::TensorProto::FLOAT, {3});
  ModelBuilder b(13);
  b.input("x", {3});
  b.init_int64("M", {}, {5});
  b.init_float("acc0", {3}, {0, 0, 0});
  set_body(b.node("Loop", {"M", "", "acc0"}, {"y"}, "while_loop"), body.graph());
  b.output("y", onnx::TensorProto::FLOAT, {3});
  const std::string what = import_error(b);
  EXPECT_NE(what.find("while_loop"), std::string::npos) << what;
  EXPECT_NE(what.find("the condition ('cond_out') is computed at run time"), std::string::npos)
      << what;
}

TEST(Loop, TooManyIterationsFail) {
  ModelBuilder b = loop_model({kMaxLoopIterations + 1}, false, accumulate_body("pass"), "long");
  const std::string what = import_error(b);
  EXPECT_NE(what.find("long"), std::string::npos) << what;
  EXPECT_NE(what.find("the trip count 1025 is more than 1024 iterations"), std::string::npos)
      << what;
}

// Scan-9+: a running sum over the rows of x read in reverse, its per-step values stacked along
// axis 1.
TEST(Scan, StepsOverAnAxisInItsDirection) {
  ModelBuilder body;
  body.input("sum_in", {2});
  body.input("row", {2});
  body.node("Add", {"sum_in", "row"}, {"sum_out"});
  body.node("Identity", {"sum_out"}, {"step"});
  body.output("sum_out", onnx::TensorProto::FLOAT, {2});
  body.output("step", onnx::TensorProto::FLOAT, {2});
  ModelBuilder b(11);
  b.input("x", {3, 2});
  b.init_float("zero", {2}, {0, 0});
  onnx::NodeProto& scan = b.node("Scan", {"zero", "x"}, {"total", "steps"});
  set_body(scan, body.graph());
  set_attr(scan, "num_scan_inputs", int64_t{1});
  set_attr(scan, "scan_input_directions", std::vector<int64_t>{1});
  set_attr(scan, "scan_output_axes", std::vector<int64_t>{1});
  b.output("total", onnx::TensorProto::FLOAT, {2});
  b.output("steps", onnx::TensorProto::FLOAT, {2, 3});
  PortableProgram program(b);
  std::vector<runtime::OwnedTensor> inputs;
  inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {3, 2}, {1, 2, 3, 4, 5, 6}));
  const std::vector<PortableProgram::Output> out = program.run(inputs);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values, (std::vector<float>{9, 12}));
  EXPECT_EQ(out[1].sizes, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(out[1].values, (std::vector<float>{5, 8, 9, 6, 10, 12}));
}

}  // namespace
}  // namespace ptec::onnx_import::testing
