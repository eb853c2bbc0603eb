#pragma once

#include <string_view>
#include <vector>

#include "frontends/onnx/import_context.h"

namespace ptec::onnx_import {

/// Maps one ONNX node to graph nodes (or to a value known at import time).
using ImportFn = void (*)(ImportContext& ctx, const NodeView& node);
/// Evaluates one ONNX node at import time when its inputs allow it (constants, or static shapes
/// for Shape/Size). Returns false to let the ImportFn map it instead.
using FoldFn = bool (*)(ImportContext& ctx, const NodeView& node);

/// One row of the importer's op table: ONNX op type (default domain), the range of the
/// operator's schema versions the handler implements (a model of a newer opset uses it while the
/// operator's schema stays one of them, op_versions.h), the handler, and an optional import-time
/// evaluator.
struct OpEntry {
  std::string_view op_type;
  int min_opset;
  int max_opset;
  ImportFn import;
  FoldFn fold = nullptr;
};

/// The table: the concatenation of the op families' tables (ops/<family>.cpp).
const std::vector<OpEntry>& op_entries();
/// The entry for `op_type` in a model of opset `opset`: the one whose range holds `opset`, else
/// the one whose range holds the operator's schema version at `opset`; nullptr when none does.
const OpEntry* find_entry(std::string_view op_type, int64_t opset);

// Op families, one file each under ops/.
std::vector<OpEntry> activation_ops();
std::vector<OpEntry> conv_ops();
std::vector<OpEntry> einsum_ops();
std::vector<OpEntry> elementwise_ops();
std::vector<OpEntry> grid_sample_ops();
std::vector<OpEntry> local_norm_ops();
std::vector<OpEntry> loss_ops();
std::vector<OpEntry> matmul_ops();
std::vector<OpEntry> norm_ops();
std::vector<OpEntry> pool_ops();
std::vector<OpEntry> quantize_ops();
std::vector<OpEntry> recurrent_ops();
std::vector<OpEntry> reduce_ops();
std::vector<OpEntry> resize_ops();
std::vector<OpEntry> scatter_gather_ops();
std::vector<OpEntry> sequence_ops();
std::vector<OpEntry> shape_ops();
std::vector<OpEntry> spectral_ops();
std::vector<OpEntry> shrink_ops();
std::vector<OpEntry> tensor_ops();
std::vector<OpEntry> window_ops();

}  // namespace ptec::onnx_import
