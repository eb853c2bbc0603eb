#pragma once

// The reference runner (DESIGN.md §10): runs an ATEN- or EDGE-stage program in-process on the
// portable kernels (plus the quantized_decomposed kernels and the prim ops) and hands every
// node's output tensors to a visitor. The numeric gap of the Inspector compares a run against
// it; quantization calibration observes activations with it.
//
// It reuses the export pipeline rather than interpreting the graph: a structure copy of the
// program (to_edge when it is ATEN), to_executorch with the default (portable) lowering, the .pte
// serialized to memory once, loaded by the runtime with the portable kernels, executed with an
// event tracer that receives each instruction's out value; the emitter's debug_handle_map takes
// instructions back to the nodes of the given program. Weights are copied once, into the
// serialized program, as export does. Host-side code: errors throw ptec::Exception.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/exported_program.h"

namespace ptec::devtools {

/// The output of one call node of the program given to the runner.
struct ObservedOutput {
  /// The node in the given program (valid while that program lives).
  const ir::Node* node = nullptr;
  /// Its name and debug handle in the given program.
  std::string node_name;
  int64_t debug_handle = 0;
  /// Its output tensors (copies with their own bytes: the runtime reuses its memory), one per
  /// tensor the node produces.
  std::vector<ir::TensorData> outputs;
};

using ObserveFn = std::function<void(const ObservedOutput&)>;

/// Options of the reference runner.
struct ReferenceRunOptions {
  /// The program's name in error messages (default: "program <uuid>").
  std::string name;
};

/// A program prepared for reference runs: lowered, serialized and loaded once, then run on any
/// number of input sets (e.g. calibration batches).
///
/// Which nodes are observed: every call node of the given program that the lowering keeps
/// (same name and debug handle). For an ATEN program, a node that to_edge decomposed is observed
/// through the last node of its decomposition (extra["from_node"]), which computes its value;
/// a getitem node through the multi-output node it selects from. Nodes folded away by to_edge
/// (e.g. a batch norm folded into its convolution) and calls that produce no tensor (prim ops)
/// are not observed. observed_nodes() lists the observed nodes.
///
/// Kernels: the process's kernel registry is used, with the portable (quantized, prim)
/// kernels registered when missing and put in place of other kernels registered under the same
/// names (e.g. the optimized convolution) while the method loads, then restored. Not
/// thread-safe with respect to other kernel registration or method loading.
class ReferenceRunner {
 public:
  /// Prepares `program` (it must outlive the runner: observed nodes point into it).
  /// Errors: InvalidArgument when the program is past EDGE or calls a delegate; NotSupported
  /// naming the program, the node and the operator when a node has no portable kernel; those of
  /// to_edge and to_executorch; InvalidState when the runtime cannot load the program.
  explicit ReferenceRunner(const ir::ExportedProgram& program,
                           const ReferenceRunOptions& options = {});
  /// The runner refers to the program's nodes: a temporary would leave them dangling.
  ReferenceRunner(ir::ExportedProgram&&, const ReferenceRunOptions& = {}) = delete;
  ~ReferenceRunner();
  ReferenceRunner(const ReferenceRunner&) = delete;
  ReferenceRunner& operator=(const ReferenceRunner&) = delete;

  /// Runs the program on `inputs` (one per user input, static shapes with their bytes) and
  /// returns its outputs; `on_node_output` (may be empty) gets each observed node's outputs in
  /// execution order. Errors: InvalidArgument naming the input for a wrong count, dtype, rank or
  /// byte count; InvalidState naming the program when the runtime fails; what the visitor
  /// throws (the run stops at the next instruction).
  std::vector<ir::TensorData> run(const std::vector<ir::TensorData>& inputs,
                                  const ObserveFn& on_node_output = {});

  /// The call nodes of the given program that run() observes, in program order.
  std::vector<const ir::Node*> observed_nodes() const;
  /// The program's name in messages.
  const std::string& name() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One reference run: ReferenceRunner(program, options).run(inputs, on_node_output).
std::vector<ir::TensorData> run_reference(const ir::ExportedProgram& program,
                                          const std::vector<ir::TensorData>& inputs,
                                          const ObserveFn& on_node_output = {},
                                          const ReferenceRunOptions& options = {});

}  // namespace ptec::devtools
