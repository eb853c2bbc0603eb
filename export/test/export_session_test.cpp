// ptec::export_model / ExportSession: default pipelines per input kind, refused start stages and
// transitions, getters before their stage, a two-method map, a LOWERED program that is not
// lowered again (counted preprocess calls), replacement stages, a failed re-run, .pte/.ptd
// files, ETRecord, the cpu recipe and an ONNX file.

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <sstream>

#include "export/export_session.h"
#include "export/recipe_registry.h"
#include "ir/exception.h"
#include "program/to_edge.h"
#include "tests/delegate/nested_backend.h"
#include "tests/delegate/test_models.h"

namespace ptec {
namespace {

namespace fs = std::filesystem;
using test::float_tensor;

constexpr const char* kCountingBackendId = "PtecCountingNestedBackend";

// The nested test backend under its own id, counting preprocess calls.
class CountingBackend final : public partition::Backend {
 public:
  std::string id() const override { return kCountingBackendId; }
  partition::PreprocessResult preprocess(
      const ir::ExportedProgram& subgraph,
      const std::vector<partition::CompileSpec>& compile_specs) const override {
    ++preprocess_calls;
    return test::NestedProgramBackend().preprocess(subgraph, compile_specs);
  }
  mutable std::atomic<int> preprocess_calls{0};
};

CountingBackend& counting_backend() {
  static CountingBackend* backend = [] {
    test::register_nested_backend();
    auto b = std::make_shared<CountingBackend>();
    partition::register_backend(b);
    static test::NestedProgramRuntime runtime_half;
    EXPECT_EQ(runtime::register_backend({kCountingBackendId, &runtime_half}), Error::Ok);
    return b.get();  // the registry keeps it alive
  }();
  return *backend;
}

// Delegates every aten::mul.Tensor group to the counting backend; counts partition calls.
class CountingPartitioner final : public partition::Partitioner {
 public:
  std::string name() const override { return "counting_partitioner"; }
  partition::PartitionResult partition(const ir::ExportedProgram& program,
                                       const partition::PartitionContext& context) const override {
    ++calls;
    partition::PartitionResult r = inner_.partition(program, context);
    for (auto& [tag, spec] : r.partition_tags) spec.backend_id = kCountingBackendId;
    return r;
  }
  mutable int calls = 0;

 private:
  test::OpSetPartitioner inner_{{"aten::mul.Tensor"}};
};

// Returns the program unchanged, with a provenance step; records what it was given.
class FakeQuantizer final : public Quantizer {
 public:
  std::string name() const override { return "fake_quantizer"; }
  ir::ExportedProgram quantize(const ir::ExportedProgram& program,
                               const std::vector<InputSet>& calibration,
                               const CalibrationSettings&) const override {
    calibration_sizes.push_back(calibration.size());
    ir::ExportedProgram out = program;
    out.provenance().push_back({"quantize", "fake"});
    return out;
  }
  mutable std::vector<size_t> calibration_sizes;
};

class CountingPass final : public passes::Pass {
 public:
  std::string name() const override { return "counting_pass"; }
  passes::PassResult run(ir::ExportedProgram&) override {
    ++runs;
    return {};
  }
  int runs = 0;
};

ExportRecipe counting_recipe(std::shared_ptr<CountingPartitioner> partitioner) {
  counting_backend();
  ExportRecipe r;
  r.name = "counting";
  r.lowering.partitioners.push_back(std::move(partitioner));
  return r;
}

ExportRecipe portable() { return RecipeRegistry::instance().create_recipe("portable"); }

const std::vector<float> kX = {1.0f, -2.0f, 3.0f, 0.5f, 4.0f, -1.0f};
InputSet two_mul_inputs(const std::vector<float>& x = kX) { return {float_tensor({2, 3}, x)}; }

// y = x + x, x: f32[4].
ir::ExportedProgram double_program() {
  builder::GraphBuilder b("double");
  builder::Value x = b.input("x", DType::Float, {4});
  b.output({b.call("aten::add.Tensor", {x, x}, {}, "y")});
  return b.build();
}

std::vector<float> values(const ir::TensorData& t) {
  std::vector<float> v(t.data->size() / sizeof(float));
  std::memcpy(v.data(), t.data->data(), v.size() * sizeof(float));
  return v;
}

std::vector<std::string> timing_names(const ExportSession& s) {
  std::vector<std::string> names;
  for (const StageTiming& t : s.stage_timings()) names.push_back(t.stage);
  return names;
}

std::string error_of(const std::function<void()>& f, Error* code = nullptr) {
  try {
    f();
  } catch (const Exception& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

using P = std::vector<StageType>;

TEST(ExportSession, DefaultPipelineForAnAtenProgram) {
  counting_backend();
  ExportSession s =
      export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, portable());
  EXPECT_EQ(s.pipeline(), (P{StageType::ToEdgeTransformAndLower, StageType::ToExecutorch}));
  EXPECT_EQ(timing_names(s),
            (std::vector<std::string>{"TO_EDGE_TRANSFORM_AND_LOWER", "TO_EXECUTORCH"}));
  EXPECT_EQ(s.get_exported_program().stage(), ir::Stage::Aten);
  EXPECT_EQ(s.get_edge_program_manager().methods(), (std::vector<std::string>{"forward"}));
  const std::vector<uint8_t> pte = s.get_pte_buffer();
  ASSERT_GT(pte.size(), 8u);
  EXPECT_EQ(std::string(pte.begin() + 4, pte.begin() + 8), "ET12");
  // run_method defaults to the first example input.
  const std::vector<ir::TensorData> out = s.run_method();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values(out[0]), test::two_mul_reference(kX));
  // Other inputs.
  const std::vector<float> x2 = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(values(s.run_method("forward", two_mul_inputs(x2))[0]), test::two_mul_reference(x2));
}

TEST(ExportSession, DefaultPipelineWithQuantizersStartsWithQuantize) {
  auto quantizer = std::make_shared<FakeQuantizer>();
  ExportRecipe recipe = portable();
  recipe.quantization.quantizers.push_back(quantizer);
  // Calibrates on the example inputs by default.
  ExportSession s = export_model(test::two_mul_program(),
                                 std::vector<InputSet>{two_mul_inputs(), two_mul_inputs()}, recipe);
  EXPECT_EQ(s.pipeline(),
            (P{StageType::Quantize, StageType::ToEdgeTransformAndLower, StageType::ToExecutorch}));
  EXPECT_EQ(quantizer->calibration_sizes, (std::vector<size_t>{2}));
  EXPECT_EQ(s.get_exported_program().provenance().back(), (ir::ProvenanceStep{"quantize", "fake"}));

  // Calibration inputs win; max_samples limits them.
  ExportOptions options;
  options.calibration_inputs["forward"] = {two_mul_inputs(), two_mul_inputs(), two_mul_inputs()};
  (void)export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, recipe,
                     options);
  EXPECT_EQ(quantizer->calibration_sizes.back(), 3u);
  recipe.quantization.calibration.max_samples = 1;
  (void)export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, recipe,
                     options);
  EXPECT_EQ(quantizer->calibration_sizes.back(), 1u);

  // Without any inputs there is nothing to calibrate on.
  const std::string msg =
      error_of([&] { (void)export_model(test::two_mul_program(), {}, recipe); });
  EXPECT_TRUE(contains(msg, "stage QUANTIZE")) << msg;
  EXPECT_TRUE(contains(msg, "calibration input")) << msg;
}

TEST(ExportSession, DefaultPipelineForAnEdgeProgram) {
  auto partitioner = std::make_shared<CountingPartitioner>();
  ExportRecipe recipe = counting_recipe(partitioner);
  const ir::ExportedProgram edge = program::to_edge(test::two_mul_program());
  ExportSession s = export_model(edge, std::vector<InputSet>{two_mul_inputs()}, recipe);
  EXPECT_EQ(s.pipeline(), (P{StageType::ToBackend, StageType::ToExecutorch}));
  EXPECT_EQ(partitioner->calls, 1);
  const auto info = s.delegation_info();
  EXPECT_EQ(info.at("forward").delegates.at(kCountingBackendId), 2u);
  EXPECT_EQ(values(s.run_method()[0]), test::two_mul_reference(kX));
  // No ATEN program: the getter says where the model came in.
  const std::string msg = error_of([&] { (void)s.get_exported_program(); });
  EXPECT_TRUE(contains(msg, "came in at stage EDGE")) << msg;

  // With transform passes, EDGE_TRANSFORM runs first.
  auto pass = std::make_shared<CountingPass>();
  recipe.lowering.edge_transform_passes.push_back(pass);
  ExportSession t = export_model(edge, std::vector<InputSet>{two_mul_inputs()}, recipe);
  EXPECT_EQ(t.pipeline(),
            (P{StageType::EdgeTransform, StageType::ToBackend, StageType::ToExecutorch}));
  EXPECT_EQ(pass->runs, 1);
}

TEST(ExportSession, LoweredProgramIsNotLoweredAgain) {
  auto partitioner = std::make_shared<CountingPartitioner>();
  const ExportRecipe recipe = counting_recipe(partitioner);
  CountingBackend& backend = counting_backend();
  const int before = backend.preprocess_calls;
  ExportSession first =
      export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, recipe);
  const int preprocessed = backend.preprocess_calls;
  EXPECT_EQ(preprocessed - before, 2);  // two mul partitions
  EXPECT_EQ(partitioner->calls, 1);
  const ir::ExportedProgram lowered = first.get_edge_program_manager().exported_program("forward");
  ASSERT_EQ(lowered.stage(), ir::Stage::Lowered);

  ExportSession second = export_model(lowered, std::vector<InputSet>{two_mul_inputs()}, recipe);
  EXPECT_EQ(second.pipeline(), (P{StageType::ToExecutorch}));
  EXPECT_EQ(backend.preprocess_calls, preprocessed);
  EXPECT_EQ(partitioner->calls, 1);
  EXPECT_EQ(second.delegation_info().at("forward").delegates.at(kCountingBackendId), 2u);
  EXPECT_EQ(values(second.run_method()[0]), test::two_mul_reference(kX));
}

TEST(ExportSession, ExplicitToEdgeToBackendToExecutorch) {
  auto partitioner = std::make_shared<CountingPartitioner>();
  ExportRecipe recipe = counting_recipe(partitioner);
  recipe.pipeline_stages = {StageType::ToEdge, StageType::ToBackend, StageType::ToExecutorch};
  ExportSession s =
      export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, recipe);
  EXPECT_EQ(timing_names(s), (std::vector<std::string>{"TO_EDGE", "TO_BACKEND", "TO_EXECUTORCH"}));
  EXPECT_EQ(partitioner->calls, 1);
  EXPECT_EQ(s.delegation_info().at("forward").delegates.at(kCountingBackendId), 2u);
  EXPECT_EQ(values(s.run_method()[0]), test::two_mul_reference(kX));
}

TEST(ExportSession, RefusesStagesThatCannotApply) {
  const std::vector<InputSet> inputs = {two_mul_inputs()};
  const ir::ExportedProgram edge = program::to_edge(test::two_mul_program());
  Error code = Error::Ok;

  // Quantizing an EDGE program.
  ExportRecipe quantizing = portable();
  quantizing.quantization.quantizers.push_back(std::make_shared<FakeQuantizer>());
  std::string msg = error_of([&] { (void)export_model(edge, inputs, quantizing); }, &code);
  EXPECT_EQ(code, Error::InvalidState);
  EXPECT_TRUE(contains(msg, "stage QUANTIZE cannot run on a program at stage EDGE")) << msg;

  // to_edge on a LOWERED program.
  auto partitioner = std::make_shared<CountingPartitioner>();
  const ir::ExportedProgram lowered =
      export_model(test::two_mul_program(), inputs, counting_recipe(partitioner))
          .get_edge_program_manager()
          .exported_program();
  ExportRecipe explicit_edge = portable();
  explicit_edge.pipeline_stages = {StageType::ToEdge, StageType::ToExecutorch};
  msg = error_of([&] { (void)export_model(lowered, inputs, explicit_edge); });
  EXPECT_TRUE(contains(msg, "stage TO_EDGE cannot run on a program at stage LOWERED")) << msg;

  // TO_EXECUTORCH on an ATEN program.
  ExportRecipe only_emit = portable();
  only_emit.pipeline_stages = {StageType::ToExecutorch};
  msg = error_of([&] { (void)export_model(test::two_mul_program(), inputs, only_emit); });
  EXPECT_TRUE(contains(msg, "stage TO_EXECUTORCH cannot run on a program at stage ATEN")) << msg;

  // Transitions that are not declared.
  ExportRecipe bad = portable();
  bad.pipeline_stages = {StageType::ToEdgeTransformAndLower, StageType::ToBackend};
  msg = error_of([&] { (void)export_model(test::two_mul_program(), inputs, bad); }, &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_TRUE(contains(msg, "invalid transition TO_EDGE_TRANSFORM_AND_LOWER -> TO_BACKEND")) << msg;
  EXPECT_TRUE(contains(msg, "may only follow TO_EDGE, EDGE_TRANSFORM")) << msg;
  // An empty predecessor list means "may only start".
  bad.pipeline_stages = {StageType::ToEdge, StageType::Quantize};
  msg = error_of([&] { (void)export_model(test::two_mul_program(), inputs, bad); });
  EXPECT_TRUE(contains(msg, "QUANTIZE may only start a pipeline")) << msg;

  // A program that is already at EXECUTORCH.
  ir::ExportedProgram done = test::two_mul_program();
  done.set_stage(ir::Stage::Executorch);
  msg = error_of([&] { (void)export_model(done, inputs, portable()); });
  EXPECT_TRUE(contains(msg, "already at stage EXECUTORCH")) << msg;

  // Methods at different stages.
  std::map<std::string, MethodModel> mixed;
  mixed.emplace("forward", test::two_mul_program());
  mixed.emplace("other", edge);
  msg = error_of([&] { (void)export_model(mixed, {}, portable()); });
  EXPECT_TRUE(contains(msg, "forward: ATEN, other: EDGE")) << msg;
}

// A stage that cannot start a pipeline, replacing TO_EDGE_TRANSFORM_AND_LOWER.
class NoStartStage final : public ExportStage {
 public:
  StageType type() const override { return StageType::ToEdgeTransformAndLower; }
  bool can_start() const override { return false; }
  std::vector<ir::Stage> start_program_stages() const override { return {ir::Stage::Aten}; }
  std::vector<StageType> valid_predecessors() const override { return {StageType::Quantize}; }
  PipelineArtifact run(const PipelineArtifact& in, const StageContext&) const override {
    return in;
  }
};

TEST(ExportSession, ReplacementStagesDeclareTheirOwnRules) {
  ExportOptions options;
  options.stages.push_back(std::make_shared<NoStartStage>());
  const std::string msg = error_of([&] {
    (void)export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, portable(),
                       options);
  });
  EXPECT_TRUE(contains(msg, "stage TO_EDGE_TRANSFORM_AND_LOWER cannot start a pipeline")) << msg;
}

// Replaces a built-in stage: counts its runs and can be told to fail.
class WrappingStage final : public ExportStage {
 public:
  explicit WrappingStage(StageType type) : inner_(builtin_stage(type)) {}
  StageType type() const override { return inner_->type(); }
  bool can_start() const override { return inner_->can_start(); }
  std::vector<ir::Stage> start_program_stages() const override {
    return inner_->start_program_stages();
  }
  std::vector<StageType> valid_predecessors() const override {
    return inner_->valid_predecessors();
  }
  PipelineArtifact run(const PipelineArtifact& in, const StageContext& context) const override {
    ++runs;
    if (fail) raise(Error::InvalidState, "told to fail");
    return inner_->run(in, context);
  }
  mutable int runs = 0;
  bool fail = false;

 private:
  std::shared_ptr<const ExportStage> inner_;
};

TEST(ExportSession, UserStageReplacesTheBuiltInOne) {
  auto stage = std::make_shared<WrappingStage>(StageType::ToExecutorch);
  ExportOptions options;
  options.stages.push_back(stage);
  ExportSession s = export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()},
                                 portable(), options);
  EXPECT_EQ(stage->runs, 1);
  EXPECT_EQ(values(s.run_method()[0]), test::two_mul_reference(kX));
}

TEST(ExportSession, EngineCompileWithoutAnImplementationIsAClearError) {
  ExportRecipe recipe = portable();
  recipe.pipeline_stages = {StageType::EngineCompile, StageType::ToEdgeTransformAndLower,
                            StageType::ToExecutorch};
  ExportOptions options;
  options.name = "twomul";
  Error code = Error::Ok;
  const std::string msg = error_of(
      [&] {
        (void)export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, recipe,
                           options);
      },
      &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_TRUE(contains(msg, "twomul: stage ENGINE_COMPILE needs an implementation")) << msg;
  EXPECT_TRUE(contains(msg, "engine recipe provider")) << msg;
  EXPECT_TRUE(contains(msg, "engine_cpu_fp32")) << msg;
}

TEST(ExportSession, RecipeStagesReplaceBuiltInOnesAndUserStagesReplaceThem) {
  auto recipe_stage = std::make_shared<WrappingStage>(StageType::ToExecutorch);
  ExportRecipe recipe = portable();
  recipe.stages.push_back(recipe_stage);
  ExportSession s =
      export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, recipe);
  EXPECT_EQ(recipe_stage->runs, 1);
  EXPECT_EQ(values(s.run_method()[0]), test::two_mul_reference(kX));

  auto user_stage = std::make_shared<WrappingStage>(StageType::ToExecutorch);
  ExportOptions options;
  options.stages.push_back(user_stage);
  (void)export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, recipe,
                     options);
  EXPECT_EQ(user_stage->runs, 1);
  EXPECT_EQ(recipe_stage->runs, 1);

  // A recipe with two implementations of one stage, or a null one, is refused.
  recipe.stages.push_back(std::make_shared<WrappingStage>(StageType::ToExecutorch));
  std::string msg = error_of([&] {
    (void)export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, recipe);
  });
  EXPECT_TRUE(contains(msg, "has two implementations of stage TO_EXECUTORCH")) << msg;
  recipe.stages = {nullptr};
  msg = error_of([&] {
    (void)export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, recipe);
  });
  EXPECT_TRUE(contains(msg, "holds a null stage")) << msg;
}

TEST(ExportSession, AFailedRunLeavesNoArtifactsOfThePreviousRun) {
  auto stage = std::make_shared<WrappingStage>(StageType::ToExecutorch);
  ExportOptions options;
  options.name = "twomul";
  options.stages.push_back(stage);
  ExportSession s(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, portable(),
                  options);
  s.run();
  EXPECT_FALSE(s.get_pte_buffer().empty());
  const std::string first_uuid = s.get_edge_program_manager().exported_program().uuid();

  stage->fail = true;
  Error code = Error::Ok;
  std::string msg = error_of([&] { s.run(); }, &code);
  EXPECT_EQ(code, Error::InvalidState);
  EXPECT_TRUE(contains(msg, "twomul: stage TO_EXECUTORCH: told to fail")) << msg;
  // The previous run's program is gone; this run's Edge manager is there.
  msg = error_of([&] { (void)s.get_pte_buffer(); }, &code);
  EXPECT_EQ(code, Error::InvalidState);
  EXPECT_TRUE(contains(msg, "stage TO_EXECUTORCH has not run")) << msg;
  EXPECT_TRUE(contains(msg, "the last run failed at stage TO_EXECUTORCH")) << msg;
  EXPECT_THROW((void)s.run_method(), Exception);
  EXPECT_THROW((void)s.get_executorch_program_manager(), Exception);
  EXPECT_EQ(s.get_edge_program_manager().methods(), (std::vector<std::string>{"forward"}));
  EXPECT_EQ(timing_names(s), (std::vector<std::string>{"TO_EDGE_TRANSFORM_AND_LOWER"}));
  (void)first_uuid;
}

TEST(ExportSession, GettersBeforeTheirStageNameIt) {
  ExportSession s(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, portable());
  struct Case {
    std::function<void()> call;
    std::string stage;
  };
  const std::vector<Case> cases = {
      {[&] { (void)s.get_exported_program(); }, "stage IMPORT has not run"},
      {[&] { (void)s.get_edge_program_manager(); },
       "stage TO_EDGE (or TO_EDGE_TRANSFORM_AND_LOWER) has not run"},
      {[&] { (void)s.get_executorch_program_manager(); }, "stage TO_EXECUTORCH has not run"},
      {[&] { (void)s.get_pte_buffer(); }, "stage TO_EXECUTORCH has not run"},
      {[&] { (void)s.get_etrecord(); }, "stage TO_EXECUTORCH has not run"},
      {[&] { (void)s.save_pte_file("/tmp/never"); }, "stage TO_EXECUTORCH has not run"},
      {[&] { (void)s.run_method(); }, "stage TO_EXECUTORCH has not run"},
      {[&] { (void)s.delegation_info(); }, "stage TO_EDGE"},
  };
  for (const Case& c : cases) {
    Error code = Error::Ok;
    const std::string msg = error_of(c.call, &code);
    EXPECT_EQ(code, Error::InvalidState) << msg;
    EXPECT_TRUE(contains(msg, c.stage)) << msg;
  }

  // A pipeline that stops after TO_EDGE: the Edge manager is there, the .pte is not.
  ExportRecipe edge_only = portable();
  edge_only.pipeline_stages = {StageType::ToEdge};
  ExportSession e =
      export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, edge_only);
  EXPECT_EQ(e.get_edge_program_manager().exported_program().stage(), ir::Stage::Edge);
  const std::string msg = error_of([&] { (void)e.get_pte_buffer(); });
  EXPECT_TRUE(contains(msg, "stage TO_EXECUTORCH has not run")) << msg;
}

TEST(ExportSession, TwoMethodMap) {
  auto partitioner = std::make_shared<CountingPartitioner>();
  std::map<std::string, MethodModel> model;
  model.emplace("forward", test::two_mul_program());
  model.emplace("double", double_program());
  const std::vector<float> d = {1, 2, 3, 4};
  std::map<std::string, std::vector<InputSet>> inputs;
  inputs["forward"] = {two_mul_inputs()};
  inputs["double"] = {{float_tensor({4}, d)}};
  ExportOptions options;
  options.constant_methods.emplace("get_answer", emit::ConstantValue(int64_t{42}));
  ExportSession s = export_model(model, inputs, counting_recipe(partitioner), options);

  EXPECT_EQ(s.get_edge_program_manager().methods(),
            (std::vector<std::string>{"double", "forward"}));
  EXPECT_EQ(s.get_executorch_program_manager().methods(),
            (std::vector<std::string>{"double", "forward"}));
  EXPECT_EQ(s.get_executorch_program_manager().config_methods(),
            (std::vector<std::string>{"get_answer"}));
  EXPECT_EQ(partitioner->calls, 2);  // once per method
  EXPECT_EQ(s.get_exported_program("double").graph().size(), double_program().graph().size());
  EXPECT_EQ(values(s.run_method("forward")[0]), test::two_mul_reference(kX));
  EXPECT_EQ(values(s.run_method("double")[0]), (std::vector<float>{2, 4, 6, 8}));
  const auto info = s.delegation_info();
  EXPECT_EQ(info.at("forward").delegates.at(kCountingBackendId), 2u);
  EXPECT_TRUE(info.at("double").delegates.empty());
  EXPECT_EQ(info.at("double").non_delegated_ops, 1u);
  std::ostringstream printed;
  s.print_delegation_info(printed);
  EXPECT_TRUE(contains(printed.str(), "method double:")) << printed.str();
  EXPECT_TRUE(contains(printed.str(), kCountingBackendId)) << printed.str();

  // Unknown methods are named.
  std::string msg = error_of([&] { (void)s.get_exported_program("decode"); });
  EXPECT_TRUE(contains(msg, "no method 'decode' (methods: double, forward)")) << msg;
  msg = error_of([&] { (void)s.run_method("decode"); });
  EXPECT_TRUE(contains(msg, "no method 'decode'")) << msg;
  inputs["decode"] = {};
  msg = error_of([&] { (void)export_model(model, inputs, portable()); });
  EXPECT_TRUE(contains(msg, "example inputs for method 'decode'")) << msg;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() /
                       ("ptec_export_session_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(ExportSession, SavePteFileAppendsTheExtensionAndWritesThePtd) {
  const fs::path dir = fresh_dir("save");
  ExportSession plain =
      export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, portable());
  EXPECT_EQ(plain.save_pte_file((dir / "plain").string()), (dir / "plain.pte").string());
  EXPECT_TRUE(fs::exists(dir / "plain.pte"));
  EXPECT_FALSE(fs::exists(dir / "plain.ptd"));
  EXPECT_EQ(plain.save_pte_file((dir / "kept.pte").string()), (dir / "kept.pte").string());

  const ExportRecipe external =
      RecipeRegistry::instance().create_recipe("portable", {{"external_constants", true}});
  ExportSession s =
      export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, external);
  EXPECT_EQ(s.save_pte_file((dir / "ext").string()), (dir / "ext.pte").string());
  EXPECT_TRUE(fs::exists(dir / "ext.pte"));
  EXPECT_TRUE(fs::exists(dir / "ext.ptd"));
  // run_method reads the external weights too.
  EXPECT_EQ(values(s.run_method()[0]), test::two_mul_reference(kX));
  fs::remove_all(dir);
}

TEST(ExportSession, EtrecordAndArtifactDir) {
  const fs::path dir = fresh_dir("artifacts");
  ExportOptions options;
  options.name = "twomul";
  options.generate_etrecord = true;
  options.artifact_dir = dir.string();
  ExportSession s = export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()},
                                 portable(), options);
  EXPECT_TRUE(s.get_etrecord().has_executorch_maps());
  EXPECT_TRUE(fs::exists(dir / "twomul.pte"));
  EXPECT_TRUE(fs::exists(dir / "twomul.etrecord"));

  ExportSession without =
      export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, portable());
  const std::string msg = error_of([&] { (void)without.get_etrecord(); });
  EXPECT_TRUE(contains(msg, "generate_etrecord")) << msg;
  fs::remove_all(dir);
}

TEST(ExportSession, EtrecordNeedsAnAtenModel) {
  ExportOptions options;
  options.generate_etrecord = true;
  Error code = Error::Ok;
  const std::string msg = error_of(
      [&] {
        (void)export_model(program::to_edge(test::two_mul_program()),
                           std::vector<InputSet>{two_mul_inputs()}, portable(), options);
      },
      &code);
  EXPECT_EQ(code, Error::NotSupported);
  EXPECT_TRUE(contains(msg, "generate_etrecord needs a model at stage ATEN")) << msg;
}

TEST(ExportSession, CpuTargetRecipeDelegatesAndMatchesPortable) {
  const ExportRecipe cpu = RecipeRegistry::instance().create_recipe("x86_64-cpu-fp32");
  ExportSession s =
      export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, cpu);
  const auto info = s.delegation_info().at("forward");
  ASSERT_TRUE(info.delegates.count("PtecCpuBackend")) << "the CPU backend took nothing";
  EXPECT_GE(info.delegated_ops.at("PtecCpuBackend"), 1u);
  const std::vector<float> got = values(s.run_method()[0]);
  const std::vector<float> want = test::two_mul_reference(kX);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
  std::ostringstream printed;
  s.print_delegation_info(printed);
  EXPECT_TRUE(contains(printed.str(), "PtecCpuBackend")) << printed.str();
}

TEST(ExportSession, OnnxFile) {
  const std::string path = "/usr/share/libonnx-testdata/data/node/test_relu/model.onnx";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is not installed";
  std::vector<float> x(60);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 30.0f;
  ExportSession s = export_model(path, std::vector<InputSet>{{float_tensor({3, 4, 5}, x)}},
                                 RecipeRegistry::instance().create_recipe("x86_64-cpu-fp32"));
  EXPECT_EQ(timing_names(s).front(), "IMPORT");
  EXPECT_EQ(s.get_exported_program().stage(), ir::Stage::Aten);
  const std::vector<float> got = values(s.run_method()[0]);
  ASSERT_EQ(got.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], std::max(x[i], 0.0f)) << i;

  // dynamic_shapes reach the importer: dim 0 of x becomes a symbol in [1, 8].
  ExportOptions dynamic;
  dynamic.dynamic_shapes["forward"] = {{"x", 0, "batch", 1, 8}};
  ExportSession d = export_model(path, std::vector<InputSet>{{float_tensor({3, 4, 5}, x)}},
                                 RecipeRegistry::instance().create_recipe("portable"), dynamic);
  EXPECT_FALSE(d.get_exported_program().graph().nodes().front()->spec().is_static());
  const std::vector<float> x2(x.begin(), x.begin() + 40);
  const std::vector<ir::TensorData> small =
      d.run_method("forward", InputSet{float_tensor({2, 4, 5}, x2)});
  ASSERT_EQ(values(small[0]).size(), 40u);
  EXPECT_EQ(values(small[0])[0], 0.0f);

  // dynamic_shapes apply to ONNX models only.
  ExportOptions options;
  options.dynamic_shapes["forward"] = {{"x", 0, "", 1, 8}};
  const std::string msg = error_of([&] {
    (void)export_model(test::two_mul_program(), std::vector<InputSet>{two_mul_inputs()}, portable(),
                       options);
  });
  EXPECT_TRUE(contains(msg, "apply to ONNX models only")) << msg;
}

}  // namespace
}  // namespace ptec
