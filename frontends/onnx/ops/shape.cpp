// Shape ops: Shape and Size (evaluated at import from static shapes), Reshape, Flatten,
// Squeeze, Unsqueeze → view_copy; Transpose → permute_copy; Expand → expand_copy. Each folds
// when its input is known at import time (reshapes share the input's Buffer).

#include <algorithm>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

/// Sets output 0 to `x` viewed as `sizes`: a shared-Buffer constant when x is known at import
/// time, else view_copy (or x itself when the sizes do not change).
void set_viewed(ImportContext& ctx, const NodeView& node, const std::vector<int64_t>& sizes) {
  if (const ConstTensor* c = ctx.constant(node, 0)) {
    ctx.set_output(node, 0, c->reshaped(sizes));
    return;
  }
  ctx.set_output(node, 0, view(ctx, ctx.input(node, 0), sizes));
}

bool fold_shape(ImportContext& ctx, const NodeView& node) {
  const ir::TensorSpec spec = ctx.input_spec(node, 0);
  if (!spec.is_static()) return false;
  const std::vector<int64_t> sizes = spec.upper_bound_sizes();
  const int64_t rank = static_cast<int64_t>(sizes.size());
  if (node.op_type() == "Size") {
    ctx.set_output(node, 0, ConstTensor::from_int64(DType::Long, {}, {element_count(sizes)}));
    return true;
  }
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  const int64_t start = clamp(node.attr_int("start", 0));
  const int64_t end = clamp(node.attr_int("end", rank));
  std::vector<int64_t> out;
  for (int64_t i = start; i < end; ++i) out.push_back(sizes[static_cast<size_t>(i)]);
  ctx.set_output(node, 0, ConstTensor::int64_vector(out));
  return true;
}

void import_shape(ImportContext& ctx, const NodeView& node) {
  static_sizes(ctx.input_spec(node, 0), node.where());  // fails for symbolic dims
  node.fail(Error::Internal, "Shape of a static tensor was not evaluated");
}

/// Reshape of a tensor with symbolic dims by a constant shape: 0 copies the input's dim (a
/// sym_size item for a symbol) and view_copy's shape function infers -1.
void import_reshape_dynamic(ImportContext& ctx, const NodeView& node) {
  const ir::Shape in = ctx.input_shape(node, 0);
  const std::vector<int64_t> shape = ctx.require_constant(node, 1, "shape").to_int64();
  const bool allowzero = node.attr_int("allowzero", 0) != 0;
  ir::ArgumentList args;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= in.size()) {
        node.fail(Error::InvalidArgument, "shape {} copies dim {} of rank {}",
                  sizes_to_string(shape), i, in.size());
      }
      args.push_back(ctx.sym_size(in[i]));
    } else {
      args.emplace_back(shape[i]);
    }
  }
  ctx.set_output(node, 0, ctx.call("aten::view_copy", {ctx.input(node, 0), std::move(args)}));
}

void import_reshape(ImportContext& ctx, const NodeView& node) {
  if (!ctx.input_spec(node, 0).is_static()) {
    import_reshape_dynamic(ctx, node);
    return;
  }
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  const std::vector<int64_t> shape = ctx.require_constant(node, 1, "shape").to_int64();
  const bool allowzero = node.attr_int("allowzero", 0) != 0;
  std::vector<int64_t> out(shape.size());
  int64_t infer = -1, known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t s = shape[i];
    if (s == 0 && !allowzero) {
      if (i >= in.size())
        node.fail(Error::InvalidArgument, "shape {} copies dim {} of {}", sizes_to_string(shape), i,
                  sizes_to_string(in));
      s = in[i];
    }
    if (s == -1) {
      if (infer >= 0)
        node.fail(Error::InvalidArgument, "shape {} has two -1", sizes_to_string(shape));
      infer = static_cast<int64_t>(i);
      continue;
    }
    if (s < 0)
      node.fail(Error::InvalidArgument, "shape {} has a negative size", sizes_to_string(shape));
    out[i] = s;
    known *= s;
  }
  const int64_t numel = element_count(in);
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) {
      node.fail(Error::InvalidArgument, "cannot reshape {} to {}", sizes_to_string(in),
                sizes_to_string(shape));
    }
    out[static_cast<size_t>(infer)] = numel / known;
  } else if (known != numel) {
    node.fail(Error::InvalidArgument, "cannot reshape {} to {}", sizes_to_string(in),
              sizes_to_string(shape));
  }
  set_viewed(ctx, node, out);
}

void import_flatten(ImportContext& ctx, const NodeView& node) {
  const ir::Shape in = ctx.input_shape(node, 0);
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = node.attr_int("axis", 1);
  if (axis < -rank || axis > rank) {
    node.fail(Error::InvalidArgument, "axis {} is out of range for rank {}", axis, rank);
  }
  if (axis < 0) axis += rank;
  const size_t a = static_cast<size_t>(axis);
  if (ctx.input_spec(node, 0).is_static()) {
    const std::vector<int64_t> sizes = ctx.input_sizes(node, 0);
    set_viewed(ctx, node, {product(sizes, 0, a), product(sizes, a, sizes.size())});
    return;
  }
  const std::optional<ir::SymInt> outer = sym_product(in, 0, a);
  const std::optional<ir::SymInt> inner = sym_product(in, a, in.size());
  if (!outer && !inner) {
    node.fail(Error::NotSupported, "flattening {} needs symbolic arithmetic",
              ctx.input_spec(node, 0).to_string());
  }
  ir::ArgumentList args{outer ? ctx.sym_size(*outer) : ir::Argument(int64_t{-1}),
                        inner ? ctx.sym_size(*inner) : ir::Argument(int64_t{-1})};
  ctx.set_output(node, 0, ctx.call("aten::view_copy", {ctx.input(node, 0), std::move(args)}));
}

std::vector<int64_t> axes_of(ImportContext& ctx, const NodeView& node) {
  if (node.opset() >= 13) {
    if (!node.has_input(1)) return {};
    return ctx.require_constant(node, 1, "axes").to_int64();
  }
  return node.attr_ints("axes", {});
}

void import_squeeze(ImportContext& ctx, const NodeView& node) {
  if (!ctx.input_spec(node, 0).is_static()) {
    const ir::Shape in = ctx.input_shape(node, 0);
    const int64_t rank = static_cast<int64_t>(in.size());
    std::vector<bool> drop(in.size(), false);
    const std::vector<int64_t> axes = axes_of(ctx, node);
    for (size_t i = 0; i < in.size() && axes.empty(); ++i) drop[i] = in[i] == ir::SymInt(1);
    for (int64_t a : axes) {
      const size_t d = static_cast<size_t>(node.normalize_axis(a, rank));
      if (in[d] != ir::SymInt(1)) {
        node.fail(Error::InvalidArgument, "cannot squeeze dim {} of size {}", d, in[d].to_string());
      }
      drop[d] = true;
    }
    ir::Shape out;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!drop[i]) out.push_back(in[i]);
    }
    ctx.set_output(node, 0, sym_view(ctx, ctx.input(node, 0), out));
    return;
  }
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> axes = axes_of(ctx, node);
  std::vector<bool> drop(in.size(), false);
  if (axes.empty()) {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  }
  for (int64_t a : axes) {
    const size_t d = static_cast<size_t>(node.normalize_axis(a, rank));
    if (in[d] != 1) {
      node.fail(Error::InvalidArgument, "cannot squeeze dim {} of size {}", d, in[d]);
    }
    drop[d] = true;
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  set_viewed(ctx, node, out);
}

void import_unsqueeze(ImportContext& ctx, const NodeView& node) {
  const ir::Shape in = ctx.input_shape(node, 0);
  const std::vector<int64_t> axes = axes_of(ctx, node);
  if (axes.empty()) node.fail(Error::InvalidArgument, "axes are required");
  const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  std::vector<bool> added(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    const size_t d = static_cast<size_t>(node.normalize_axis(a, rank));
    if (added[d]) node.fail(Error::InvalidArgument, "axes repeat dim {}", d);
    added[d] = true;
  }
  ir::Shape out;
  size_t next = 0;
  for (size_t d = 0; d < added.size(); ++d) out.push_back(added[d] ? ir::SymInt(1) : in[next++]);
  if (!ctx.input_spec(node, 0).is_static()) {
    ctx.set_output(node, 0, sym_view(ctx, ctx.input(node, 0), out));
    return;
  }
  set_viewed(ctx, node, ir::TensorSpec(DType::Float, out).upper_bound_sizes());
}

std::vector<int64_t> transpose_perm(ImportContext& ctx, const NodeView& node) {
  const int64_t rank = ctx.input_rank(node, 0);
  std::vector<int64_t> identity(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) identity[static_cast<size_t>(i)] = rank - 1 - i;
  std::vector<int64_t> perm = node.attr_ints("perm", identity);
  std::vector<int64_t> sorted = perm;
  for (int64_t& p : sorted) p = node.normalize_axis(p, rank, "perm entry");
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < rank; ++i) {
    if (sorted.size() != static_cast<size_t>(rank) || sorted[static_cast<size_t>(i)] != i) {
      node.fail(Error::InvalidArgument, "perm {} is not a permutation of {} dims",
                sizes_to_string(perm), rank);
    }
  }
  for (int64_t& p : perm) p = p < 0 ? p + rank : p;
  return perm;
}

bool fold_transpose(ImportContext& ctx, const NodeView& node) {
  const ConstTensor* c = ctx.constant(node, 0);
  if (c == nullptr) return false;
  ctx.set_output(node, 0, eval::transpose(*c, transpose_perm(ctx, node)));
  return true;
}

void import_transpose(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> perm = transpose_perm(ctx, node);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) {
    ctx.forward_input(node, 0, 0);
    return;
  }
  ctx.set_output(node, 0, ctx.call("aten::permute_copy", {ctx.input(node, 0), perm}));
}

std::vector<int64_t> expand_sizes(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> shape = ctx.require_constant(node, 1, "shape").to_int64();
  try {
    return eval::broadcast_sizes(ctx.input_sizes(node, 0), shape);
  } catch (const Exception&) {
    node.fail(Error::InvalidArgument, "cannot expand {} to {}",
              sizes_to_string(ctx.input_sizes(node, 0)), sizes_to_string(shape));
  }
}

bool fold_expand(ImportContext& ctx, const NodeView& node) {
  const ConstTensor* c = ctx.constant(node, 0);
  if (c == nullptr || ctx.constant(node, 1) == nullptr) return false;
  ctx.set_output(node, 0, eval::expand(*c, expand_sizes(ctx, node)));
  return true;
}

void import_expand(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> out = expand_sizes(ctx, node);
  if (out == ctx.input_sizes(node, 0)) {
    ctx.forward_input(node, 0, 0);
    return;
  }
  ctx.set_output(node, 0, ctx.call("aten::expand_copy", {ctx.input(node, 0), out, false}));
}

}  // namespace

std::vector<OpEntry> shape_ops() {
  return {
      {"Shape", 1, 25, import_shape, fold_shape},
      {"Size", 1, 25, import_shape, fold_shape},
      {"Reshape", 5, 25, import_reshape},
      {"Flatten", 1, 25, import_flatten},
      {"Squeeze", 1, 25, import_squeeze},
      {"Unsqueeze", 1, 25, import_unsqueeze},
      {"Transpose", 1, 25, import_transpose, fold_transpose},
      {"Expand", 8, 17, import_expand, fold_expand},
  };
}

}  // namespace ptec::onnx_import
