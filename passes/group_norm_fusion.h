#pragma once

#include "passes/pass.h"

namespace ptec::passes {

/// Rewrites the group norm ONNX exporters write for torch.nn.GroupNorm before opset 18 (a
/// per-group instance norm of a reshaped tensor, then the per-channel affine) as one group norm:
///
///   v = aten::view_copy(x, [N, G, M])                  x: [N, C, d...], M = C / G * prod(d)
///   g = aten::native_group_norm(v, w, b, N, G, M, G, eps)   w ones or absent, b zeros or absent
///   u = aten::view_copy(getitem(g, 0), sizes of x)
///   s = aten::mul.Tensor(u, gamma)                     gamma: a constant, C values along dim 1
///   t = aten::add.Tensor(s, beta)                      beta likewise (alpha 1)
/// becomes t = getitem(native_group_norm(x, gamma[C], beta[C], N, C, prod(d), G, eps), 0). The mul
/// and the add are taken where they are there (either may be missing); [C] views share gamma's
/// and beta's bytes. Backends then see the group norm a model means (the CPU backend runs it with
/// the activation after it). Nothing changes where a view, the norm's statistics or an
/// intermediate has another reader, or is a program output.
class GroupNormFusion final : public Pass {
 public:
  std::string name() const override { return "group_norm_fusion"; }
  PassResult run(ir::ExportedProgram& program) override;
};

}  // namespace ptec::passes
