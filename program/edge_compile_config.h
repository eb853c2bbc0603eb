#pragma once

#include <string>
#include <vector>

namespace ptec::program {

/// Options of to_edge (ExecuTorch's EdgeCompileConfig).
struct EdgeCompileConfig {
  /// Check that the result holds only core ATen ops with out variants (or preserved ops).
  bool check_ir_validity = true;
  /// Qualified op names ("aten::linear") that are neither decomposed nor rejected: a backend
  /// will claim them.
  std::vector<std::string> preserve_ops;
  /// Keep dim-order ops out of the program (ptec's programs are contiguous; recorded only).
  bool skip_dim_order = false;
  /// Run Half and BFloat16 computation in Float (passes::HalfToFloat): the kernels and backends
  /// compute in float32. The method's inputs and outputs keep their dtypes.
  bool compute_half_in_float = true;
};

}  // namespace ptec::program
