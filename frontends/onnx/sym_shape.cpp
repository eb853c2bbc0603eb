#include "frontends/onnx/sym_shape.h"

#include <algorithm>

#include "frontends/onnx/ops/op_util.h"
#include "ir/shape/shape_util.h"

namespace ptec::onnx_import {
namespace {

/// Input `i` as shape items: a sym value's items, or a constant int tensor's values (rank <= 1).
/// nullopt when the input is neither.
std::optional<ir::ArgumentList> items_of(ImportContext& ctx, const NodeView& node, size_t i,
                                         bool* scalar = nullptr) {
  if (!node.has_input(i)) return std::nullopt;
  Value* v = ctx.find(node.input(i));
  if (v == nullptr) node.fail(Error::InvalidProgram, "input '{}' is not defined", node.input(i));
  if (const SymValue* sym = ctx.sym_value(node.input(i))) {
    if (sym->floating &&
        !(node.op_type() == "Range" || node.op_type() == "Cast" || node.op_type() == "Identity")) {
      node.fail(Error::NotSupported,
                "input '{}' is a dynamic dim cast to a floating-point type, which ptec takes as a "
                "Range's limit only",
                node.input(i));
    }
    if (scalar != nullptr) *scalar = sym->scalar;
    return sym->items;
  }
  if (!v->constant || v->constant->sizes.size() > 1) return std::nullopt;
  if (v->constant->dtype != DType::Long && v->constant->dtype != DType::Int) return std::nullopt;
  if (scalar != nullptr) *scalar = v->constant->sizes.empty();
  ir::ArgumentList out;
  for (int64_t x : v->constant->to_int64()) out.emplace_back(x);
  return out;
}

bool is_sym(ImportContext& ctx, const NodeView& node, size_t i) {
  if (!node.has_input(i)) return false;
  return ctx.sym_value(node.input(i)) != nullptr;
}

/// Defines output 0 as `items`: a constant when every item is an int.
void set_items(ImportContext& ctx, const NodeView& node, ir::ArgumentList items, bool scalar,
               bool floating = false) {
  bool all_int =
      std::all_of(items.begin(), items.end(), [](const ir::Argument& a) { return a.is_int(); });
  if (all_int && !floating) {
    std::vector<int64_t> values;
    for (const ir::Argument& a : items) values.push_back(a.as_int());
    ctx.set_output(node, 0,
                   scalar ? ConstTensor::from_int64(DType::Long, {}, values)
                          : ConstTensor::int64_vector(values));
    return;
  }
  if (!node.has_output(0)) return;
  ctx.define_sym(node.output(0), SymValue{std::move(items), scalar, floating}, node.source());
}

ir::ArgumentList require_items(ImportContext& ctx, const NodeView& node, size_t i,
                               std::string_view what, bool* scalar = nullptr) {
  auto items = items_of(ctx, node, i, scalar);
  if (!items) {
    node.fail(Error::NotSupported,
              "input '{}' must be a shape value (known at import time or "
              "computed from dynamic dims)",
              what);
  }
  return *items;
}

int64_t clamp_index(int64_t v, int64_t n) {
  if (v < 0) v += n;
  return std::clamp<int64_t>(v, 0, n);
}

void import_shape_of(ImportContext& ctx, const NodeView& node) {
  const ir::Shape shape = ctx.input_shape(node, 0);
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t start = clamp_index(node.attr_int("start", 0), rank);
  const int64_t end = clamp_index(node.attr_int("end", rank), rank);
  ir::ArgumentList items;
  for (int64_t d = start; d < end; ++d)
    items.push_back(ctx.sym_size(shape[static_cast<size_t>(d)]));
  set_items(ctx, node, std::move(items), false);
}

void import_gather_items(ImportContext& ctx, const NodeView& node) {
  const ir::ArgumentList data = require_items(ctx, node, 0, "data");
  if (node.attr_int("axis", 0) != 0) node.fail(Error::NotSupported, "axis must be 0");
  bool scalar = false;
  const ConstTensor& idx = ctx.require_constant(node, 1, "indices");
  scalar = idx.sizes.empty();
  if (idx.sizes.size() > 1) node.fail(Error::NotSupported, "indices must have rank <= 1");
  ir::ArgumentList out;
  const int64_t n = static_cast<int64_t>(data.size());
  for (int64_t i : idx.to_int64()) {
    if (i < -n || i >= n) node.fail(Error::InvalidArgument, "index {} is out of range", i);
    out.push_back(data[static_cast<size_t>(i < 0 ? i + n : i)]);
  }
  set_items(ctx, node, std::move(out), scalar);
}

void import_concat_items(ImportContext& ctx, const NodeView& node) {
  ir::ArgumentList out;
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    if (!node.has_input(i)) continue;
    bool scalar = false;
    ir::ArgumentList part = require_items(ctx, node, i, "inputs", &scalar);
    if (scalar) node.fail(Error::InvalidArgument, "Concat of a scalar");
    out.insert(out.end(), part.begin(), part.end());
  }
  set_items(ctx, node, std::move(out), false);
}

void import_slice_items(ImportContext& ctx, const NodeView& node) {
  const ir::ArgumentList data = require_items(ctx, node, 0, "data");
  const int64_t n = static_cast<int64_t>(data.size());
  const std::vector<int64_t> starts = ctx.require_constant(node, 1, "starts").to_int64();
  const std::vector<int64_t> ends = ctx.require_constant(node, 2, "ends").to_int64();
  if (node.has_input(4) &&
      ctx.require_constant(node, 4, "steps").to_int64() != std::vector<int64_t>{1}) {
    node.fail(Error::NotSupported, "steps other than 1 on a shape value");
  }
  if (starts.size() != 1 || ends.size() != 1)
    node.fail(Error::InvalidArgument, "expected one axis");
  const int64_t s = clamp_index(starts[0], n);
  const int64_t e = ends[0] >= n ? n : clamp_index(ends[0], n);
  ir::ArgumentList out;
  for (int64_t i = s; i < e; ++i) out.push_back(data[static_cast<size_t>(i)]);
  set_items(ctx, node, std::move(out), false);
}

/// x != 0 as an item: 0 or 1 for an int, a comparison's own result, else !!x (sym_not twice).
ir::Argument to_bool_item(ImportContext& ctx, const ir::Argument& x) {
  if (x.is_int()) return int64_t{x.as_int() != 0 ? 1 : 0};
  const ir::Node* n = x.as_node();
  for (const char* op : {"executorch_prim::eq.Scalar", "executorch_prim::gt.Scalar",
                         "executorch_prim::ge.Scalar", "executorch_prim::lt.Scalar",
                         "executorch_prim::le.Scalar", "executorch_prim::sym_not.Scalar"}) {
    if (n->is_op(op)) return x;
  }
  ir::Node* negated = ctx.call("executorch_prim::sym_not.Scalar", {x});
  return ctx.call("executorch_prim::sym_not.Scalar", {negated});
}

/// The two operands of an element-wise op on shape values, checked to broadcast.
struct ItemOperands {
  ir::ArgumentList a, b;
  bool a_scalar = false, b_scalar = false;
  size_t size() const { return std::max(a.size(), b.size()); }
  const ir::Argument& x(size_t i) const { return a[a.size() == 1 ? 0 : i]; }
  const ir::Argument& y(size_t i) const { return b[b.size() == 1 ? 0 : i]; }
};

ItemOperands item_operands(ImportContext& ctx, const NodeView& node) {
  ItemOperands o;
  o.a = require_items(ctx, node, 0, "A", &o.a_scalar);
  o.b = require_items(ctx, node, 1, "B", &o.b_scalar);
  if (o.a.size() != o.b.size() && o.a.size() != 1 && o.b.size() != 1) {
    node.fail(Error::InvalidArgument, "shape values of {} and {} items do not broadcast",
              o.a.size(), o.b.size());
  }
  return o;
}

/// Add/Sub/Mul/Div of shape values (ONNX int64 arithmetic on dims): ints fold, x*1, x+0, x-0
/// and x/1 keep x, the rest become executorch_prim::{add,sub,mul,floordiv}.Scalar nodes.
void import_arith_items(ImportContext& ctx, const NodeView& node) {
  const ItemOperands ops = item_operands(ctx, node);
  const std::string& op = node.op_type();
  const size_t n = ops.size();
  ir::ArgumentList out;
  for (size_t i = 0; i < n; ++i) {
    const ir::Argument& x = ops.x(i);
    const ir::Argument& y = ops.y(i);
    if (x.is_int() && y.is_int()) {
      const int64_t p = x.as_int(), q = y.as_int();
      if (op == "Div" && q == 0) node.fail(Error::InvalidArgument, "division by zero");
      out.emplace_back(op == "Add" ? p + q : op == "Sub" ? p - q : op == "Mul" ? p * q : p / q);
      continue;
    }
    // x - x is 0 for dims known to be equal (a U-Net's padding of an upsampled map to its skip
    // connection's size, with sizes that agree: declared multiples).
    if (op == "Sub") {
      const std::optional<ir::SymInt> kx = ir::shape::known_sym_int(x);
      const std::optional<ir::SymInt> ky = ir::shape::known_sym_int(y);
      if (kx && ky && *kx == *ky) {
        out.emplace_back(int64_t{0});
        continue;
      }
      if (kx && ky) {
        if (const std::optional<ir::AgreeingMultiple> m = ir::agreeing_multiple(*kx, *ky)) {
          ctx.add_hint(fmt::format(" (node '{}' subtracts sizes {} and {}, equal where {})",
                                   node.source(), kx->to_string(), ky->to_string(),
                                   ir::declare_multiple_advice(*m)));
        }
      }
    }
    // x * 1, x / 1, x + 0 and x - 0 keep x.
    const int64_t identity = op == "Mul" || op == "Div" ? 1 : 0;
    const bool y_is_identity = y.is_int() && y.as_int() == identity;
    if (y_is_identity) {
      out.push_back(x);
      continue;
    }
    if (op == "Mul" && x.is_int() && x.as_int() == 1) {
      out.push_back(y);
      continue;
    }
    const char* prim = op == "Add"   ? "executorch_prim::add.Scalar"
                       : op == "Sub" ? "executorch_prim::sub.Scalar"
                       : op == "Mul" ? "executorch_prim::mul.Scalar"
                                     : "executorch_prim::floordiv.Scalar";
    out.emplace_back(ctx.call(prim, {x, y}));
  }
  set_items(ctx, node, std::move(out), ops.a_scalar && ops.b_scalar);
}

/// True for an item view_copy's shape function can read: an int or an aten::sym_size.int node.
bool is_plain_item(const ir::Argument& a) {
  return a.is_int() || (a.is_node() && a.as_node()->is_op("aten::sym_size.int"));
}

/// True for an item whose dim the shape functions can tell (ir::shape::known_sym_int): a plain
/// item, or run-time arithmetic of such (h * w, h / 2 + 1).
bool is_known_item(const ir::Argument& a) { return ir::shape::known_sym_int(a).has_value(); }

/// Reshape(x, shape) with a shape computed from dynamic dims: view_copy with sym_size items.
void import_reshape_sym(ImportContext& ctx, const NodeView& node) {
  const ir::Shape in = ctx.input_shape(node, 0);
  ir::ArgumentList shape = require_items(ctx, node, 1, "shape");
  const bool allowzero = node.attr_int("allowzero", 0) != 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].is_int() && shape[i].as_int() == 0 && !allowzero) {
      if (i >= in.size())
        node.fail(Error::InvalidArgument, "shape copies dim {} of rank {}", i, in.size());
      shape[i] = ctx.sym_size(in[i]);
    }
  }
  // One computed item (a prim op's result) becomes -1: view_copy infers it from the others.
  const auto computed = std::count_if(shape.begin(), shape.end(),
                                      [](const ir::Argument& a) { return !is_plain_item(a); });
  if (computed == 1) {
    for (ir::Argument& a : shape) {
      if (!is_plain_item(a)) a = ir::Argument(int64_t{-1});
    }
  } else if (computed > 1 && !std::all_of(shape.begin(), shape.end(), is_known_item)) {
    node.fail(Error::NotSupported,
              "the target shape has {} dims computed from dynamic dims; at "
              "most one is supported",
              computed);
  }
  ctx.set_output(node, 0, ctx.call("aten::view_copy", {ctx.input(node, 0), std::move(shape)}));
}

/// Expand(x, shape) with a shape computed from dynamic dims.
void import_expand_sym(ImportContext& ctx, const NodeView& node) {
  const ir::Shape in = ctx.input_shape(node, 0);
  ir::ArgumentList shape = require_items(ctx, node, 1, "shape");
  if (shape.size() < in.size()) node.fail(Error::NotSupported, "Expand to a lower rank");
  const size_t lead = shape.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    ir::Argument& target = shape[lead + i];
    // ONNX broadcasting: a 1 in the target keeps the input's dim.
    if (target.is_int() && target.as_int() == 1) target = ctx.sym_size(in[i]);
  }
  ctx.set_output(node, 0,
                 ctx.call("aten::expand_copy", {ctx.input(node, 0), std::move(shape), false}));
}

/// Slice(x, starts, ends, axes) of a tensor where `ends` is computed from dynamic dims.
void import_slice_sym(ImportContext& ctx, const NodeView& node) {
  const ir::Shape in = ctx.input_shape(node, 0);
  const int64_t rank = static_cast<int64_t>(in.size());
  const ir::ArgumentList starts = require_items(ctx, node, 1, "starts");
  const ir::ArgumentList ends = require_items(ctx, node, 2, "ends");
  std::vector<int64_t> axes;
  if (node.has_input(3)) {
    axes = ctx.require_constant(node, 3, "axes").to_int64();
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> steps(starts.size(), 1);
  if (node.has_input(4)) steps = ctx.require_constant(node, 4, "steps").to_int64();
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    node.fail(Error::InvalidArgument, "starts, ends, axes and steps differ in length");
  }
  ir::Node* x = ctx.input(node, 0);
  for (size_t i = 0; i < starts.size(); ++i) {
    if (steps[i] != 1) node.fail(Error::NotSupported, "steps other than 1 with dynamic bounds");
    const int64_t axis = node.normalize_axis(axes[i], rank);
    x = ctx.call("aten::slice_copy.Tensor", {x, axis, starts[i], ends[i], 1});
  }
  ctx.set_output(node, 0, x);
}

/// min(x, y) (or max) of two shape items: an int when both are, one of them when their ranges
/// decide it at import time (min(n, 1000) with n <= 1000 is n), else a sym_min (sym_max) node.
ir::Argument min_max_item(ImportContext& ctx, bool min, const ir::Argument& x,
                          const ir::Argument& y) {
  if (x.is_node() && y.is_node() && x.as_node() == y.as_node()) return x;
  const auto rx = ir::shape::int_range(x), ry = ir::shape::int_range(y);
  if (rx && ry) {
    if (rx->second <= ry->first) return min ? x : y;
    if (ry->second <= rx->first) return min ? y : x;
  }
  return ctx.call(min ? "executorch_prim::sym_min.Scalar" : "executorch_prim::sym_max.Scalar",
                  {x, y});
}

/// x * y (or x + y) of two shape items: an int when both are, x when y is the identity, else an
/// executorch_prim mul (add) node.
ir::Argument mul_add_item(ImportContext& ctx, bool mul, const ir::Argument& x,
                          const ir::Argument& y) {
  if (x.is_int() && y.is_int()) return mul ? x.as_int() * y.as_int() : x.as_int() + y.as_int();
  const int64_t identity = mul ? 1 : 0;
  if (y.is_int() && y.as_int() == identity) return x;
  if (x.is_int() && x.as_int() == identity) return y;
  return ctx.call(mul ? "executorch_prim::mul.Scalar" : "executorch_prim::add.Scalar", {x, y});
}

/// ReduceMin/ReduceMax/ReduceProd/ReduceSum over a 1-D shape value (all of its items: the only
/// axis; a tensor's element count is ReduceProd of its Shape), and Min/Max of shape values item
/// by item (broadcast, any number of inputs).
void import_min_max_items(ImportContext& ctx, const NodeView& node) {
  const std::string& op = node.op_type();
  const bool min = op == "ReduceMin" || op == "Min";
  if (op.starts_with("Reduce")) {
    bool scalar = false;
    const ir::ArgumentList items = require_items(ctx, node, 0, "data", &scalar);
    std::vector<int64_t> axes = node.attr_ints("axes", {});
    if (node.opset() >= 18 && node.has_input(1)) {
      axes = ctx.require_constant(node, 1, "axes").to_int64();
    }
    for (int64_t axis : axes) {
      if (scalar || (axis != 0 && axis != -1)) {
        node.fail(Error::InvalidArgument, "axis {} is out of range for a 1-D shape value", axis);
      }
    }
    if (scalar || items.empty()) {
      node.fail(Error::NotSupported, "reduction of an empty or 0-d shape value");
    }
    ir::Argument r = items[0];
    for (size_t i = 1; i < items.size(); ++i) {
      r = op == "ReduceProd"  ? mul_add_item(ctx, true, r, items[i])
          : op == "ReduceSum" ? mul_add_item(ctx, false, r, items[i])
                              : min_max_item(ctx, min, r, items[i]);
    }
    set_items(ctx, node, {r}, node.attr_int("keepdims", 1) == 0);
    return;
  }
  bool scalar = true;
  ir::ArgumentList out;
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    bool s = false;
    const ir::ArgumentList items = require_items(ctx, node, i, "data_0", &s);
    scalar = scalar && s;
    if (i == 0) {
      out = items;
      continue;
    }
    if (out.size() != items.size() && out.size() != 1 && items.size() != 1) {
      node.fail(Error::InvalidArgument, "shape values of {} and {} items do not broadcast",
                out.size(), items.size());
    }
    const size_t n = std::max(out.size(), items.size());
    ir::ArgumentList next;
    for (size_t j = 0; j < n; ++j) {
      next.push_back(
          min_max_item(ctx, min, out[out.size() == 1 ? 0 : j], items[items.size() == 1 ? 0 : j]));
    }
    out = std::move(next);
  }
  set_items(ctx, node, std::move(out), scalar);
}

/// Equal(a, b) of shape values, item by item: a bool constant where the answer is known at import
/// time (equal ints, the same sym_size node, or an int outside a dim's range: torch's Expand
/// export compares the target shape with -1), else a shape value whose unknown items are
/// executorch_prim::eq.Scalar nodes (a condition for a run-time If).
void import_equal_items(ImportContext& ctx, const NodeView& node) {
  const ItemOperands ops = item_operands(ctx, node);
  const size_t n = ops.size();
  ir::ArgumentList items;
  bool known = true;
  for (size_t i = 0; i < n; ++i) {
    const ir::Argument& x = ops.x(i);
    const ir::Argument& y = ops.y(i);
    if (x.is_node() && y.is_node() && x.as_node() == y.as_node()) {
      items.emplace_back(int64_t{1});
      continue;
    }
    const auto rx = ir::shape::int_range(x), ry = ir::shape::int_range(y);
    if (rx && ry && rx->first == rx->second && ry->first == ry->second) {
      items.emplace_back(int64_t{rx->first == ry->first ? 1 : 0});
    } else if (rx && ry && (rx->second < ry->first || ry->second < rx->first)) {
      items.emplace_back(int64_t{0});
    } else {
      // Compared at run time (an If on `numel == 0`): a Bool scalar.
      items.emplace_back(ctx.call("executorch_prim::eq.Scalar", {x, y}));
      known = false;
    }
  }
  const bool scalar = ops.a_scalar && ops.b_scalar;
  if (!known) {
    ctx.define_sym(node.output(0), SymValue{std::move(items), scalar}, node.source());
    return;
  }
  std::vector<int64_t> out;
  for (const ir::Argument& a : items) out.push_back(a.as_int());
  const std::vector<int64_t> sizes =
      scalar ? std::vector<int64_t>{} : std::vector<int64_t>{static_cast<int64_t>(n)};
  ctx.set_output(node, 0, ConstTensor::from_int64(DType::Bool, sizes, out));
}

/// Where(cond, x, y) with x or y a shape value and cond known at import time: items picked one
/// by one.
void import_where_items(ImportContext& ctx, const NodeView& node) {
  const ConstTensor& cond = ctx.require_constant(node, 0, "condition");
  if (cond.sizes.size() > 1) node.fail(Error::NotSupported, "condition of rank > 1");
  bool sx = false, sy = false;
  const ir::ArgumentList x = require_items(ctx, node, 1, "X", &sx);
  const ir::ArgumentList y = require_items(ctx, node, 2, "Y", &sy);
  const std::vector<int64_t> c = cond.to_int64();
  const size_t n = std::max({c.size(), x.size(), y.size()});
  for (size_t len : {c.size(), x.size(), y.size()}) {
    if (len != n && len != 1) node.fail(Error::InvalidArgument, "inputs do not broadcast");
  }
  ir::ArgumentList out;
  for (size_t i = 0; i < n; ++i) {
    const bool pick_x = c[c.size() == 1 ? 0 : i] != 0;
    out.push_back(pick_x ? x[x.size() == 1 ? 0 : i] : y[y.size() == 1 ? 0 : i]);
  }
  set_items(ctx, node, std::move(out), cond.sizes.empty() && sx && sy);
}

/// Reshape of a shape value to 1-D ([-1] or [n]) or to a scalar (a single item): the same items.
void import_reshape_items(ImportContext& ctx, const NodeView& node) {
  const ir::ArgumentList items = require_items(ctx, node, 0, "data");
  const std::vector<int64_t> shape = ctx.require_constant(node, 1, "shape").to_int64();
  const auto n = static_cast<int64_t>(items.size());
  if (shape.empty() && n == 1) {
    set_items(ctx, node, items, true);
  } else if (shape.size() == 1 && (shape[0] == -1 || shape[0] == n)) {
    set_items(ctx, node, items, false);
  } else {
    node.fail(Error::NotSupported, "Reshape of a shape value of {} items to {}", n,
              sizes_to_string(shape));
  }
}

/// ConstantOfShape(shape) with a shape computed from dynamic dims (a causal mask's [seq, seq]):
/// aten::full with sym_size items.
void import_constant_of_shape_sym(ImportContext& ctx, const NodeView& node) {
  const ir::ArgumentList shape = require_items(ctx, node, 0, "input");
  for (const ir::Argument& item : shape) {
    if (!is_known_item(item)) {
      node.fail(Error::NotSupported,
                "a dim of the shape is computed from dynamic dims by arithmetic that ptec cannot "
                "follow (it follows products of dims and a dim plus, minus, times or divided by "
                "an int)");
    }
  }
  ConstTensor value = ConstTensor::from_double(DType::Float, {1}, {0.0});
  if (onnx::TensorProto* t = node.attr_tensor("value")) value = ctx.tensor_from_proto(*t, "value");
  if (value.numel() != 1) node.fail(Error::InvalidArgument, "value must hold one element");
  const ir::Argument fill = value.dtype == DType::Long
                                ? ir::Argument(value.to_int64()[0])
                                : scalar_arg(value.double_at(0), value.dtype);
  ctx.set_output(node, 0, ctx.call("aten::full", {shape, fill, value.dtype}));
}

/// Range(start, limit, delta) whose limit is a dynamic dim (position ids: Range(0, seq, 1)):
/// aten::arange.start_step with a constant start 0 and delta 1, so that its length is the dim.
void import_range_sym(ImportContext& ctx, const NodeView& node) {
  bool scalar = false;
  const ir::ArgumentList limit = require_items(ctx, node, 1, "limit", &scalar);
  if (limit.size() != 1) node.fail(Error::InvalidArgument, "limit must be a scalar");
  const ConstTensor* start = ctx.constant(node, 0);
  const ConstTensor* delta = ctx.constant(node, 2);
  if (start == nullptr || delta == nullptr || start->numel() != 1 || delta->numel() != 1 ||
      start->double_at(0) != 0.0 || delta->double_at(0) != 1.0) {
    node.fail(Error::NotSupported,
              "with a limit computed from dynamic dims, start must be 0 and delta 1 (known at "
              "import time)");
  }
  if (!is_known_item(limit[0])) {
    node.fail(Error::NotSupported,
              "the limit is computed from dynamic dims by arithmetic that ptec cannot follow");
  }
  // A float Range's limit is a dim cast to float (a whole number): arange of its int value.
  const DType dtype = start->dtype;
  if (dtype != DType::Long && dtype != DType::Int && dtype != DType::Float &&
      dtype != DType::Double) {
    node.fail(Error::NotSupported,
              "a dynamic limit with {} start; int32, int64, float and double are supported",
              to_string(dtype));
  }
  ctx.set_output(node, 0,
                 ctx.call("aten::arange.start_step", {int64_t{0}, limit[0], int64_t{1}, dtype}));
}

}  // namespace

bool import_symbolic(ImportContext& ctx, const NodeView& node) {
  const std::string& op = node.op_type();
  if (op == "Shape") {
    if (const SymValue* sym = ctx.sym_value(node.input(0))) {  // the shape of a shape value
      ctx.set_output(
          node, 0,
          ConstTensor::int64_vector(
              sym->scalar ? std::vector<int64_t>{}
                          : std::vector<int64_t>{static_cast<int64_t>(sym->items.size())}));
      return true;
    }
    if (ctx.input_spec(node, 0).is_static()) return false;
    import_shape_of(ctx, node);
    return true;
  }
  bool any = false;
  for (size_t i = 0; i < node.num_inputs(); ++i) any = any || is_sym(ctx, node, i);
  if (!any) return false;
  // TopK reads a shape value K as its k argument (ops/scatter_gather.cpp).
  if (op == "TopK" && !is_sym(ctx, node, 0)) return false;
  // Resize reads shape values as its sizes (ops/resize.cpp).
  if (op == "Resize" && !is_sym(ctx, node, 0)) return false;
  if (op == "Gather" && is_sym(ctx, node, 0)) {
    import_gather_items(ctx, node);
  } else if (op == "Concat" && node.attr_int("axis", 0) == 0) {
    import_concat_items(ctx, node);
  } else if ((op == "Unsqueeze" || op == "Squeeze") && is_sym(ctx, node, 0)) {
    bool scalar = false;
    ir::ArgumentList items = require_items(ctx, node, 0, "data", &scalar);
    if (op == "Unsqueeze" && !scalar)
      node.fail(Error::NotSupported, "Unsqueeze of a 1-D shape value");
    if (op == "Squeeze" && items.size() != 1)
      node.fail(Error::NotSupported, "Squeeze of a shape value with several items");
    set_items(ctx, node, std::move(items), op == "Squeeze");
  } else if ((op == "Cast" || op == "Identity") && is_sym(ctx, node, 0)) {
    if (op == "Cast") {
      const int64_t to = node.attr_int("to", 0);
      if (to != onnx::TensorProto::INT64 && to != onnx::TensorProto::INT32 &&
          to != onnx::TensorProto::BOOL && to != onnx::TensorProto::FLOAT &&
          to != onnx::TensorProto::DOUBLE) {
        node.fail(Error::NotSupported,
                  "Cast of a dynamic dim to a type other than int64, int32, "
                  "bool, float or double");
      }
    }
    bool scalar = false;
    ir::ArgumentList items = require_items(ctx, node, 0, "input", &scalar);
    const int64_t to = node.attr_int("to", 0);
    if (op == "Cast" && to == onnx::TensorProto::BOOL) {
      for (ir::Argument& a : items) a = to_bool_item(ctx, a);
    }
    const bool floating = op == "Cast"
                              ? to == onnx::TensorProto::FLOAT || to == onnx::TensorProto::DOUBLE
                              : ctx.sym_value(node.input(0))->floating;
    set_items(ctx, node, std::move(items), scalar, floating);
  } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    import_arith_items(ctx, node);
  } else if (op == "Slice" && is_sym(ctx, node, 0)) {
    import_slice_items(ctx, node);
  } else if (op == "Equal") {
    import_equal_items(ctx, node);
  } else if (op == "Min" || op == "Max" ||
             ((op == "ReduceMin" || op == "ReduceMax" || op == "ReduceProd" || op == "ReduceSum") &&
              is_sym(ctx, node, 0))) {
    import_min_max_items(ctx, node);
  } else if (op == "Where" && is_sym(ctx, node, 0)) {
    node.fail(Error::NotSupported,
              "the condition ('{}') is computed at run time; it must be known at import time "
              "for a Where on shape values",
              node.input(0));
  } else if (op == "Where") {
    import_where_items(ctx, node);
  } else if (op == "Reshape" && is_sym(ctx, node, 0) && !is_sym(ctx, node, 1)) {
    import_reshape_items(ctx, node);
  } else if (op == "Reshape" && !is_sym(ctx, node, 0)) {
    import_reshape_sym(ctx, node);
  } else if (op == "Expand" && !is_sym(ctx, node, 0)) {
    import_expand_sym(ctx, node);
  } else if (op == "Slice") {
    import_slice_sym(ctx, node);
  } else if (op == "ConstantOfShape") {
    import_constant_of_shape_sym(ctx, node);
  } else if (op == "Range" && is_sym(ctx, node, 1) && !is_sym(ctx, node, 0) &&
             !is_sym(ctx, node, 2)) {
    import_range_sym(ctx, node);
  } else {
    node.fail(Error::NotSupported,
              "computes on dynamic dims (an input comes from Shape of a dynamic tensor); ptec "
              "supports Shape/Gather/Slice/Concat/Unsqueeze/Squeeze/Cast/Add/Sub/Mul/Div/Min/Max/"
              "ReduceMin/ReduceMax/ReduceProd/ReduceSum/Equal/Where chains feeding "
              "Reshape/Expand/Slice/ConstantOfShape/Range/TopK/Resize");
  }
  return true;
}

}  // namespace ptec::onnx_import
