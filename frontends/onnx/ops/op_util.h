#pragma once

// Helpers shared by the op families (ops/*.cpp).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frontends/onnx/const_eval.h"
#include "frontends/onnx/import_context.h"
#include "frontends/onnx/op_registry.h"

namespace ptec::onnx_import {

/// A Scalar argument holding `v` as an int for integral (and bool) dtypes, a double otherwise.
inline ir::Argument scalar_arg(double v, DType dtype) {
  if (is_floating_point(dtype)) return ir::Argument(v);
  return ir::Argument(static_cast<int64_t>(v));
}

/// The single value of a one-element constant.
inline std::optional<double> single_value(const ConstTensor* c) {
  if (c == nullptr || c->numel() != 1) return std::nullopt;
  return c->double_at(0);
}

/// Input `i`, a one-value int tensor known at import time, as an int64 (not through a double:
/// exporters write INT64_MAX for "no limit"). `what` names it in errors.
inline int64_t require_int(ImportContext& ctx, const NodeView& node, size_t i, const char* what) {
  const ConstTensor& t = ctx.require_constant(node, i, what);
  if (t.numel() != 1) node.fail(Error::InvalidArgument, "{} must hold one value", what);
  return t.to_int64()[0];
}

/// Product of sizes[begin, end).
inline int64_t product(const std::vector<int64_t>& sizes, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < sizes.size(); ++i) p *= sizes[i];
  return p;
}

/// True when every input that is given is known at import time.
inline bool all_inputs_constant(ImportContext& ctx, const NodeView& node) {
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    if (node.has_input(i) && ctx.constant(node, i) == nullptr) return false;
  }
  return true;
}

/// view_copy to `sizes`, or `x` itself when it already has them.
inline ir::Node* view(ImportContext& ctx, ir::Node* x, const std::vector<int64_t>& sizes) {
  if (x->spec().is_static() && x->spec().upper_bound_sizes() == sizes) return x;
  return ctx.call("aten::view_copy", {x, sizes});
}

/// view_copy to `shape` (symbolic dims become aten::sym_size.int items), or `x` itself when it
/// already has it.
inline ir::Node* sym_view(ImportContext& ctx, ir::Node* x, const ir::Shape& shape) {
  if (x->spec().shape == shape) return x;
  return ctx.call("aten::view_copy", {x, ctx.size_args(shape)});
}

/// The product of shape[begin, end) as one dim: static, or one symbol times 1; nullopt when it
/// would need symbolic arithmetic (the caller passes -1 and lets view_copy infer it).
inline std::optional<ir::SymInt> sym_product(const ir::Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  std::optional<ir::SymInt> symbol;
  for (size_t i = begin; i < end; ++i) {
    if (shape[i].is_static()) {
      p *= shape[i].value();
    } else if (symbol) {
      return std::nullopt;
    } else {
      symbol = shape[i];
    }
  }
  if (!symbol) return ir::SymInt(p);
  if (p != 1) return std::nullopt;
  return symbol;
}

/// view_copy to `shape` where dims may be products of symbols that no value carries yet (dims
/// flattened together): that dim becomes -1, which view_copy infers. More than one such dim is
/// refused (NotSupported, naming `what`).
inline ir::Node* flat_view(ImportContext& ctx, const NodeView& node, ir::Node* x,
                           const ir::Shape& shape, std::string_view what) {
  if (x->spec().shape == shape) return x;
  ir::ArgumentList size;
  bool inferred = false;
  for (const ir::SymInt& d : shape) {
    std::optional<ir::Argument> item = ctx.find_sym_size(d);
    if (!item) {
      if (inferred) {
        node.fail(Error::NotSupported,
                  "{}: more than one dim of {} is a new product of dynamic dims", what,
                  ir::TensorSpec(x->spec().dtype, shape).to_string());
      }
      inferred = true;
      item = ir::Argument(int64_t{-1});
    }
    size.push_back(std::move(*item));
  }
  return ctx.call("aten::view_copy", {x, std::move(size)});
}

/// Input `i`'s sizes with each dynamic dim at its upper bound, for ops whose attributes do not
/// depend on the spatial sizes (their shape functions size the outputs); `dynamic` gets which
/// dims past the first two (the spatial ones of [N, C, ...]) are dynamic.
inline std::vector<int64_t> spatial_bounds(ImportContext& ctx, const NodeView& node, size_t i,
                                           std::vector<bool>* dynamic) {
  const ir::Shape shape = ctx.input_shape(node, i);
  std::vector<int64_t> sizes;
  dynamic->clear();
  for (size_t d = 0; d < shape.size(); ++d) {
    sizes.push_back(shape[d].upper_bound());
    if (d >= 2) dynamic->push_back(shape[d].is_symbolic());
  }
  if (shape.size() > 1 && shape[1].is_symbolic()) {
    node.fail(Error::NotSupported, "input '{}' has the dynamic channel dim {}", node.input(i),
              shape[1].to_string());
  }
  return sizes;
}

/// Begin and end padding of one spatial dim for ONNX auto_pad SAME_UPPER / SAME_LOWER.
struct Pads {
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  bool symmetric() const { return begin == end; }
};

/// The explicit pads of a Conv/MaxPool/AveragePool node: from auto_pad (NOTSET, VALID,
/// SAME_UPPER, SAME_LOWER) and `pads`. `in` holds the input's spatial sizes; `effective_kernel`
/// is (k - 1) * dilation + 1 per spatial dim.
/// `dynamic` (may be null): which of the spatial dims are dynamic (`in` holds their bounds).
/// SAME padding of a dynamic dim is refused unless its stride is 1, where it does not depend on
/// the size.
inline Pads resolve_pads(const NodeView& node, const std::vector<int64_t>& in,
                         const std::vector<int64_t>& effective_kernel,
                         const std::vector<int64_t>& strides,
                         const std::vector<bool>* dynamic = nullptr) {
  const size_t n = in.size();
  Pads p{std::vector<int64_t>(n, 0), std::vector<int64_t>(n, 0)};
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    const std::vector<int64_t> pads = node.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
    if (pads.size() != 2 * n) {
      node.fail(Error::InvalidArgument, "pads has {} values; {} spatial dims need {}", pads.size(),
                n, 2 * n);
    }
    for (size_t i = 0; i < n; ++i) {
      p.begin[i] = pads[i];
      p.end[i] = pads[i + n];
      if (p.begin[i] < 0 || p.end[i] < 0) node.fail(Error::InvalidArgument, "negative pads");
    }
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      if (dynamic != nullptr && (*dynamic)[i] && strides[i] != 1) {
        node.fail(Error::NotSupported,
                  "auto_pad {} with stride {} on a dynamic spatial dim: the padding depends on "
                  "the size",
                  auto_pad, strides[i]);
      }
      const int64_t out = (in[i] + strides[i] - 1) / strides[i];
      const int64_t total =
          std::max<int64_t>(0, (out - 1) * strides[i] + effective_kernel[i] - in[i]);
      const int64_t small = total / 2;
      p.begin[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      p.end[i] = total - p.begin[i];
    }
  } else if (auto_pad != "VALID") {
    node.fail(Error::InvalidArgument, "unknown auto_pad '{}'", auto_pad);
  }
  return p;
}

/// constant_pad_nd's pad list (last dim first, [begin, end] pairs) for spatial pads of a
/// [N, C, spatial...] tensor.
inline std::vector<int64_t> aten_pad_list(const std::vector<int64_t>& begin,
                                          const std::vector<int64_t>& end) {
  std::vector<int64_t> pad;
  for (size_t i = begin.size(); i-- > 0;) {
    pad.push_back(begin[i]);
    pad.push_back(end[i]);
  }
  return pad;
}

/// Input 0's sizes with each symbolic dim at its upper bound; `symbolic` flags those dims.
inline std::vector<int64_t> bounded_sizes(ImportContext& ctx, const NodeView& node,
                                          std::vector<bool>& symbolic) {
  const ir::Shape shape = ctx.input_shape(node, 0);
  std::vector<int64_t> out;
  symbolic.clear();
  for (const ir::SymInt& d : shape) {
    out.push_back(d.upper_bound());
    symbolic.push_back(d.is_symbolic());
  }
  return out;
}

/// True when every value of `index` is known to be >= 0: positions from aten::nonzero, topk,
/// argmax or argmin, through copies that move or repeat values (views, expand, casts to int64).
/// torchvision's box selections index this way.
inline bool known_non_negative(const ir::Node* index) {
  for (const ir::Node* n = index; n != nullptr;) {
    if (n->is_op("aten::nonzero") || n->is_op("aten::argmax") || n->is_op("aten::argmin")) {
      return true;
    }
    if (n->is_op("getitem") && n->arg(1).is_int() && n->arg(1).as_int() == 1 &&
        n->arg(0).is_node() && n->arg(0).as_node()->is_op("aten::topk")) {
      return true;  // topk's indices
    }
    static constexpr std::string_view kMoves[] = {
        "aten::view_copy",         "aten::expand_copy",       "aten::unsqueeze_copy",
        "aten::squeeze_copy.dims", "aten::squeeze_copy.dim",  "aten::permute_copy",
        "aten::select_copy.int",   "aten::slice_copy.Tensor", "aten::clone",
        "aten::_to_copy"};
    bool moves = false;
    for (std::string_view op : kMoves) moves = moves || n->is_op(op);
    if (!moves || n->args().empty() || !n->arg(0).is_node()) return false;
    if (n->is_op("aten::_to_copy") && n->spec().dtype != DType::Long) return false;
    n = n->arg(0).as_node();
  }
  return false;
}

/// Index tensor `index` with negative entries wrapped by `size` (ONNX allows [-size, size)):
/// where(index < 0, index + size, index), unless no entry can be negative. Out-of-range indices
/// are left to the kernel.
inline ir::Node* wrap_negative_indices(ImportContext& ctx, ir::Node* index, ir::Argument size) {
  if (known_non_negative(index)) return index;
  ir::Node* negative = ctx.call("aten::lt.Scalar", {index, int64_t{0}});
  ir::Node* shifted = ctx.call("aten::add.Scalar", {index, std::move(size), 1});
  return ctx.call("aten::where.self", {negative, shifted, index});
}

/// Tensor values (constants or nodes) concatenated along `axis`, or stacked along a new `axis`
/// when `stack`: evaluated at import when every part is a constant, else aten::cat (of
/// unsqueeze_copy for a stack). `name` names the placeholders of constant parts.
inline Value concat_values(ImportContext& ctx, const NodeView& node, std::vector<Value>& parts,
                           const std::string& name, int64_t axis, bool stack) {
  const bool all_constant = std::all_of(parts.begin(), parts.end(),
                                        [](const Value& v) { return v.constant.has_value(); });
  if (all_constant) {
    std::vector<ConstTensor> reshaped;
    for (const Value& v : parts) {
      std::vector<int64_t> sizes = v.constant->sizes;
      if (stack) sizes.insert(sizes.begin() + axis, 1);
      reshaped.push_back(v.constant->reshaped(std::move(sizes)));
    }
    std::vector<const ConstTensor*> ptrs;
    for (const ConstTensor& r : reshaped) ptrs.push_back(&r);
    return Value{nullptr, eval::concat(ptrs, axis), false, node.source()};
  }
  ir::ArgumentList items;
  for (size_t i = 0; i < parts.size(); ++i) {
    ir::Node* x = ctx.materialize(fmt::format("{}_{}", name, i), parts[i]);
    items.emplace_back(stack ? ctx.call("aten::unsqueeze_copy", {x, axis}) : x);
  }
  return Value{ctx.call("aten::cat", {std::move(items), axis}), std::nullopt, false, node.source()};
}

/// The axes of a Reduce* node: the `axes` input (which must be known at import time) or
/// attribute, normalized to [0, rank) and sorted; every dim when empty (noop_with_empty_axes
/// aside, which the caller checks).
inline std::vector<int64_t> reduce_axes(ImportContext& ctx, const NodeView& node, int64_t rank) {
  std::vector<int64_t> axes;
  if (node.has_input(1)) {
    axes = ctx.require_constant(node, 1, "axes").to_int64();
  } else {
    axes = node.attr_ints("axes", {});
  }
  if (axes.empty()) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  for (int64_t& a : axes) a = node.normalize_axis(a, rank, "axis");
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    node.fail(Error::InvalidArgument, "axes {} repeat a dim", sizes_to_string(axes));
  }
  return axes;
}

/// Conv's lowering applied to graph tensors: aten::convolution of `input` (sizes `x`; dynamic
/// dims at their upper bounds, `dynamic` telling which spatial ones are, or null for none) and
/// `weight` (sizes `w`) with `bias` (None or a tensor), with the auto_pad, pads, strides,
/// dilations, group and kernel_shape attributes of `node`. Defined in ops/conv.cpp.
ir::Node* conv_nodes(ImportContext& ctx, const NodeView& node, ir::Node* input,
                     const std::vector<int64_t>& x, ir::Node* weight, const std::vector<int64_t>& w,
                     ir::Argument bias, const std::vector<bool>* dynamic = nullptr);

/// MatMul's lowering (NumPy matmul: 1-D operands, broadcast batch dims) of two graph tensors.
/// Defined in ops/matmul.cpp.
ir::Node* matmul_nodes(ImportContext& ctx, const NodeView& node, ir::Node* x, ir::Node* y);

}  // namespace ptec::onnx_import
