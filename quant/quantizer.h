#pragma once

// The Quantizer interface (DESIGN.md §8, PT2E's Quantizer): it annotates an ATEN-stage program —
// which operands and results of which ops are quantized, and how — and prepare/convert
// (quant/quantize.h) do the rest.
//
// The annotation model (values are the outputs of nodes, named by their node; getitem nodes are
// values of their own, user inputs are values named by their placeholder):
//  - input_activations[i]: the activation argument i of the node (every element for a list
//    argument, e.g. cat's tensors) is quantized with the spec. A static spec quantizes the value
//    itself (one quantize after the value's producer, one dequantize per user); a dynamic spec
//    adds choose_qparams → quantize → dequantize on this edge only.
//  - weights[i]: argument i is a constant (a PARAMETER/BUFFER/CONSTANT placeholder, possibly behind
//    permute_copy) stored quantized; spec.ch_axis is the channel axis of the stored constant.
//  - output: the node's result is quantized (static).
//  - output_shares_with: the result uses the quantization parameters of that value (max pool:
//    its input's); share_inputs_with_output: every activation input and the result share one
//    set (cat).

#include <map>
#include <optional>
#include <string>

#include "ir/exported_program.h"
#include "quant/quantization_spec.h"

namespace ptec::quant {

/// What a quantizer decided for one node.
struct NodeAnnotation {
  std::map<size_t, QuantizationSpec> input_activations;
  std::map<size_t, QuantizationSpec> weights;
  std::optional<QuantizationSpec> output;
  std::optional<std::string> output_shares_with;
  bool share_inputs_with_output = false;

  bool empty() const {
    return input_activations.empty() && weights.empty() && !output && !output_shares_with;
  }
};

/// Annotations by node name.
using Annotations = std::map<std::string, NodeAnnotation>;

/// Decides what to quantize in a program.
class Quantizer {
 public:
  virtual ~Quantizer() = default;
  /// Shown in provenance records and errors.
  virtual std::string name() const = 0;
  /// Annotates `program` (ATEN stage, batch norms already folded by prepare). Must not change it.
  virtual Annotations annotate(const ir::ExportedProgram& program) const = 0;
};

}  // namespace ptec::quant
