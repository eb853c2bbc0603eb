#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "memory/memory_plan.h"

namespace ptec::ir {
class ExportedProgram;
class Node;
}  // namespace ptec::ir

namespace ptec::memory {

/// True for a `getitem` call: it names output i of a multi-output producer and is no tensor of
/// its own (it emits no instruction and gets no memory).
bool is_getitem(const ir::Node& node);

/// The tensor a node stands for: (producer, output index). A getitem resolves to its producer's
/// output; every other node to (node, 0). Throws InvalidArgument for a malformed getitem.
std::pair<const ir::Node*, size_t> resolve_value(const ir::Node* node);

/// The tensors of `program` that get planned memory, with their lifetimes over the node order
/// (position = index in Graph::nodes()):
/// - every output of every call (getitem excluded), defined at the call's position;
/// - user-input placeholders when `options.alloc_graph_input`, living for the whole method;
/// - a tensor the output node returns lives to the end of the method; with
///   `!options.alloc_graph_output` it is not planned at all (unless it is a planned user input).
/// Constants (PARAMETER, BUFFER, CONSTANT_TENSOR placeholders) are never planned. Symbolic
/// dimensions count at their upper bound. Tensors are listed in definition order.
std::vector<TensorLifetime> compute_lifetimes(const ir::ExportedProgram& program,
                                              const PlannerOptions& options);

}  // namespace ptec::memory
