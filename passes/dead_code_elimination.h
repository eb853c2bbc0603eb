#pragma once

#include "passes/pass.h"

namespace ptec::passes {

/// Removes calls and get_attrs whose results nothing uses (getitems included, so a multi-output
/// call whose outputs are all unused goes too), then the PARAMETER/BUFFER/CONSTANT_TENSOR
/// placeholders left unused, with their signature and state entries. Keeps user inputs, the
/// output node, and calls with side effects (in-place ops, named `..._`, and ops returning
/// nothing).
class DeadCodeElimination final : public Pass {
 public:
  std::string name() const override { return "dead_code_elimination"; }
  PassResult run(ir::ExportedProgram& program) override;
};

}  // namespace ptec::passes
