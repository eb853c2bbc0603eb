// `ptec export MODEL.onnx -o model.pte --recipe R` for a recipe that brings its own pipeline
// (ExportRecipe::pipeline_stages or ::stages; e.g. engine_cpu_fp32: ENGINE_COMPILE →
// TO_EDGE_TRANSFORM_AND_LOWER → TO_EXECUTORCH): the ONNX models are imported here (MODEL with
// --dynamic, and --method NAME=MODEL.onnx) and ptec::ExportSession runs the recipe's pipeline;
// --constant, --external-data, --etrecord and --calibration apply as on the other paths.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "emit/program_summary.h"
#include "export/export_session.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/exception.h"
#include "tools/ptec/commands.h"
#include "tools/ptec/dynamic_dims.h"
#include "tools/ptec/recipes.h"

namespace ptec::cli {

int run_export_session(const ExportArgs& args, const ExportRecipe& recipe) {
  namespace fs = std::filesystem;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  check_output_directory(args.output);
  if (!args.etrecord_path.empty()) check_output_directory(args.etrecord_path);

  const std::map<std::string, std::string> files = method_sources(args);
  PTEC_ENFORCE((args.dynamic.empty() && args.dims.empty() && args.input_shapes.empty()) ||
                   files.count("forward"),
               InvalidArgument,
               "--dynamic, --dim and --input-shape apply to MODEL (method forward), and none is "
               "given");

  ExportOptions options;
  options.name = fs::path(args.output).stem().string();
  options.generate_etrecord = !args.etrecord_path.empty();
  options.constant_methods = constant_methods(args);
  if (!args.calibration_dir.empty()) {
    options.calibration_inputs["forward"] = read_calibration_sets(args.calibration_dir);
  }

  // Import (the session would too; here the dynamic dims are reported and recorded).
  std::map<std::string, MethodModel> methods;
  std::vector<DynamicDimRecord> records;
  for (const auto& [name, path] : files) {
    methods.emplace(name,
                    import_method(name, path, args.dynamic, args.dims, args.input_shapes, records));
  }
  if (!records.empty()) {
    options.constant_methods.emplace(kDynamicDimsMethod, encode_dynamic_dims(records));
  }
  const auto imported = Clock::now();

  ExportRecipe r = recipe;
  if (args.external_data) r.backend_config.external_constants = true;
  ExportSession session(std::move(methods), ExampleInputs{}, std::move(r), options);
  session.run();
  const auto exported = Clock::now();
  const program::ExecutorchProgramManager& et = session.get_executorch_program_manager();
  write_program_and_etrecord(et, args.output, args.etrecord_path);
  const auto written = Clock::now();

  const emit::ProgramSummary summary = emit::summarize(et.emitted());
  size_t instructions = 0;
  for (const auto& m : summary.methods) instructions += m.num_instructions;
  std::map<std::string, size_t> delegates;
  for (const auto& [method, info] : session.delegation_info()) {
    for (const auto& [backend, count] : info.delegates) delegates[backend] += count;
  }
  std::vector<std::string> stages;
  for (StageType s : session.pipeline()) stages.emplace_back(to_string(s));
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  const auto file_size = fs::file_size(args.output);
  const std::string ptd = external_data_path(et, args.output);
  if (args.json) {
    nlohmann::ordered_json j;
    j["methods"] = files;
    j["constant_methods"] = et.config_methods();
    j["output"] = args.output;
    j["recipe"] = args.recipe;
    j["pipeline"] = stages;
    j["bytes"] = file_size;
    describe_written_files(j, args, ptd);
    j["delegates"] = delegates;
    j["instructions"] = instructions;
    j["constants"] = summary.num_constants;
    j["constant_bytes"] = summary.constant_bytes;
    nlohmann::ordered_json times;
    times["import"] = ms(imported - start);
    for (const StageTiming& t : session.stage_timings()) times[t.stage] = t.ms;
    times["write"] = ms(written - exported);
    times["total"] = ms(written - start);
    j["time_ms"] = times;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::string delegated;
    for (const auto& [backend, count] : delegates) {
      delegated += fmt::format(", {} {} delegate(s)", count, backend);
    }
    std::printf(
        "ptec: exported %zu method(s) -> %s (%llu bytes, %zu instructions, %zu constants%s; "
        "%s)%s%s in %.0f ms\n",
        files.size(), args.output.c_str(), static_cast<unsigned long long>(file_size), instructions,
        summary.num_constants, delegated.c_str(),
        fmt::format("{}", fmt::join(stages, " -> ")).c_str(),
        ptd.empty() ? "" : (" + " + ptd).c_str(),
        args.etrecord_path.empty() ? "" : (" + etrecord " + args.etrecord_path).c_str(),
        ms(written - start));
  }
  return 0;
}

}  // namespace ptec::cli
