#pragma once

// What PtecCpuBackend runs: one place that both the partitioner (which nodes to claim) and
// preprocess (how to lower them) consult, so that they cannot disagree.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/exported_program.h"
#include "ir/node.h"

namespace ptec::backends::cpu {

inline constexpr const char* kCpuBackendId = "PtecCpuBackend";

/// The backend's own kind of a supported call node.
enum class CpuOpKind {
  Unsupported,
  Conv2d,         // aten::convolution, 2-D, not transposed, constant weight (and bias)
  Linear,         // aten::addmm (beta = alpha = 1; a constant bias row, or a computed tensor of
                  // the product's shape added as a residual) / aten::mm, constant weight
  WeightPermute,  // aten::permute_copy [1, 0] of a constant: absorbed into a Linear's packing
  MaxPool2d,      // aten::max_pool2d_with_indices whose indices are unused
  AvgPool2d,      // aten::avg_pool2d
  GetItem,  // getitem 0 of a claimed max pool, batch, group or layer norm, any getitem of a split
  GlobalAvgPool,    // aten::mean.dim over the last two dims of a 4-D tensor
  Unary,            // relu, clamp, hardtanh, sigmoid, tanh, gelu, silu, hardswish, leaky_relu
  Binary,           // add / sub (alpha = 1), mul, div, broadcasting
  Copy,             // view_copy, squeeze_copy, unsqueeze_copy, clone, _to_copy to fp32
  Cat,              // cat
  BatchMatMul,      // aten::bmm, aten::mm of two computed tensors
  Softmax,          // aten::_softmax (half_to_float false)
  StridedCopy,      // permute_copy, slice_copy.Tensor, select_copy.int, expand_copy
  ScalarBinary,     // add / sub / mul / div .Scalar, pow.Tensor_Scalar
  Math,             // sqrt, rsqrt, erf, exp, log, neg, abs, reciprocal
  MeanInner,        // aten::mean.dim over the last dim
  BatchNorm,        // aten::_native_batch_norm_legit_no_training with constant parameters, whose
                    // statistics outputs are unused (one no convolution before it absorbed)
  GroupNorm,        // aten::native_group_norm whose statistics outputs are unused
  ConvTranspose2d,  // aten::convolution, transposed, 4-D, constant weights (and bias)
  Split,            // aten::split_with_sizes_copy: each part its getitem's strided copy
  LayerNorm,        // aten::native_layer_norm over the last dim, constant weight and bias (each
                    // may be absent), whose statistics outputs are unused
  Reduce,           // aten::sum.dim_IntList / aten::mean.dim over consecutive dims (other than
                    // MeanInner's and GlobalAvgPool's)
};

/// The kind of `node` in `program` (an EDGE program), Unsupported when the backend cannot run it
/// with these arguments: every tensor it reads or writes must be fp32 and contiguous, with
/// static sizes, or rows of one run-time count (see row_dim) that the op keeps apart: row-wise
/// ops (Linear, Unary, Binary, Copy, ScalarBinary, Math, MeanInner, LayerNorm), ops on images
/// whose batch is the count (Conv2d, MaxPool2d, AvgPool2d, GlobalAvgPool, BatchNorm,
/// GroupNorm), Cat and Softmax along a later dim, and GetItem.
CpuOpKind classify(const ir::ExportedProgram& program, const ir::Node& node);

/// The dim of `spec` whose size is known only at run time, when it is the only one and not the
/// last (a tensor of rows: tokens of a dynamic sequence, boxes a detector kept). The backend
/// sizes such tensors at their bound and runs them at the count each run gives.
std::optional<size_t> row_dim(const ir::TensorSpec& spec);

/// The symbol of the rows `node` runs on (row_dim), empty for a node of static tensors. Nodes of
/// different symbols, or static and dynamic ones, never share a delegate.
std::string rows_symbol(const ir::ExportedProgram& program, const ir::Node& node);

/// The decomposed LayerNorm of the last dim that ONNX exporters and torch produce:
///   m = mean(x, [-1], keepdim) → d = x - m → p = d ** 2 → v = mean(p, [-1], keepdim) →
///   e = v + eps → s = sqrt(e) → y = d / s [→ y * weight [→ + bias]]
/// with weight / bias constants of the last dim's size and every intermediate used only inside
/// the pattern. Partitioner and preprocess both use this match.
struct LayerNormMatch {
  const ir::Node* x = nullptr;
  const ir::Node* weight = nullptr;  // may be null
  const ir::Node* bias = nullptr;    // may be null
  double eps = 0.0;
  std::vector<const ir::Node*> nodes;  // the pattern's call nodes, first (mean) to last (tail)
};

/// The LayerNorm that starts at `mean` (the first mean.dim), if the pattern matches exactly.
std::optional<LayerNormMatch> match_layer_norm(const ir::ExportedProgram& program,
                                               const ir::Node& mean);

/// The erf form of GELU as exporters write it: x / sqrt(2) → erf → + 1 → x * that → * 0.5, every
/// intermediate used only inside the pattern.
struct GeluMatch {
  const ir::Node* x = nullptr;
  std::vector<const ir::Node*> nodes;  // div, erf, add, mul, mul (the tail)
};

/// The GELU that starts at `div` (a div.Scalar), if the pattern matches exactly.
std::optional<GeluMatch> match_gelu(const ir::ExportedProgram& program, const ir::Node& div);

/// x * hardsigmoid(x) as exporters write it, every intermediate used only inside the pattern:
///   - torch.onnx before opset 14 (ONNX HardSigmoid with alpha = 1/6, beta = 0.5, then Mul):
///     mul.Tensor(x, clamp(add.Scalar(mul.Scalar(x, 1/6), 0.5), 0, 1));
///   - ONNX HardSwish (opset 14) and the decomposition of aten::hardswish:
///     div.Scalar(mul.Tensor(x, clamp(add.Scalar(x, 3), 0, 6)), 6), hardtanh for clamp alike.
/// The fused kernels compute x * min(max(x + 3, 0), 6) / 6 (PyTorch's definition), which differs
/// from the first form by float rounding only.
struct HardSwishMatch {
  std::vector<const ir::Node*> nodes;  // x's two readers first, the tail last
};

/// The hard swish of `x`, when x's only readers are the pattern's first nodes.
std::optional<HardSwishMatch> match_hardswish(const ir::ExportedProgram& program,
                                              const ir::Node& x);

/// Argument `name` of call `node`, or the schema default when the call omits it.
ir::Argument arg_or_default(const ir::Node& node, std::string_view name);

/// True when `node` is a placeholder whose value is a constant of the program (a weight).
bool is_constant(const ir::ExportedProgram& program, const ir::Node& node);

}  // namespace ptec::backends::cpu
