// Shape functions of creation and conversion ops, quantize/dequantize, scalar prims, getitem
// and the opaque engine/delegate calls.

#include <cmath>

#include "ir/shape/shape_fns.h"
#include "ir/shape/shape_util.h"

namespace ptec::ir::shape {
namespace {

void require_float(const OpSchema& op, std::string_view name, const TensorSpec& spec) {
  if (!is_floating_point(spec.dtype)) {
    fail(op, name, "expected a floating-point tensor, got {}", spec.to_string());
  }
}

// The default dtype of a tensor created from Python numbers: bool, int64 or float32.
DType inferred_dtype(const Argument& scalar) {
  if (scalar.is_bool()) return DType::Bool;
  if (scalar.is_double()) return DType::Float;
  return DType::Long;
}

void require_number(const OpSchema& op, std::string_view name, const Argument& a) {
  if (!a.is_int() && !a.is_double() && !a.is_bool()) {
    fail(op, name, "expected a number{}",
         a.is_node() ? " (symbolic values are not supported)" : "");
  }
}

}  // namespace

std::vector<TensorSpec> to_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const std::optional<DType> dtype = optional_dtype(op, args, "dtype");
  return {make_spec(dtype.value_or(self.dtype), self.shape)};
}

std::vector<TensorSpec> full(const OpSchema& op, const ArgumentList& args) {
  Shape size = sym_int_list(op, args, "size");
  for (const SymInt& d : size) {
    if (d.is_static() && d.value() < 0) fail(op, "size", "negative size {}", d.value());
  }
  const std::optional<DType> given = optional_dtype(op, args, "dtype");
  DType dtype = DType::Float;
  if (op.arg_index("fill_value") >= 0) {
    const Argument& fill = arg(op, args, "fill_value");
    // A value computed at run time (a prim op's result) needs the dtype spelled out.
    if (!(fill.is_node() && given)) {
      require_number(op, "fill_value", fill);
      dtype = inferred_dtype(fill);
    }
  }
  return {make_spec(given.value_or(dtype), std::move(size))};
}

std::vector<TensorSpec> full_like(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  require_number(op, "fill_value", arg(op, args, "fill_value"));
  return {make_spec(optional_dtype(op, args, "dtype").value_or(self.dtype), self.shape)};
}

std::vector<TensorSpec> scalar_tensor(const OpSchema& op, const ArgumentList& args) {
  require_number(op, "s", arg(op, args, "s"));
  return {make_spec(optional_dtype(op, args, "dtype").value_or(DType::Float), Shape{})};
}

std::vector<TensorSpec> arange(const OpSchema& op, const ArgumentList& args) {
  const bool has_start = op.arg_index("start") >= 0;
  const Argument zero(int64_t{0});
  const Argument one(int64_t{1});
  const Argument& start = has_start ? arg(op, args, "start") : zero;
  const Argument& end = arg(op, args, "end");
  const Argument& step = op.arg_index("step") >= 0 ? arg(op, args, "step") : one;
  // A symbolic end (a sym_size.int node) from 0 in steps of 1: the length is that dim.
  if (end.is_node()) {
    if (!start.is_int() || start.as_int() != 0 || !step.is_int() || step.as_int() != 1) {
      fail(op, "end", "is symbolic; then start must be 0 and step 1");
    }
    const SymInt n = sym_int(op, args, "end");
    return {make_spec(optional_dtype(op, args, "dtype").value_or(DType::Long), Shape{n})};
  }
  require_number(op, "start", start);
  require_number(op, "end", end);
  require_number(op, "step", step);
  const double s = start.to_double();
  const double e = end.to_double();
  const double st = step.to_double();
  if (st == 0) fail(op, "step", "must not be zero");
  if ((st > 0 && e < s) || (st < 0 && e > s)) {
    fail(op, "step", "has the wrong sign for the range [{}, {})", s, e);
  }
  const bool all_int = start.is_int() && end.is_int() && step.is_int();
  const auto n = static_cast<int64_t>(std::ceil((e - s) / st));
  const DType dtype =
      optional_dtype(op, args, "dtype").value_or(all_int ? DType::Long : DType::Float);
  return {make_spec(dtype, Shape{SymInt(n)})};
}

std::vector<TensorSpec> quantize(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& input = tensor(op, args, "input");
  require_float(op, "input", input);
  const DType dtype = dtype_value(op, args, "dtype");
  if (!is_integral(dtype, /*include_bool=*/false)) {
    fail(op, "dtype", "expected an integral dtype, got {}", to_string(dtype));
  }
  const int64_t qmin = int_value(op, args, "quant_min");
  const int64_t qmax = int_value(op, args, "quant_max");
  if (qmin > qmax) fail(op, "quant_min", "{} is greater than quant_max {}", qmin, qmax);
  if (op.arg_index("axis") >= 0) {
    const auto axis =
        static_cast<size_t>(normalize_dim(op, "axis", int_value(op, args, "axis"), input.rank()));
    const TensorSpec& scales = tensor(op, args, "scales");
    if (scales.rank() != 1 || (input.rank() > 0 && scales.shape[0] != input.shape[axis])) {
      fail(op, "scales", "expected one scale per channel of axis {} of {}, got {}", axis,
           input.to_string(), scales.to_string());
    }
  }
  return {make_spec(dtype, input.shape)};
}

std::vector<TensorSpec> dequantize(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& input = tensor(op, args, "input");
  const DType dtype = dtype_value(op, args, "dtype");
  if (input.dtype != dtype) {
    fail(op, "input", "dtype {} does not match the 'dtype' argument {}", to_string(input.dtype),
         to_string(dtype));
  }
  const DType out = optional_dtype(op, args, "out_dtype").value_or(DType::Float);
  if (!is_floating_point(out)) fail(op, "out_dtype", "expected a floating-point dtype");
  return {make_spec(out, input.shape)};
}

std::vector<TensorSpec> choose_qparams(const OpSchema& op, const ArgumentList& args) {
  require_float(op, "input", tensor(op, args, "input"));
  dtype_value(op, args, "dtype");
  return {make_spec(DType::Double, Shape{SymInt(1)}), make_spec(DType::Long, Shape{SymInt(1)})};
}

std::vector<TensorSpec> scalar_result(const OpSchema& op, const ArgumentList& args) {
  if (op.arg_index("self") >= 0) {
    const TensorSpec& self = tensor(op, args, "self");
    if (op.arg_index("dim") >= 0) normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank());
  }
  return {};
}

std::vector<TensorSpec> getitem(const OpSchema& op, const ArgumentList& args) {
  const Argument& self = arg(op, args, "self");
  const int64_t idx = int_value(op, args, "idx");
  std::vector<TensorSpec> items;
  if (self.is_node()) {
    items = self.as_node()->meta().val;
  } else if (self.is_list()) {
    for (const TensorSpec* t : tensor_list(op, args, "self")) {
      if (t == nullptr) fail(op, "self", "item is None");
      items.push_back(*t);
    }
  } else {
    fail(op, "self", "expected a multi-output node or a list of tensors");
  }
  if (idx < 0 || static_cast<size_t>(idx) >= items.size()) {
    fail(op, "idx", "{} is out of range for {} outputs", idx, items.size());
  }
  return {items[static_cast<size_t>(idx)]};
}

std::vector<TensorSpec> opaque(const OpSchema& op, const ArgumentList& /*args*/) {
  raise(Error::NotSupported,
        "{}: output specs come from the engine or delegate, not from the arguments; the node's "
        "creator sets meta.val",
        op.qualified_name());
}

}  // namespace ptec::ir::shape
