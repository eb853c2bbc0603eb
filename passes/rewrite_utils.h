#pragma once

#include <string>

#include "ir/exported_program.h"
#include "ir/op_schema.h"

namespace ptec::passes {

/// Inserts a call of `op` before `before` (nullptr: before the output node). Missing trailing
/// arguments take their schema defaults (InvalidArgument naming the op when one has none);
/// meta().val comes from the op's shape function. When `origin` is given, the new node takes
/// its source and records `meta().extra["from_node"] = origin->name()` (it gets a debug handle
/// of its own: handles are unique in a graph).
ir::Node* insert_call(ir::Graph& graph, const ir::OpSchema& op, ir::ArgumentList args,
                      ir::Node* before, const ir::Node* origin = nullptr,
                      const std::string& name_hint = "");

/// Adds a PARAMETER placeholder for `data` under a fresh state_dict name based on `name_hint`,
/// placed just before placeholder `next_to` (in the graph and in the signature), so the
/// signature keeps its order. Returns the new node.
ir::Node* add_parameter(ir::ExportedProgram& program, const std::string& name_hint,
                        ir::TensorData data, ir::Node* next_to);

/// The static float32 constant behind `arg` (a PARAMETER/BUFFER/CONSTANT_TENSOR placeholder
/// whose bytes are all there), or nullptr when it is anything else.
const ir::TensorData* float_constant(const ir::ExportedProgram& program, const ir::Argument& arg);

/// Whether `node` is one of the program's outputs.
bool is_program_output(const ir::ExportedProgram& program, const ir::Node* node);

/// Makes every user of `old_node` use `replacement`, and renames the signature's output specs
/// that named `old_node`. Returns the number of users changed.
size_t replace_all_uses(ir::ExportedProgram& program, ir::Node* old_node, ir::Node* replacement);

/// Removes PARAMETER, BUFFER and CONSTANT_TENSOR placeholders that nothing uses, with their
/// signature entries and, when no other placeholder refers to it, their state_dict/constants
/// entry. User inputs are never removed. Returns the number of placeholders removed.
size_t remove_unused_constants(ir::ExportedProgram& program);

}  // namespace ptec::passes
