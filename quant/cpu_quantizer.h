#pragma once

// The quantizer of the CPU recipes (XNNPACKQuantizer's role): one global QuantizationConfig
// (get_symmetric_quantization_config / get_int4_weight_only_config) applied to the patterns
// PtecCpuBackend runs in int8.
//
// Static and dynamic int8 configs annotate:
//  - aten::convolution (2-D and 1-D, grouped and depthwise; not transposed) with a constant weight:
//    the input, the weight (per output channel: axis 0), and the output — or, when the sole user is
//    relu / clamp / hardtanh, that activation's output (conv → relu → quantize, one pattern);
//  - aten::addmm / aten::mm with a constant weight (itself or behind permute_copy [1, 0], the
//    form of ONNX Gemm / MatMul with an initializer): the activation operand, the weight (per
//    output channel: axis 0 of an [N, K] weight, 1 of a [K, N] one) and the output as above;
// and, static configs only:
//  - aten::add.Tensor of two activations: both inputs and the output (or a following relu's);
//  - max_pool2d_with_indices: the input, and the pooled getitem shares its qparams;
//  - aten::mean.dim and aten::avg_pool2d: input and output;
//  - aten::cat: inputs and output share one set of qparams.
// Dynamic configs quantize only the activation inputs of convolutions and linear layers (at run
// time) and leave every result float. The int4 weight-only config annotates only linear weights
// (2-D, K a multiple of group_size; others stay float).

#include "quant/quantizer.h"

namespace ptec::quant {

class CpuQuantizer final : public Quantizer {
 public:
  CpuQuantizer() = default;
  explicit CpuQuantizer(QuantizationConfig global, std::string label = "")
      : global_(std::move(global)), label_(std::move(label)) {}

  /// The config applied to every supported op.
  CpuQuantizer& set_global(QuantizationConfig config) {
    global_ = std::move(config);
    return *this;
  }
  const QuantizationConfig& global() const { return global_; }

  std::string name() const override;
  Annotations annotate(const ir::ExportedProgram& program) const override;

 private:
  QuantizationConfig global_ = get_symmetric_quantization_config();
  std::string label_;
};

}  // namespace ptec::quant
