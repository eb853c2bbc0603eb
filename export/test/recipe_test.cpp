// ExportRecipe::combine: every field merged in order, conflicts named by field, the empty list
// refused, one recipe returned as is.

#include <gtest/gtest.h>

#include "export/export_stage.h"
#include "export/recipe.h"
#include "ir/exception.h"

namespace ptec {
namespace {

class NamedPartitioner final : public partition::Partitioner {
 public:
  explicit NamedPartitioner(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  partition::PartitionResult partition(const ir::ExportedProgram&,
                                       const partition::PartitionContext&) const override {
    return {};
  }

 private:
  std::string name_;
};

class NamedPass final : public passes::Pass {
 public:
  explicit NamedPass(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  passes::PassResult run(ir::ExportedProgram&) override { return {}; }

 private:
  std::string name_;
};

class NamedQuantizer final : public Quantizer {
 public:
  explicit NamedQuantizer(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  ir::ExportedProgram quantize(const ir::ExportedProgram& program, const std::vector<InputSet>&,
                               const CalibrationSettings&) const override {
    return program;
  }

 private:
  std::string name_;
};

// A stage implementation of `type` that passes its input through.
class NamedStage final : public ExportStage {
 public:
  explicit NamedStage(StageType type) : type_(type) {}
  StageType type() const override { return type_; }
  bool can_start() const override { return true; }
  std::vector<ir::Stage> start_program_stages() const override { return {ir::Stage::Aten}; }
  std::vector<StageType> valid_predecessors() const override { return {}; }
  PipelineArtifact run(const PipelineArtifact& in, const StageContext&) const override {
    return in;
  }

 private:
  StageType type_;
};

std::string error_of(const std::function<void()>& f, Error* code = nullptr) {
  try {
    f();
  } catch (const Exception& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

TEST(ExportRecipeCombine, EmptyListIsAnError) {
  Error code = Error::Ok;
  const std::string msg = error_of([] { (void)ExportRecipe::combine({}, "target"); }, &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_NE(msg.find("'target'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("empty"), std::string::npos) << msg;
}

TEST(ExportRecipeCombine, OneRecipeIsReturnedAsIs) {
  ExportRecipe r;
  r.name = "only";
  r.lowering.partitioners.push_back(std::make_shared<NamedPartitioner>("p"));
  r.backend_config.alignment = 64;
  const ExportRecipe out = ExportRecipe::combine({r}, "other_name");
  EXPECT_EQ(out.name, "only");
  ASSERT_EQ(out.lowering.partitioners.size(), 1u);
  EXPECT_EQ(out.lowering.partitioners[0], r.lowering.partitioners[0]);
  EXPECT_EQ(out.backend_config.alignment, 64u);
}

TEST(ExportRecipeCombine, KeepsEveryFieldInOrder) {
  auto p1 = std::make_shared<NamedPartitioner>("p1");
  auto p2 = std::make_shared<NamedPartitioner>("p2");
  auto pass1 = std::make_shared<NamedPass>("pass1");
  auto pass2 = std::make_shared<NamedPass>("pass2");
  auto q1 = std::make_shared<NamedQuantizer>("q1");
  auto q2 = std::make_shared<NamedQuantizer>("q2");

  ExportRecipe a;
  a.name = "a";
  a.quantization.quantizers = {q1};
  a.quantization.calibration.max_samples = 4;
  a.lowering.partitioners = {p1};
  a.lowering.edge_transform_passes = {pass1};
  a.lowering.edge_compile_config.preserve_ops = {"aten::linear"};
  a.backend_config.alignment = 64;
  a.backend_config.memory_planning_per_method = {{"forward", emit::MemoryPlanning::Naive}};
  a.pipeline_stages = {StageType::ToEdge, StageType::ToBackend, StageType::ToExecutorch};

  ExportRecipe b;
  b.name = "b";
  b.quantization.quantizers = {q2};
  b.lowering.partitioners = {p2};
  b.lowering.edge_transform_passes = {pass2};
  b.lowering.edge_compile_config.preserve_ops = {"aten::linear", "aten::gelu"};
  b.lowering.edge_compile_config.check_ir_validity = false;
  b.backend_config.external_constants = true;
  b.backend_config.memory_planning = emit::MemoryPlanning::Naive;
  b.backend_config.memory_planning_per_method = {{"decode", emit::MemoryPlanning::Naive}};
  b.backend_config.extract_delegate_segments = false;

  const ExportRecipe out = ExportRecipe::combine({a, b}, "ab");
  EXPECT_EQ(out.name, "ab");
  ASSERT_EQ(out.quantization.quantizers.size(), 2u);
  EXPECT_EQ(out.quantization.quantizers[0], q1);
  EXPECT_EQ(out.quantization.quantizers[1], q2);
  EXPECT_EQ(out.quantization.calibration.max_samples, 4u);
  ASSERT_EQ(out.lowering.partitioners.size(), 2u);
  EXPECT_EQ(out.lowering.partitioners[0], p1);
  EXPECT_EQ(out.lowering.partitioners[1], p2);
  ASSERT_EQ(out.lowering.edge_transform_passes.size(), 2u);
  EXPECT_EQ(out.lowering.edge_transform_passes[0], pass1);
  EXPECT_EQ(out.lowering.edge_transform_passes[1], pass2);
  EXPECT_EQ(out.lowering.edge_compile_config.preserve_ops,
            (std::vector<std::string>{"aten::linear", "aten::gelu"}));
  EXPECT_FALSE(out.lowering.edge_compile_config.check_ir_validity);
  EXPECT_EQ(out.backend_config.alignment, 64u);
  EXPECT_TRUE(out.backend_config.external_constants);
  EXPECT_EQ(out.backend_config.memory_planning, emit::MemoryPlanning::Naive);
  EXPECT_EQ(out.backend_config.memory_planning_per_method.size(), 2u);
  EXPECT_FALSE(out.backend_config.extract_delegate_segments);
  EXPECT_EQ(out.pipeline_stages, a.pipeline_stages);
}

TEST(ExportRecipeCombine, ConflictsNameTheFieldAndBothRecipes) {
  ExportRecipe a;
  a.name = "a";
  ExportRecipe b;
  b.name = "b";

  a.backend_config.alignment = 32;
  b.backend_config.alignment = 64;
  Error code = Error::Ok;
  std::string msg = error_of([&] { (void)ExportRecipe::combine({a, b}, "ab"); }, &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_NE(msg.find("backend_config.alignment"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'a'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'b'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("64"), std::string::npos) << msg;

  // The same value twice is no conflict.
  b.backend_config.alignment = 32;
  EXPECT_EQ(ExportRecipe::combine({a, b}, "ab").backend_config.alignment, 32u);

  a.pipeline_stages = {StageType::ToEdgeTransformAndLower, StageType::ToExecutorch};
  b.pipeline_stages = {StageType::ToEdge, StageType::ToExecutorch};
  msg = error_of([&] { (void)ExportRecipe::combine({a, b}, "ab"); });
  EXPECT_NE(msg.find("field pipeline_stages"), std::string::npos) << msg;
  b.pipeline_stages.clear();

  a.quantization.calibration.max_samples = 8;
  b.quantization.calibration.max_samples = 16;
  msg = error_of([&] { (void)ExportRecipe::combine({a, b}, "ab"); });
  EXPECT_NE(msg.find("quantization.calibration"), std::string::npos) << msg;
  b.quantization.calibration.max_samples = 0;

  a.backend_config.memory_planning_per_method = {{"forward", emit::MemoryPlanning::Naive}};
  b.backend_config.memory_planning_per_method = {{"forward", emit::MemoryPlanning::Greedy}};
  msg = error_of([&] { (void)ExportRecipe::combine({a, b}, "ab"); });
  EXPECT_NE(msg.find("memory_planning_per_method[forward]"), std::string::npos) << msg;
}

TEST(ExportRecipeCombine, StageImplementationsAreUnitedByTypeAndConflictsNamed) {
  auto compile = std::make_shared<NamedStage>(StageType::EngineCompile);
  auto lower = std::make_shared<NamedStage>(StageType::ToEdgeTransformAndLower);
  ExportRecipe a;
  a.name = "a";
  a.stages = {compile};
  ExportRecipe b;
  b.name = "b";
  b.stages = {compile, lower};  // the same ENGINE_COMPILE object: no conflict
  const ExportRecipe out = ExportRecipe::combine({a, b}, "ab");
  ASSERT_EQ(out.stages.size(), 2u);
  EXPECT_EQ(out.stages[0], compile);
  EXPECT_EQ(out.stages[1], lower);

  // Another implementation of ENGINE_COMPILE conflicts, naming the field and both recipes.
  b.stages = {std::make_shared<NamedStage>(StageType::EngineCompile)};
  Error code = Error::Ok;
  std::string msg = error_of([&] { (void)ExportRecipe::combine({a, b}, "ab"); }, &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_NE(msg.find("field stages[ENGINE_COMPILE]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'a'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'b'"), std::string::npos) << msg;

  // Two implementations of one type in one recipe, and a null stage.
  b.stages = {lower, std::make_shared<NamedStage>(StageType::ToEdgeTransformAndLower)};
  msg = error_of([&] { (void)ExportRecipe::combine({a, b}, "ab"); });
  EXPECT_NE(
      msg.find("recipe 'b' has two implementations of field stages[TO_EDGE_TRANSFORM_AND_LOWER]"),
      std::string::npos)
      << msg;
  b.stages = {nullptr};
  msg = error_of([&] { (void)ExportRecipe::combine({a, b}, "ab"); });
  EXPECT_NE(msg.find("recipe 'b' has a null stage"), std::string::npos) << msg;
}

TEST(StageTypeNames, AreTheIssueNames) {
  std::vector<std::string> names;
  for (StageType t : all_stage_types()) names.emplace_back(to_string(t));
  EXPECT_EQ(names,
            (std::vector<std::string>{"QUANTIZE", "ENGINE_COMPILE", "TO_EDGE_TRANSFORM_AND_LOWER",
                                      "TO_EDGE", "EDGE_TRANSFORM", "TO_BACKEND", "TO_EXECUTORCH"}));
}

}  // namespace
}  // namespace ptec
