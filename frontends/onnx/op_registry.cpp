#include "frontends/onnx/op_registry.h"

#include "frontends/onnx/op_versions.h"

namespace ptec::onnx_import {

const std::vector<OpEntry>& op_entries() {
  static const std::vector<OpEntry> table = [] {
    std::vector<OpEntry> all;
    for (auto family :
         {activation_ops, conv_ops,      einsum_ops, elementwise_ops, grid_sample_ops,
          local_norm_ops, loss_ops,      matmul_ops, norm_ops,        pool_ops,
          quantize_ops,   recurrent_ops, reduce_ops, resize_ops,      scatter_gather_ops,
          sequence_ops,   shape_ops,     shrink_ops, spectral_ops,    tensor_ops,
          window_ops}) {
      std::vector<OpEntry> rows = family();
      all.insert(all.end(), rows.begin(), rows.end());
    }
    return all;
  }();
  return table;
}

const OpEntry* find_entry(std::string_view op_type, int64_t opset) {
  for (const OpEntry& e : op_entries()) {
    if (e.op_type == op_type && opset >= e.min_opset && opset <= e.max_opset) return &e;
  }
  // A newer opset keeps the operator's schema of the newest version at or below it: the entry
  // that implements that version, where one does.
  const int version = schema_version(op_type, opset);
  if (version < 0) return nullptr;
  for (const OpEntry& e : op_entries()) {
    if (e.op_type == op_type && version >= e.min_opset && version <= e.max_opset) return &e;
  }
  return nullptr;
}

}  // namespace ptec::onnx_import
