// InferViewSize: a view whose size list holds one run-time size takes -1 there, and the scalar
// instructions that computed it go; other views stay as they are.

#include <gtest/gtest.h>

#include "frontends/builder/graph_builder.h"
#include "passes/dead_code_elimination.h"
#include "passes/infer_view_size.h"

namespace ptec::passes {
namespace {

using builder::Value;

size_t count(const ir::ExportedProgram& p, std::string_view op) {
  size_t n = 0;
  for (const ir::Node* node : p.graph().nodes()) n += node->is_op(op);
  return n;
}

const ir::Node* view_of(const ir::ExportedProgram& p) {
  for (const ir::Node* node : p.graph().nodes()) {
    if (node->is_op("aten::view_copy")) return node;
  }
  return nullptr;
}

TEST(InferViewSize, OneRunTimeSizeBecomesMinusOneAndItsSymSizeGoes) {
  builder::GraphBuilder b("rows");
  ir::SymInt n = b.symbol("n", 1, 64);
  Value x = b.input("x", DType::Float, {n, 12});
  b.output({b.call("aten::view_copy", {x, ir::Shape{1, n, 12}})});
  ir::ExportedProgram p = b.build();
  ASSERT_EQ(count(p, "aten::sym_size.int"), 1u);
  const ir::Shape before = view_of(p)->spec().shape;
  EXPECT_TRUE(InferViewSize().run(p).modified);
  DeadCodeElimination().run(p);
  EXPECT_EQ(view_of(p)->arg("size").to_int_vector(), (std::vector<int64_t>{1, -1, 12}));
  EXPECT_EQ(view_of(p)->spec().shape, before);
  EXPECT_EQ(count(p, "aten::sym_size.int"), 0u);
  EXPECT_FALSE(InferViewSize().run(p).modified);
}

TEST(InferViewSize, TwoRunTimeSizesStayAsTheyAre) {
  builder::GraphBuilder b("two");
  ir::SymInt n = b.symbol("n", 1, 8);
  ir::SymInt m = b.symbol("m", 1, 8);
  Value x = b.input("x", DType::Float, {n, m, 4});
  b.output({b.call("aten::view_copy", {x, ir::Shape{m, n, 4}})});
  ir::ExportedProgram p = b.build();
  EXPECT_FALSE(InferViewSize().run(p).modified);
  EXPECT_EQ(count(p, "aten::sym_size.int"), 2u);
}

TEST(InferViewSize, StaticViewsAndZeroSizesStayAsTheyAre) {
  builder::GraphBuilder b("static");
  ir::SymInt n = b.symbol("n", 1, 8);
  Value x = b.input("x", DType::Float, {2, 6});
  Value y = b.input("y", DType::Float, {n, 0, 3});
  b.output({b.call("aten::view_copy", {x, std::vector<int64_t>{3, 4}}),
            b.call("aten::view_copy", {y, ir::Shape{n, 3, 0}})});
  ir::ExportedProgram p = b.build();
  EXPECT_FALSE(InferViewSize().run(p).modified);
}

}  // namespace
}  // namespace ptec::passes
