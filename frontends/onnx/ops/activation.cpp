// Activations: Relu, LeakyRelu, PRelu, Elu, Selu, Celu, ThresholdedRelu, Softsign, Softplus,
// Mish, Gelu, Clip, HardSigmoid, HardSwish, Softmax, LogSoftmax, Hardmax.
// Ops without a core ATen operator are decomposed into core ops here.

#include <limits>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

void import_relu(ImportContext& ctx, const NodeView& node) {
  ctx.set_output(node, 0, ctx.call("aten::relu", {ctx.input(node, 0)}));
}

void import_leaky_relu(ImportContext& ctx, const NodeView& node) {
  const double alpha = node.attr_float("alpha", 0.01f);
  ctx.set_output(node, 0, ctx.call("aten::leaky_relu", {ctx.input(node, 0), alpha}));
}

void import_elu(ImportContext& ctx, const NodeView& node) {
  const double alpha = node.attr_float("alpha", 1.0f);
  ctx.set_output(node, 0, ctx.call("aten::elu", {ctx.input(node, 0), alpha, 1, 1}));
}

// PRelu(x, slope) = where(x > 0, x, x * slope); slope broadcasts to x.
void import_prelu(ImportContext& ctx, const NodeView& node) {
  ir::Node* x = ctx.input(node, 0);
  ir::Node* slope = ctx.input(node, 1);
  // Opset 6 has no NumPy broadcasting: a per-channel slope [C] applies along dim 1.
  const std::vector<int64_t> xs = ctx.input_sizes(node, 0);
  const std::vector<int64_t> ss = ctx.input_sizes(node, 1);
  if (node.opset() < 7 && ss.size() == 1 && xs.size() > 2 && ss[0] == xs[1] && ss[0] != 1) {
    std::vector<int64_t> per_channel(xs.size() - 1, 1);
    per_channel[0] = ss[0];
    slope = view(ctx, slope, per_channel);
  }
  ir::Node* positive = ctx.call("aten::gt.Scalar", {x, scalar_arg(0, x->spec().dtype)});
  ir::Node* scaled = ctx.call("aten::mul.Tensor", {x, slope});
  ctx.set_output(node, 0, ctx.call("aten::where.self", {positive, x, scaled}));
}

void import_clip(ImportContext& ctx, const NodeView& node) {
  const DType dtype = ctx.input_dtype(node, 0);
  ir::Node* x = ctx.input(node, 0);
  ir::Argument lo, hi;
  if (node.opset() < 11) {
    const float lowest = std::numeric_limits<float>::lowest();
    const float highest = std::numeric_limits<float>::max();
    const float min = node.attr_float("min", lowest);
    const float max = node.attr_float("max", highest);
    if (min != lowest) lo = scalar_arg(min, dtype);
    if (max != highest) hi = scalar_arg(max, dtype);
  } else {
    const bool tensor_bounds = (node.has_input(1) && ctx.constant(node, 1) == nullptr) ||
                               (node.has_input(2) && ctx.constant(node, 2) == nullptr);
    if (tensor_bounds) {
      ir::Argument tlo = node.has_input(1) ? ir::Argument(ctx.input(node, 1)) : ir::Argument();
      ir::Argument thi = node.has_input(2) ? ir::Argument(ctx.input(node, 2)) : ir::Argument();
      ctx.set_output(node, 0, ctx.call("aten::clamp.Tensor", {x, tlo, thi}));
      return;
    }
    for (size_t i : {1, 2}) {
      if (!node.has_input(i)) continue;
      const std::optional<double> v = single_value(ctx.constant(node, i));
      if (!v)
        node.fail(Error::InvalidArgument, "input {} ('{}') must hold one value", i, node.input(i));
      (i == 1 ? lo : hi) = scalar_arg(*v, dtype);
    }
  }
  if (lo.is_none() && hi.is_none()) {
    ctx.forward_input(node, 0, 0);
    return;
  }
  ctx.set_output(node, 0, ctx.call("aten::clamp", {x, lo, hi}));
}

// HardSigmoid(x) = clamp(alpha * x + beta, 0, 1).
void import_hard_sigmoid(ImportContext& ctx, const NodeView& node) {
  const double alpha = node.attr_float("alpha", 0.2f);
  const double beta = node.attr_float("beta", 0.5f);
  ir::Node* x = ctx.input(node, 0);
  ir::Node* scaled = ctx.call("aten::mul.Scalar", {x, alpha});
  ir::Node* shifted = ctx.call("aten::add.Scalar", {scaled, beta, 1});
  ctx.set_output(node, 0, ctx.call("aten::clamp", {shifted, 0.0, 1.0}));
}

// HardSwish(x) = x * hardtanh(x + 3, 0, 6) / 6.
void import_hard_swish(ImportContext& ctx, const NodeView& node) {
  ir::Node* x = ctx.input(node, 0);
  ir::Node* shifted = ctx.call("aten::add.Scalar", {x, 3.0, 1});
  ir::Node* clipped = ctx.call("aten::hardtanh", {shifted, 0.0, 6.0});
  ir::Node* product = ctx.call("aten::mul.Tensor", {x, clipped});
  ctx.set_output(node, 0, ctx.call("aten::div.Scalar", {product, 6.0}));
}

/// Softmax / LogSoftmax. Before opset 13 the input is coerced to 2-D [prod(:axis), prod(axis:)]
/// and normalized over the second dim (default axis 1); from 13 on it is one axis (default -1).
void import_softmax(ImportContext& ctx, const NodeView& node) {
  const char* op = node.op_type() == "Softmax" ? "aten::_softmax" : "aten::_log_softmax";
  ir::Node* x = ctx.input(node, 0);
  const int64_t rank = static_cast<int64_t>(x->spec().rank());
  if (node.opset() >= 13) {
    const int64_t axis = node.normalize_axis(node.attr_int("axis", -1), std::max<int64_t>(rank, 1));
    ctx.set_output(node, 0, ctx.call(op, {x, axis, false}));
    return;
  }
  const int64_t axis = node.normalize_axis(node.attr_int("axis", 1), std::max<int64_t>(rank, 1));
  if (axis == rank - 1 || rank <= 1) {
    ctx.set_output(node, 0, ctx.call(op, {x, std::max<int64_t>(axis, 0), false}));
    return;
  }
  const std::vector<int64_t> sizes = ctx.input_sizes(node, 0);
  const size_t a = static_cast<size_t>(axis);
  ir::Node* flat = view(ctx, x, {product(sizes, 0, a), product(sizes, a, sizes.size())});
  ir::Node* y = ctx.call(op, {flat, 1, false});
  ctx.set_output(node, 0, view(ctx, y, sizes));
}

// Selu(x) = gamma * elu(x, alpha).
void import_selu(ImportContext& ctx, const NodeView& node) {
  const double alpha = node.attr_float("alpha", 1.67326319217681884765625f);
  const double gamma = node.attr_float("gamma", 1.05070102214813232421875f);
  ctx.set_output(node, 0, ctx.call("aten::elu", {ctx.input(node, 0), alpha, gamma, 1}));
}

// Celu(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) = elu(x, alpha, 1, 1 / alpha).
void import_celu(ImportContext& ctx, const NodeView& node) {
  const double alpha = node.attr_float("alpha", 1.0f);
  ctx.set_output(node, 0, ctx.call("aten::elu", {ctx.input(node, 0), alpha, 1, 1.0 / alpha}));
}

// ThresholdedRelu(x) = x where x > alpha, else 0.
void import_thresholded_relu(ImportContext& ctx, const NodeView& node) {
  const double alpha = node.attr_float("alpha", 1.0f);
  ir::Node* x = ctx.input(node, 0);
  ir::Node* keep = ctx.call("aten::gt.Scalar", {x, alpha});
  ctx.set_output(node, 0, ctx.call("aten::mul.Tensor", {x, keep}));
}

// Softsign(x) = x / (1 + |x|).
void import_softsign(ImportContext& ctx, const NodeView& node) {
  ir::Node* x = ctx.input(node, 0);
  ir::Node* den = ctx.call("aten::add.Scalar", {ctx.call("aten::abs", {x}), 1.0, 1});
  ctx.set_output(node, 0, ctx.call("aten::div.Tensor", {x, den}));
}

// log(exp(x) + 1), as ONNX's Softplus.
ir::Node* softplus(ImportContext& ctx, ir::Node* x) {
  ir::Node* e = ctx.call("aten::exp", {x});
  return ctx.call("aten::log", {ctx.call("aten::add.Scalar", {e, 1.0, 1})});
}

void import_softplus(ImportContext& ctx, const NodeView& node) {
  ctx.set_output(node, 0, softplus(ctx, ctx.input(node, 0)));
}

// Mish(x) = x * tanh(softplus(x)) (opset 18).
void import_mish(ImportContext& ctx, const NodeView& node) {
  ir::Node* x = ctx.input(node, 0);
  ir::Node* t = ctx.call("aten::tanh", {softplus(ctx, x)});
  ctx.set_output(node, 0, ctx.call("aten::mul.Tensor", {x, t}));
}

// Gelu (opset 20) → gelu with approximate "none" (erf) or "tanh".
void import_gelu(ImportContext& ctx, const NodeView& node) {
  const std::string approximate = node.attr_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh") {
    node.fail(Error::InvalidArgument, "unknown approximate '{}'", approximate);
  }
  ctx.set_output(node, 0, ctx.call("aten::gelu", {ctx.input(node, 0), approximate}));
}

// Hardmax (opset 13: one axis): 1 at the first maximum along the axis, 0 elsewhere, as
// eq(iota along the axis, argmax keepdim) cast to the input's dtype.
void import_hardmax(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> sizes = ctx.input_sizes(node, 0);
  const int64_t rank = static_cast<int64_t>(sizes.size());
  const int64_t axis = node.normalize_axis(node.attr_int("axis", -1), std::max<int64_t>(rank, 1));
  ir::Node* x = ctx.input(node, 0);
  ir::Node* idx = ctx.call("aten::argmax", {x, axis, true});
  const int64_t n = sizes[static_cast<size_t>(axis)];
  std::vector<int64_t> iota(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) iota[static_cast<size_t>(i)] = i;
  std::vector<int64_t> iota_sizes(static_cast<size_t>(rank), 1);
  iota_sizes[static_cast<size_t>(axis)] = n;
  ir::Node* positions = ctx.constant_tensor(node.output(0) + "_iota",
                                            ConstTensor::from_int64(DType::Long, iota_sizes, iota));
  ir::Node* hit = ctx.call("aten::eq.Tensor", {positions, idx});
  ctx.set_output(node, 0, ctx.call("aten::_to_copy", {hit, x->spec().dtype}));
}

}  // namespace

std::vector<OpEntry> activation_ops() {
  return {
      {"Relu", 6, 17, import_relu},
      {"LeakyRelu", 6, 17, import_leaky_relu},
      {"PRelu", 6, 17, import_prelu},
      {"Elu", 6, 22, import_elu},
      {"Clip", 6, 17, import_clip},
      {"HardSigmoid", 6, 22, import_hard_sigmoid},
      {"HardSwish", 14, 22, import_hard_swish},
      {"Softmax", 1, 17, import_softmax},
      {"LogSoftmax", 1, 17, import_softmax},
      {"Selu", 6, 22, import_selu},
      {"Celu", 12, 17, import_celu},
      {"ThresholdedRelu", 10, 22, import_thresholded_relu},
      {"Softsign", 1, 22, import_softsign},
      {"Softplus", 1, 22, import_softplus},
      {"Mish", 18, 22, import_mish},
      {"Gelu", 20, 20, import_gelu},
      {"Hardmax", 13, 17, import_hardmax},
  };
}

}  // namespace ptec::onnx_import
