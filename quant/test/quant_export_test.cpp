// The quantized cpu recipes through ptec::export_model: the QUANTIZE stage calibrates on
// ExportOptions.calibration_inputs (default: the example inputs), the result is lowered to
// PtecCpuBackend and runs close to the fp32 program.

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "devtools/reference/reference_runner.h"
#include "export/export_session.h"
#include "export/recipe_registry.h"
#include "frontends/builder/graph_builder.h"
#include "ir/exception.h"
#include "quant/quantize.h"

namespace ptec {
namespace {

using builder::Value;

ir::TensorData random_tensor(const std::vector<int64_t>& sizes, std::mt19937& rng,
                             float scale = 1.0f) {
  std::normal_distribution<float> n(0.f, scale);
  int64_t count = 1;
  for (int64_t s : sizes) count *= s;
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = n(rng);
  return {ir::TensorSpec(DType::Float, sizes),
          ir::Buffer::copy_of(v.data(), v.size() * sizeof(float))};
}

// conv(3→16) + bias → relu → conv(16→16, depthwise) + bias → relu → mean → linear(16→10).
ir::ExportedProgram cnn() {
  std::mt19937 rng(11);
  builder::GraphBuilder b("cnn");
  Value x = b.input("x", DType::Float, {1, 3, 16, 16});
  Value w1 = b.parameter("c1.weight", random_tensor({16, 3, 3, 3}, rng, 0.3f));
  Value b1 = b.parameter("c1.bias", random_tensor({16}, rng, 0.1f));
  Value w2 = b.parameter("c2.weight", random_tensor({16, 1, 3, 3}, rng, 0.3f));
  Value b2 = b.parameter("c2.bias", random_tensor({16}, rng, 0.1f));
  Value fw = b.parameter("fc.weight", random_tensor({10, 16}, rng, 0.3f));
  Value fb = b.parameter("fc.bias", random_tensor({10}, rng, 0.1f));
  Value h = b.relu(b.conv2d(x, w1, b1, {1, 1}, {1, 1}));
  h = b.relu(b.conv2d(h, w2, b2, {1, 1}, {1, 1}, {1, 1}, 16));
  b.output({b.linear(b.mean(h, {2, 3}), fw, fb)});
  return b.build();
}

std::vector<InputSet> inputs(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<InputSet> out;
  for (size_t i = 0; i < n; ++i) out.push_back({random_tensor({1, 3, 16, 16}, rng)});
  return out;
}

size_t count_op(const ir::ExportedProgram& p, const std::string& target) {
  size_t n = 0;
  for (const ir::Node* node : p.graph().nodes()) n += node->is_op(target) ? 1 : 0;
  return n;
}

class QuantRecipe : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantRecipe, ExportsRunsAndStaysClose) {
  const ir::ExportedProgram fp = cnn();
  ExportOptions options;
  options.calibration_inputs["forward"] = inputs(8, 5);
  const ExportRecipe recipe = RecipeRegistry::instance().create_recipe(GetParam());
  ExportSession s = export_model(fp, inputs(1, 6), recipe, options);
  ASSERT_EQ(s.pipeline().front(), StageType::Quantize);
  const ir::ExportedProgram& q = s.get_exported_program();
  EXPECT_GT(count_op(q, "quantized_decomposed::dequantize_per_channel") +
                count_op(q, "quantized_decomposed::dequantize_per_tensor"),
            0u);
  EXPECT_EQ(q.provenance().back().stage, "quantize");
  EXPECT_NE(q.provenance().back().detail.find("calibrated on 8 input set(s)"), std::string::npos)
      << q.provenance().back().detail;
  devtools::ReferenceRunner reference(fp);
  for (const InputSet& in : inputs(3, 7)) {
    const double db = quant::sqnr_db(reference.run(in)[0], s.run_method("forward", in)[0]);
    EXPECT_GT(db, 20.0) << GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, QuantRecipe,
                         ::testing::Values("cpu_int8_static_per_channel",
                                           "cpu_int8_static_per_tensor",
                                           "cpu_int8_dynamic_per_channel", "x86_64-cpu-int8"));

TEST(QuantRecipe, CalibratesOnTheExampleInputsByDefault) {
  const ExportRecipe recipe =
      RecipeRegistry::instance().create_recipe("cpu_int8_dynamic_per_channel");
  ExportSession s = export_model(cnn(), inputs(2, 8), recipe);
  EXPECT_NE(
      s.get_exported_program().provenance().back().detail.find("calibrated on 2 input set(s)"),
      std::string::npos);
  EXPECT_EQ(count_op(s.get_exported_program(), "quantized_decomposed::choose_qparams.tensor"), 3u);
}

TEST(QuantRecipe, Int4GroupSizeReachesTheQuantizer) {
  // A linear layer with K = 64: group_size 16 → 4 groups per row; 48 does not divide K.
  std::mt19937 rng(3);
  builder::GraphBuilder b("linear");
  Value x = b.input("x", DType::Float, {2, 64});
  Value w = b.parameter("w", random_tensor({8, 64}, rng, 0.2f));
  b.output({b.linear(x, w)});
  const ir::ExportedProgram fp = b.build();
  std::vector<InputSet> in = {{random_tensor({2, 64}, rng)}};
  RecipeRegistry& r = RecipeRegistry::instance();
  ExportSession s = export_model(
      fp, in, r.create_recipe("cpu_int4_weight_per_group", {{"group_size", int64_t{16}}}));
  const ir::ExportedProgram& q = s.get_exported_program();
  ASSERT_EQ(count_op(q, "quantized_decomposed::dequantize_per_channel"), 1u);
  for (const ir::Node* n : q.graph().nodes()) {
    if (n->is_op("quantized_decomposed::dequantize_per_channel")) {
      EXPECT_EQ(n->arg(1).as_node()->spec().numel_upper_bound(), 8 * 4);
    }
  }
  EXPECT_GT(quant::sqnr_db(devtools::run_reference(fp, in[0])[0], s.run_method()[0]), 12.0);
  ExportSession none = export_model(
      fp, in, r.create_recipe("cpu_int4_weight_per_group", {{"group_size", int64_t{48}}}));
  EXPECT_EQ(count_op(none.get_exported_program(), "quantized_decomposed::dequantize_per_channel"),
            0u);
}

TEST(QuantRecipe, EdgeProgramCannotBeQuantized) {
  ExportSession first =
      export_model(cnn(), inputs(1, 9), RecipeRegistry::instance().create_recipe("portable"));
  const ir::ExportedProgram edge = first.get_edge_program_manager().exported_program("forward");
  try {
    (void)export_model(edge, inputs(1, 9),
                       RecipeRegistry::instance().create_recipe("cpu_int8_static_per_channel"));
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("QUANTIZE"), std::string::npos) << msg;
    EXPECT_NE(msg.find("EDGE"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace ptec
