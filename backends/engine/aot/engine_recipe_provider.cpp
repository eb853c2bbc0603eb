#include "backends/engine/aot/engine_recipe_provider.h"

#include <algorithm>
#include <climits>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/engine/aot/engine_compile.h"
#include "backends/engine/aot/engine_export.h"
#include "backends/engine/runtime/engine_backend_runtime.h"
#include "export/export_session.h"
#include "ir/exception.h"

namespace ptec::engine {
namespace {

const std::map<std::string, ir::ExportedProgram>& need_aten(const PipelineArtifact& in,
                                                            StageType stage) {
  PTEC_ENFORCE(!in.edge && !in.executorch && !in.aten.empty(), InvalidState,
               "stage {} needs ATEN programs, but the pipeline is past ATEN", to_string(stage));
  return in.aten;
}

class EngineCompileStage final : public ExportStage {
 public:
  explicit EngineCompileStage(EngineCompileOptions options) : options_(std::move(options)) {}
  StageType type() const override { return StageType::EngineCompile; }
  bool can_start() const override { return true; }
  std::vector<ir::Stage> start_program_stages() const override { return {ir::Stage::Aten}; }
  // fp32 engines only: nothing (QUANTIZE included) may run before.
  std::vector<StageType> valid_predecessors() const override { return {}; }
  PipelineArtifact run(const PipelineArtifact& in, const StageContext&) const override {
    PipelineArtifact out;
    for (const auto& [method, program] : need_aten(in, type())) {
      EngineCompileOptions o = options_;
      o.method_name = method;
      try {
        out.aten.emplace(method, compile(program, o));
      } catch (const Exception& e) {
        throw Exception(e.code(), fmt::format("method {}: {}", method, e.what()));
      }
    }
    return out;
  }

 private:
  EngineCompileOptions options_;
};

class EngineLowerStage final : public ExportStage {
 public:
  StageType type() const override { return StageType::ToEdgeTransformAndLower; }
  bool can_start() const override { return true; }
  std::vector<ir::Stage> start_program_stages() const override { return {ir::Stage::Aten}; }
  std::vector<StageType> valid_predecessors() const override { return {StageType::EngineCompile}; }
  PipelineArtifact run(const PipelineArtifact& in, const StageContext& ctx) const override {
    EngineExportOptions o;
    o.partitioners = ctx.recipe.lowering.partitioners;
    o.transform_passes = ctx.recipe.lowering.edge_transform_passes;
    o.constant_methods = ctx.options.constant_methods;
    o.compile_config = ctx.recipe.lowering.edge_compile_config;
    o.generate_etrecord = ctx.options.generate_etrecord;
    PipelineArtifact out;
    out.edge = export_engine_program(need_aten(in, type()), o);
    // The result's engine delegates run on PtecEngineBackend (ExportSession::run_method).
    const Error registered = register_engine_backend_runtime();
    PTEC_ENFORCE(registered == Error::Ok, InvalidState, "registering PtecEngineBackend: {}",
                 to_string(registered));
    return out;
  }
};

// An int kwarg within [min, INT_MAX] (EngineCompileOptions holds ints).
int int_kwarg(const std::string& type, const RecipeKwargs& kwargs, const char* name, int fallback,
              int64_t min) {
  auto it = kwargs.find(name);
  if (it == kwargs.end()) return fallback;
  const int64_t v = std::get<int64_t>(it->second);
  PTEC_ENFORCE(v >= min && v <= INT_MAX, InvalidArgument,
               "recipe '{}': kwarg '{}' must be an integer in [{}, {}], got {}", type, name, min,
               INT_MAX, v);
  return static_cast<int>(v);
}

class EngineRecipeProvider final : public BackendRecipeProvider {
 public:
  std::string backend_name() const override { return kEngineRecipeBackend; }
  std::vector<RecipeTypeInfo> recipe_types() const override {
    const EngineCompileOptions defaults;
    return {{kEngineCpuFp32,
             "precompiled CPU engines in fp32 (ptec::engine::compile): what PtecCpuBackend runs "
             "is built ahead of time into engines — kernels, blockings and thread splits timed "
             "on this machine, weights prepacked — each packaged as a PtecEngineBackend "
             "delegate; the rest on the kernels. Dynamic dims become engine profiles",
             {{"autotune", KwargType::Bool,
               "time candidate kernels and thread counts on this machine and keep the fastest "
               "per node (false: the CPU backend's defaults, no timing runs)",
               RecipeValue(defaults.autotune)},
              {"threads", KwargType::Int,
               "threads the engines are tuned for (0: the current thread setting)",
               RecipeValue(static_cast<int64_t>(defaults.threads))},
              {"autotune_iterations", KwargType::Int,
               "timed runs per candidate when autotuning (at least 1)",
               RecipeValue(static_cast<int64_t>(defaults.autotune_iterations))}},
             true}};
  }
  ExportRecipe create_recipe(const std::string& type, const RecipeKwargs& kwargs) const override {
    PTEC_ENFORCE(type == kEngineCpuFp32, NotFound, "backend '{}' has no recipe type '{}'",
                 kEngineRecipeBackend, type);
    EngineCompileOptions options;
    options.target = "cpu";
    options.precision = "fp32";
    if (auto it = kwargs.find("autotune"); it != kwargs.end()) {
      options.autotune = std::get<bool>(it->second);
    }
    options.threads = int_kwarg(type, kwargs, "threads", options.threads, 0);
    options.autotune_iterations =
        int_kwarg(type, kwargs, "autotune_iterations", options.autotune_iterations, 1);

    ExportRecipe recipe;
    recipe.name = type;
    recipe.pipeline_stages = {StageType::EngineCompile, StageType::ToEdgeTransformAndLower,
                              StageType::ToExecutorch};
    recipe.stages = {make_engine_compile_stage(std::move(options)), make_engine_lower_stage()};
    recipe.lowering.edge_compile_config = default_engine_compile_config();
    return recipe;
  }
};

}  // namespace

std::shared_ptr<const ExportStage> make_engine_compile_stage(EngineCompileOptions options) {
  return std::make_shared<EngineCompileStage>(std::move(options));
}

std::shared_ptr<const ExportStage> make_engine_lower_stage() {
  return std::make_shared<EngineLowerStage>();
}

std::shared_ptr<const BackendRecipeProvider> make_engine_recipe_provider() {
  return std::make_shared<EngineRecipeProvider>();
}

void register_engine_recipe_provider() {
  static std::mutex mutex;
  static bool done = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (done) return;
  RecipeRegistry& registry = RecipeRegistry::instance();
  const std::vector<std::string> backends = registry.backends();
  if (std::find(backends.begin(), backends.end(), kEngineRecipeBackend) == backends.end()) {
    registry.register_provider(make_engine_recipe_provider());
  }
  const std::vector<TargetRecipeInfo> targets = registry.targets();
  if (std::none_of(targets.begin(), targets.end(),
                   [](const TargetRecipeInfo& t) { return t.name == kEngineCpuTarget; })) {
    registry.register_target(
        {kEngineCpuTarget,
         "x86-64 CPUs with precompiled engines: CPU engines (engine_cpu_fp32) for what they run, "
         "PtecCpuBackend for what they did not take, the kernels for the rest",
         {kEngineCpuFp32, "cpu_fp32", "portable"}});
  }
  done = true;
}

}  // namespace ptec::engine
