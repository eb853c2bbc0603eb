// The "engine" recipe provider: the registry lists engine_cpu_fp32 with typed kwargs and the
// x86_64-cpu-engine target; kwargs are type- and range-checked and reach the engine builder;
// ExportSession with the recipe runs ENGINE_COMPILE, gives a program whose forward has a
// PtecEngineBackend delegate and whose outputs match the portable recipe's (also with a dynamic
// batch, at two sizes); the engine stages refuse what they cannot do; two recipes with different
// stage implementations do not combine.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends/engine/aot/engine.h"
#include "backends/engine/aot/engine_compile.h"
#include "backends/engine/aot/engine_recipe_provider.h"
#include "backends/engine/engine_ids.h"
#include "export/export_session.h"
#include "export/recipe_registry.h"
#include "frontends/builder/graph_builder.h"
#include "ir/exception.h"

namespace ptec::engine {
namespace {

using builder::Value;

ir::TensorData random_tensor(const std::vector<int64_t>& sizes, uint32_t seed) {
  size_t n = 1;
  for (int64_t s : sizes) n *= static_cast<size_t>(s);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return ir::TensorData{ir::TensorSpec(DType::Float, sizes),
                        ir::Buffer::copy_of(v.data(), v.size() * sizeof(float))};
}

/// conv3x3 + bias → relu → conv3x3 → + residual → relu → mean → addmm. `batch` symbolic in
/// [1, 4] when `dynamic`.
ir::ExportedProgram small_cnn(bool dynamic = false) {
  builder::GraphBuilder b("small_cnn");
  const ir::SymInt batch = dynamic ? b.symbol("batch", 1, 4) : ir::SymInt(1);
  Value x = b.input("x", DType::Float, {batch, 3, 8, 8});
  Value w1 = b.parameter("w1", random_tensor({8, 3, 3, 3}, 1));
  Value b1 = b.parameter("b1", random_tensor({8}, 2));
  Value w2 = b.parameter("w2", random_tensor({8, 8, 3, 3}, 3));
  Value fc_w = b.parameter("fc_w", random_tensor({4, 8}, 4));
  Value fc_b = b.parameter("fc_b", random_tensor({4}, 5));
  const std::vector<int64_t> one = {1, 1}, zero = {0, 0};
  Value c1 = b.call("aten::convolution", {x, w1, b1, one, one, one, false, zero, 1});
  Value r1 = b.call("aten::relu", {c1});
  Value c2 = b.call("aten::convolution", {r1, w2, nullptr, one, one, one, false, zero, 1});
  Value r2 = b.call("aten::relu", {b.call("aten::add.Tensor", {c2, r1})});
  Value m = b.call("aten::mean.dim", {r2, std::vector<int64_t>{-1, -2}, false});
  Value t = b.call("aten::permute_copy", {fc_w, std::vector<int64_t>{1, 0}});
  b.output({b.call("aten::addmm", {fc_b, m, t})});
  return b.build();
}

std::vector<float> values(const ir::TensorData& t) {
  std::vector<float> v(t.data->size() / sizeof(float));
  std::memcpy(v.data(), t.data->data(), v.size() * sizeof(float));
  return v;
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  ASSERT_FALSE(want.empty());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-4 * std::max(1.0f, std::fabs(want[i]))) << "at " << i;
  }
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

RecipeRegistry& registry() {
  register_engine_recipe_provider();
  return RecipeRegistry::instance();
}

ExportRecipe engine_recipe(RecipeKwargs kwargs = {{"autotune", false}}) {
  return registry().create_recipe(kEngineCpuFp32, kwargs);
}

/// The engines of the ATEN program `s` exported (after ENGINE_COMPILE).
std::vector<std::shared_ptr<const Engine>> engines_of(const ExportSession& s) {
  std::vector<std::shared_ptr<const Engine>> out;
  for (const auto& [name, object] : s.get_exported_program().custom_objects()) {
    if (auto e = engine_of(object)) out.push_back(e);
  }
  return out;
}

TEST(EngineRecipe, TheRegistryListsTheTypeWithTypedKwargsAndTheTarget) {
  RecipeRegistry& r = registry();
  register_engine_recipe_provider();  // a second call changes nothing
  const std::vector<std::string> backends = r.backends();
  EXPECT_EQ(std::count(backends.begin(), backends.end(), "engine"), 1);

  size_t listed = 0;
  for (const auto& [backend, info] : r.recipe_types()) {
    if (info.name != kEngineCpuFp32) continue;
    ++listed;
    EXPECT_EQ(backend, "engine");
    EXPECT_TRUE(info.available);
    std::map<std::string, std::pair<KwargType, RecipeValue>> kwargs;
    for (const RecipeKwarg& k : info.kwargs) {
      ASSERT_TRUE(k.default_value.has_value()) << k.name;
      kwargs.emplace(k.name, std::make_pair(k.type, *k.default_value));
    }
    ASSERT_EQ(kwargs.size(), 3u);
    EXPECT_EQ(kwargs.at("autotune").first, KwargType::Bool);
    EXPECT_EQ(kwargs.at("autotune").second, RecipeValue(true));
    EXPECT_EQ(kwargs.at("threads").first, KwargType::Int);
    EXPECT_EQ(kwargs.at("threads").second, RecipeValue(int64_t{0}));
    EXPECT_EQ(kwargs.at("autotune_iterations").first, KwargType::Int);
    EXPECT_EQ(kwargs.at("autotune_iterations").second,
              RecipeValue(static_cast<int64_t>(EngineCompileOptions{}.autotune_iterations)));
  }
  EXPECT_EQ(listed, 1u);
  EXPECT_TRUE(r.supports_recipe(kEngineCpuFp32));

  const std::vector<TargetRecipeInfo> targets = r.targets();
  auto target = std::find_if(targets.begin(), targets.end(),
                             [](const TargetRecipeInfo& t) { return t.name == kEngineCpuTarget; });
  ASSERT_NE(target, targets.end());
  EXPECT_EQ(target->recipe_types,
            (std::vector<std::string>{kEngineCpuFp32, "cpu_fp32", "portable"}));

  // The recipe: ENGINE_COMPILE → (engine) TO_EDGE_TRANSFORM_AND_LOWER → TO_EXECUTORCH, both
  // stages brought by the recipe, no IR validity check (the engine op is no core ATen op).
  const ExportRecipe recipe = engine_recipe();
  EXPECT_EQ(recipe.name, kEngineCpuFp32);
  EXPECT_EQ(recipe.pipeline_stages,
            (std::vector<StageType>{StageType::EngineCompile, StageType::ToEdgeTransformAndLower,
                                    StageType::ToExecutorch}));
  std::vector<StageType> brought;
  for (const auto& s : recipe.stages) brought.push_back(s->type());
  EXPECT_EQ(brought,
            (std::vector<StageType>{StageType::EngineCompile, StageType::ToEdgeTransformAndLower}));
  EXPECT_FALSE(recipe.lowering.edge_compile_config.check_ir_validity);
  EXPECT_TRUE(recipe.lowering.partitioners.empty());

  // The target adds PtecCpuBackend's partitioner after the engines.
  const ExportRecipe t = r.create_recipe(kEngineCpuTarget, {{"autotune", false}});
  EXPECT_EQ(t.pipeline_stages, recipe.pipeline_stages);
  EXPECT_EQ(t.stages.size(), 2u);
  ASSERT_EQ(t.lowering.partitioners.size(), 1u);
  EXPECT_FALSE(t.lowering.edge_compile_config.check_ir_validity);
}

TEST(EngineRecipe, KwargsAreTypeAndRangeChecked) {
  RecipeRegistry& r = registry();
  Error code = Error::Ok;
  std::string msg = error_of(
      [&] {
        (void)r.create_recipe(kEngineCpuFp32, {{"autotune", int64_t{1}}});
      },
      &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_TRUE(contains(msg, "kwarg 'autotune' must be bool, got int 1")) << msg;

  msg = error_of([&] { (void)r.create_recipe(kEngineCpuFp32, {{"threads", std::string("4")}}); });
  EXPECT_TRUE(contains(msg, "kwarg 'threads' must be int, got string '4'")) << msg;

  msg = error_of([&] { (void)r.create_recipe(kEngineCpuFp32, {{"threads", int64_t{-1}}}); }, &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_TRUE(contains(msg, "kwarg 'threads' must be an integer in [0,")) << msg;

  msg = error_of([&] {
    (void)r.create_recipe(kEngineCpuFp32, {{"autotune_iterations", int64_t{0}}});
  });
  EXPECT_TRUE(contains(msg, "kwarg 'autotune_iterations' must be an integer in [1,")) << msg;

  msg = error_of([&] { (void)r.create_recipe(kEngineCpuFp32, {{"group_size", int64_t{4}}}); });
  EXPECT_TRUE(contains(msg, "unknown kwarg 'group_size'")) << msg;
  EXPECT_TRUE(contains(msg, "autotune: bool")) << msg;

  // The CLI's key=value texts parse as the declared types.
  const RecipeKwargs parsed =
      r.parse_kwargs(kEngineCpuFp32, {"autotune=false", "threads=2", "autotune_iterations=3"});
  EXPECT_EQ(parsed.at("autotune"), RecipeValue(false));
  EXPECT_EQ(parsed.at("threads"), RecipeValue(int64_t{2}));
  EXPECT_EQ(parsed.at("autotune_iterations"), RecipeValue(int64_t{3}));
  msg = error_of([&] { (void)r.parse_kwargs(kEngineCpuFp32, {"autotune=maybe"}); });
  EXPECT_TRUE(contains(msg, "kwarg 'autotune' must be bool, got 'maybe'")) << msg;
}

TEST(EngineRecipe, ExportSessionCompilesEnginesAndMatchesThePortableRecipe) {
  const InputSet x = {random_tensor({1, 3, 8, 8}, 42)};
  ExportOptions options;
  options.name = "cnn";
  ExportSession s = export_model(small_cnn(), std::vector<InputSet>{x}, engine_recipe(), options);

  EXPECT_EQ(s.pipeline(),
            (std::vector<StageType>{StageType::EngineCompile, StageType::ToEdgeTransformAndLower,
                                    StageType::ToExecutorch}));
  std::vector<std::string> timed;
  for (const StageTiming& t : s.stage_timings()) timed.push_back(t.stage);
  EXPECT_EQ(timed, (std::vector<std::string>{"ENGINE_COMPILE", "TO_EDGE_TRANSFORM_AND_LOWER",
                                             "TO_EXECUTORCH"}));
  // get_exported_program is the engine-bearing program ENGINE_COMPILE made.
  EXPECT_GE(count_engine_calls(s.get_exported_program()), 1u);

  const auto info = s.delegation_info().at("forward");
  ASSERT_TRUE(info.delegates.count(kBackendId)) << "no PtecEngineBackend delegate";
  EXPECT_GE(info.delegates.at(kBackendId), 1u);
  EXPECT_EQ(info.delegates.count("PtecCpuBackend"), 0u);
  // The whole network is in the engine: no aten op is left to the kernels.
  EXPECT_EQ(info.non_delegated_ops, 0u);

  ExportSession portable =
      export_model(small_cnn(), std::vector<InputSet>{x}, registry().create_recipe("portable"));
  expect_near(values(s.run_method()[0]), values(portable.run_method()[0]));
}

TEST(EngineRecipe, KwargsReachTheEngineBuilder) {
  const InputSet x = {random_tensor({1, 3, 8, 8}, 7)};
  ExportSession s = export_model(small_cnn(), std::vector<InputSet>{x},
                                 engine_recipe({{"autotune", false}, {"threads", int64_t{3}}}));
  const auto engines = engines_of(s);
  ASSERT_FALSE(engines.empty());
  for (const auto& e : engines) EXPECT_EQ(e->metadata().threads, 3);
}

TEST(EngineRecipe, DynamicBatchBecomesAProfileAndRunsAtTwoSizes) {
  const InputSet x4 = {random_tensor({4, 3, 8, 8}, 11)};
  const InputSet x2 = {random_tensor({2, 3, 8, 8}, 12)};
  ExportSession s = export_model(small_cnn(/*dynamic=*/true), std::vector<InputSet>{x4},
                                 registry().create_recipe(kEngineCpuTarget, {{"autotune", false}}));
  const auto engines = engines_of(s);
  ASSERT_FALSE(engines.empty());
  bool profiled = false;
  for (const EngineBinding& b : engines.front()->metadata().io_bindings) {
    for (const EngineDim& d : b.shape) {
      profiled = profiled || (d.symbol == "batch" && d.min == 1 && d.max == 4);
    }
  }
  EXPECT_TRUE(profiled) << "no binding has the batch profile [1, 4]";
  ASSERT_TRUE(s.delegation_info().at("forward").delegates.count(kBackendId));

  ExportSession portable = export_model(small_cnn(true), std::vector<InputSet>{x4},
                                        registry().create_recipe("portable"));
  for (const InputSet* in : {&x4, &x2}) {
    const std::vector<float> got = values(s.run_method("forward", *in)[0]);
    EXPECT_EQ(got.size(), static_cast<size_t>(in->front().spec.upper_bound_sizes()[0] * 4));
    expect_near(got, values(portable.run_method("forward", *in)[0]));
  }
}

TEST(EngineRecipe, TheEngineLoweringFollowsOnlyEngineCompile) {
  // The built-in lowering after ENGINE_COMPILE (a user's override) is refused before anything
  // runs: it does not know engines.
  ExportOptions options;
  options.stages.push_back(builtin_stage(StageType::ToEdgeTransformAndLower));
  std::string msg = error_of(
      [&] { (void)export_model(small_cnn(), std::vector<InputSet>{}, engine_recipe(), options); });
  EXPECT_TRUE(contains(msg, "invalid transition ENGINE_COMPILE -> TO_EDGE_TRANSFORM_AND_LOWER"))
      << msg;

  // The engine lowering after QUANTIZE is refused too.
  ExportRecipe quantize_first = engine_recipe();
  quantize_first.pipeline_stages = {StageType::Quantize, StageType::ToEdgeTransformAndLower,
                                    StageType::ToExecutorch};
  msg = error_of([&] { (void)export_model(small_cnn(), std::vector<InputSet>{}, quantize_first); });
  EXPECT_TRUE(contains(msg, "TO_EDGE_TRANSFORM_AND_LOWER may only follow ENGINE_COMPILE")) << msg;

  // ENGINE_COMPILE may only start, on ATEN programs.
  ExportRecipe late = engine_recipe();
  late.pipeline_stages = {StageType::Quantize, StageType::EngineCompile,
                          StageType::ToEdgeTransformAndLower, StageType::ToExecutorch};
  msg = error_of([&] { (void)export_model(small_cnn(), std::vector<InputSet>{}, late); });
  EXPECT_TRUE(contains(msg, "ENGINE_COMPILE may only start a pipeline")) << msg;

  // Started on a program that is engine-compiled already, the engine lowering packages it.
  EngineCompileOptions o;
  o.autotune = false;
  ExportRecipe package = engine_recipe();
  package.pipeline_stages = {StageType::ToEdgeTransformAndLower, StageType::ToExecutorch};
  const InputSet x = {random_tensor({1, 3, 8, 8}, 3)};
  ExportSession s = export_model(compile(small_cnn(), o), std::vector<InputSet>{x}, package);
  EXPECT_TRUE(s.delegation_info().at("forward").delegates.count(kBackendId));
}

TEST(EngineRecipe, CombiningTwoEngineRecipesWithDifferentStagesIsAConflict) {
  const ExportRecipe a = engine_recipe();
  ExportRecipe b = engine_recipe({{"autotune", false}, {"threads", int64_t{1}}});
  b.name = "engine_one_thread";
  Error code = Error::Ok;
  const std::string msg = error_of([&] { (void)ExportRecipe::combine({a, b}, "both"); }, &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_TRUE(contains(msg, "field stages[ENGINE_COMPILE]")) << msg;
  EXPECT_TRUE(contains(msg, "'engine_cpu_fp32'")) << msg;
  EXPECT_TRUE(contains(msg, "'engine_one_thread'")) << msg;
  // One recipe combined with itself (the same stage objects) is no conflict.
  EXPECT_EQ(ExportRecipe::combine({a, a}, "twice").stages.size(), 2u);
}

}  // namespace
}  // namespace ptec::engine
