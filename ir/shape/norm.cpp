// Shape functions of normalizations: batch norm (inference), layer norm, group norm.

#include "ir/shape/shape_fns.h"
#include "ir/shape/shape_util.h"

namespace ptec::ir::shape {
namespace {

void require_float(const OpSchema& op, std::string_view name, const TensorSpec& spec) {
  if (!is_floating_point(spec.dtype)) {
    fail(op, name, "expected a floating-point tensor, got {}", spec.to_string());
  }
}

void require_shape(const OpSchema& op, std::string_view name, const TensorSpec* spec,
                   const Shape& shape, DType dtype) {
  if (spec == nullptr) return;
  if (spec->shape != shape) {
    std::string expected;
    for (const SymInt& d : shape) expected += (expected.empty() ? "" : ", ") + d.to_string();
    fail(op, name, "expected shape [{}], got {}", expected, spec->to_string());
  }
  if (spec->dtype != dtype) {
    fail(op, name, "dtype {} does not match the input's {}", to_string(spec->dtype),
         to_string(dtype));
  }
}

}  // namespace

std::vector<TensorSpec> batch_norm_no_training(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& input = tensor(op, args, "input");
  if (input.rank() < 2) fail(op, "input", "expected at least 2 dims, got {}", input.to_string());
  require_float(op, "input", input);
  const Shape channels = {input.shape[1]};
  require_shape(op, "weight", optional_tensor(op, args, "weight"), channels, input.dtype);
  require_shape(op, "bias", optional_tensor(op, args, "bias"), channels, input.dtype);
  require_shape(op, "running_mean", &tensor(op, args, "running_mean"), channels, input.dtype);
  require_shape(op, "running_var", &tensor(op, args, "running_var"), channels, input.dtype);
  float_value(op, args, "momentum");
  if (float_value(op, args, "eps") < 0) fail(op, "eps", "must not be negative");
  // Inference batch norm saves no statistics: save_mean and save_invstd are empty.
  return {make_spec(input.dtype, input.shape), make_spec(input.dtype, Shape{SymInt(0)}),
          make_spec(input.dtype, Shape{SymInt(0)})};
}

std::vector<TensorSpec> native_layer_norm(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& input = tensor(op, args, "input");
  require_float(op, "input", input);
  const Shape normalized = sym_int_list(op, args, "normalized_shape");
  if (normalized.empty() || normalized.size() > input.rank()) {
    fail(op, "normalized_shape", "expected 1 to {} dims, got {}", input.rank(), normalized.size());
  }
  const size_t axis = input.rank() - normalized.size();
  for (size_t i = 0; i < normalized.size(); ++i) {
    if (input.shape[axis + i] != normalized[i]) {
      fail(op, "normalized_shape", "dimension {} is {} but the input {} has {}", i,
           normalized[i].to_string(), input.to_string(), input.shape[axis + i].to_string());
    }
  }
  require_shape(op, "weight", optional_tensor(op, args, "weight"), normalized, input.dtype);
  require_shape(op, "bias", optional_tensor(op, args, "bias"), normalized, input.dtype);
  float_value(op, args, "eps");
  Shape stats(input.shape.begin(), input.shape.begin() + static_cast<ptrdiff_t>(axis));
  stats.insert(stats.end(), normalized.size(), SymInt(1));
  return {make_spec(input.dtype, input.shape), make_spec(input.dtype, stats),
          make_spec(input.dtype, stats)};
}

std::vector<TensorSpec> native_group_norm(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& input = tensor(op, args, "input");
  require_float(op, "input", input);
  if (input.rank() < 2) fail(op, "input", "expected at least 2 dims, got {}", input.to_string());
  const SymInt n = sym_int(op, args, "N");
  const int64_t c = int_value(op, args, "C");
  const int64_t group = int_value(op, args, "group");
  if (n != input.shape[0]) {
    fail(op, "N", "{} does not match the input's batch {}", n.to_string(),
         input.shape[0].to_string());
  }
  if (c != static_dim(op, "input", input, 1)) {
    fail(op, "C", "{} does not match the input's {} channels", c, input.shape[1].to_string());
  }
  if (group <= 0 || c % group != 0) {
    fail(op, "group", "{} channels cannot be split into {} groups", c, group);
  }
  require_shape(op, "weight", optional_tensor(op, args, "weight"), Shape{SymInt(c)}, input.dtype);
  require_shape(op, "bias", optional_tensor(op, args, "bias"), Shape{SymInt(c)}, input.dtype);
  float_value(op, args, "eps");
  const Shape stats = {input.shape[0], SymInt(group)};
  return {make_spec(input.dtype, input.shape), make_spec(input.dtype, stats),
          make_spec(input.dtype, stats)};
}

}  // namespace ptec::ir::shape
