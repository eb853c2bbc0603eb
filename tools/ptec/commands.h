#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "emit/constant_value.h"

namespace ptec::program {
class ExecutorchProgramManager;
}
namespace ptec {
struct ExportRecipe;
}

namespace ptec::cli {

struct ExportArgs {
  std::string model;
  std::string output;
  std::string recipe = "cpu_fp32";
  /// --method NAME=MODEL.onnx, repeatable (several methods in one program).
  std::vector<std::string> methods;
  /// --constant NAME=VALUE, repeatable (constant methods: int, double, bool or string).
  std::vector<std::string> constants;
  /// --external-data: weights in a .ptd beside the .pte.
  bool external_data = false;
  /// --dynamic INPUT:AXIS=[SYMBOL:]MIN..MAX, repeatable.
  std::vector<std::string> dynamic;
  /// --dim SYMBOL=VALUE and --input-shape INPUT=D0xD1x..., repeatable: sizes of symbolic dims.
  std::vector<std::string> dims;
  std::vector<std::string> input_shapes;
  /// --etrecord FILE: export with generate_etrecord and save the ETRecord here.
  std::string etrecord_path;
  /// --recipe-arg KEY=VALUE, repeatable: the recipe's kwargs (ptec recipes lists them).
  std::vector<std::string> recipe_args;
  /// --calibration DIR: calibration input sets of a quantizing recipe (recipes.h).
  std::string calibration_dir;
  bool json = false;
};

struct RunArgs {
  std::string program;
  std::string method = "forward";
  std::string inputs_dir;
  std::string outputs_dir;
  std::string data_path;
  int iterations = 1;
  /// --threads N: threads for kernels and delegates (0: one per core).
  int threads = 0;
  bool json = false;
  /// --etdump FILE: record the runtime's events (ETDump, FORMAT.md §6) and write them here.
  std::string etdump_path;
  /// --debug-buffer FILE: also log every kernel's output; the tensor bytes go here.
  std::string debug_buffer_path;
};

struct CompileArgs {
  std::string model;
  std::string output;
  /// --dynamic INPUT:AXIS=[SYMBOL:]MIN..MAX, repeatable: the engines' profiles.
  std::vector<std::string> dynamic;
  /// --dim SYMBOL=VALUE and --input-shape INPUT=D0xD1x..., repeatable: sizes of symbolic dims.
  std::vector<std::string> dims;
  std::vector<std::string> input_shapes;
  /// --points SYMBOL=V1,V2,..., repeatable: the sizes of a dynamic dim to build plans for
  /// (default: the range's min and max and the powers of two between).
  std::vector<std::string> points;
  /// --no-autotune: keep the CPU backend's default choices (no timing runs).
  bool no_autotune = false;
  /// --threads N: threads the engines are tuned for (0: one per core).
  int threads = 0;
  bool json = false;
};

struct InfoArgs {
  std::string program;
  bool json = false;
};

struct InspectArgs {
  std::string etrecord_path;
  /// --etdump FILE, repeatable (e.g. one `ptec run` per method): their run blocks are joined.
  std::vector<std::string> etdump_paths;
  /// --debug-buffer FILE: the intermediate outputs `ptec run --debug-buffer` wrote; repeatable,
  /// one per --etdump in the same order (a single one serves every dump).
  std::vector<std::string> debug_buffer_paths;
  bool json = false;
  /// --tsv FILE: also write one line per event, tab separated.
  std::string tsv_path;
  /// --numeric-gap: compare the logged outputs with a reference run's, per debug handle.
  bool numeric_gap = false;
  /// --metric mse|l1|snr.
  std::string metric = "mse";
  /// The reference run (e.g. the model exported with --recipe portable, run on the same inputs
  /// with --debug-buffer). Without it, --numeric-gap runs the ETRecord's programs itself.
  std::string reference_etrecord_path;
  std::vector<std::string> reference_etdump_paths;
  std::string reference_debug_buffer_path;
  /// --inputs [METHOD=]DIR (repeatable): the inputs the run used, for the in-process reference
  /// of a method (DIR alone: the only method, or forward). Methods without them use the
  /// ETRecord's representative inputs, else ones (ptec run's default).
  std::vector<std::string> inputs;
  /// --program FILE.pte: the exported program, whose constants and named data give the in-process
  /// reference the weights an ETRecord holds by reference only.
  std::string program_path;
};

/// Each command returns the process exit code; errors are thrown as ptec::Exception and reported
/// by main() as one line naming the file and the problem.
int run_export(const ExportArgs& args);
/// The export API path of `ptec export` (--method, --constant, --external-data).
int run_export_methods(const ExportArgs& args);
/// `ptec export` with a recipe that brings its own pipeline (ExportRecipe::pipeline_stages or
/// ::stages, e.g. engine_cpu_fp32): ExportSession runs it on the imported ONNX models (MODEL with
/// --dynamic, --method), with --constant, --external-data, --etrecord and --calibration.
int run_export_session(const ExportArgs& args, const ExportRecipe& recipe);
/// `ptec export` of engine-bearing program archives (.ptep, from `ptec compile`): MODEL and
/// --method files that are archives go through ptec::engine::export (ONNX --method files join
/// as methods without engines).
int run_export_engine(const ExportArgs& args);
/// True when `path` names a program archive (".ptep").
bool is_program_archive(const std::string& path);
/// "128" → int, "0.5" → double, "true"/"false" → bool, anything else → string (--constant).
emit::ConstantValue parse_constant(const std::string& text);
/// The export's methods: MODEL as "forward", then each --method NAME=FILE. InvalidArgument for a
/// malformed --method, a method given twice, or no method at all.
std::map<std::string, std::string> method_sources(const ExportArgs& args);
/// The --constant NAME=VALUE methods (parse_constant). InvalidArgument for a malformed one or a
/// name given twice.
std::map<std::string, emit::ConstantValue> constant_methods(const ExportArgs& args);
/// The .ptd written beside the .pte when `et` has external data; empty otherwise.
std::string external_data_path(const program::ExecutorchProgramManager& et,
                               const std::string& output);
/// Adds the files an export wrote besides the .pte to its --json object: "data" and
/// "data_bytes" for `ptd` (when not empty), "etrecord" and "etrecord_bytes" for the ETRecord.
void describe_written_files(nlohmann::ordered_json& j, const ExportArgs& args,
                            const std::string& ptd);
/// Writes the .pte (and .ptd) of `et` and, when `etrecord_path` is not empty, its ETRecord, each
/// atomically. The ETRecord is saved first and removed again when the .pte cannot be written, so
/// a failed export leaves no ETRecord behind.
void write_program_and_etrecord(const program::ExecutorchProgramManager& et,
                                const std::string& output, const std::string& etrecord_path);
/// NotFound naming `path` when the directory it would be written to does not exist.
void check_output_directory(const std::string& path);
int run_run(const RunArgs& args);
/// `ptec compile`: an ONNX model → an engine-bearing program archive (.ptep).
int run_compile(const CompileArgs& args);
int run_info(const InfoArgs& args);
/// `ptec inspect`: the Inspector on an ETRecord and an ETDump.
int run_inspect(const InspectArgs& args);

}  // namespace ptec::cli
