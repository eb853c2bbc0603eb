// Shape functions of element-wise ops: unary, binary with broadcasting and ATen type promotion,
// comparisons, where, masked_fill.

#include "ir/shape/shape_fns.h"
#include "ir/shape/shape_util.h"

namespace ptec::ir::shape {
namespace {

PromotionOperand operand(const TensorSpec& spec) {
  return PromotionOperand{spec.dtype, spec.rank() == 0, false};
}

PromotionOperand scalar_operand(const OpSchema& op, const Argument& a, std::string_view name) {
  if (!a.is_int() && !a.is_double() && !a.is_bool() && !a.is_node()) {
    fail(op, name, "expected a number");
  }
  return PromotionOperand{scalar_dtype(a), false, true};
}

void require_not_quantized(const OpSchema& op, std::string_view name, const TensorSpec& spec) {
  if (is_quantized(spec.dtype)) {
    fail(op, name, "quantized dtype {} is not supported here (dequantize first)",
         to_string(spec.dtype));
  }
}

// ATen refuses a float alpha for integral results and bool subtraction.
void check_alpha_and_sub(const OpSchema& op, const ArgumentList& args, DType result) {
  const int alpha_index = op.arg_index("alpha");
  if (alpha_index >= 0) {
    const Argument& alpha = args.at(static_cast<size_t>(alpha_index));
    if (!alpha.is_int() && !alpha.is_double() && !alpha.is_bool() && !alpha.is_node()) {
      fail(op, "alpha", "expected a number");
    }
    if (alpha.is_double() && !is_floating_point(result)) {
      fail(op, "alpha", "a floating-point alpha needs a floating-point result, got {}",
           to_string(result));
    }
  }
  if ((op.name == "sub" || op.name == "rsub") && result == DType::Bool) {
    fail(op, op.args[1].name, "subtraction of bool tensors is not supported (use logical_xor)");
  }
}

const std::string& second_name(const OpSchema& op) { return op.args.at(1).name; }

}  // namespace

std::vector<TensorSpec> unary_same(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, op.args.at(0).name);
  return {make_spec(self.dtype, self.shape)};
}

std::vector<TensorSpec> unary_with_scalars(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  require_not_quantized(op, "self", self);
  std::vector<PromotionOperand> operands = {operand(self)};
  for (size_t i = 1; i < op.args.size(); ++i) {
    const Argument& a = args.at(i);
    if (a.is_none()) continue;
    operands.push_back(scalar_operand(op, a, op.args[i].name));
  }
  // clamp promotes with its bounds (an int tensor clamped to 0.5 is float); the activations keep
  // the input dtype.
  const DType dtype = op.name == "clamp" ? result_type(operands) : self.dtype;
  if (op.name == "clamp" && args.at(1).is_none() && args.at(2).is_none()) {
    fail(op, "min", "at least one of 'min' and 'max' must not be None");
  }
  if (op.name != "clamp" && op.name != "hardtanh" && !is_floating_point(self.dtype)) {
    fail(op, "self", "expected a floating-point tensor, got {}", self.to_string());
  }
  return {make_spec(dtype, self.shape)};
}

std::vector<TensorSpec> unary_float(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  require_not_quantized(op, "self", self);
  return {make_spec(is_floating_point(self.dtype) ? self.dtype : DType::Float, self.shape)};
}

std::vector<TensorSpec> unary_floating_only(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  if (!is_floating_point(self.dtype)) {
    fail(op, "self", "expected a floating-point tensor, got {}", self.to_string());
  }
  if (op.name == "gelu") {
    const Argument& approximate = arg(op, args, "approximate");
    if (!approximate.is_string() ||
        (approximate.as_string() != "none" && approximate.as_string() != "tanh")) {
      fail(op, "approximate", "expected \"none\" or \"tanh\"");
    }
  }
  return {make_spec(self.dtype, self.shape)};
}

std::vector<TensorSpec> unary_to_bool(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  return {make_spec(DType::Bool, self.shape)};
}

std::vector<TensorSpec> unary_integral(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  if (!is_integral(self.dtype, /*include_bool=*/true)) {
    fail(op, "self", "expected an integral or bool tensor, got {}", self.to_string());
  }
  return {make_spec(self.dtype, self.shape)};
}

std::vector<TensorSpec> clamp_tensor(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec* lo = optional_tensor(op, args, "min");
  const TensorSpec* hi = optional_tensor(op, args, "max");
  if (lo == nullptr && hi == nullptr) {
    fail(op, "min", "at least one of 'min' and 'max' must not be None");
  }
  Shape shape = self.shape;
  std::vector<PromotionOperand> operands = {operand(self)};
  if (lo != nullptr) {
    shape = broadcast(op, "self", shape, "min", lo->shape);
    operands.push_back(operand(*lo));
  }
  if (hi != nullptr) {
    shape = broadcast(op, "self", shape, "max", hi->shape);
    operands.push_back(operand(*hi));
  }
  return {make_spec(result_type(operands), std::move(shape))};
}

std::vector<TensorSpec> binary_tensor(const OpSchema& op, const ArgumentList& args) {
  const std::string& other_name = second_name(op);
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec& other = tensor(op, args, other_name);
  require_not_quantized(op, "self", self);
  require_not_quantized(op, other_name, other);
  Shape shape = broadcast(op, "self", self.shape, other_name, other.shape);
  const DType dtype = result_type({operand(self), operand(other)});
  check_alpha_and_sub(op, args, dtype);
  return {make_spec(dtype, std::move(shape))};
}

std::vector<TensorSpec> binary_tensor_float(const OpSchema& op, const ArgumentList& args) {
  std::vector<TensorSpec> out = binary_tensor(op, args);
  if (!is_floating_point(out[0].dtype)) out[0].dtype = DType::Float;
  return out;
}

std::vector<TensorSpec> binary_tensor_integral(const OpSchema& op, const ArgumentList& args) {
  std::vector<TensorSpec> out = binary_tensor(op, args);
  if (!is_integral(out[0].dtype, /*include_bool=*/true)) {
    fail(op, "self", "expected integral or bool tensors, got {}", to_string(out[0].dtype));
  }
  return out;
}

std::vector<TensorSpec> binary_scalar(const OpSchema& op, const ArgumentList& args) {
  const std::string& other_name = second_name(op);
  const TensorSpec& self = tensor(op, args, "self");
  require_not_quantized(op, "self", self);
  const DType dtype =
      result_type({operand(self), scalar_operand(op, arg(op, args, other_name), other_name)});
  check_alpha_and_sub(op, args, dtype);
  return {make_spec(dtype, self.shape)};
}

std::vector<TensorSpec> binary_scalar_integral(const OpSchema& op, const ArgumentList& args) {
  std::vector<TensorSpec> out = binary_scalar(op, args);
  if (!is_integral(out[0].dtype, /*include_bool=*/true)) {
    fail(op, "self", "expected an integral or bool tensor and scalar, got {}",
         to_string(out[0].dtype));
  }
  return out;
}

std::vector<TensorSpec> scalar_tensor_binary(const OpSchema& op, const ArgumentList& args) {
  // pow.Scalar(Scalar self, Tensor exponent)
  const TensorSpec& exponent = tensor(op, args, "exponent");
  const DType dtype =
      result_type({scalar_operand(op, arg(op, args, "self"), "self"), operand(exponent)});
  return {make_spec(dtype, exponent.shape)};
}

namespace {
// Integer division without a rounding mode gives a float (true division).
DType division_dtype(const OpSchema& op, const ArgumentList& args, DType promoted) {
  const int mode_index = op.arg_index("rounding_mode");
  if (mode_index >= 0) {
    const Argument& mode = args.at(static_cast<size_t>(mode_index));
    if (!mode.is_none()) {
      if (!mode.is_string() || (mode.as_string() != "trunc" && mode.as_string() != "floor")) {
        fail(op, "rounding_mode", "expected None, \"trunc\" or \"floor\"");
      }
      return promoted;
    }
  }
  return is_floating_point(promoted) ? promoted : DType::Float;
}
}  // namespace

std::vector<TensorSpec> div_tensor(const OpSchema& op, const ArgumentList& args) {
  std::vector<TensorSpec> out = binary_tensor(op, args);
  out[0].dtype = division_dtype(op, args, out[0].dtype);
  return out;
}

std::vector<TensorSpec> div_scalar(const OpSchema& op, const ArgumentList& args) {
  std::vector<TensorSpec> out = binary_scalar(op, args);
  out[0].dtype = division_dtype(op, args, out[0].dtype);
  return out;
}

std::vector<TensorSpec> compare_tensor(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec& other = tensor(op, args, "other");
  return {make_spec(DType::Bool, broadcast(op, "self", self.shape, "other", other.shape))};
}

std::vector<TensorSpec> compare_scalar(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  scalar_operand(op, arg(op, args, "other"), "other");
  return {make_spec(DType::Bool, self.shape)};
}

std::vector<TensorSpec> where_self(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& condition = tensor(op, args, "condition");
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec& other = tensor(op, args, "other");
  if (condition.dtype != DType::Bool && condition.dtype != DType::Byte) {
    fail(op, "condition", "expected a bool tensor, got {}", condition.to_string());
  }
  Shape shape = broadcast(op, "condition", condition.shape, "self", self.shape);
  shape = broadcast(op, "self", shape, "other", other.shape);
  return {make_spec(result_type({operand(self), operand(other)}), std::move(shape))};
}

std::vector<TensorSpec> masked_fill_scalar(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec& mask = tensor(op, args, "mask");
  if (mask.dtype != DType::Bool)
    fail(op, "mask", "expected a bool tensor, got {}", mask.to_string());
  scalar_operand(op, arg(op, args, "value"), "value");
  const Shape shape = broadcast(op, "self", self.shape, "mask", mask.shape);
  if (shape != self.shape) {
    fail(op, "mask", "mask {} must broadcast to self {}", mask.to_string(), self.to_string());
  }
  return {make_spec(self.dtype, self.shape)};
}

}  // namespace ptec::ir::shape
