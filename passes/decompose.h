#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>

#include "passes/pass.h"

namespace ptec::ir {
class Node;
}

namespace ptec::passes {

/// Rewrites one call into calls of core ATen ops (inserted before it), makes its users use the
/// result, and erases it. New nodes record the original in meta().extra["from_node"].
using Decomposition = std::function<void(ir::ExportedProgram& program, ir::Node* node)>;

/// The decomposition table: qualified op name → decomposition. Holds `aten::linear`
/// (permute_copy + addmm/mm, with view_copy around it for inputs of rank > 2),
/// `aten::hardswish` (x * clamp(x + 3, 0, 6) / 6), `aten::hardsigmoid` (clamp(x + 3, 0, 6) / 6)
/// and `aten::relu6` (hardtanh(x, 0, 6)). An entry applies to any program that calls the op,
/// whether the op comes from the registry or from a frontend's own schema.
const std::map<std::string, Decomposition>& decomposition_table();

/// Decomposes to the core ATen operator set: every call whose op has a decomposition (and is
/// not in `preserve_ops`) is rewritten, repeatedly until none is left. Afterwards every call
/// must be an op with an out variant, a prim op (no tensor returns), getitem, a delegate call,
/// or a preserved op; anything else is InvalidProgram naming the node and the op.
class Decompose final : public Pass {
 public:
  explicit Decompose(std::set<std::string> preserve_ops = {})
      : preserve_ops_(std::move(preserve_ops)) {}
  std::string name() const override { return "decompose"; }
  PassResult run(ir::ExportedProgram& program) override;

 private:
  std::set<std::string> preserve_ops_;
};

}  // namespace ptec::passes
