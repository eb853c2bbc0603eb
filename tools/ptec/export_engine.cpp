// `ptec export model.ptep -o model.pte [--recipe ...]`: packages engine-bearing program archives
// (`ptec compile`) with ptec::engine::export (export_engine_program): every engine call becomes a
// PtecEngineBackend delegate whose blob is the engine, the recipe's partitioners claim what
// they can of the rest, and the remainder runs on the optimized and portable kernels.
// `--method NAME=FILE` adds methods (.ptep archives, or ONNX models as methods without engines).

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "backends/engine/aot/engine.h"
#include "backends/engine/aot/engine_export.h"
#include "emit/program_summary.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/exception.h"
#include "ir/program_archive.h"
#include "tools/ptec/commands.h"
#include "tools/ptec/dynamic_dims.h"
#include "tools/ptec/recipes.h"

namespace ptec::cli {

bool is_program_archive(const std::string& path) {
  return std::filesystem::path(path).extension() == ".ptep";
}

int run_export_engine(const ExportArgs& args) {
  namespace fs = std::filesystem;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  PTEC_ENFORCE(args.dynamic.empty() && args.dims.empty() && args.input_shapes.empty(),
               InvalidArgument,
               "--dynamic, --dim and --input-shape: the shapes of an engine-bearing program are "
               "its engines', fixed by ptec compile");
  PTEC_ENFORCE(args.recipe_args.empty() && args.calibration_dir.empty(), InvalidArgument,
               "--recipe-arg and --calibration: an engine-bearing program is not quantized by "
               "ptec export");
  check_output_directory(args.output);
  if (!args.etrecord_path.empty()) check_output_directory(args.etrecord_path);

  const std::map<std::string, std::string> files = method_sources(args);
  engine::register_engine_loader();
  std::map<std::string, ir::ExportedProgram> programs;
  std::vector<DynamicDimRecord> records;
  for (const auto& [name, path] : files) {
    PTEC_ENFORCE(fs::exists(path), NotFound, "{}: no such file (method '{}')", path, name);
    ir::ExportedProgram program =
        is_program_archive(path) ? ir::load_program(path) : onnx_import::import_onnx(path);
    for (const DynamicDimRecord& r : dynamic_dim_records(name, program)) records.push_back(r);
    programs.emplace(name, std::move(program));
  }
  const auto loaded = Clock::now();

  engine::EngineExportOptions options;
  const LoweringRecipe lowering = recipe_lowering(args.recipe);
  options.partitioners = lowering.partitioners;
  options.transform_passes = lowering.edge_transform_passes;
  options.generate_etrecord = !args.etrecord_path.empty();
  options.constant_methods = constant_methods(args);
  if (!records.empty()) {
    options.constant_methods.emplace(kDynamicDimsMethod, encode_dynamic_dims(records));
  }
  program::ExecutorchBackendConfig config;
  config.external_constants = args.external_data;
  const program::ExecutorchProgramManager et =
      engine::export_engine_program(programs, options).to_executorch(config);
  write_program_and_etrecord(et, args.output, args.etrecord_path);
  const auto written = Clock::now();

  const emit::ProgramSummary summary = emit::summarize(et.emitted());
  size_t instructions = 0;
  size_t engine_delegates = 0;
  for (const auto& m : summary.methods) instructions += m.num_instructions;
  for (const emit::EmittedMethod& m : et.emitted().methods) {
    for (const auto& [id, call] : m.delegate_calls) {
      engine_delegates += call.backend_id == engine::kBackendId ? 1 : 0;
    }
  }
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  const auto file_size = fs::file_size(args.output);
  const std::string ptd = external_data_path(et, args.output);
  if (args.json) {
    nlohmann::ordered_json j;
    j["methods"] = files;
    j["constant_methods"] = et.config_methods();
    j["output"] = args.output;
    j["recipe"] = args.recipe;
    j["bytes"] = file_size;
    describe_written_files(j, args, ptd);
    j["engine_delegates"] = engine_delegates;
    j["instructions"] = instructions;
    j["constants"] = summary.num_constants;
    j["time_ms"] = {{"load", ms(loaded - start)},
                    {"export_emit_write", ms(written - loaded)},
                    {"total", ms(written - start)}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf(
        "ptec: exported %zu method(s) -> %s (%llu bytes, %zu engine delegate(s), %zu "
        "instructions, %zu constants)%s%s in %.0f ms\n",
        files.size(), args.output.c_str(), static_cast<unsigned long long>(file_size),
        engine_delegates, instructions, summary.num_constants,
        ptd.empty() ? "" : (" + " + ptd).c_str(),
        args.etrecord_path.empty() ? "" : (" + etrecord " + args.etrecord_path).c_str(),
        ms(written - start));
  }
  return 0;
}

}  // namespace ptec::cli
