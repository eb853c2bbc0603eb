// Reductions: ReduceMean → mean.dim, ReduceSum → sum.dim_IntList, ReduceMax/ReduceMin →
// amax/amin, ReduceProd → prod.dim_int per axis, and the composite ones decomposed:
// ReduceSumSquare = sum(x*x), ReduceL1 = sum(|x|), ReduceL2 = sqrt(sum(x*x)), ReduceLogSum =
// log(sum(x)), ReduceLogSumExp = log(sum(exp(x - max))) + max. ArgMax/ArgMin → argmax/argmin
// (select_last_index: the same on the input flipped along the axis, mapped back). Axes come from
// the attribute (before ReduceSum-13 and the opset-18 forms) or from the second input, which
// must be known at import time. CumSum → cumsum (flip for reverse). Sums keep the input's dtype
// (ONNX), not ATen's int64.

#include <algorithm>
#include <cmath>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

ir::Node* sum(ImportContext& ctx, ir::Node* x, const std::vector<int64_t>& axes, bool keepdims) {
  return ctx.call("aten::sum.dim_IntList", {x, axes, keepdims, x->spec().dtype});
}

/// True when the reduction is the identity: no axes given (an empty axes input counts as
/// absent) and noop_with_empty_axes set.
bool reduces_nothing(ImportContext& ctx, const NodeView& node) {
  const bool axes_given = node.has_input(1)
                              ? !ctx.require_constant(node, 1, "axes").to_int64().empty()
                              : !node.attr_ints("axes", {}).empty();
  return !axes_given && node.attr_int("noop_with_empty_axes", 0) != 0;
}

void import_reduce(ImportContext& ctx, const NodeView& node) {
  const int64_t rank = ctx.input_rank(node, 0);
  const bool keepdims = node.attr_int("keepdims", 1) != 0;
  const std::string& op = node.op_type();
  const bool noop = reduces_nothing(ctx, node);
  ir::Node* x = ctx.input(node, 0);
  // The element-wise part of the composite reductions.
  if (op == "ReduceSumSquare" || op == "ReduceL2") {
    x = ctx.call("aten::mul.Tensor", {x, x});
  } else if (op == "ReduceL1") {
    x = ctx.call("aten::abs", {x});
  }
  if (noop) {
    if (x == ctx.input(node, 0)) {
      ctx.forward_input(node, 0, 0);
    } else {
      ctx.set_output(node, 0, x);
    }
    return;
  }
  const std::vector<int64_t> axes = reduce_axes(ctx, node, rank);
  ir::Node* y = nullptr;
  if (op == "ReduceMean") {
    y = ctx.call("aten::mean.dim", {x, axes, keepdims, ir::Argument()});
  } else if (op == "ReduceSum" || op == "ReduceSumSquare" || op == "ReduceL1") {
    y = sum(ctx, x, axes, keepdims);
  } else if (op == "ReduceL2") {
    y = ctx.call("aten::sqrt", {sum(ctx, x, axes, keepdims)});
  } else if (op == "ReduceLogSum") {
    y = ctx.call("aten::log", {sum(ctx, x, axes, keepdims)});
  } else if (op == "ReduceLogSumExp") {
    // Shifted by the maximum so that exp does not overflow.
    ir::Node* m = ctx.call("aten::amax", {x, axes, true});
    ir::Node* e = ctx.call("aten::exp", {ctx.call("aten::sub.Tensor", {x, m, 1})});
    ir::Node* s = ctx.call("aten::log", {sum(ctx, e, axes, keepdims)});
    if (!keepdims) {
      std::vector<int64_t> out_sizes;
      const std::vector<int64_t> in = ctx.input_sizes(node, 0);
      for (int64_t d = 0; d < rank; ++d) {
        if (!std::binary_search(axes.begin(), axes.end(), d)) out_sizes.push_back(in[d]);
      }
      m = view(ctx, m, out_sizes);
    }
    y = ctx.call("aten::add.Tensor", {s, m, 1});
  } else if (op == "ReduceProd") {
    // One axis at a time, last first, so that the remaining axes keep their positions.
    y = x;
    for (size_t i = axes.size(); i-- > 0;) {
      y = ctx.call("aten::prod.dim_int", {y, axes[i], keepdims, x->spec().dtype});
    }
  } else if (op == "ReduceMax") {
    y = ctx.call("aten::amax", {x, axes, keepdims});
  } else {
    y = ctx.call("aten::amin", {x, axes, keepdims});
  }
  ctx.set_output(node, 0, y);
}

void import_arg_reduce(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  const int64_t rank = static_cast<int64_t>(in.size());
  const int64_t axis = node.normalize_axis(node.attr_int("axis", 0), rank);
  const bool keepdims = node.attr_int("keepdims", 1) != 0;
  const bool last = node.attr_int("select_last_index", 0) != 0;
  const char* op = node.op_type() == "ArgMax" ? "aten::argmax" : "aten::argmin";
  ir::Node* x = ctx.input(node, 0);
  if (last) x = ctx.call("aten::flip", {x, std::vector<int64_t>{axis}});
  ir::Node* y = ctx.call(op, {x, axis, keepdims});
  // The first extreme of the flipped input sits at size - 1 - index in the original.
  if (last) y = ctx.call("aten::rsub.Scalar", {y, in[static_cast<size_t>(axis)] - 1, 1});
  ctx.set_output(node, 0, y);
}

/// CumSum → cumsum in the input's dtype; reverse flips before and after, exclusive subtracts
/// the input. The axis (input 1) must be known at import time.
void import_cumsum(ImportContext& ctx, const NodeView& node) {
  const std::optional<double> a = single_value(&ctx.require_constant(node, 1, "axis"));
  if (!a) node.fail(Error::InvalidArgument, "axis must hold one value");
  const int64_t axis = node.normalize_axis(static_cast<int64_t>(*a), ctx.input_rank(node, 0));
  const bool reverse = node.attr_int("reverse", 0) != 0;
  const bool exclusive = node.attr_int("exclusive", 0) != 0;
  ir::Node* x = ctx.input(node, 0);
  const std::vector<int64_t> dims{axis};
  if (reverse) x = ctx.call("aten::flip", {x, dims});
  ir::Node* y = ctx.call("aten::cumsum", {x, axis, x->spec().dtype});
  if (exclusive) y = ctx.call("aten::sub.Tensor", {y, x, 1});
  if (reverse) y = ctx.call("aten::flip", {y, dims});
  ctx.set_output(node, 0, y);
}

/// ReduceMin / ReduceMax of a constant (exact in any dtype), and ReduceSum / ReduceProd of an
/// integral one (shape arithmetic); float sums are left to the kernels, whose summation order
/// decides the last bit.
bool fold_reduce(ImportContext& ctx, const NodeView& node) {
  const ConstTensor* a = ctx.constant(node, 0);
  const std::string& op = node.op_type();
  if (a == nullptr || !is_numeric(a->dtype) || a->dtype == DType::Bool) return false;
  const bool extreme = op == "ReduceMin" || op == "ReduceMax";
  if (!extreme && (is_floating_point(a->dtype) || (op != "ReduceSum" && op != "ReduceProd"))) {
    return false;
  }
  if (node.has_input(1) && ctx.constant(node, 1) == nullptr) return false;
  const auto rank = static_cast<int64_t>(a->sizes.size());
  std::vector<int64_t> axes = reduce_axes(ctx, node, rank);
  if (reduces_nothing(ctx, node)) {
    ctx.set_output(node, 0, *a);
    return true;
  }
  if (a->numel() == 0) return false;  // an empty min / max is an error for the kernels to report
  const bool keepdims = node.attr_int("keepdims", 1) != 0;
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t d : axes) reduced[static_cast<size_t>(d)] = true;
  std::vector<int64_t> out_sizes, kept_sizes;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = a->sizes[static_cast<size_t>(d)];
    kept_sizes.push_back(reduced[static_cast<size_t>(d)] ? 1 : size);
    if (!reduced[static_cast<size_t>(d)])
      out_sizes.push_back(size);
    else if (keepdims)
      out_sizes.push_back(1);
  }
  const int64_t out_count = product(kept_sizes, 0, kept_sizes.size());
  std::vector<double> acc(static_cast<size_t>(out_count));
  std::vector<int64_t> iacc(static_cast<size_t>(out_count));
  std::vector<bool> seen(static_cast<size_t>(out_count), false);
  std::vector<int64_t> at(static_cast<size_t>(rank), 0);
  for (int64_t i = 0; i < a->numel(); ++i) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d) {
      o = o * kept_sizes[static_cast<size_t>(d)] +
          (reduced[static_cast<size_t>(d)] ? 0 : at[static_cast<size_t>(d)]);
    }
    const auto k = static_cast<size_t>(o);
    if (extreme) {
      const double x = a->double_at(i);
      const bool better = op == "ReduceMin" ? x < acc[k] : x > acc[k];
      // NaN propagates, as in the kernels.
      if (!seen[k] || std::isnan(x) || (better && !std::isnan(acc[k]))) acc[k] = x;
    } else {
      const int64_t x = a->int_at(i);
      iacc[k] = !seen[k] ? x : op == "ReduceSum" ? iacc[k] + x : iacc[k] * x;
    }
    seen[k] = true;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++at[static_cast<size_t>(d)] < a->sizes[static_cast<size_t>(d)]) break;
      at[static_cast<size_t>(d)] = 0;
    }
  }
  ctx.set_output(node, 0,
                 extreme ? ConstTensor::from_double(a->dtype, out_sizes, acc)
                         : ConstTensor::from_int64(a->dtype, out_sizes, iacc));
  return true;
}

}  // namespace

std::vector<OpEntry> reduce_ops() {
  return {
      {"ReduceMean", 1, 18, import_reduce},
      {"ReduceSum", 1, 17, import_reduce, fold_reduce},
      {"ReduceMax", 1, 20, import_reduce, fold_reduce},
      {"ReduceMin", 1, 20, import_reduce, fold_reduce},
      {"ReduceProd", 1, 18, import_reduce, fold_reduce},
      {"ReduceSumSquare", 1, 18, import_reduce},
      {"ReduceL1", 1, 18, import_reduce},
      {"ReduceL2", 1, 18, import_reduce},
      {"ReduceLogSum", 1, 18, import_reduce},
      {"ReduceLogSumExp", 1, 18, import_reduce},
      {"CumSum", 11, 17, import_cumsum},
      {"ArgMax", 1, 17, import_arg_reduce},
      {"ArgMin", 1, 17, import_arg_reduce},
  };
}

}  // namespace ptec::onnx_import
