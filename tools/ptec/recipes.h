#pragma once

// The export recipes `ptec export --recipe` offers, from the recipe registry (export/): what each
// lowers to and how it quantizes. "cpu_fp32" (the default): PtecCpuBackend for what it runs, the
// optimized and portable kernels for the rest. "portable": everything on the portable kernels.
// The cpu_int8_* / cpu_int4_* types quantize first (quant/), calibrating on --calibration DIR.
// "engine_cpu_fp32" (and target "x86_64-cpu-engine") compiles CPU engines first
// (backends/engine/aot/engine_recipe_provider.h; the CLI registers that provider).
// `ptec recipes` lists them all with their kwargs.

#include <string>
#include <vector>

#include "export/recipe.h"
#include "ir/exported_program.h"
#include "program/edge_program_manager.h"

namespace ptec::cli {

/// The recipe names that can be created now (types and targets), default first.
const std::vector<std::string>& recipe_names();

/// The lowering of `recipe`: its partitioners (registering the backends they lower to) and the
/// Edge passes that prepare programs for them. Throws the registry's error listing the recipes
/// for an unknown name, NotSupported for a quantizing recipe.
LoweringRecipe recipe_lowering(const std::string& recipe);

/// The recipe `name` with `args` ("key=value", --recipe-arg) parsed as its declared kwargs.
/// Throws the registry's errors (unknown recipe listing the recipes, QAT, unknown kwarg, bad
/// value).
ExportRecipe create_recipe(const std::string& name, const std::vector<std::string>& args);

/// Calibration input sets from `dir`, in the layout of `ptec run --inputs`: every subdirectory
/// (in name order) holding input_0.pb, input_1.pb, ... (onnx.TensorProto; the ONNX test-data
/// layout, e.g. test_data_set_0/) or .npy files is one set; a `dir` that holds input files
/// itself is one set. NotFound when there is none.
std::vector<std::vector<ir::TensorData>> read_calibration_sets(const std::string& dir);

/// Runs the quantizers of `recipe` on `program` (ATEN), calibrated on the sets of
/// `calibration_dir`, or — without one — on one set of ones (static activation ranges then
/// come from ones: a warning says so on stderr).
ir::ExportedProgram quantize_for_recipe(const ExportRecipe& recipe,
                                        const ir::ExportedProgram& program,
                                        const std::string& calibration_dir);

/// `ptec recipes`: every recipe type (by backend) and target with description and kwargs.
int run_recipes(bool json);

}  // namespace ptec::cli
