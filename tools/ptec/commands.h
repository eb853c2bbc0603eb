#pragma once

#include <string>
#include <vector>

namespace ptec::cli {

struct ExportArgs {
  std::string model;
  std::string output;
  std::string recipe = "portable";
  /// --method NAME=MODEL.onnx, repeatable (several methods in one program).
  std::vector<std::string> methods;
  /// --constant NAME=VALUE, repeatable (constant methods: int, double, bool or string).
  std::vector<std::string> constants;
  /// --external-data: weights in a .ptd beside the .pte.
  bool external_data = false;
  /// --dynamic INPUT:AXIS=[SYMBOL:]MIN..MAX, repeatable.
  std::vector<std::string> dynamic;
  bool json = false;
};

struct RunArgs {
  std::string program;
  std::string method = "forward";
  std::string inputs_dir;
  std::string outputs_dir;
  std::string data_path;
  int iterations = 1;
  bool json = false;
  /// --etdump FILE: record the runtime's events (ETDump, FORMAT.md §6) and write them here.
  std::string etdump_path;
  /// --debug-buffer FILE: also log every kernel's output; the tensor bytes go here.
  std::string debug_buffer_path;
};

struct InfoArgs {
  std::string program;
  bool json = false;
};

/// Each command returns the process exit code; errors are thrown as ptec::Exception and reported
/// by main() as one line naming the file and the problem.
int run_export(const ExportArgs& args);
/// The export API path of `ptec export` (--method, --constant, --external-data).
int run_export_methods(const ExportArgs& args);
int run_run(const RunArgs& args);
int run_info(const InfoArgs& args);

}  // namespace ptec::cli
