#pragma once

#include "passes/pass.h"

namespace ptec::passes {

/// Folds an inference batch norm into the convolution before it:
///
///   conv = aten::convolution(x, W, b?, ..., transposed=False, ...)
///   bn   = aten::_native_batch_norm_legit_no_training(conv, gamma?, beta?, mean, var, m, eps)
///   y    = getitem(bn, 0)            (outputs 1 and 2 unused)
/// becomes
///   y    = aten::convolution(x, W', b', ...)
/// with s = gamma / sqrt(var + eps), W'[c] = W[c] * s[c], b'[c] = (b[c] - mean[c]) * s[c] + beta[c]
/// (gamma = 1, beta = 0, b = 0 when absent), computed in double and stored as float32.
/// W' and b' are new PARAMETER payloads (the originals are shared elsewhere and never written);
/// parameters left unused are removed from the signature and state_dict. Applies only when the
/// convolution has no other user, is not transposed, and every operand is a float32 constant.
class BatchNormFolding final : public Pass {
 public:
  std::string name() const override { return "batch_norm_folding"; }
  PassResult run(ir::ExportedProgram& program) override;
};

}  // namespace ptec::passes
