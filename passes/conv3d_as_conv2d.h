#pragma once

#include "passes/pass.h"

namespace ptec::passes {

/// Rewrites the 3-D convolutions of factored video blocks ((2+1)-D, MC3) as 2-D ones, which
/// the CPU backend claims (prepacked weights, Winograd, fused epilogues):
///
///   temporal, kernel (KT, 1, 1), spatial stride 1 and no spatial padding:
///     y = convolution(x [N, C, T, H, W], W [OC, C/g, KT, 1, 1], b, (st, 1, 1), (pt, 0, 0), ...)
///   becomes
///     y = view_copy(convolution(view_copy(x, [N, C, T, H*W]), W [OC, C/g, KT, 1], b,
///                               (st, 1), (pt, 0), (dt, 1), ...), [N, OC, OT, H, W])
///
///   single temporal tap, kernel (1, KH, KW), no temporal padding:
///     the frames read become the batch: slice_copy of every st-th frame (when st > 1),
///     permute_copy to [N, T', C, H, W], view_copy to [N*T', C, H, W], a 2-D convolution with
///     W [OC, C/g, KH, KW], and back (without the permutes when T' == 1).
///
/// The 4-D weights are new PARAMETER placeholders that share the 5-D ones' bytes (no copy).
/// Applies to convolutions that are not transposed, with a static float32 input and a float32
/// constant weight; run it after BatchNormFolding, which matches convolution -> batch norm.
class Conv3dAsConv2d final : public Pass {
 public:
  std::string name() const override { return "conv3d_as_conv2d"; }
  PassResult run(ir::ExportedProgram& program) override;
};

}  // namespace ptec::passes
