#pragma once

#include "passes/pass.h"

namespace ptec::passes {

/// Runs a Half or BFloat16 model's computation in Float. ptec's kernels compute in float32: the
/// CPU backend and the optimized kernels take Float only, and several portable kernels
/// (convolution, mm) take Float or Double. So that such models (fp16 ONNX files, the output of
/// float16 converters) run, and run on the fast paths:
///
/// - every Half / BFloat16 parameter, buffer and constant is converted to Float (exactly: every
///   such value is a float);
/// - user inputs of those dtypes are cast to Float where they enter, and outputs cast back to
///   their dtype at the end, so the method's signature keeps the model's dtypes;
/// - dtype arguments naming Half or BFloat16 (a Cast to float16, a full of dtype float16) name
///   Float, and every node's meta.val is recomputed by its shape function.
///
/// The results differ from computing in the reduced type by the roundings it would add after
/// each op: they are closer to the real-number results. A program with no Half or BFloat16
/// tensor is left as it is.
class HalfToFloat final : public Pass {
 public:
  std::string name() const override { return "half_to_float"; }
  PassResult run(ir::ExportedProgram& program) override;
};

}  // namespace ptec::passes
