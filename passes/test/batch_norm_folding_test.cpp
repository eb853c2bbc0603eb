#include <gtest/gtest.h>

#include <cmath>

#include "passes/batch_norm_folding.h"
#include "passes/pass_manager.h"
#include "passes/test/test_graphs.h"

namespace ptec::passes {
namespace {

using testing::calls;
using testing::ConvBnReluAdd;
using testing::floats_of;

TEST(BatchNormFolding, RewritesConvBnIntoOneConvolution) {
  ConvBnReluAdd model;
  ir::ExportedProgram& p = model.program;
  EXPECT_EQ(calls(p), (std::vector<std::string>{
                          "convolution(aten::convolution)",
                          "_native_batch_norm_legit_no_training(aten::_native_batch_norm_legit_"
                          "no_training)",
                          "getitem(getitem)", "relu(aten::relu)", "add(aten::add.Tensor)"}));
  const int64_t conv_handle = p.graph().get("convolution").debug_handle();

  EXPECT_TRUE(BatchNormFolding().run(p).modified);
  EXPECT_EQ(calls(p), (std::vector<std::string>{"convolution(aten::convolution)",
                                                "relu(aten::relu)", "add(aten::add.Tensor)"}));
  const ir::Node& conv = p.graph().get("convolution");
  EXPECT_EQ(conv.debug_handle(), conv_handle);
  EXPECT_EQ(p.graph().get("relu").arg(0).as_node(), &conv);
  // The old parameters are gone from the graph, the signature and the state_dict.
  for (const char* old :
       {"conv.weight", "conv.bias", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"}) {
    EXPECT_EQ(p.state_dict().count(old), 0u) << old;
    EXPECT_EQ(p.graph().find(old), nullptr) << old;
  }
  ASSERT_EQ(p.signature().inputs.size(), 3u);
  EXPECT_EQ(p.signature().inputs[0].kind, ir::InputKind::Parameter);
  EXPECT_EQ(p.signature().inputs[1].kind, ir::InputKind::Parameter);
  EXPECT_EQ(p.signature().inputs[2].name, "x");
  EXPECT_EQ(p.state_dict().size(), 2u);
  // Placeholders and signature agree on the order.
  const std::vector<ir::Node*> placeholders = p.graph().placeholders();
  ASSERT_EQ(placeholders.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(placeholders[i]->name(), p.signature().inputs[i].name);
  verify_program(p);
  EXPECT_FALSE(BatchNormFolding().run(p).modified);
}

TEST(BatchNormFolding, FoldedParametersMatchHandComputedValues) {
  ConvBnReluAdd model;
  ir::ExportedProgram& p = model.program;
  ASSERT_TRUE(BatchNormFolding().run(p).modified);
  const ir::Node& conv = p.graph().get("convolution");
  const ir::TensorData* w = p.constant_for_placeholder(conv.arg("weight").as_node()->name());
  const ir::TensorData* b = p.constant_for_placeholder(conv.arg("bias").as_node()->name());
  ASSERT_TRUE(w && b);
  EXPECT_EQ(w->spec.upper_bound_sizes(), (std::vector<int64_t>{2, 2, 1, 1}));
  // s = gamma / sqrt(var + eps): 1.5 / sqrt(4 + 1e-5) and 0.5 / sqrt(0.25 + 1e-5).
  const double s0 = 1.5 / std::sqrt(4.0 + 1e-5);
  const double s1 = 0.5 / std::sqrt(0.25 + 1e-5);
  const std::vector<float> expected_w = {
      static_cast<float>(0.5 * s0), static_cast<float>(-1.0 * s0), static_cast<float>(2.0 * s1),
      static_cast<float>(0.25 * s1)};
  const std::vector<float> expected_b = {static_cast<float>((0.1 - 0.2) * s0 + 0.3),
                                         static_cast<float>((-0.2 + 0.1) * s1 - 0.4)};
  const std::vector<float> got_w = floats_of(*w);
  const std::vector<float> got_b = floats_of(*b);
  for (size_t i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(got_w[i], expected_w[i]) << i;
  for (size_t i = 0; i < 2; ++i) EXPECT_FLOAT_EQ(got_b[i], expected_b[i]) << i;

  // The folded conv computes what conv + bn computed: check on one input by hand.
  const std::vector<float> x = {1, -2, 3, 0.5f, -1, 4, 0, 2};
  for (int c = 0; c < 2; ++c) {
    for (int hw = 0; hw < 4; ++hw) {
      const double folded = got_w[c * 2] * x[hw] + got_w[c * 2 + 1] * x[4 + hw] + got_b[c];
      const double conv_v = model.w[c * 2] * x[hw] + model.w[c * 2 + 1] * x[4 + hw] + model.b[c];
      const double bn =
          (conv_v - model.mean[c]) / std::sqrt(model.var[c] + model.eps) * model.gamma[c] +
          model.beta[c];
      EXPECT_NEAR(folded, bn, 1e-5);
    }
  }
}

TEST(BatchNormFolding, OriginalPayloadsAreNeverWritten) {
  ConvBnReluAdd model;
  const ir::ExportedProgram before(model.program);  // shares the Buffers
  const std::vector<float> w_before = floats_of(before.state_dict().at("conv.weight"));
  ASSERT_TRUE(BatchNormFolding().run(model.program).modified);
  EXPECT_EQ(floats_of(before.state_dict().at("conv.weight")), w_before);
  EXPECT_EQ(before.state_dict().size(), 6u);
}

TEST(BatchNormFolding, LeavesConvWithOtherUsersAlone) {
  ConvBnReluAdd model;
  ir::ExportedProgram& p = model.program;
  // A second user of the convolution: folding would change what it sees.
  ir::Node* extra = testing::call(p, "aten::relu", {&p.graph().get("convolution")}, "extra");
  testing::output(p, {&p.graph().get("add"), extra});
  EXPECT_FALSE(BatchNormFolding().run(p).modified);
  EXPECT_EQ(p.state_dict().size(), 6u);
}

}  // namespace
}  // namespace ptec::passes
