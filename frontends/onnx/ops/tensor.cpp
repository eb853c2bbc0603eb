// Tensor ops: Constant, ConstantOfShape, Range (import-time values), Identity, Dropout
// (inference: identity), Cast → _to_copy, Concat → cat, Split → split_with_sizes_copy +
// getitems, Slice → slice_copy.Tensor (flip for negative steps), Gather → select_copy /
// index_select, Pad → constant_pad_nd / reflection_pad2d / replication_pad2d, Tile → repeat.
// Each folds when its inputs are known at import time.

#include <algorithm>
#include <map>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

void import_constant(ImportContext& ctx, const NodeView& node) {
  if (onnx::TensorProto* t = node.attr_tensor("value")) {
    ctx.set_output(node, 0, ctx.tensor_from_proto(*t, node.output(0)));
  } else if (auto f = node.attr_float_opt("value_float")) {
    ctx.set_output(node, 0, ConstTensor::from_double(DType::Float, {}, {*f}));
  } else if (node.has_attr("value_floats")) {
    const std::vector<float> v = node.attr_floats("value_floats");
    ctx.set_output(node, 0,
                   ConstTensor::from_double(DType::Float, {static_cast<int64_t>(v.size())},
                                            std::vector<double>(v.begin(), v.end())));
  } else if (auto i = node.attr_int_opt("value_int")) {
    ctx.set_output(node, 0, ConstTensor::from_int64(DType::Long, {}, {*i}));
  } else if (auto is = node.attr_ints_opt("value_ints")) {
    ctx.set_output(node, 0, ConstTensor::int64_vector(*is));
  } else {
    node.fail(Error::NotSupported,
              "only tensor, float(s) and int(s) values are supported "
              "(not sparse or string constants)");
  }
}

void import_constant_of_shape(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> sizes = ctx.require_constant(node, 0, "shape").to_int64();
  ConstTensor value = ConstTensor::from_double(DType::Float, {1}, {0.0});
  if (onnx::TensorProto* t = node.attr_tensor("value")) value = ctx.tensor_from_proto(*t, "value");
  if (value.numel() != 1) node.fail(Error::InvalidArgument, "value must hold one element");
  for (int64_t s : sizes) {
    if (s < 0) node.fail(Error::InvalidArgument, "negative size in {}", sizes_to_string(sizes));
  }
  ctx.set_output(node, 0, eval::fill(sizes, value));
}

void import_range(ImportContext& ctx, const NodeView& node) {
  const ConstTensor& start = ctx.require_constant(node, 0, "start");
  const ConstTensor& limit = ctx.require_constant(node, 1, "limit");
  const ConstTensor& delta = ctx.require_constant(node, 2, "delta");
  if (start.numel() != 1 || limit.numel() != 1 || delta.numel() != 1) {
    node.fail(Error::InvalidArgument, "start, limit and delta must be scalars");
  }
  ctx.set_output(
      node, 0,
      eval::range(start.double_at(0), limit.double_at(0), delta.double_at(0), start.dtype));
}

void import_identity(ImportContext& ctx, const NodeView& node) { ctx.forward_input(node, 0, 0); }

/// Dropout is the identity at inference, and also in training mode with ratio 0 (its mask keeps
/// every element and its scale is 1), which exporters write for dropouts with p = 0.
void import_dropout(ImportContext& ctx, const NodeView& node) {
  if (node.has_input(2) && ctx.constant(node, 2) == nullptr) {
    node.fail(Error::NotSupported, "training_mode must be known at import time");
  }
  if (const ConstTensor* training = ctx.constant(node, 2); training && training->int_at(0) != 0) {
    const ConstTensor* ratio = node.has_input(1) ? ctx.constant(node, 1) : nullptr;
    if (ratio == nullptr || ratio->numel() != 1 || ratio->double_at(0) != 0.0) {
      node.fail(Error::NotSupported,
                "training_mode=true is supported only with ratio 0 (inference only); ratio is {}",
                ratio == nullptr || ratio->numel() != 1 ? std::string("not a known scalar")
                                                        : fmt::format("{}", ratio->double_at(0)));
    }
  }
  ctx.forward_input(node, 0, 0);
  if (node.has_output(1)) {  // the mask of an inference Dropout is all true
    const ir::TensorSpec spec = ctx.input_spec(node, 0);
    if (spec.is_static()) {
      ctx.set_output(
          node, 1,
          eval::fill(spec.upper_bound_sizes(), ConstTensor::from_int64(DType::Bool, {}, {1})));
    } else {
      ctx.set_output(node, 1,
                     ctx.call("aten::full", {ctx.size_args(spec.shape), true, DType::Bool}));
    }
  }
}

DType cast_target(const NodeView& node) {
  if (!node.has_attr("to")) node.fail(Error::InvalidArgument, "attribute 'to' is required");
  return dtype_from_onnx(static_cast<int32_t>(node.attr_int("to", 0)), node.where());
}

bool fold_cast(ImportContext& ctx, const NodeView& node) {
  const ConstTensor* c = ctx.constant(node, 0);
  if (c == nullptr || !is_numeric(c->dtype)) return false;
  ctx.set_output(node, 0, eval::cast(*c, cast_target(node)));
  return true;
}

void import_cast(ImportContext& ctx, const NodeView& node) {
  const DType to = cast_target(node);
  if (ctx.input_dtype(node, 0) == to) {
    ctx.forward_input(node, 0, 0);
    return;
  }
  ctx.set_output(node, 0, ctx.call("aten::_to_copy", {ctx.input(node, 0), to}));
}

int64_t concat_axis(ImportContext& ctx, const NodeView& node) {
  if (!node.has_attr("axis")) node.fail(Error::InvalidArgument, "attribute 'axis' is required");
  return node.normalize_axis(node.attr_int("axis", 0), ctx.input_rank(node, 0));
}

bool fold_concat(ImportContext& ctx, const NodeView& node) {
  if (!all_inputs_constant(ctx, node)) return false;
  std::vector<const ConstTensor*> parts;
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    if (node.has_input(i)) parts.push_back(ctx.constant(node, i));
  }
  ctx.set_output(node, 0, eval::concat(parts, concat_axis(ctx, node)));
  return true;
}

void import_concat(ImportContext& ctx, const NodeView& node) {
  const int64_t axis = concat_axis(ctx, node);
  std::vector<ir::Node*> parts;
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    if (node.has_input(i)) parts.push_back(ctx.input(node, i));
  }
  if (parts.size() == 1) {
    ctx.forward_input(node, 0, 0);
    return;
  }
  ctx.set_output(node, 0, ctx.call("aten::cat", {parts, axis}));
}

void import_split(ImportContext& ctx, const NodeView& node) {
  std::vector<bool> symbolic;
  // Only the split axis must be static; other dims may be dynamic.
  const std::vector<int64_t> in = bounded_sizes(ctx, node, symbolic);
  const int64_t axis =
      node.normalize_axis(node.attr_int("axis", 0), static_cast<int64_t>(in.size()));
  if (symbolic[static_cast<size_t>(axis)]) {
    node.fail(Error::NotSupported, "splitting the dynamic dim {}", axis);
  }
  const int64_t dim = in[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  if (node.opset() >= 13) {
    if (node.has_input(1)) sizes = ctx.require_constant(node, 1, "split").to_int64();
  } else {
    sizes = node.attr_ints("split", {});
  }
  if (sizes.empty()) {
    const int64_t n = node.attr_int("num_outputs", static_cast<int64_t>(node.num_outputs()));
    if (n <= 0) node.fail(Error::InvalidArgument, "no outputs");
    const int64_t chunk = (dim + n - 1) / n;
    if (dim % n != 0 && node.opset() < 18) {
      node.fail(Error::InvalidArgument, "dim of size {} does not split into {} equal parts", dim,
                n);
    }
    for (int64_t i = 0; i < n; ++i) sizes.push_back(std::min(chunk, dim - i * chunk));
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) node.fail(Error::InvalidArgument, "negative split size");
    total += s;
  }
  if (total != dim || sizes.size() != node.num_outputs()) {
    node.fail(Error::InvalidArgument, "split {} does not cover a dim of size {} with {} outputs",
              sizes_to_string(sizes), dim, node.num_outputs());
  }
  if (const ConstTensor* c = ctx.constant(node, 0)) {
    int64_t start = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      ctx.set_output(node, i, eval::slice(*c, {eval::SliceAxis{axis, start, 1, sizes[i]}}));
      start += sizes[i];
    }
    return;
  }
  if (sizes.size() == 1) {
    ctx.forward_input(node, 0, 0);
    return;
  }
  ir::Node* split = ctx.call("aten::split_with_sizes_copy", {ctx.input(node, 0), sizes, axis});
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (node.has_output(i)) ctx.set_output(node, i, ctx.getitem(split, static_cast<int64_t>(i)));
  }
}

/// A Slice of a dynamic dim, in ATen's terms: start and end as given (end past the dim's bound
/// is INT64_MAX, to the end; a negative one counts from the end) and a positive step.
struct DynamicSlice {
  int64_t start = 0;
  int64_t end = INT64_MAX;
  int64_t step = 1;
};

/// The axes of a Slice, normalized against the input's sizes (a dynamic dim at its bound); the
/// dynamic ones also into `dynamic` by axis, when given.
std::vector<eval::SliceAxis> slice_axes(ImportContext& ctx, const NodeView& node,
                                        std::map<int64_t, DynamicSlice>* dynamic = nullptr) {
  std::vector<bool> symbolic;
  const std::vector<int64_t> in = bounded_sizes(ctx, node, symbolic);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> starts, ends, axes, steps;
  if (node.opset() < 10) {
    starts = node.attr_ints("starts", {});
    ends = node.attr_ints("ends", {});
    axes = node.attr_ints("axes", {});
  } else {
    starts = ctx.require_constant(node, 1, "starts").to_int64();
    ends = ctx.require_constant(node, 2, "ends").to_int64();
    if (node.has_input(3)) axes = ctx.require_constant(node, 3, "axes").to_int64();
    if (node.has_input(4)) steps = ctx.require_constant(node, 4, "steps").to_int64();
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    node.fail(Error::InvalidArgument, "starts, ends, axes and steps differ in length");
  }
  std::vector<eval::SliceAxis> out;
  std::vector<bool> seen(in.size(), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t a = node.normalize_axis(axes[i], rank);
    if (seen[static_cast<size_t>(a)]) node.fail(Error::InvalidArgument, "axes repeat dim {}", a);
    seen[static_cast<size_t>(a)] = true;
    if (steps[i] == 0) node.fail(Error::InvalidArgument, "step is 0");
    // A dynamic dim's first rows, x[:n] (torchvision's keep[:detections_per_img]): min(dim, n);
    // or rows from a start to the end, or to a negative end, in positive steps (x[..., 1::2] of
    // a YOLOv5 Focus layer, x[:-1]): a count of the dim.
    if (symbolic[static_cast<size_t>(a)]) {
      const int64_t bound = in[static_cast<size_t>(a)];
      const bool first_rows = starts[i] == 0 && steps[i] == 1 && ends[i] >= 0;
      const bool to_end = ends[i] >= bound || ends[i] < 0;
      if (!first_rows && !(starts[i] >= 0 && steps[i] >= 1 && to_end)) {
        node.fail(Error::NotSupported,
                  "slicing the dynamic dim {} from {} to {} in steps of {}: supported are its "
                  "first rows, and a non-negative start to the end or to a negative end in "
                  "positive steps",
                  a, starts[i], ends[i], steps[i]);
      }
      if (dynamic != nullptr) {
        (*dynamic)[a] = DynamicSlice{starts[i], ends[i] >= bound ? INT64_MAX : ends[i], steps[i]};
      }
    }
    out.push_back(
        eval::normalize_slice(a, in[static_cast<size_t>(a)], starts[i], ends[i], steps[i]));
  }
  return out;
}

bool fold_slice(ImportContext& ctx, const NodeView& node) {
  const ConstTensor* c = ctx.constant(node, 0);
  if (c == nullptr) return false;
  ctx.set_output(node, 0, eval::slice(*c, slice_axes(ctx, node)));
  return true;
}

void import_slice(ImportContext& ctx, const NodeView& node) {
  std::vector<bool> symbolic;
  const std::vector<int64_t> in = bounded_sizes(ctx, node, symbolic);
  ir::Node* x = ctx.input(node, 0);
  bool changed = false;
  std::map<int64_t, DynamicSlice> dynamic;
  for (eval::SliceAxis s : slice_axes(ctx, node, &dynamic)) {
    if (auto it = dynamic.find(s.axis); it != dynamic.end()) {
      const DynamicSlice& d = it->second;
      if (d.start == 0 && d.step == 1 && d.end == INT64_MAX) continue;
      x = ctx.call("aten::slice_copy.Tensor", {x, s.axis, d.start, d.end, d.step});
      changed = true;
      continue;
    }
    const int64_t dim = in[static_cast<size_t>(s.axis)];
    if (s.step < 0) {  // x[start:end:-k] = flip(x)[dim-1-start :: k]
      x = ctx.call("aten::flip", {x, std::vector<int64_t>{s.axis}});
      s.start = dim - 1 - s.start;
      s.step = -s.step;
      changed = true;
    }
    if (s.start == 0 && s.step == 1 && s.length == dim) continue;
    const int64_t end = s.length == 0 ? s.start : s.start + (s.length - 1) * s.step + 1;
    x = ctx.call("aten::slice_copy.Tensor", {x, s.axis, s.start, end, s.step});
    changed = true;
  }
  if (!changed) {
    ctx.forward_input(node, 0, 0);
    return;
  }
  ctx.set_output(node, 0, x);
}

bool fold_gather(ImportContext& ctx, const NodeView& node) {
  const ConstTensor* data = ctx.constant(node, 0);
  const ConstTensor* indices = ctx.constant(node, 1);
  if (data == nullptr || indices == nullptr) return false;
  const int64_t axis =
      node.normalize_axis(node.attr_int("axis", 0), static_cast<int64_t>(data->sizes.size()));
  ctx.set_output(node, 0, eval::gather(*data, *indices, axis));
  return true;
}

/// Gather along `axis` of data of `shape` by indices computed at run time with dynamic dims
/// (token ids, the boxes an NMS kept): index_select over the flattened indices, negative ones
/// wrapped by the axis' size at run time. Indices with several symbolic dims (T5's [seq, seq]
/// relative positions), whose count is no SymInt, keep their shape in index.Tensor (None before
/// `axis`).
void gather_run_time_indices(ImportContext& ctx, const NodeView& node, const ir::Shape& shape,
                             int64_t axis) {
  const ir::Argument size = ctx.sym_size(shape[static_cast<size_t>(axis)]);
  const ir::Shape idx = ctx.input_shape(node, 1);
  const std::optional<ir::SymInt> n = sym_product(idx, 0, idx.size());
  if (!n) {
    ir::ArgumentList indices(static_cast<size_t>(axis), ir::Argument());
    indices.emplace_back(wrap_negative_indices(ctx, ctx.input(node, 1), size));
    ctx.set_output(node, 0, ctx.call("aten::index.Tensor", {ctx.input(node, 0), indices}));
    return;
  }
  ir::Shape out(shape.begin(), shape.begin() + axis);
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), shape.begin() + axis + 1, shape.end());
  ir::Node* flat =
      ctx.call("aten::view_copy", {ctx.input(node, 1), ir::ArgumentList{ctx.sym_size(*n)}});
  ir::Node* y = ctx.call("aten::index_select",
                         {ctx.input(node, 0), axis, wrap_negative_indices(ctx, flat, size)});
  ctx.set_output(node, 0, sym_view(ctx, y, out));
}

/// Gather from a tensor with dynamic dims (x[:, 0] of a [batch, seq, d] tensor, or the boxes an
/// NMS kept of those a mask selected). Indices known at import time into a dynamic axis must be
/// below the axis' lower bound.
void import_gather_dynamic_data(ImportContext& ctx, const NodeView& node) {
  const ir::Shape shape = ctx.input_shape(node, 0);
  const int64_t axis =
      node.normalize_axis(node.attr_int("axis", 0), static_cast<int64_t>(shape.size()));
  const ir::SymInt& d = shape[static_cast<size_t>(axis)];
  const ConstTensor* c = ctx.constant(node, 1);
  if (c == nullptr) {
    gather_run_time_indices(ctx, node, shape, axis);
    return;
  }
  std::vector<int64_t> idx = c->to_int64();
  for (int64_t& i : idx) {
    if (d.is_static() && i < 0 && i >= -d.value()) i += d.value();
    if (i < 0 || i >= d.lower_bound()) {
      node.fail(Error::NotSupported,
                "index {} into dim {} of size {} (valid for every size: [0, {}))", i, axis,
                d.to_string(), d.lower_bound());
    }
  }
  ir::Node* x = ctx.input(node, 0);
  if (c->sizes.empty()) {
    ctx.set_output(node, 0, ctx.call("aten::select_copy.int", {x, axis, idx[0]}));
    return;
  }
  ir::Node* index = ctx.constant_tensor(node.input(1), ConstTensor::int64_vector(idx));
  ir::Shape out(shape.begin(), shape.begin() + axis);
  out.insert(out.end(), c->sizes.begin(), c->sizes.end());
  out.insert(out.end(), shape.begin() + axis + 1, shape.end());
  ir::Node* y = ctx.call("aten::index_select", {x, axis, index});
  ctx.set_output(node, 0, sym_view(ctx, y, out));
}

void import_gather(ImportContext& ctx, const NodeView& node) {
  if (!ctx.input_spec(node, 0).is_static()) {
    import_gather_dynamic_data(ctx, node);
    return;
  }
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  const int64_t axis =
      node.normalize_axis(node.attr_int("axis", 0), static_cast<int64_t>(in.size()));
  const int64_t dim = in[static_cast<size_t>(axis)];
  if (!ctx.input_spec(node, 1).is_static() && ctx.constant(node, 1) == nullptr) {
    gather_run_time_indices(ctx, node, ctx.input_shape(node, 0), axis);
    return;
  }
  const std::vector<int64_t> idx_sizes = ctx.input_sizes(node, 1);
  std::vector<int64_t> out_sizes(in.begin(), in.begin() + axis);
  out_sizes.insert(out_sizes.end(), idx_sizes.begin(), idx_sizes.end());
  out_sizes.insert(out_sizes.end(), in.begin() + axis + 1, in.end());
  ir::Node* x = ctx.input(node, 0);
  ir::Node* index = nullptr;
  if (const ConstTensor* c = ctx.constant(node, 1)) {
    std::vector<int64_t> idx = c->to_int64();
    for (int64_t& i : idx) {
      if (i < -dim || i >= dim) {
        node.fail(Error::InvalidArgument, "index {} is out of range for a dim of size {}", i, dim);
      }
      if (i < 0) i += dim;
    }
    if (idx_sizes.empty()) {
      ctx.set_output(node, 0, ctx.call("aten::select_copy.int", {x, axis, idx[0]}));
      return;
    }
    index = ctx.constant_tensor(node.input(1), ConstTensor::int64_vector(idx));
  } else {
    // Indices computed at run time: negative ones are wrapped in the graph (index_select does
    // not wrap them).
    index = view(ctx, ctx.input(node, 1), {element_count(idx_sizes)});
    index = wrap_negative_indices(ctx, index, dim);
  }
  ir::Node* y = ctx.call("aten::index_select", {x, axis, index});
  ctx.set_output(node, 0, view(ctx, y, out_sizes));
}

void import_pad(ImportContext& ctx, const NodeView& node) {
  // Dims that are not padded may be dynamic (constant_pad_nd keeps them).
  const auto rank = static_cast<size_t>(ctx.input_rank(node, 0));
  const std::string mode = node.attr_string("mode", "constant");
  std::vector<int64_t> pads;
  double value = 0.0;
  if (node.opset() < 11) {
    pads = node.attr_ints("pads", {});
    value = node.attr_float("value", 0.0f);
  } else {
    pads = ctx.require_constant(node, 1, "pads").to_int64();
    if (node.has_input(2)) {
      const std::optional<double> v =
          single_value(&ctx.require_constant(node, 2, "constant_value"));
      if (!v) node.fail(Error::InvalidArgument, "constant_value must hold one value");
      value = *v;
    }
  }
  std::vector<int64_t> axes;
  if (node.has_input(3)) {
    axes = ctx.require_constant(node, 3, "axes").to_int64();
  } else {
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (pads.size() != 2 * axes.size()) {
    node.fail(Error::InvalidArgument, "pads has {} values; {} axes need {}", pads.size(),
              axes.size(), 2 * axes.size());
  }
  std::vector<int64_t> begin(rank, 0), end(rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = static_cast<size_t>(node.normalize_axis(axes[i], static_cast<int64_t>(rank)));
    begin[a] = pads[i];
    end[a] = pads[i + axes.size()];
  }
  // ATen pad lists start at the last dim; leading dims without padding are left out.
  size_t first = 0;
  while (first < rank && begin[first] == 0 && end[first] == 0) ++first;
  if (first == rank) {
    ctx.forward_input(node, 0, 0);
    return;
  }
  const std::vector<int64_t> pad = aten_pad_list(
      std::vector<int64_t>(begin.begin() + static_cast<ptrdiff_t>(first), begin.end()),
      std::vector<int64_t>(end.begin() + static_cast<ptrdiff_t>(first), end.end()));
  ir::Node* x = ctx.input(node, 0);
  if (mode == "constant") {
    ctx.set_output(
        node, 0,
        ctx.call("aten::constant_pad_nd", {x, pad, scalar_arg(value, ctx.input_dtype(node, 0))}));
    return;
  }
  if (mode == "wrap") node.fail(Error::NotSupported, "mode 'wrap' is not supported");
  if (mode != "reflect" && mode != "edge")
    node.fail(Error::InvalidArgument, "unknown mode '{}'", mode);
  const bool fits = (rank == 3 || rank == 4) && first + 2 >= rank &&
                    std::all_of(pad.begin(), pad.end(), [](int64_t p) { return p >= 0; });
  if (!fits) {
    node.fail(Error::NotSupported,
              "mode '{}' is supported for non-negative pads of the last two "
              "dims of a 3-D or 4-D tensor only",
              mode);
  }
  std::vector<int64_t> pad4 = pad;
  pad4.resize(4, 0);
  ctx.set_output(node, 0,
                 ctx.call(mode == "reflect" ? "aten::reflection_pad2d" : "aten::replication_pad2d",
                          {x, pad4}));
}

/// CastLike: Cast to the dtype of the second input.
void import_cast_like(ImportContext& ctx, const NodeView& node) {
  const DType to = ctx.input_dtype(node, 1);
  if (ctx.input_dtype(node, 0) == to) {
    ctx.forward_input(node, 0, 0);
    return;
  }
  ctx.set_output(node, 0, ctx.call("aten::_to_copy", {ctx.input(node, 0), to}));
}

/// Trilu → triu (upper=1, the default) or tril; k (input 1) must be known at import time.
void import_trilu(ImportContext& ctx, const NodeView& node) {
  int64_t k = 0;
  if (node.has_input(1)) {
    const std::optional<double> v = single_value(&ctx.require_constant(node, 1, "k"));
    if (!v) node.fail(Error::InvalidArgument, "k must hold one value");
    k = static_cast<int64_t>(*v);
  }
  const char* op = node.attr_int("upper", 1) != 0 ? "aten::triu" : "aten::tril";
  ctx.set_output(node, 0, ctx.call(op, {ctx.input(node, 0), k}));
}

/// GatherElements → gather; indices as int64 with negative ones wrapped.
void import_gather_elements(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  const int64_t axis =
      node.normalize_axis(node.attr_int("axis", 0), static_cast<int64_t>(in.size()));
  const int64_t dim = in[static_cast<size_t>(axis)];
  ir::Node* index = nullptr;
  if (const ConstTensor* c = ctx.constant(node, 1)) {
    std::vector<int64_t> idx = c->to_int64();
    for (int64_t& i : idx) {
      if (i < -dim || i >= dim) {
        node.fail(Error::InvalidArgument, "index {} is out of range for a dim of size {}", i, dim);
      }
      if (i < 0) i += dim;
    }
    index = ctx.constant_tensor(node.input(1), ConstTensor::from_int64(DType::Long, c->sizes, idx));
  } else {
    index = ctx.input(node, 1);
    if (index->spec().dtype != DType::Long) {
      index = ctx.call("aten::_to_copy", {index, DType::Long});
    }
    index = wrap_negative_indices(ctx, index, dim);
  }
  ctx.set_output(node, 0, ctx.call("aten::gather", {ctx.input(node, 0), axis, index}));
}

/// DepthToSpace of a dynamic N, H or W: the same views with the dims' symbols, H and W merged
/// with the block one view at a time (each view infers one product of symbols).
void depth_to_space_dynamic(ImportContext& ctx, const NodeView& node, const ir::Shape& x) {
  const int64_t b = node.attr_int("blocksize", 0);
  if (b <= 0) node.fail(Error::InvalidArgument, "blocksize must be positive");
  if (x[1].is_symbolic() || x[1].value() % (b * b) != 0) {
    node.fail(Error::InvalidArgument, "C ({}) must be static and divide by blocksize^2",
              x[1].to_string());
  }
  const ir::SymInt n = x[0], c = ir::SymInt(x[1].value() / (b * b)), h = x[2], w = x[3];
  const bool crd = node.attr_string("mode", "DCR") == "CRD";
  const ir::Shape split = crd ? ir::Shape{n, c, b, b, h, w} : ir::Shape{n, b, b, c, h, w};
  const std::vector<int64_t> perm =
      crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
  ir::Node* y = ctx.call("aten::permute_copy", {sym_view(ctx, ctx.input(node, 0), split), perm});
  // [n, c, h, b, w, b] -> [n, c, h * b, w, b] -> [n, c, h * b, w * b]
  y = flat_view(ctx, node, y, {n, c, ir::times(h, b), w, b}, "DepthToSpace");
  ctx.set_output(node, 0,
                 flat_view(ctx, node, y, {n, c, ir::times(h, b), ir::times(w, b)}, "DepthToSpace"));
}

/// SpaceToDepth of a dynamic N, H or W: a dynamic H or W must be declared a multiple of the block
/// (ir::Symbol::multiple), so that H / block is exact. H and W split one view at a time.
void space_to_depth_dynamic(ImportContext& ctx, const NodeView& node, const ir::Shape& x) {
  const int64_t b = node.attr_int("blocksize", 0);
  if (b <= 0) node.fail(Error::InvalidArgument, "blocksize must be positive");
  if (x[1].is_symbolic()) node.fail(Error::NotSupported, "C ({}) must be static", x[1].to_string());
  ir::SymInt part[2];
  for (size_t i = 0; i < 2; ++i) {
    const ir::SymInt& d = x[2 + i];
    part[i] = ir::affine(d, 1, 0, b);
    if (ir::affine(part[i], b, 0, 1) != d) {
      node.fail(Error::NotSupported, "{} ({}) must divide by blocksize {}{}", i == 0 ? "H" : "W",
                d.to_string(), b,
                d.is_symbolic() ? fmt::format(": declare its dynamic dim a multiple of {} (ptec "
                                              "export --dynamic INPUT:AXIS=SYMBOL:MIN..MAX:{})",
                                              b, b)
                                : std::string());
    }
  }
  const ir::SymInt n = x[0], c = x[1];
  // [n, c, h, w] -> [n, c, h / b, b, w] -> [n, c, h / b, b, w / b, b]
  ir::Node* y = flat_view(ctx, node, ctx.input(node, 0), {n, c, part[0], b, x[3]}, "SpaceToDepth");
  y = flat_view(ctx, node, y, {n, c, part[0], b, part[1], b}, "SpaceToDepth");
  y = ctx.call("aten::permute_copy", {y, std::vector<int64_t>{0, 3, 5, 1, 2, 4}});
  ctx.set_output(node, 0,
                 flat_view(ctx, node, y, {n, ir::SymInt(c.value() * b * b), part[0], part[1]},
                           "SpaceToDepth"));
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth on [N, C, H, W]: view, permute, view.
void import_depth_space(ImportContext& ctx, const NodeView& node) {
  const ir::TensorSpec spec = ctx.input_spec(node, 0);
  if (spec.rank() == 4 && !spec.is_static()) {
    if (node.op_type() == "DepthToSpace") {
      depth_to_space_dynamic(ctx, node, spec.shape);
    } else {
      space_to_depth_dynamic(ctx, node, spec.shape);
    }
    return;
  }
  const std::vector<int64_t> x = ctx.input_sizes(node, 0);
  if (x.size() != 4) node.fail(Error::InvalidArgument, "input of rank {}; expected 4", x.size());
  const int64_t b = node.attr_int("blocksize", 0);
  if (b <= 0) node.fail(Error::InvalidArgument, "blocksize must be positive");
  const int64_t n = x[0], c = x[1], h = x[2], w = x[3];
  std::vector<int64_t> split, perm, out;
  if (node.op_type() == "SpaceToDepth") {
    if (h % b != 0 || w % b != 0)
      node.fail(Error::InvalidArgument, "H and W must divide by blocksize");
    split = {n, c, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
    out = {n, c * b * b, h / b, w / b};
  } else {
    if (c % (b * b) != 0) node.fail(Error::InvalidArgument, "C must divide by blocksize^2");
    const bool crd = node.attr_string("mode", "DCR") == "CRD";
    split = crd ? std::vector<int64_t>{n, c / (b * b), b, b, h, w}
                : std::vector<int64_t>{n, b, b, c / (b * b), h, w};
    perm = crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
    out = {n, c / (b * b), h * b, w * b};
  }
  ir::Node* y = view(ctx, ctx.input(node, 0), split);
  y = ctx.call("aten::permute_copy", {y, perm});
  ctx.set_output(node, 0, view(ctx, y, out));
}

/// EyeLike: ones on diagonal k of a 2-D tensor of the input's shape, known at import time.
void import_eye_like(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> x = ctx.input_sizes(node, 0);
  if (x.size() != 2) node.fail(Error::InvalidArgument, "input of rank {}; expected 2", x.size());
  const DType dtype =
      node.has_attr("dtype")
          ? dtype_from_onnx(static_cast<int32_t>(node.attr_int("dtype", 1)), node.where())
          : ctx.input_dtype(node, 0);
  const int64_t k = node.attr_int("k", 0);
  std::vector<double> values(static_cast<size_t>(x[0] * x[1]), 0.0);
  for (int64_t i = 0; i < x[0]; ++i) {
    const int64_t j = i + k;
    if (j >= 0 && j < x[1]) values[static_cast<size_t>(i * x[1] + j)] = 1.0;
  }
  ctx.set_output(node, 0, ConstTensor::from_double(dtype, x, values));
}

void import_tile(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> repeats = ctx.require_constant(node, 1, "repeats").to_int64();
  if (repeats.size() != static_cast<size_t>(ctx.input_rank(node, 0))) {
    node.fail(Error::InvalidArgument, "repeats {} for an input of rank {}",
              sizes_to_string(repeats), ctx.input_rank(node, 0));
  }
  ctx.set_output(node, 0, ctx.call("aten::repeat", {ctx.input(node, 0), repeats}));
}

}  // namespace

std::vector<OpEntry> tensor_ops() {
  return {
      {"Constant", 1, 25, import_constant},
      {"ConstantOfShape", 9, 25, import_constant_of_shape},
      {"Range", 11, 17, import_range},
      {"Identity", 1, 25, import_identity},
      {"Dropout", 7, 22, import_dropout},
      {"Cast", 6, 25, import_cast, fold_cast},
      {"Concat", 4, 17, import_concat, fold_concat},
      {"Split", 2, 18, import_split},
      {"Slice", 1, 17, import_slice, fold_slice},
      {"Gather", 1, 17, import_gather, fold_gather},
      {"Pad", 2, 25, import_pad},
      {"Tile", 6, 17, import_tile},
      {"CastLike", 15, 25, import_cast_like},
      {"Trilu", 14, 17, import_trilu},
      {"GatherElements", 11, 17, import_gather_elements},
      {"DepthToSpace", 1, 17, import_depth_space},
      {"SpaceToDepth", 1, 17, import_depth_space},
      {"EyeLike", 9, 22, import_eye_like},
  };
}

}  // namespace ptec::onnx_import
