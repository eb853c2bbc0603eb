// GroupNormFusion: the reshape / instance norm / reshape / mul / add that ONNX exporters write for
// torch.nn.GroupNorm becomes one group norm over the channels; what it must leave alone. The
// numbers: tests/models' gn_block model against PyTorch.

#include <gtest/gtest.h>

#include "passes/group_norm_fusion.h"
#include "passes/test/test_graphs.h"

namespace ptec::passes {
namespace {

using testing::calls;
using Ints = std::vector<int64_t>;

// x [2, 6, 3, 4] in 3 groups: view [2, 3, 24], instance norm (weight ones, bias zeros), view
// back, then mul by gamma [6, 1, 1] and add beta [6, 1, 1] (each optional).
struct Model {
  ir::ExportedProgram p;
  ir::Node* x = nullptr;
  ir::Node* view = nullptr;
  ir::Node* norm = nullptr;
  ir::Node* values = nullptr;
  ir::Node* back = nullptr;
  ir::Node* gamma = nullptr;
  ir::Node* beta = nullptr;
  ir::Node* tail = nullptr;

  explicit Model(bool affine = true, float instance_weight = 1.0f) {
    x = testing::input(p, "x", ir::TensorSpec(DType::Float, Ints{2, 6, 3, 4}));
    ir::Node* w = testing::param(p, "ones", testing::float_tensor({3}, {instance_weight, 1, 1}));
    ir::Node* b = testing::param(p, "zeros", testing::float_tensor({3}, {0, 0, 0}));
    view = testing::call(p, "aten::view_copy", {x, Ints{2, 3, 24}}, "view");
    norm =
        testing::call(p, "aten::native_group_norm",
                      {view, w, b, int64_t{2}, int64_t{3}, int64_t{24}, int64_t{3}, 1e-5}, "norm");
    values = testing::call(p, "getitem", {norm, int64_t{0}}, "values");
    back = testing::call(p, "aten::view_copy", {values, Ints{2, 6, 3, 4}}, "back");
    tail = back;
    if (affine) {
      gamma = testing::param(p, "gamma", testing::float_tensor({6, 1, 1}, {1, 2, 3, 4, 5, 6}));
      beta = testing::param(p, "beta", testing::float_tensor({6, 1, 1}, {6, 5, 4, 3, 2, 1}));
      tail = testing::call(p, "aten::mul.Tensor", {tail, gamma}, "mul");
      tail = testing::call(p, "aten::add.Tensor", {beta, tail}, "add");  // beta first
    }
    ir::Node* act = testing::call(p, "aten::relu", {tail}, "relu");
    testing::output(p, {act});
  }
};

TEST(GroupNormFusion, ReshapedInstanceNormAndAffineBecomeOneGroupNorm) {
  Model m;
  EXPECT_TRUE(GroupNormFusion().run(m.p).modified);
  EXPECT_EQ(calls(m.p), (std::vector<std::string>{"norm(aten::native_group_norm)",
                                                  "values(getitem)", "relu(aten::relu)"}));
  EXPECT_EQ(m.norm->arg(0).as_node(), m.x);
  EXPECT_EQ(m.norm->arg(4).as_int(), 6);   // C
  EXPECT_EQ(m.norm->arg(5).as_int(), 12);  // HxW
  EXPECT_EQ(m.norm->arg(6).as_int(), 3);   // groups
  EXPECT_EQ(m.values->spec().upper_bound_sizes(), (Ints{2, 6, 3, 4}));
  EXPECT_EQ(m.norm->meta().val[1].upper_bound_sizes(), (Ints{2, 3}));
  // gamma and beta as [6], sharing the constants' bytes; the unused constants are gone.
  const ir::Node* weight = m.norm->arg(1).as_node();
  const ir::TensorData* w = m.p.constant_for_placeholder(weight->name());
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->spec.upper_bound_sizes(), (Ints{6}));
  EXPECT_EQ(testing::floats_of(*w), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(testing::floats_of(*m.p.constant_for_placeholder(m.norm->arg(2).as_node()->name())),
            (std::vector<float>{6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(m.p.state_dict().count("ones"), 0u);
  EXPECT_EQ(m.p.state_dict().count("gamma"), 0u);
}

TEST(GroupNormFusion, WithoutAffineTheNormHasNoWeightOrBias) {
  Model m(/*affine=*/false);
  EXPECT_TRUE(GroupNormFusion().run(m.p).modified);
  EXPECT_EQ(calls(m.p), (std::vector<std::string>{"norm(aten::native_group_norm)",
                                                  "values(getitem)", "relu(aten::relu)"}));
  EXPECT_TRUE(m.norm->arg(1).is_none());
  EXPECT_TRUE(m.norm->arg(2).is_none());
}

TEST(GroupNormFusion, LeavesAnInstanceNormWithItsOwnScale) {
  Model m(/*affine=*/true, /*instance_weight=*/2.0f);
  EXPECT_FALSE(GroupNormFusion().run(m.p).modified);
  EXPECT_EQ(calls(m.p).size(), 7u);
}

TEST(GroupNormFusion, LeavesAReshapeAnotherNodeReads) {
  Model m;
  ir::Node* relu = m.p.graph().outputs()[0];
  testing::output(m.p, {relu, m.view});  // the [N, G, M] view is a program output
  EXPECT_FALSE(GroupNormFusion().run(m.p).modified);
  Model n;
  ir::Node* other = testing::call(n.p, "aten::neg", {n.values}, "neg");  // the per-group values
  testing::output(n.p, {n.p.graph().outputs()[0], other});
  EXPECT_FALSE(GroupNormFusion().run(n.p).modified);
}

TEST(GroupNormFusion, AnOutputViewBackIsReplacedByTheValues) {
  Model m;
  ir::Node* relu = m.p.graph().outputs()[0];
  testing::output(m.p, {relu, m.back});  // the affine is not taken: back has two readers
  EXPECT_TRUE(GroupNormFusion().run(m.p).modified);
  EXPECT_EQ(m.p.graph().outputs()[1], m.values);
  EXPECT_EQ(m.p.signature().outputs[1].name, m.values->name());
  EXPECT_TRUE(m.norm->arg(1).is_none());
}

TEST(GroupNormFusion, StopsBeforeAnAffineThatIsNotPerChannel) {
  ir::ExportedProgram p;
  ir::Node* x = testing::input(p, "x", ir::TensorSpec(DType::Float, Ints{1, 4, 2, 2}));
  ir::Node* view = testing::call(p, "aten::view_copy", {x, Ints{1, 2, 8}}, "view");
  ir::Node* norm = testing::call(
      p, "aten::native_group_norm",
      {view, ir::Argument(), ir::Argument(), int64_t{1}, int64_t{2}, int64_t{8}, int64_t{2}, 1e-5},
      "norm");
  ir::Node* values = testing::call(p, "getitem", {norm, int64_t{0}}, "values");
  ir::Node* back = testing::call(p, "aten::view_copy", {values, Ints{1, 4, 2, 2}}, "back");
  ir::Node* scale = testing::param(p, "scale", testing::float_tensor({2, 2}, {1, 2, 3, 4}));
  ir::Node* mul = testing::call(p, "aten::mul.Tensor", {back, scale}, "mul");  // per position
  testing::output(p, {mul});
  EXPECT_TRUE(GroupNormFusion().run(p).modified);
  EXPECT_EQ(calls(p), (std::vector<std::string>{"norm(aten::native_group_norm)", "values(getitem)",
                                                "mul(aten::mul.Tensor)"}));
  EXPECT_EQ(mul->arg(0).as_node(), values);
  EXPECT_TRUE(norm->arg(1).is_none());
}

}  // namespace
}  // namespace ptec::passes
