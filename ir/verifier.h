#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "ir/op_schema.h"

namespace ptec::ir {

/// Structural and type checks of a program (MLIR's verify), run after every pass in debug builds
/// and tests. Returns every problem found, each naming the node (as `%name (op)`) or the
/// signature entry; an empty vector means the program is valid. Never throws for a malformed
/// program (it may throw only for an internal error).
///
/// Checks: unique node names; exactly one output node, last; placeholders first; call nodes have
/// an op whose qualified name is their target, the schema's argument count and argument types
/// (Tensor arguments are nodes with one TensorSpec, int lists hold ints or symbolic-int nodes,
/// ...); meta.val agrees with what the op's shape function computes (dtype and shape); the users
/// of a multi-output node are getitem nodes; every argument node is in the graph and defined
/// before its user; users lists match the arguments; debug handles are unique and positive;
/// range constraints are keyed by their symbol's name and cover the input symbols; the signature
/// has one input spec per placeholder in order with matching names, PARAMETER/BUFFER/
/// CONSTANT_TENSOR/CUSTOM_OBJ targets exist in state_dict/constants/custom_objects with the
/// placeholder's spec and the right payload size, and the output specs match the output node.
std::vector<std::string> verify(const ExportedProgram& program);

/// The graph-only part of verify() (no signature or state_dict checks).
std::vector<std::string> verify_graph(const Graph& graph);

/// Throws ptec::Exception(InvalidProgram) listing every problem, one per line, when verify()
/// finds any.
void verify_or_throw(const ExportedProgram& program);

/// Why `value` cannot be passed for an argument declared as `schema` (e.g. "expected Tensor,
/// got int 3"), or nullopt when it fits. Used by the verifier and the GraphBuilder.
std::optional<std::string> check_argument(const ArgSchema& schema, const Argument& value);

/// A short description of an argument value for messages: "%x", "int 3", "None", "a list".
std::string describe_argument(const Argument& value);

/// True when `op` returns several tensors or a Tensor[] (its users take the outputs with
/// getitem).
bool is_multi_output_op(const OpSchema& op);
/// True when `node` is a call of a multi-output op.
bool is_multi_output(const Node& node);

}  // namespace ptec::ir
