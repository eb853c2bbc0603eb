#pragma once

#include "frontends/onnx/import_context.h"
#include "frontends/onnx/loop_unroll.h"

namespace ptec::onnx_import {

/// Imports an If. A condition known at import time (a constant, or computed from static shapes)
/// imports the taken branch in the If's place. A condition computed at run time imports both
/// branches, which then both run, and picks each output by the condition (read with
/// aten::_local_scalar_dense, or a shape value's comparison): where.self on it when the two
/// branches' outputs have the same shape, else, where they differ along one dim (torchvision's `if
/// boxes.numel() == 0: return empty`), the chosen branch's rows: each branch's output sliced to
/// cond * len (or !cond * len) rows and the two concatenated, a count the data decides. Outputs
/// that are sequences, or differ in dtype, rank or more than one dim, are refused.
void import_if(ImportContext& ctx, const NodeView& node, onnx::NodeProto& proto,
               const ImportNodeFn& import_node);

}  // namespace ptec::onnx_import
