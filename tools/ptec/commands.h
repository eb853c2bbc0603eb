#pragma once

#include <string>
#include <vector>

namespace ptec::cli {

struct ExportArgs {
  std::string model;
  std::string output;
  std::string recipe = "portable";
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
};

struct InfoArgs {
  std::string program;
  bool json = false;
};

/// Each command returns the process exit code; errors are thrown as ptec::Exception and reported
/// by main() as one line naming the file and the problem.
int run_export(const ExportArgs& args);
int run_run(const RunArgs& args);
int run_info(const InfoArgs& args);

}  // namespace ptec::cli
