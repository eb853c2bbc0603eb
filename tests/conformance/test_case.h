#pragma once

// One ONNX backend-test directory (model.onnx + test_data_set_N/) run through ptec: the
// out-of-scope rules, and the import → to_edge → emit → runtime → compare pipeline.

#include <string>

namespace ptec::conformance {

/// The outcome of one test directory, as the child process reports it.
enum class Status { Pass, Fail, Skip, Crash, Timeout };

/// "PASS", "FAIL", "SKIP", "CRASH", "TIMEOUT".
const char* to_string(Status status);

struct Outcome {
  Status status = Status::Fail;
  /// One line: the failure reason, the skip rule, the signal or the time limit.
  std::string detail;
};

/// The rule that puts the test directory `dir` out of scope (sequences, optionals, maps or
/// strings as graph inputs/outputs; training ops; random ops), or "" when it is in scope.
/// Throws ptec::Exception when model.onnx cannot be read.
std::string out_of_scope_rule(const std::string& dir);

/// Runs the test directory `dir` in this process: every test_data_set_N through import →
/// to_edge → emit → runtime::Module (portable kernels) → comparison with output_K.pb (rtol 1e-3,
/// atol 1e-5, NaN equal; dtype and shape must match). When the importer needs, at import time,
/// the value of a graph input (a Reshape shape, Resize scales, reduction axes, ...), that input is
/// bound to the data set's value and the program exported for it; such a pass has the detail
/// "specialized on input(s) <names>". Never throws; may crash (the runner isolates it in a child
/// process).
Outcome run_test_dir(const std::string& dir);

}  // namespace ptec::conformance
