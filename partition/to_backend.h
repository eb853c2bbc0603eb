#pragma once

#include <string>

#include "ir/exported_program.h"
#include "partition/partitioner.h"

namespace ptec::partition {

/// Lowers the partitions `partitioner` finds in `program` (ExecuTorch's to_backend for one
/// method). `program` (stage EDGE or LOWERED) is not changed; the result is a structural copy
/// (payloads shared) at stage LOWERED in which each partition — a connected, convex set of
/// nodes with one tag — is one `executorch_call_delegate(lowered_module_N, inputs...)` node
/// followed by one `getitem` per output, the get_attr `lowered_module_N` naming a
/// LoweredModule (lowered_module.h) built by the tag's backend (looked up in the registry).
/// Parameters tagged with a partition become the subgraph's parameters and leave the method.
/// A partitioner that tags nothing leaves the program as it was (stage and provenance still
/// record the step).
///
/// Checks, each an ptec::Exception naming what failed: the partitioner did not change the graph
/// (InvalidState); every tag has a DelegationSpec (InvalidArgument); no compile spec
/// "method_name" differs from `context.method_name` (InvalidArgument, naming both); the output
/// node and user inputs are not tagged; a tagged parameter or constant is used only inside its
/// partition; a partition is convex — no path leaves it and re-enters (InvalidProgram, naming
/// the node); the backend is registered (NotFound "Backend X is not registered").
ir::ExportedProgram to_backend(const ir::ExportedProgram& program, const Partitioner& partitioner,
                               const PartitionContext& context);

/// The printed program with delegation tags cleared: equal before and after a partitioner that
/// only tagged nodes.
std::string structural_fingerprint(const ir::ExportedProgram& program);

}  // namespace ptec::partition
