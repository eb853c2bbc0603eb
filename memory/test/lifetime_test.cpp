#include <gtest/gtest.h>

#include "ir/exported_program.h"
#include "ir/op_schema.h"
#include "memory/greedy_planner.h"
#include "memory/lifetime.h"
#include "memory/verify_plan.h"

namespace ptec::memory {
namespace {

using ir::Argument;
using ir::ArgumentList;
using ir::Node;
using ir::TensorSpec;

const ir::OpSchema& relu_op() {
  static const ir::OpSchema op = ir::parse_schema("aten::relu(Tensor self) -> Tensor");
  return op;
}
const ir::OpSchema& add_op() {
  static const ir::OpSchema op =
      ir::parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  return op;
}
const ir::OpSchema& max_dim_op() {
  static const ir::OpSchema op = ir::parse_schema(
      "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  return op;
}
const ir::OpSchema& getitem_op() {
  static const ir::OpSchema op = ir::parse_schema("getitem(Tensor[] self, int idx) -> Tensor");
  return op;
}

Node* call(ir::Graph& g, const ir::OpSchema& op, ArgumentList args, TensorSpec spec) {
  Node* n = g.add_call(op, std::move(args));
  n->meta().val = {std::move(spec)};
  return n;
}

const TensorLifetime& find(const std::vector<TensorLifetime>& ts, const std::string& name) {
  for (const TensorLifetime& t : ts) {
    if (t.name == name) return t;
  }
  ADD_FAILURE() << "no tensor " << name;
  static const TensorLifetime none;
  return none;
}

// forward(x): w is a parameter; a = relu(x); b = relu(a); c = add(b, w); return c, x
struct Chain {
  ir::ExportedProgram program;
  Chain() {
    ir::Graph& g = program.graph();
    const TensorSpec f4(DType::Float, std::vector<int64_t>{4});
    Node* w = g.add_placeholder("w", f4);
    Node* x = g.add_placeholder("x", f4);
    program.signature().inputs = {{ir::InputKind::Parameter, "w", "w"},
                                  {ir::InputKind::UserInput, "x", ""}};
    program.state_dict()["w"] = {f4, ir::Buffer::copy_of(std::vector<float>(4).data(), 16)};
    Node* a = call(g, relu_op(), {x}, f4);
    Node* b = call(g, relu_op(), {a}, f4);
    Node* c = call(g, add_op(), {b, w, int64_t{1}}, f4);
    g.set_output({c, x});
  }
};

TEST(Lifetimes, InputsAndOutputsLiveAcrossTheMethod) {
  Chain chain;
  const std::vector<TensorLifetime> ts = compute_lifetimes(chain.program, {});
  ASSERT_EQ(ts.size(), 4u);  // x, relu, relu_1, add (the parameter is a constant)
  const int64_t end = static_cast<int64_t>(chain.program.graph().size());
  EXPECT_EQ(find(ts, "x").first, 0);
  EXPECT_EQ(find(ts, "x").last, end);
  EXPECT_EQ(find(ts, "relu").first, 2);
  EXPECT_EQ(find(ts, "relu").last, 3);
  EXPECT_EQ(find(ts, "relu_1").first, 3);
  EXPECT_EQ(find(ts, "relu_1").last, 4);
  EXPECT_EQ(find(ts, "add").first, 4);
  EXPECT_EQ(find(ts, "add").last, end);
  EXPECT_EQ(find(ts, "x").nbytes, 16u);

  // The output and the input never share bytes with anything.
  const MemoryPlan plan = GreedyPlanner().plan(ts, 16);
  EXPECT_TRUE(verify_plan(plan).empty());
  const Allocation* x = plan.find(&chain.program.graph().get("x"));
  const Allocation* out = plan.find(&chain.program.graph().get("add"));
  const Allocation* relu = plan.find(&chain.program.graph().get("relu"));
  ASSERT_TRUE(x && out && relu);
  EXPECT_NE(x->offset, out->offset);
  EXPECT_NE(x->offset, relu->offset);
  EXPECT_EQ(plan.find(&chain.program.graph().get("w")), nullptr);
}

TEST(Lifetimes, OptionsDropInputsAndOutputs) {
  Chain chain;
  PlannerOptions no_inputs;
  no_inputs.alloc_graph_input = false;
  std::vector<TensorLifetime> ts = compute_lifetimes(chain.program, no_inputs);
  EXPECT_EQ(ts.size(), 3u);
  PlannerOptions no_outputs;
  no_outputs.alloc_graph_output = false;
  ts = compute_lifetimes(chain.program, no_outputs);
  // add is dropped; x is returned too but stays planned as an input.
  ASSERT_EQ(ts.size(), 3u);
  EXPECT_EQ(ts[0].name, "x");
}

TEST(Lifetimes, MultiOutputOpsAndGetitem) {
  ir::ExportedProgram program;
  ir::Graph& g = program.graph();
  const TensorSpec f23(DType::Float, std::vector<int64_t>{2, 3});
  Node* x = g.add_placeholder("x", f23);
  Node* m = g.add_call(max_dim_op(), {x, int64_t{1}, false});
  m->meta().val = {TensorSpec(DType::Float, std::vector<int64_t>{2}),
                   TensorSpec(DType::Long, std::vector<int64_t>{2})};
  Node* values = g.add_call(getitem_op(), {m, int64_t{0}});
  values->meta().val = {m->meta().val[0]};
  Node* r = call(g, relu_op(), {values}, m->meta().val[0]);
  g.set_output({r});

  EXPECT_TRUE(is_getitem(*values));
  EXPECT_EQ(resolve_value(values), std::make_pair(static_cast<const Node*>(m), size_t{1} - 1));
  const std::vector<TensorLifetime> ts = compute_lifetimes(program, {});
  // x, max[0], max[1], relu: the getitem is no tensor of its own.
  ASSERT_EQ(ts.size(), 4u);
  EXPECT_EQ(find(ts, "max[0]").nbytes, 8u);
  EXPECT_EQ(find(ts, "max[1]").nbytes, 16u);
  EXPECT_EQ(find(ts, "max[0]").first, 1);
  EXPECT_EQ(find(ts, "max[0]").last, 3);  // used by relu through the getitem
  EXPECT_EQ(find(ts, "max[1]").last, 1);  // unused, but the kernel still writes it
}

TEST(Lifetimes, SymbolicDimsArePlannedAtTheirUpperBound) {
  ir::ExportedProgram program;
  ir::Graph& g = program.graph();
  auto seq = std::make_shared<ir::Symbol>(ir::Symbol{"seq", 1, 10});
  TensorSpec spec(DType::Float, ir::Shape{ir::SymInt(seq), ir::SymInt(4)});
  Node* x = g.add_placeholder("x", spec);
  Node* r = call(g, relu_op(), {x}, spec);
  g.set_output({r});
  const std::vector<TensorLifetime> ts = compute_lifetimes(program, {});
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts[0].nbytes, 10u * 4u * 4u);
  EXPECT_EQ(ts[1].nbytes, 10u * 4u * 4u);
}

}  // namespace
}  // namespace ptec::memory
