#pragma once

// The "engine" recipe provider (DESIGN.md §7, §9): engine-bearing export through the same
// ExportSession / `ptec export --recipe` path as every other recipe.
//
// Design. export/ stays backend-generic and does not link backends/engine, so the engine
// recipes bring their own stage implementations in ExportRecipe::stages, which ExportSession
// runs like any other stage (ExportOptions::stages still override them):
//   ENGINE_COMPILE               ATEN → engine-bearing ATEN: ptec::engine::compile per method
//                                (method_name set). The engines' profiles are the dynamic dims
//                                of the programs it gets: for an ONNX model, the session's
//                                ExportOptions::dynamic_shapes (compile reads the symbols'
//                                ranges). Starts a pipeline on ATEN programs only.
//   TO_EDGE_TRANSFORM_AND_LOWER  engine-aware: ptec::engine::export_engine_program — the engine
//                                partitioner first (every engine call becomes a
//                                PtecEngineBackend delegate), then the recipe's partitioners
//                                for the rest, the recipe's edge_transform_passes and
//                                edge_compile_config (check_ir_validity off: the engine op is no
//                                core ATen op) and the session's constant_methods and
//                                generate_etrecord. Follows ENGINE_COMPILE, or starts on ATEN
//                                programs that are engine-compiled already (a loaded .ptep).
//                                It also registers PtecEngineBackend's runtime, so
//                                ExportSession::run_method runs the result in process.
//   TO_EXECUTORCH                the built-in stage.
// The built-in TO_EDGE_TRANSFORM_AND_LOWER does not accept ENGINE_COMPILE before it, so an
// engine-bearing program never reaches a lowering that does not know engines.
//
// Recipe type "engine_cpu_fp32" (pipeline ENGINE_COMPILE → TO_EDGE_TRANSFORM_AND_LOWER →
// TO_EXECUTORCH; no partitioners of its own: what no engine runs goes to the kernels), kwargs
// `autotune` (bool, default true), `threads` (int >= 0, default 0: the thread setting) and
// `autotune_iterations` (int >= 1, default EngineCompileOptions's). Target recipe
// "x86_64-cpu-engine": engine_cpu_fp32 + cpu_fp32 + portable — the engines first,
// PtecCpuBackend for what they did not take, the kernels for the rest.
//
// The registry's built-in providers cannot include this one (export/ does not link the engine):
// call register_engine_recipe_provider() before using RecipeRegistry::instance() (the ptec CLI
// does).

#include <memory>

#include "backends/engine/aot/engine_compile.h"
#include "export/export_stage.h"
#include "export/recipe_registry.h"

namespace ptec::engine {

/// The backend name the provider is registered under.
inline constexpr const char* kEngineRecipeBackend = "engine";
/// The recipe type of CPU engines in fp32.
inline constexpr const char* kEngineCpuFp32 = "engine_cpu_fp32";
/// The target recipe engine_cpu_fp32 + cpu_fp32 + portable.
inline constexpr const char* kEngineCpuTarget = "x86_64-cpu-engine";

/// A new provider (backend "engine", recipe type engine_cpu_fp32).
std::shared_ptr<const BackendRecipeProvider> make_engine_recipe_provider();

/// Registers the provider and the target recipe "x86_64-cpu-engine" with
/// RecipeRegistry::instance(), unless they are registered already. Thread-safe; later calls do
/// nothing.
void register_engine_recipe_provider();

/// The ENGINE_COMPILE stage: ptec::engine::compile(program, options) per method, with
/// options.method_name set to the method. InvalidState when the pipeline is past ATEN.
std::shared_ptr<const ExportStage> make_engine_compile_stage(EngineCompileOptions options = {});

/// The engine-aware TO_EDGE_TRANSFORM_AND_LOWER stage (export_engine_program, see above).
std::shared_ptr<const ExportStage> make_engine_lower_stage();

}  // namespace ptec::engine
