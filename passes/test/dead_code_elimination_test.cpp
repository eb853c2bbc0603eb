#include <gtest/gtest.h>

#include "passes/dead_code_elimination.h"
#include "passes/test/test_graphs.h"

namespace ptec::passes {
namespace {

using testing::call;
using testing::calls;

TEST(DeadCodeElimination, RemovesUnusedCallsAndConstants) {
  ir::ExportedProgram p;
  const ir::TensorSpec f4(DType::Float, std::vector<int64_t>{4});
  ir::Node* w = testing::param(p, "w", testing::float_tensor({4}, {1, 2, 3, 4}));
  ir::Node* unused_w = testing::param(p, "unused", testing::float_tensor({4}, {0, 0, 0, 0}));
  ir::Node* x = testing::input(p, "x", f4);
  ir::Node* y = testing::input(p, "y", f4);  // unused user input: kept
  ir::Node* dead1 = call(p, "aten::mul.Tensor", {x, unused_w}, "dead1");
  call(p, "aten::relu", {dead1}, "dead2");
  ir::Node* m = call(p, "aten::max.dim", {x, int64_t{0}}, "maxdim");
  call(p, "getitem", {m, int64_t{1}}, "dead_item");
  ir::Node* live = call(p, "aten::add.Tensor", {x, w}, "live");
  testing::output(p, {live});
  (void)y;

  EXPECT_EQ(calls(p), (std::vector<std::string>{"dead1(aten::mul.Tensor)", "dead2(aten::relu)",
                                                "maxdim(aten::max.dim)", "dead_item(getitem)",
                                                "live(aten::add.Tensor)"}));
  EXPECT_TRUE(DeadCodeElimination().run(p).modified);
  EXPECT_EQ(calls(p), (std::vector<std::string>{"live(aten::add.Tensor)"}));
  EXPECT_EQ(p.state_dict().count("unused"), 0u);
  EXPECT_EQ(p.state_dict().count("w"), 1u);
  EXPECT_NE(p.graph().find("y"), nullptr);
  ASSERT_EQ(p.signature().inputs.size(), 3u);  // w, x, y
  EXPECT_FALSE(DeadCodeElimination().run(p).modified);
}

}  // namespace
}  // namespace ptec::passes
