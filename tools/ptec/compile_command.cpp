// `ptec compile`: ONNX → ATEN program → ptec::engine::compile (CPU engines, autotuned on this
// machine unless --no-autotune) → program archive (.ptep) that `ptec export` packages.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/engine/aot/engine.h"
#include "backends/engine/aot/engine_compile.h"
#include "backends/engine/cpu_engine_format.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/exception.h"
#include "ir/program_archive.h"
#include "tools/ptec/commands.h"
#include "tools/ptec/dynamic_dims.h"

namespace ptec::cli {
namespace {

// --points SYMBOL=V1,V2,...: the profile of a symbol of `program`'s inputs, its whole range with
// the listed points (engine::compile checks them against the range and the declared multiple).
std::map<std::string, engine::EngineDimProfile> profiles(const std::vector<std::string>& args,
                                                         const ir::ExportedProgram& program) {
  std::map<std::string, engine::EngineDimProfile> out;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    PTEC_ENFORCE(eq != std::string::npos && eq > 0 && eq + 1 < arg.size(), InvalidArgument,
                 "--points '{}': expected SYMBOL=V1,V2,...", arg);
    const std::string name = arg.substr(0, eq);
    auto symbol = program.range_constraints().find(name);
    PTEC_ENFORCE(symbol != program.range_constraints().end(), InvalidArgument,
                 "--points '{}': the model has no dynamic dim named '{}' (name it with --dynamic "
                 "INPUT:AXIS={}:MIN..MAX)",
                 arg, name, name);
    PTEC_ENFORCE(out.count(name) == 0, InvalidArgument, "--points: '{}' is given twice", name);
    engine::EngineDimProfile profile{symbol->second->min, symbol->second->max, {}};
    size_t at = eq + 1;
    while (at <= arg.size()) {
      const size_t comma = std::min(arg.find(',', at), arg.size());
      const std::string item = arg.substr(at, comma - at);
      int64_t value = 0;
      const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
      PTEC_ENFORCE(!item.empty() && ec == std::errc() && end == item.data() + item.size(),
                   InvalidArgument, "--points '{}': '{}' is not an integer", arg, item);
      profile.points.push_back(value);
      at = comma + 1;
    }
    out[name] = std::move(profile);
  }
  return out;
}

}  // namespace

int run_compile(const CompileArgs& args) {
  namespace fs = std::filesystem;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  PTEC_ENFORCE(fs::exists(args.model), NotFound, "{}: no such file", args.model);
  check_output_directory(args.output);

  const ir::ExportedProgram aten = onnx_import::import_onnx(
      args.model, import_options(args.dynamic, args.dims, args.input_shapes));
  report_import_dims(aten);
  const auto imported = Clock::now();

  engine::EngineCompileOptions options;
  options.autotune = !args.no_autotune;
  options.threads = args.threads;
  options.input_profiles = profiles(args.points, aten);
  const ir::ExportedProgram compiled = engine::compile(aten, options);
  const auto built = Clock::now();
  ir::save_program(compiled, args.output);
  const auto written = Clock::now();

  nlohmann::json engines = nlohmann::json::array();
  for (const auto& [name, object] : compiled.custom_objects()) {
    const std::shared_ptr<const engine::Engine> e = engine::engine_of(object);
    if (e == nullptr) continue;
    engine::CpuEngineView view;
    const bool cpu = view.parse(e->engine_bytes()->data(), e->engine_bytes()->size()) == Error::Ok;
    engines.push_back({{"name", name},
                       {"bytes", e->serialize()->size()},
                       {"plans", cpu ? view.num_plans() : 0},
                       {"bindings", e->metadata().io_bindings.size()},
                       {"target_isa", e->metadata().target_isa},
                       {"threads", e->metadata().threads}});
  }
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  const nlohmann::json summary{{"model", args.model},
                               {"output", args.output},
                               {"bytes", fs::file_size(args.output)},
                               {"engine_calls", engine::count_engine_calls(compiled)},
                               {"engines", engines},
                               {"autotune", options.autotune},
                               {"import_ms", ms(imported - start)},
                               {"build_ms", ms(built - imported)},
                               {"write_ms", ms(written - built)}};
  if (args.json) {
    std::printf("%s\n", summary.dump().c_str());
  } else {
    std::printf("%s: %zu engine call(s), %zu engine(s), %s, built in %.1f ms%s\n",
                args.output.c_str(), engine::count_engine_calls(compiled), engines.size(),
                fs::file_size(args.output) >= (1u << 20)
                    ? fmt::format("{:.1f} MiB", fs::file_size(args.output) / 1048576.0).c_str()
                    : fmt::format("{} bytes", fs::file_size(args.output)).c_str(),
                ms(built - imported), options.autotune ? " (autotuned)" : "");
  }
  return 0;
}

}  // namespace ptec::cli
