// DuplicateSharedConstants: each user of a shared constant reads a placeholder of its own, all
// naming the same tensor. cpu_backend_ops_test checks that layers sharing a weight are then
// delegated.

#include <gtest/gtest.h>

#include "ir/verifier.h"
#include "passes/duplicate_shared_constants.h"
#include "passes/test/test_graphs.h"

namespace ptec::passes {
namespace {

TEST(DuplicateSharedConstants, EachUserGetsItsOwnPlaceholderOfTheSameTensor) {
  ir::ExportedProgram p;
  ir::Node* x = testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{2, 2}));
  ir::Node* w = testing::param(p, "w", testing::float_tensor({2, 2}, {1, 2, 3, 4}));
  ir::Node* b = testing::param(p, "b", testing::float_tensor({2}, {5, 6}));
  ir::Node* first = testing::call(p, "aten::mm", {x, w}, "first");
  ir::Node* second = testing::call(p, "aten::mm", {first, w}, "second");
  // A user reading the constant twice, inside a list, keeps one placeholder for both.
  ir::Node* cat = testing::call(p, "aten::cat", {ir::ArgumentList{w, w}, int64_t{0}}, "cat");
  ir::Node* sum = testing::call(p, "aten::add.Tensor", {second, b}, "sum");
  testing::output(p, {sum, cat});
  ASSERT_TRUE(DuplicateSharedConstants().run(p).modified);
  EXPECT_TRUE(ir::verify(p).empty()) << ::testing::PrintToString(ir::verify(p));

  const ir::Node* w1 = first->arg(1).as_node();
  const ir::Node* w2 = second->arg(1).as_node();
  const ir::Node* w3 = cat->arg(0).as_list()[0].as_node();
  EXPECT_EQ(w1, w);
  EXPECT_NE(w2, w);
  EXPECT_NE(w3, w);
  EXPECT_NE(w2, w3);
  EXPECT_EQ(cat->arg(0).as_list()[1].as_node(), w3);
  for (const ir::Node* n : {w1, w2, w3}) {
    EXPECT_EQ(n->users().size(), 1u);
    const ir::InputSpec* spec = p.signature().find_input(n->name());
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(spec->kind, ir::InputKind::Parameter);
    EXPECT_EQ(spec->target, "w");
    EXPECT_EQ(p.constant_for_placeholder(n->name()), &p.state_dict().at("w"));
  }
  EXPECT_EQ(p.state_dict().size(), 2u);  // nothing copied
  // b has one user: untouched; a second run finds nothing to do.
  EXPECT_EQ(sum->arg(1).as_node(), b);
  EXPECT_FALSE(DuplicateSharedConstants().run(p).modified);
}

}  // namespace
}  // namespace ptec::passes
