// `ptec export`: ONNX → ATEN program → to_edge (+ the recipe's backends) → memory plan + emit →
// .pte (atomic write). Recipes with their own pipeline (engine_cpu_fp32) go through
// ExportSession (export_session_command.cpp); program archives through export_engine.cpp.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "emit/export_pte.h"
#include "emit/program_summary.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/exception.h"
#include "program/edge_program_manager.h"
#include "program/to_edge.h"
#include "program/to_edge_transform_and_lower.h"
#include "tools/ptec/commands.h"
#include "tools/ptec/dynamic_dims.h"
#include "tools/ptec/recipes.h"

namespace ptec::cli {

int run_export(const ExportArgs& args) {
  namespace fs = std::filesystem;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const bool archives =
      is_program_archive(args.model) ||
      std::any_of(args.methods.begin(), args.methods.end(), [](const std::string& m) {
        return is_program_archive(m.substr(m.find('=') + 1));
      });
  if (archives) return run_export_engine(args);
  // Unknown recipes, QAT requests and bad kwargs fail before the model is read.
  const ExportRecipe recipe = create_recipe(args.recipe, args.recipe_args);
  PTEC_ENFORCE(!recipe.quantization.empty() || args.calibration_dir.empty(), InvalidArgument,
               "--calibration: recipe '{}' does not quantize (the cpu_int8_* / cpu_int4_* "
               "recipes do)",
               args.recipe);
  // A recipe with its own pipeline (engine_cpu_fp32: ENGINE_COMPILE first) runs in an
  // ExportSession, whatever the form of the models.
  if (!recipe.pipeline_stages.empty() || !recipe.stages.empty()) {
    return run_export_session(args, recipe);
  }
  if (!args.methods.empty() || !args.constants.empty() || args.external_data ||
      args.model.empty()) {
    PTEC_ENFORCE(args.recipe_args.empty() && args.calibration_dir.empty(), InvalidArgument,
                 "--recipe-arg and --calibration take a single model (ptec export MODEL.onnx)");
    return run_export_methods(args);
  }

  PTEC_ENFORCE(fs::exists(args.model), NotFound, "{}: no such file", args.model);
  check_output_directory(args.output);
  if (!args.etrecord_path.empty()) check_output_directory(args.etrecord_path);

  ir::ExportedProgram aten = onnx_import::import_onnx(
      args.model, import_options(args.dynamic, args.dims, args.input_shapes));
  report_import_dims(aten);
  const std::vector<DynamicDimRecord> records = dynamic_dim_records("forward", aten);
  const auto read = Clock::now();
  if (!recipe.quantization.empty()) aten = quantize_for_recipe(recipe, aten, args.calibration_dir);
  const auto imported = Clock::now();
  std::map<std::string, emit::ConstantValue> constant_methods;
  if (!records.empty()) constant_methods.emplace(kDynamicDimsMethod, encode_dynamic_dims(records));
  auto lowered = imported;
  emit::ProgramSummary summary;
  const program::PartitionerList& partitioners = recipe.lowering.partitioners;
  if (args.etrecord_path.empty() && partitioners.empty() && args.recipe_args.empty()) {
    // Portable: the streaming path (no program manager).
    ir::ExportedProgram edge = program::to_edge(aten);
    lowered = Clock::now();
    std::map<std::string, ir::ExportedProgram> methods;
    methods.emplace("forward", std::move(edge));
    summary = emit::summarize(
        emit::export_pte(methods, emit::EmitConfig{}, args.output, constant_methods));
  } else {
    // The export API: lowering to the recipe's backends, and the ETRecord (generate_etrecord).
    program::TransformAndLowerOptions edge_options;
    edge_options.partitioners = partitioners;
    edge_options.transform_passes = recipe.lowering.edge_transform_passes;
    edge_options.constant_methods = constant_methods;
    edge_options.generate_etrecord = !args.etrecord_path.empty();
    std::map<std::string, ir::ExportedProgram> programs;
    programs.emplace("forward", std::move(aten));
    const program::EdgeProgramManager edge =
        program::to_edge_transform_and_lower(programs, edge_options);
    lowered = Clock::now();
    const program::ExecutorchProgramManager et = edge.to_executorch(recipe.backend_config);
    write_program_and_etrecord(et, args.output, args.etrecord_path);
    summary = emit::summarize(et.emitted());
  }
  const auto written = Clock::now();

  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  const auto file_size = fs::file_size(args.output);
  if (args.json) {
    nlohmann::ordered_json j;
    j["model"] = args.model;
    j["output"] = args.output;
    j["recipe"] = args.recipe;
    j["bytes"] = file_size;
    j["constants"] = summary.num_constants;
    j["constant_bytes"] = summary.constant_bytes;
    if (!args.etrecord_path.empty()) {
      j["etrecord"] = args.etrecord_path;
      j["etrecord_bytes"] = fs::file_size(args.etrecord_path);
    }
    size_t instructions = 0;
    for (const auto& m : summary.methods) instructions += m.num_instructions;
    j["instructions"] = instructions;
    j["time_ms"] = {{"import", ms(read - start)},
                    {"quantize", ms(imported - read)},
                    {"to_edge", ms(lowered - imported)},
                    {"emit_and_write", ms(written - lowered)},
                    {"total", ms(written - start)}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    size_t instructions = 0;
    for (const auto& m : summary.methods) instructions += m.num_instructions;
    std::printf(
        "ptec: exported %s -> %s (%llu bytes, %zu instructions, %zu constants)%s in %.0f ms\n",
        args.model.c_str(), args.output.c_str(), static_cast<unsigned long long>(file_size),
        instructions, summary.num_constants,
        args.etrecord_path.empty() ? "" : (" + etrecord " + args.etrecord_path).c_str(),
        ms(written - start));
  }
  return 0;
}

}  // namespace ptec::cli
