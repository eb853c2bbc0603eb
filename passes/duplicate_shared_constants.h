#pragma once

#include "passes/pass.h"

namespace ptec::passes {

/// Gives every user of a shared constant (a PARAMETER, BUFFER or CONSTANT_TENSOR placeholder read
/// by several nodes) a placeholder of its own, all naming the same tensor (same target, same
/// bytes: nothing is copied, and the emitter stores equal payloads once). A delegate owns the
/// constants its nodes read, so a weight shared by layers that end in different partitions (the
/// layers of ALBERT, a tied embedding, the Identity-deduplicated weights of an exporter) would
/// otherwise keep those layers out of every delegate. ExecuTorch's partitioners do the same
/// (duplicate_constant_node). to_backend runs it before partitioning.
class DuplicateSharedConstants final : public Pass {
 public:
  std::string name() const override { return "duplicate_shared_constants"; }
  /// Whether `program` has a constant placeholder with several users (run() would change it).
  static bool applies(const ir::ExportedProgram& program);
  PassResult run(ir::ExportedProgram& program) override;
};

}  // namespace ptec::passes
