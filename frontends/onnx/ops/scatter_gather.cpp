// Indexing ops: ScatterElements / Scatter → scatter.src, scatter_add or scatter_reduce.two;
// ScatterND → index_put (reduction none/add) or scatter_reduce.two over a flattened view
// (mul/max/min); GatherND → index.Tensor; TopK → topk; OneHot → eq(arange) + where; Compress
// with a condition known at import time → index_select.
//
// Index inputs known at import time are checked and wrapped here (an out-of-range index fails the
// import naming the node); indices computed at run time are wrapped in the graph and checked by
// the kernels.

#include <algorithm>

#include <cmath>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

/// Index input `i` as an int64 graph tensor with the same shape, negative values wrapped by
/// `size`: a checked constant when known at import time, else cast and wrapped at run time.
ir::Node* elementwise_index(ImportContext& ctx, const NodeView& node, size_t i,
                            const ir::SymInt& dim) {
  if (const ConstTensor* c = ctx.constant(node, i)) {
    std::vector<int64_t> idx = c->to_int64();
    const int64_t size = dim.upper_bound();
    for (int64_t& v : idx) {
      if (v < -size || v >= size) {
        node.fail(Error::InvalidArgument, "index {} is out of range for a dim of size {}", v,
                  dim.to_string());
      }
      if (v < 0 && dim.is_symbolic()) {
        node.fail(Error::NotSupported, "negative index {} into the dynamic dim {}", v,
                  dim.to_string());
      }
      if (v < 0) v += size;
    }
    return ctx.constant_tensor(node.input(i), ConstTensor::from_int64(DType::Long, c->sizes, idx));
  }
  ir::Node* index = ctx.input(node, i);
  const DType dtype = index->spec().dtype;
  if (dtype != DType::Long && dtype != DType::Int) {
    node.fail(Error::InvalidArgument, "indices must be int32 or int64, got {}", to_string(dtype));
  }
  if (dtype != DType::Long) index = ctx.call("aten::_to_copy", {index, DType::Long});
  return wrap_negative_indices(ctx, index, ctx.sym_size(dim));
}

/// ScatterElements (opset 11-18) and Scatter (opset 9-10, the same op without reduction).
void import_scatter_elements(ImportContext& ctx, const NodeView& node) {
  const ir::Shape data = ctx.input_shape(node, 0);
  const int64_t rank = static_cast<int64_t>(data.size());
  const int64_t axis = node.normalize_axis(node.attr_int("axis", 0), std::max<int64_t>(rank, 1));
  const ir::SymInt size = rank == 0 ? ir::SymInt(1) : data[static_cast<size_t>(axis)];
  if (ctx.input_rank(node, 1) != rank || ctx.input_rank(node, 2) != rank) {
    node.fail(Error::InvalidArgument, "data, indices and updates must have the same rank");
  }
  if (ctx.input_shape(node, 1) != ctx.input_shape(node, 2)) {
    node.fail(Error::InvalidArgument, "indices and updates must have the same shape");
  }
  if (ctx.input_dtype(node, 2) != ctx.input_dtype(node, 0)) {
    node.fail(Error::InvalidArgument, "updates ({}) must have the dtype of data ({})",
              to_string(ctx.input_dtype(node, 2)), to_string(ctx.input_dtype(node, 0)));
  }
  ir::Node* x = ctx.input(node, 0);
  ir::Node* index = elementwise_index(ctx, node, 1, size);
  ir::Node* updates = ctx.input(node, 2);
  const std::string reduction = node.attr_string("reduction", "none");
  ir::Node* y = nullptr;
  if (reduction == "none") {
    y = ctx.call("aten::scatter.src", {x, axis, index, updates});
  } else if (reduction == "add") {
    y = ctx.call("aten::scatter_add", {x, axis, index, updates});
  } else if (reduction == "mul" || reduction == "max" || reduction == "min") {
    const char* reduce = reduction == "mul" ? "prod" : reduction == "max" ? "amax" : "amin";
    y = ctx.call("aten::scatter_reduce.two", {x, axis, index, updates, reduce, true});
  } else {
    node.fail(Error::InvalidArgument, "unknown reduction '{}' (none, add, mul, max, min)",
              reduction);
  }
  ctx.set_output(node, 0, y);
}

/// The ND index tuple of ScatterND / GatherND: indices [..., k] addresses dims
/// [first, first + k) of data. Returns k int64 tensors of shape indices.shape[:-1] (component j
/// of each tuple). Constant indices are checked and wrapped at import; run-time ones are split
/// with select_copy and left to the kernel (index.Tensor / index_put wrap negative indices and
/// check bounds), or wrapped in the graph when `wrap` is set.
std::vector<ir::Node*> nd_index_components(ImportContext& ctx, const NodeView& node,
                                           const std::vector<int64_t>& data, size_t first,
                                           bool wrap) {
  // The index tuples' own dims may be symbolic (NonZero's count); their length k is static.
  const ir::Shape ishape = ctx.input_shape(node, 1);
  if (ishape.empty()) node.fail(Error::InvalidArgument, "indices must have rank >= 1");
  if (ishape.back().is_symbolic()) {
    node.fail(Error::NotSupported, "the index tuples' length (the last dim of indices) is dynamic");
  }
  const int64_t k = ishape.back().value();
  if (k < 1 || first + static_cast<size_t>(k) > data.size()) {
    node.fail(Error::NotSupported,
              "indices address {} dims after {} batch dims of data of rank {} (1 to {} are "
              "supported)",
              k, first, data.size(), data.size() - first);
  }
  std::vector<ir::Node*> parts;
  if (const ConstTensor* c = ctx.constant(node, 1)) {
    const std::vector<int64_t> tuple_shape(c->sizes.begin(), c->sizes.end() - 1);
    const std::vector<int64_t> idx = c->to_int64();
    const int64_t n = element_count(tuple_shape);
    for (int64_t j = 0; j < k; ++j) {
      const int64_t size = data[first + static_cast<size_t>(j)];
      std::vector<int64_t> comp(static_cast<size_t>(n));
      for (int64_t u = 0; u < n; ++u) {
        int64_t v = idx[static_cast<size_t>(u * k + j)];
        if (v < -size || v >= size) {
          node.fail(Error::InvalidArgument, "index {} is out of range for dim {} of size {}", v,
                    first + static_cast<size_t>(j), size);
        }
        comp[static_cast<size_t>(u)] = v < 0 ? v + size : v;
      }
      parts.push_back(ctx.constant_tensor(node.input(1),
                                          ConstTensor::from_int64(DType::Long, tuple_shape, comp)));
    }
    return parts;
  }
  ir::Node* indices = ctx.input(node, 1);
  if (indices->spec().dtype != DType::Long) {
    node.fail(Error::InvalidArgument, "indices must be int64, got {}",
              to_string(indices->spec().dtype));
  }
  const int64_t last = static_cast<int64_t>(ishape.size()) - 1;
  for (int64_t j = 0; j < k; ++j) {
    ir::Node* comp = ctx.call("aten::select_copy.int", {indices, last, j});
    if (wrap) comp = wrap_negative_indices(ctx, comp, data[first + static_cast<size_t>(j)]);
    parts.push_back(comp);
  }
  return parts;
}

/// ScatterND: data[indices[u]] = updates[u] (reduction none), += (add), or *= / max / min.
void import_scatter_nd(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> data = ctx.input_sizes(node, 0);
  const std::vector<int64_t> isz = ctx.input_sizes(node, 1);
  const std::vector<int64_t> usz = ctx.input_sizes(node, 2);
  if (isz.empty()) node.fail(Error::InvalidArgument, "indices must have rank >= 1");
  if (isz.back() < 1 || static_cast<size_t>(isz.back()) > data.size()) {
    node.fail(Error::NotSupported,
              "indices address {} dims of data of rank {} (1 to {} are supported)", isz.back(),
              data.size(), data.size());
  }
  const size_t k = static_cast<size_t>(isz.back());
  std::vector<int64_t> want(isz.begin(), isz.end() - 1);
  want.insert(want.end(), data.begin() + static_cast<ptrdiff_t>(k), data.end());
  if (usz != want) {
    node.fail(Error::InvalidArgument, "updates {} must have shape {} (indices {}, data {})",
              sizes_to_string(usz), sizes_to_string(want), sizes_to_string(isz),
              sizes_to_string(data));
  }
  if (ctx.input_dtype(node, 2) != ctx.input_dtype(node, 0)) {
    node.fail(Error::InvalidArgument, "updates ({}) must have the dtype of data ({})",
              to_string(ctx.input_dtype(node, 2)), to_string(ctx.input_dtype(node, 0)));
  }
  const std::string reduction = node.attr_string("reduction", "none");
  ir::Node* x = ctx.input(node, 0);
  ir::Node* updates = ctx.input(node, 2);
  if (reduction == "none" || reduction == "add") {
    std::vector<ir::Node*> parts = nd_index_components(ctx, node, data, 0, /*wrap=*/false);
    ir::ArgumentList indices(parts.begin(), parts.end());
    ctx.set_output(node, 0, ctx.call("aten::index_put", {x, indices, updates, reduction == "add"}));
    return;
  }
  if (reduction != "mul" && reduction != "max" && reduction != "min") {
    node.fail(Error::InvalidArgument, "unknown reduction '{}' (none, add, mul, max, min)",
              reduction);
  }
  // data as [N, M] (N = the addressed dims, M = the rest), one row index per tuple (U tuples),
  // expanded over M: scatter_reduce.two along dim 0.
  std::vector<ir::Node*> parts = nd_index_components(ctx, node, data, 0, /*wrap=*/true);
  const int64_t n = product(data, 0, k);
  const int64_t m = product(data, k, data.size());
  const int64_t u = product(isz, 0, isz.size() - 1);
  if (u == 0) {
    ctx.forward_input(node, 0, 0);
    return;
  }
  ir::Node* row = nullptr;
  int64_t stride = n;
  for (size_t j = 0; j < k; ++j) {
    stride /= data[j];
    ir::Node* term = stride == 1 ? parts[j] : ctx.call("aten::mul.Scalar", {parts[j], stride});
    row = row == nullptr ? term : ctx.call("aten::add.Tensor", {row, term});
  }
  row = view(ctx, row, {u, 1});
  row = ctx.call("aten::expand_copy", {row, std::vector<int64_t>{u, m}});
  const char* reduce = reduction == "mul" ? "prod" : reduction == "max" ? "amax" : "amin";
  ir::Node* y = ctx.call("aten::scatter_reduce.two", {view(ctx, x, {n, m}), int64_t{0}, row,
                                                      view(ctx, updates, {u, m}), reduce, true});
  ctx.set_output(node, 0, view(ctx, y, data));
}

/// GatherND (batch_dims b): out[i_0..i_{b-1}, j...] = data[i_0..i_{b-1}, indices[i, j]...] →
/// index.Tensor with an arange index per batch dim and one index per tuple component.
void import_gather_nd(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> data = ctx.input_sizes(node, 0);
  const int64_t b = node.attr_int("batch_dims", 0);
  const auto index_rank = static_cast<size_t>(ctx.input_rank(node, 1));
  if (b < 0 || static_cast<size_t>(b) >= index_rank || static_cast<size_t>(b) >= data.size()) {
    node.fail(Error::InvalidArgument,
              "batch_dims {} must be less than the ranks of data ({}) "
              "and indices ({})",
              b, data.size(), index_rank);
  }
  // Batch dims must be static; with none, indices may have symbolic dims (NonZero's count).
  const std::vector<int64_t> isz = b > 0 ? ctx.input_sizes(node, 1) : std::vector<int64_t>{};
  for (size_t i = 0; i < static_cast<size_t>(b); ++i) {
    if (data[i] != isz[i]) {
      node.fail(Error::InvalidArgument, "batch dim {} differs: data {} vs indices {}", i,
                sizes_to_string(data), sizes_to_string(isz));
    }
  }
  ir::ArgumentList indices;
  const size_t tuple_rank = index_rank - 1;
  for (size_t i = 0; i < static_cast<size_t>(b); ++i) {
    // arange(data[i]) shaped [1, .., data[i], .., 1] over the tuple dims: broadcasts to them.
    std::vector<int64_t> shape(tuple_rank, 1);
    shape[i] = data[i];
    std::vector<int64_t> values(static_cast<size_t>(data[i]));
    for (int64_t v = 0; v < data[i]; ++v) values[static_cast<size_t>(v)] = v;
    indices.push_back(ctx.constant_tensor(node.source() + "_batch_index",
                                          ConstTensor::from_int64(DType::Long, shape, values)));
  }
  for (ir::Node* part :
       nd_index_components(ctx, node, data, static_cast<size_t>(b), /*wrap=*/false)) {
    indices.push_back(part);
  }
  ctx.set_output(node, 0, ctx.call("aten::index.Tensor", {ctx.input(node, 0), indices}));
}

/// TopK: k from the attribute (opset 1-9) or the K input (known at import time, or a shape value
/// computed from dynamic dims); largest and
/// sorted from opset 11. Indices are int64; equal values keep the lower index first.
void import_topk(ImportContext& ctx, const NodeView& node) {
  const ir::Shape shape = ctx.input_shape(node, 0);
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t axis = node.normalize_axis(node.attr_int("axis", -1), rank);
  ir::Argument k;
  if (node.opset() < 10) {
    if (!node.has_attr("k")) node.fail(Error::InvalidArgument, "attribute 'k' is required");
    k = node.attr_int("k", 0);
  } else if (const SymValue* sym = ctx.sym_value(node.input(1))) {
    // K computed from dynamic dims (a shape value): an int argument the kernel reads each run.
    if (sym->items.size() != 1) node.fail(Error::InvalidArgument, "K must hold one value");
    k = sym->items[0];
  } else {
    const std::optional<double> v = single_value(&ctx.require_constant(node, 1, "K"));
    if (!v) node.fail(Error::InvalidArgument, "K must hold one value");
    k = static_cast<int64_t>(*v);
  }
  const ir::SymInt& dim = shape[static_cast<size_t>(axis)];
  if (k.is_int() && (k.as_int() < 0 || k.as_int() > dim.upper_bound())) {
    node.fail(Error::InvalidArgument, "k = {} is out of range for axis {} of size {}", k.as_int(),
              axis, dim.to_string());
  }
  const bool largest = node.attr_int("largest", 1) != 0;
  const bool sorted = node.attr_int("sorted", 1) != 0;
  ir::Node* topk = ctx.call("aten::topk", {ctx.input(node, 0), k, axis, largest, sorted});
  ctx.set_output(node, 0, ctx.getitem(topk, 0));
  if (node.has_output(1)) ctx.set_output(node, 1, ctx.getitem(topk, 1));
}

/// OneHot: out = where(unsqueeze(wrap(indices), axis) == arange(depth), on, off) with
/// values = [off, on]; indices outside [-depth, depth) give all-off rows.
void import_one_hot(ImportContext& ctx, const NodeView& node) {
  const std::optional<double> d = single_value(&ctx.require_constant(node, 1, "depth"));
  if (!d) node.fail(Error::InvalidArgument, "depth must hold one value");
  const int64_t depth = static_cast<int64_t>(*d);
  if (depth < 1) node.fail(Error::InvalidArgument, "depth must be positive, got {}", depth);
  const int64_t rank = ctx.input_rank(node, 0);
  const int64_t axis = node.normalize_axis(node.attr_int("axis", -1), rank + 1);
  if (element_count(ctx.input_sizes(node, 2)) != 2) {
    node.fail(Error::InvalidArgument, "values must hold two elements [off_value, on_value]");
  }
  ir::Node* index = ctx.input(node, 0);
  if (index->spec().dtype != DType::Long) index = ctx.call("aten::_to_copy", {index, DType::Long});
  index = wrap_negative_indices(ctx, index, depth);
  index = ctx.call("aten::unsqueeze_copy", {index, axis});
  std::vector<int64_t> range_shape(static_cast<size_t>(rank + 1), 1);
  range_shape[static_cast<size_t>(axis)] = depth;
  std::vector<int64_t> range(static_cast<size_t>(depth));
  for (int64_t i = 0; i < depth; ++i) range[static_cast<size_t>(i)] = i;
  ir::Node* classes = ctx.constant_tensor(node.source() + "_classes",
                                          ConstTensor::from_int64(DType::Long, range_shape, range));
  ir::Node* hot = ctx.call("aten::eq.Tensor", {index, classes});
  ir::Node* values = view(ctx, ctx.input(node, 2), {2});
  ir::Node* off = ctx.call("aten::select_copy.int", {values, int64_t{0}, int64_t{0}});
  ir::Node* on = ctx.call("aten::select_copy.int", {values, int64_t{0}, int64_t{1}});
  ctx.set_output(node, 0, ctx.call("aten::where.self", {hot, on, off}));
}

/// ReverseSequence: along time_axis, the first seq_lens[b] steps of batch entry b reversed and
/// the rest kept: gather with index[b, t] = t < len ? len - 1 - t : t, computed at import for
/// known lengths, else in the graph.
void import_reverse_sequence(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  const int64_t batch_axis = node.attr_int("batch_axis", 1);
  const int64_t time_axis = node.attr_int("time_axis", 0);
  if (in.size() < 2 ||
      !((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0))) {
    node.fail(Error::InvalidArgument,
              "batch_axis {} and time_axis {} must be 0 and 1 (in either order) of a tensor of "
              "rank >= 2, got rank {}",
              batch_axis, time_axis, in.size());
  }
  const int64_t batch = in[static_cast<size_t>(batch_axis)];
  const int64_t steps = in[static_cast<size_t>(time_axis)];
  if (ctx.input_rank(node, 1) != 1 || ctx.input_sizes(node, 1)[0] != batch) {
    node.fail(Error::InvalidArgument, "sequence_lens must be [{}], got {}", batch,
              ctx.input_spec(node, 1).to_string());
  }
  // The index over the first two dims, in the input's order of batch and time.
  const std::vector<int64_t> plane =
      time_axis == 0 ? std::vector<int64_t>{steps, batch} : std::vector<int64_t>{batch, steps};
  ir::Node* index = nullptr;
  if (const ConstTensor* lens = ctx.constant(node, 1)) {
    const std::vector<int64_t> len = lens->to_int64();
    std::vector<int64_t> idx(static_cast<size_t>(steps * batch));
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t l = len[static_cast<size_t>(b)];
      if (l < 0 || l > steps) {
        node.fail(Error::InvalidArgument, "sequence length {} of entry {} is outside [0, {}]", l, b,
                  steps);
      }
      for (int64_t t = 0; t < steps; ++t) {
        const size_t at = static_cast<size_t>(time_axis == 0 ? t * batch + b : b * steps + t);
        idx[at] = t < l ? l - 1 - t : t;
      }
    }
    index = ctx.constant_tensor(node.source() + "_index",
                                ConstTensor::from_int64(DType::Long, plane, idx));
  } else {
    std::vector<int64_t> t_values(static_cast<size_t>(steps));
    for (int64_t t = 0; t < steps; ++t) t_values[static_cast<size_t>(t)] = t;
    const std::vector<int64_t> t_shape =
        time_axis == 0 ? std::vector<int64_t>{steps, 1} : std::vector<int64_t>{1, steps};
    const std::vector<int64_t> len_shape =
        time_axis == 0 ? std::vector<int64_t>{1, batch} : std::vector<int64_t>{batch, 1};
    ir::Node* t = ctx.constant_tensor(node.source() + "_steps",
                                      ConstTensor::from_int64(DType::Long, t_shape, t_values));
    ir::Node* len = ctx.input(node, 1);
    if (len->spec().dtype != DType::Long) len = ctx.call("aten::_to_copy", {len, DType::Long});
    len = view(ctx, len, len_shape);
    ir::Node* reversed =
        ctx.call("aten::sub.Tensor", {ctx.call("aten::sub.Scalar", {len, int64_t{1}}), t});
    index = ctx.call("aten::where.self", {ctx.call("aten::lt.Tensor", {t, len}), reversed, t});
  }
  // Broadcast over the remaining dims, then gather along time.
  std::vector<int64_t> with_ones = plane;
  with_ones.resize(in.size(), 1);
  index = ctx.call("aten::expand_copy", {view(ctx, index, with_ones), in});
  ctx.set_output(node, 0, ctx.call("aten::gather", {ctx.input(node, 0), time_axis, index}));
}

/// NonZero: the coordinates of the nonzero elements, [rank, count]. A constant input is
/// evaluated at import; otherwise aten::nonzero ([count, rank], count a data-dependent symbol
/// planned at its upper bound, numel) transposed.
void import_nonzero(ImportContext& ctx, const NodeView& node) {
  if (const ConstTensor* c = ctx.constant(node, 0)) {
    const int64_t rank = static_cast<int64_t>(c->sizes.size());
    std::vector<int64_t> coords;  // [count, rank], then transposed
    std::vector<int64_t> at(static_cast<size_t>(rank), 0);
    for (int64_t i = 0; i < c->numel(); ++i) {
      if (c->double_at(i) != 0.0 || std::isnan(c->double_at(i))) {
        coords.insert(coords.end(), at.begin(), at.end());
      }
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++at[static_cast<size_t>(d)] < c->sizes[static_cast<size_t>(d)]) break;
        at[static_cast<size_t>(d)] = 0;
      }
    }
    const int64_t count = rank == 0 ? 0 : static_cast<int64_t>(coords.size()) / rank;
    const ConstTensor rows = ConstTensor::from_int64(DType::Long, {count, rank}, coords);
    ctx.set_output(node, 0, eval::transpose(rows, {1, 0}));
    return;
  }
  if (ctx.input_rank(node, 0) == 0) node.fail(Error::NotSupported, "NonZero of a scalar");
  ir::Node* rows = ctx.call("aten::nonzero", {ctx.input(node, 0)});
  ctx.set_output(node, 0, ctx.call("aten::permute_copy", {rows, std::vector<int64_t>{1, 0}}));
}

/// NonMaxSuppression -> ptec::non_max_suppression ([selected, 3], a data-dependent count). The
/// optional max_output_boxes_per_class (default 0: no box), iou_threshold (default 0) and
/// score_threshold (default: none) must be known at import time.
void import_non_max_suppression(ImportContext& ctx, const NodeView& node) {
  auto scalar = [&](size_t i, const char* what) -> std::optional<double> {
    if (!node.has_input(i)) return std::nullopt;
    const ConstTensor& c = ctx.require_constant(node, i, what);
    if (c.numel() != 1) node.fail(Error::InvalidArgument, "{} must hold one value", what);
    return c.double_at(0);
  };
  const int64_t max_boxes =
      node.has_input(2) ? require_int(ctx, node, 2, "max_output_boxes_per_class") : 0;
  const double iou = scalar(3, "iou_threshold").value_or(0.0);
  // No score threshold keeps every box, -inf included.
  const double score = scalar(4, "score_threshold").value_or(-HUGE_VAL);
  const int64_t center = node.attr_int("center_point_box", 0);
  if (center != 0 && center != 1) {
    node.fail(Error::InvalidArgument, "center_point_box must be 0 or 1, got {}", center);
  }
  for (size_t i = 0; i < 2; ++i) {
    if (ctx.input_dtype(node, i) != DType::Float) {
      node.fail(Error::NotSupported, "input {} is {}; float32 boxes and scores are supported", i,
                to_string(ctx.input_dtype(node, i)));
    }
  }
  ir::Node* selected =
      ctx.call("ptec::non_max_suppression",
               {ctx.input(node, 0), ctx.input(node, 1), max_boxes, iou, score, center});
  ctx.set_output(node, 0, selected);
}

/// Compress: the slices along `axis` (of the flattened input without one) where the condition
/// is true: index_select with the condition's true positions, computed at import for a known
/// condition, else by aten::nonzero (the output's size then depends on the data).
void import_compress(ImportContext& ctx, const NodeView& node) {
  if (ctx.input_rank(node, 1) != 1) {
    node.fail(Error::InvalidArgument, "condition must be 1-D, got {}",
              ctx.input_spec(node, 1).to_string());
  }
  ir::Node* x = ctx.input(node, 0);
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  int64_t axis = 0;
  int64_t dim = 0;
  if (node.has_attr("axis")) {
    axis = node.normalize_axis(node.attr_int("axis", 0), static_cast<int64_t>(in.size()));
    dim = in[static_cast<size_t>(axis)];
  } else {
    dim = element_count(in);
    x = view(ctx, x, {dim});
  }
  const ConstTensor* known = ctx.constant(node, 1);
  if (known == nullptr) {
    // A run-time condition: its nonzero positions (a data-dependent count) index the axis. A
    // condition longer than the axis would select past it.
    const ir::SymInt length = ctx.input_shape(node, 1)[0];
    if (length.upper_bound() > dim) {
      node.fail(Error::InvalidArgument, "condition of {} values for an axis of size {}",
                length.to_string(), dim);
    }
    ir::Node* rows = ctx.call("aten::nonzero", {ctx.input(node, 1)});
    ir::Node* index = ctx.call("aten::select_copy.int", {rows, int64_t{1}, int64_t{0}});
    ctx.set_output(node, 0, ctx.call("aten::index_select", {x, axis, index}));
    return;
  }
  const ConstTensor& cond = *known;
  std::vector<int64_t> selected;
  for (int64_t i = 0; i < cond.numel(); ++i) {
    if (cond.double_at(i) == 0.0) continue;
    if (i >= dim) {
      node.fail(Error::InvalidArgument,
                "condition selects position {} of an axis of size {} (condition has {} values)", i,
                dim, cond.numel());
    }
    selected.push_back(i);
  }
  ir::Node* index = ctx.constant_tensor(node.input(1), ConstTensor::int64_vector(selected));
  ctx.set_output(node, 0, ctx.call("aten::index_select", {x, axis, index}));
}

}  // namespace

std::vector<OpEntry> scatter_gather_ops() {
  return {
      {"Scatter", 9, 10, import_scatter_elements},
      {"ScatterElements", 11, 18, import_scatter_elements},
      {"ScatterND", 11, 18, import_scatter_nd},
      {"GatherND", 11, 18, import_gather_nd},
      {"TopK", 1, 24, import_topk},
      {"OneHot", 9, 18, import_one_hot},
      {"Compress", 9, 18, import_compress},
      {"NonZero", 9, 25, import_nonzero},
      {"ReverseSequence", 10, 25, import_reverse_sequence},
      {"NonMaxSuppression", 10, 25, import_non_max_suppression},
  };
}

}  // namespace ptec::onnx_import
