#pragma once

#include "passes/pass.h"

namespace ptec::passes {

/// Folds an explicit constant pad of the two spatial dims into the 2-D op that alone reads it,
/// as ONNX exporters write padding those ops could have taken themselves (torch.onnx's
/// avg_pool2d with count_include_pad, tf2onnx's symmetric convolution padding):
///
///   p = aten::constant_pad_nd(x, [l, r, t, b], value)     (l == r, t == b, >= 0)
///   y = aten::avg_pool2d(p, k, s, padding=0, ceil_mode=False, ...)      value 0
///     | aten::convolution(p, W, b, s, padding, d, transposed=False, ..)  value 0
///     | aten::max_pool2d_with_indices(p, k, s, padding=0, d, ceil_mode=False)  value -inf,
///       indices unused
/// becomes y = op(x, ..., padding + [t, l], ...) (avg_pool2d with count_include_pad=True, so
/// the divisor still counts the padded zeros). Pools take it only where ATen allows the padding
/// (at most half the effective kernel). Pads of other dims, asymmetric pads, pads read by
/// several nodes or pads that are program outputs stay as they are.
class PadFolding final : public Pass {
 public:
  std::string name() const override { return "pad_folding"; }
  PassResult run(ir::ExportedProgram& program) override;
};

}  // namespace ptec::passes
