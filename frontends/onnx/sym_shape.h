#pragma once

#include "frontends/onnx/import_context.h"

namespace ptec::onnx_import {

/// Imports `node` when it computes on dynamic dims: Shape of a tensor with a symbolic dim, and
/// Gather/Slice/Concat/Unsqueeze/Squeeze/Cast/Identity of such shape values (Value::sym_items,
/// whose items are ints or aten::sym_size.int nodes); Reshape/Expand whose target shape is one,
/// and Slice of a tensor whose `ends` is one. A result whose items are all ints becomes an
/// ordinary import-time constant. Returns false when no input or output of `node` is symbolic
/// (the op table imports it); fails NotSupported for other ops on shape values.
bool import_symbolic(ImportContext& ctx, const NodeView& node);

}  // namespace ptec::onnx_import
