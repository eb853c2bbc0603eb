#pragma once

#include <string>

namespace ptec::ir {
class ExportedProgram;
}

namespace ptec::passes {

/// What a pass did.
struct PassResult {
  /// True when the pass changed the program.
  bool modified = false;
};

/// A transformation of one program (MLIR's Pass, torch's PassBase). A pass changes the program in
/// place, keeps node debug handles of surviving nodes, and leaves it valid for ir::verify. It may
/// throw only ptec::Exception, naming the node it could not handle.
class Pass {
 public:
  virtual ~Pass() = default;
  /// Stable name used in logs, the pass list and error messages, e.g. "dead_code_elimination".
  virtual std::string name() const = 0;
  virtual PassResult run(ir::ExportedProgram& program) = 0;
};

}  // namespace ptec::passes
