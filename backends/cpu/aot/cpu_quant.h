#pragma once

// The quantized patterns PtecCpuBackend runs in int8, in the two forms that reach it:
//  - quantized_decomposed ops (quant/'s convert): quantize_per_tensor(x, scale, zero_point, ...),
//    dequantize_per_tensor(q, ...), dequantize_per_channel(weight, scales, zero_points, axis, ...)
//    (also the .tensor variants whose scale and zero point are constant tensors);
//  - ONNX QDQ models (frontends/onnx/ops/quantize.cpp): DequantizeLinear as dequantize_per_tensor
//    .tensor / dequantize_per_channel, QuantizeLinear as div(x, scale) → round → add(zero point) →
//    clamp → _to_copy(uint8 / int8).
// Scales and zero points must be constants, possibly behind _to_copy / view_copy / clone.
// The partitioner (which nodes to claim, which must stay together) and preprocess (how to lower
// them) both use these matches.

#include <optional>
#include <set>
#include <vector>

#include "ir/exported_program.h"
#include "ir/node.h"

namespace ptec::backends::cpu {

/// Per-tensor quantization parameters of an activation.
struct QParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
  int32_t qmin = 0;
  int32_t qmax = 255;
  bool is_signed = false;  // int8 (else uint8)
  bool operator==(const QParams&) const = default;
};

/// A dequantize of an activation: float = (input - zero_point) * scale.
struct DequantMatch {
  const ir::Node* node = nullptr;
  const ir::Node* input = nullptr;  // the quantized tensor
  QParams q;
  std::vector<const ir::Node*> nodes;  // the dequantize and its parameter nodes
};
std::optional<DequantMatch> match_dequant(const ir::ExportedProgram& program, const ir::Node& node);

/// A quantize of a float tensor, ending at `tail` (the node producing the quantized tensor).
struct QuantMatch {
  const ir::Node* input = nullptr;  // the float tensor
  const ir::Node* tail = nullptr;
  QParams q;
  bool reciprocal = false;             // x * (1 / scale) (quantize_per_tensor) instead of x / scale
  std::vector<const ir::Node*> nodes;  // chain and parameter nodes
};
std::optional<QuantMatch> match_quant(const ir::ExportedProgram& program, const ir::Node& tail);

/// A dequantized int8 constant weight.
struct WeightMatch {
  const ir::Node* weight = nullptr;  // the int8 constant
  std::vector<float> scales;         // one, or one per index of `axis`
  std::vector<int32_t> zero_points;  // as many as scales
  int64_t axis = 0;
  std::vector<const ir::Node*> nodes;  // the dequantize and its parameter nodes
};

/// A quantized convolution / linear layer: dq(x) and dq(weight) → op (+ bias) → [view, ReLU,
/// clamp] → q.
struct QOpMatch {
  const ir::Node* op = nullptr;
  bool conv = false;
  bool weight_transposed = false;  // linear: the weight is [N, K] (else [K, N])
  DequantMatch x;
  WeightMatch w;
  std::vector<float> bias;  // real units; empty when none
  const ir::Node* activation = nullptr;
  QuantMatch out;
  std::vector<const ir::Node*> nodes;  // everything but x's dequantize
};
std::optional<QOpMatch> match_qop(const ir::ExportedProgram& program, const ir::Node& op);

/// A simple quantized op between dequantizes and a quantize: q(max_pool(dq x)), q(add(dq a,
/// dq b) [→ relu]), q(mean over H, W (dq x)), q(cat(dq ...)), q(dq x) (requantize).
struct QSimpleMatch {
  enum class Kind { Requantize, MaxPool, Add, GlobalAvgPool, Cat } kind = Kind::Requantize;
  const ir::Node* op = nullptr;  // the float op (max pool, add, mean, cat); null for Requantize
  std::vector<DequantMatch> inputs;
  bool relu = false;
  QuantMatch out;
  std::vector<const ir::Node*> nodes;  // op, getitem, relu and the quantize (not the dequantizes)
};
std::optional<QSimpleMatch> match_qsimple(const ir::ExportedProgram& program, const ir::Node& tail);

/// Every quantized pattern of `program`: the nodes to claim, and sets of nodes that must end up
/// in one delegate (a pattern with the dequantizes it reads).
struct QuantPlan {
  std::set<const ir::Node*> claimed;
  std::vector<std::vector<const ir::Node*>> together;
};
QuantPlan plan_quant(const ir::ExportedProgram& program);

}  // namespace ptec::backends::cpu
