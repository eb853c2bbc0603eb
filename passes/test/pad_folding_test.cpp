// PadFolding: which pads fold into the op that reads them, and what the op's arguments become.
// tests/models' pad_pools model checks the numbers end to end against PyTorch.

#include <gtest/gtest.h>

#include <limits>

#include "passes/pad_folding.h"
#include "passes/test/test_graphs.h"

namespace ptec::passes {
namespace {

using testing::calls;
using Ints = std::vector<int64_t>;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct Model {
  ir::ExportedProgram p;
  ir::Node* x = nullptr;
  Model() {
    x = testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{1, 3, 8, 8}));
  }
  ir::Node* pad(const Ints& pads, double value) {
    return testing::call(p, "aten::constant_pad_nd", {x, pads, value}, "pad");
  }
};

TEST(PadFolding, ZeroPadFoldsIntoAvgPoolCountingThePaddedZeros) {
  Model m;
  ir::Node* pad = m.pad({1, 1, 1, 1}, 0.0);
  ir::Node* pool = testing::call(m.p, "aten::avg_pool2d",
                                 {pad, Ints{3, 3}, Ints{1, 1}, Ints{0, 0}, false, false}, "pool");
  testing::output(m.p, {pool});
  EXPECT_TRUE(PadFolding().run(m.p).modified);
  EXPECT_EQ(calls(m.p), std::vector<std::string>{"pool(aten::avg_pool2d)"});
  EXPECT_EQ(pool->arg(0).as_node(), m.x);
  EXPECT_EQ(pool->arg("padding").to_int_vector(), (Ints{1, 1}));
  EXPECT_TRUE(pool->arg("count_include_pad").as_bool());
  EXPECT_EQ(pool->spec().shape, m.x->spec().shape);
  EXPECT_FALSE(PadFolding().run(m.p).modified);
}

TEST(PadFolding, ZeroPadAddsToAConvolutionsPadding) {
  Model m;
  ir::Node* w =
      testing::param(m.p, "w", testing::float_tensor({2, 3, 3, 3}, std::vector<float>(54, 1)));
  ir::Node* pad = m.pad({2, 2, 1, 1}, 0.0);
  ir::Node* conv = testing::call(
      m.p, "aten::convolution",
      {pad, w, nullptr, Ints{1, 1}, Ints{1, 0}, Ints{1, 1}, false, Ints{0, 0}, 1}, "conv");
  testing::output(m.p, {conv});
  EXPECT_TRUE(PadFolding().run(m.p).modified);
  EXPECT_EQ(conv->arg(0).as_node(), m.x);
  EXPECT_EQ(conv->arg("padding").to_int_vector(), (Ints{2, 2}));
  EXPECT_EQ(calls(m.p), std::vector<std::string>{"conv(aten::convolution)"});
}

TEST(PadFolding, MinusInfinityPadFoldsIntoMaxPoolWhoseIndicesAreUnused) {
  for (const bool indices_used : {false, true}) {
    Model m;
    ir::Node* pad = m.pad({1, 1, 1, 1}, kNegInf);
    ir::Node* pool =
        testing::call(m.p, "aten::max_pool2d_with_indices", {pad, Ints{3, 3}, Ints{2, 2}}, "pool");
    ir::Node* values = testing::call(m.p, "getitem", {pool, 0}, "values");
    std::vector<ir::Node*> outs = {values};
    if (indices_used) outs.push_back(testing::call(m.p, "getitem", {pool, 1}, "indices"));
    testing::output(m.p, outs);
    EXPECT_EQ(PadFolding().run(m.p).modified, !indices_used);
    EXPECT_EQ(pool->arg(0).as_node() == m.x, !indices_used);
  }
}

TEST(PadFolding, PadsThatCannotFoldStay) {
  struct Case {
    const char* why;
    Ints pads;
    double value;
    const char* op;
  };
  const std::vector<Case> cases = {
      {"asymmetric", {0, 1, 0, 1}, 0.0, "aten::avg_pool2d"},
      {"channel dim", {1, 1, 1, 1, 1, 1}, 0.0, "aten::avg_pool2d"},
      {"non-zero value", {1, 1, 1, 1}, 0.5, "aten::avg_pool2d"},
      {"zero pad before a max pool", {1, 1, 1, 1}, 0.0, "aten::max_pool2d_with_indices"},
      {"more than half the kernel", {2, 2, 2, 2}, 0.0, "aten::avg_pool2d"},
      {"an op that takes no padding", {1, 1, 1, 1}, 0.0, "aten::relu"},
  };
  for (const Case& c : cases) {
    Model m;
    ir::Node* pad = m.pad(c.pads, c.value);
    ir::Node* y = std::string(c.op) == "aten::relu"
                      ? testing::call(m.p, c.op, {pad}, "y")
                      : testing::call(m.p, c.op, {pad, Ints{3, 3}, Ints{1, 1}}, "y");
    if (y->is_op("aten::max_pool2d_with_indices")) y = testing::call(m.p, "getitem", {y, 0});
    testing::output(m.p, {y});
    EXPECT_FALSE(PadFolding().run(m.p).modified) << c.why;
  }
  // A pad read twice, or returned, stays.
  Model m;
  ir::Node* pad = m.pad({1, 1, 1, 1}, 0.0);
  ir::Node* pool =
      testing::call(m.p, "aten::avg_pool2d", {pad, Ints{3, 3}, Ints{1, 1}, Ints{0, 0}}, "pool");
  testing::output(m.p, {pool, pad});
  EXPECT_FALSE(PadFolding().run(m.p).modified);
}

}  // namespace
}  // namespace ptec::passes
