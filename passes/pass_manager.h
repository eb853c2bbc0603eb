#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "passes/pass.h"

namespace ptec::ir {
class ExportedProgram;
}

namespace ptec::passes {

/// Options of a PassManager run.
struct PassManagerOptions {
#ifdef NDEBUG
  static constexpr bool kDebugBuild = false;
#else
  static constexpr bool kDebugBuild = true;
#endif
  /// Run ir::verify after every pass (MLIR's verify-after-each). On by default in debug builds
  /// (and therefore in tests); a failure names the pass that broke the program.
  bool verify_each = kDebugBuild;
  /// When set, the program is printed here before and after every pass that ran.
  std::ostream* print_ir = nullptr;
  /// Print only after passes that modified the program.
  bool print_only_modified = true;
};

/// Runs a list of passes in order on one program.
class PassManager {
 public:
  explicit PassManager(PassManagerOptions options = {}) : options_(options) {}

  /// Appends a pass; returns *this for chaining.
  PassManager& add(std::unique_ptr<Pass> pass);
  /// Names of the passes, in run order.
  std::vector<std::string> pass_names() const;

  /// Runs every pass once. Throws what a pass throws, with the pass name prepended, or
  /// InvalidProgram naming the pass when verification fails after it. `modified` is true when
  /// any pass changed the program.
  PassResult run(ir::ExportedProgram& program) const;

 private:
  PassManagerOptions options_;
  std::vector<std::unique_ptr<Pass>> passes_;
};

/// Text of `program` for before/after dumps (the IR printer's output).
std::string print_program(const ir::ExportedProgram& program);
/// Verifies `program` with ir::verify; throws its exception.
void verify_program(const ir::ExportedProgram& program);

}  // namespace ptec::passes
