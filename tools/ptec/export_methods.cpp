// `ptec export` with several methods, constant methods or external data: each
// `--method NAME=MODEL.onnx` is imported as method NAME, `--constant NAME=VALUE` adds a constant
// method, and `--external-data` puts the weights in a .ptd beside the .pte. Goes through the
// export API: to_edge_transform_and_lower(methods, {recipe's partitioners, constant_methods})
// → to_executorch → write_to_file.

#include <chrono>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "emit/program_summary.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/exception.h"
#include "program/edge_program_manager.h"
#include "program/to_edge_transform_and_lower.h"
#include "tools/ptec/commands.h"
#include "tools/ptec/dynamic_dims.h"
#include "tools/ptec/recipes.h"

namespace ptec::cli {
namespace {

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* what) {
  const size_t eq = text.find('=');
  PTEC_ENFORCE(eq != std::string::npos && eq > 0 && eq + 1 < text.size(), InvalidArgument,
               "{} '{}' must be NAME=VALUE", what, text);
  return {text.substr(0, eq), text.substr(eq + 1)};
}

}  // namespace

std::map<std::string, std::string> method_sources(const ExportArgs& args) {
  std::map<std::string, std::string> sources;
  if (!args.model.empty()) sources["forward"] = args.model;
  for (const std::string& m : args.methods) {
    auto [name, path] = split_assignment(m, "--method");
    PTEC_ENFORCE(sources.emplace(name, path).second, InvalidArgument,
                 "--method {}: method '{}' is given twice", m, name);
  }
  PTEC_ENFORCE(!sources.empty(), InvalidArgument,
               "export: give a MODEL or at least one --method NAME=MODEL.onnx");
  return sources;
}

std::map<std::string, emit::ConstantValue> constant_methods(const ExportArgs& args) {
  std::map<std::string, emit::ConstantValue> constants;
  for (const std::string& c : args.constants) {
    auto [name, value] = split_assignment(c, "--constant");
    PTEC_ENFORCE(constants.emplace(name, parse_constant(value)).second, InvalidArgument,
                 "--constant {}: '{}' is given twice", c, name);
  }
  return constants;
}

std::string external_data_path(const program::ExecutorchProgramManager& et,
                               const std::string& output) {
  return et.has_external_tensor_data()
             ? std::filesystem::path(output).replace_extension(".ptd").string()
             : std::string();
}

void describe_written_files(nlohmann::ordered_json& j, const ExportArgs& args,
                            const std::string& ptd) {
  if (!ptd.empty()) {
    j["data"] = ptd;
    j["data_bytes"] = std::filesystem::file_size(ptd);
  }
  if (!args.etrecord_path.empty()) {
    j["etrecord"] = args.etrecord_path;
    j["etrecord_bytes"] = std::filesystem::file_size(args.etrecord_path);
  }
}

emit::ConstantValue parse_constant(const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  try {
    size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used == text.size()) return static_cast<int64_t>(v);
  } catch (const std::exception&) {
  }
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return text;
}

void check_output_directory(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(path).parent_path();
  PTEC_ENFORCE(dir.empty() || fs::is_directory(dir), NotFound,
               "{}: output directory {} does not exist", path, dir.string());
}

void write_program_and_etrecord(const program::ExecutorchProgramManager& et,
                                const std::string& output, const std::string& etrecord_path) {
  if (etrecord_path.empty()) {
    et.write_to_file(output);
    return;
  }
  et.get_etrecord().save(etrecord_path);
  try {
    et.write_to_file(output);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(etrecord_path, ignored);
    throw;
  }
}

int run_export_methods(const ExportArgs& args) {
  namespace fs = std::filesystem;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  check_output_directory(args.output);
  if (!args.etrecord_path.empty()) check_output_directory(args.etrecord_path);

  const std::map<std::string, std::string> sources = method_sources(args);
  PTEC_ENFORCE((args.dynamic.empty() && args.dims.empty() && args.input_shapes.empty()) ||
                   sources.count("forward"),
               InvalidArgument,
               "--dynamic, --dim and --input-shape apply to MODEL (method forward), and none is "
               "given");
  std::map<std::string, ir::ExportedProgram> programs;
  std::vector<DynamicDimRecord> records;
  for (const auto& [name, path] : sources) {
    programs.emplace(
        name, import_method(name, path, args.dynamic, args.dims, args.input_shapes, records));
  }
  program::TransformAndLowerOptions options;
  const LoweringRecipe lowering = recipe_lowering(args.recipe);
  options.partitioners = lowering.partitioners;
  options.transform_passes = lowering.edge_transform_passes;
  options.generate_etrecord = !args.etrecord_path.empty();
  options.constant_methods = constant_methods(args);
  if (!records.empty()) {
    options.constant_methods.emplace(kDynamicDimsMethod, encode_dynamic_dims(records));
  }
  const auto imported = Clock::now();
  program::ExecutorchBackendConfig config;
  config.external_constants = args.external_data;
  const program::ExecutorchProgramManager et =
      program::to_edge_transform_and_lower(programs, options).to_executorch(config);
  write_program_and_etrecord(et, args.output, args.etrecord_path);
  const auto written = Clock::now();

  const emit::ProgramSummary summary = emit::summarize(et.emitted());
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  const auto file_size = fs::file_size(args.output);
  const std::string ptd = external_data_path(et, args.output);
  size_t instructions = 0;
  for (const auto& m : summary.methods) instructions += m.num_instructions;
  if (args.json) {
    nlohmann::ordered_json j;
    j["methods"] = sources;
    j["constant_methods"] = et.config_methods();
    j["output"] = args.output;
    j["bytes"] = file_size;
    describe_written_files(j, args, ptd);
    j["constants"] = summary.num_constants;
    j["constant_bytes"] = summary.constant_bytes;
    j["instructions"] = instructions;
    j["time_ms"] = {{"import", ms(imported - start)},
                    {"lower_emit_write", ms(written - imported)},
                    {"total", ms(written - start)}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf(
        "ptec: exported %zu method(s) and %zu constant method(s) -> %s (%llu bytes, %zu "
        "instructions, %zu constants)%s%s in %.0f ms\n",
        sources.size(), et.config_methods().size(), args.output.c_str(),
        static_cast<unsigned long long>(file_size), instructions, summary.num_constants,
        ptd.empty() ? "" : (" + " + ptd).c_str(),
        args.etrecord_path.empty() ? "" : (" + etrecord " + args.etrecord_path).c_str(),
        ms(written - start));
  }
  return 0;
}

}  // namespace ptec::cli
