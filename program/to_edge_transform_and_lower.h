#pragma once

#include <map>
#include <string>
#include <variant>

#include "program/edge_program_manager.h"

namespace ptec::program {

/// Options of to_edge_transform_and_lower.
struct TransformAndLowerOptions {
  /// Passes run after to_edge: one list for every method, or a per-method map.
  std::variant<PassList, MethodPasses> transform_passes;
  /// Partitioners: one list for every method, or a per-method map (methods not in the map are
  /// not lowered). Each is told the method name.
  std::variant<PartitionerList, MethodPartitioners> partitioners;
  std::map<std::string, emit::ConstantValue> constant_methods;
  EdgeCompileConfig compile_config;
  /// Record an ETRecord: the ATEN program of every method (a structure snapshot, payloads
  /// shared), the Edge program of every method before partitioning and, only for methods that
  /// transform passes ran on, the Edge program after them (edge_after_transform/<method>).
  /// Off: nothing is recorded or copied.
  bool generate_etrecord = false;
};

/// The common path in one call: to_edge (not decomposing the ops the method's partitioners
/// name in ops_to_not_decompose, nor compile_config.preserve_ops), transform, to_backend.
///
/// Errors: InvalidState when a program is past ATEN (naming the method and both stages);
/// InvalidProgram naming the node when an op kept for a partitioner is left undelegated; those
/// of to_edge, the passes and to_backend.
EdgeProgramManager to_edge_transform_and_lower(
    const std::map<std::string, ir::ExportedProgram>& programs,
    const TransformAndLowerOptions& options = {});
/// One program, as method "forward".
EdgeProgramManager to_edge_transform_and_lower(const ir::ExportedProgram& program,
                                               const TransformAndLowerOptions& options = {});

}  // namespace ptec::program
