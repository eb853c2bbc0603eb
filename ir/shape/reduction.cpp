// Shape functions of reductions (mean, sum, amax, max.dim, argmax, var, any) and of
// softmax/cumsum, which keep the shape but reduce along one dimension.

#include <algorithm>

#include "ir/shape/shape_fns.h"
#include "ir/shape/shape_util.h"

namespace ptec::ir::shape {
namespace {

// The reduced shape: `dims` (None or empty: all dims) become 1 (keepdim) or are removed; the
// other dims are copied, symbols included.
Shape reduce_shape(const OpSchema& op, const TensorSpec& self, std::string_view dim_name,
                   const std::optional<std::vector<int64_t>>& dims, bool keepdim) {
  std::vector<bool> reduced(self.rank(), false);
  if (!dims || dims->empty()) {
    std::fill(reduced.begin(), reduced.end(), true);
  } else {
    for (int64_t d : *dims) {
      const int64_t n = normalize_dim(op, dim_name, d, self.rank());
      if (self.rank() == 0) continue;
      if (reduced[static_cast<size_t>(n)]) {
        fail(op, dim_name, "dimension {} appears more than once", d);
      }
      reduced[static_cast<size_t>(n)] = true;
    }
  }
  Shape out;
  for (size_t i = 0; i < self.rank(); ++i) {
    if (!reduced[i]) {
      out.push_back(self.shape[i]);
    } else if (keepdim) {
      out.emplace_back(1);
    }
  }
  return out;
}

std::optional<std::vector<int64_t>> dims_arg(const OpSchema& op, const ArgumentList& args) {
  return optional_int_list(op, args, "dim");
}

}  // namespace

std::vector<TensorSpec> mean_dim(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const std::optional<DType> dtype = optional_dtype(op, args, "dtype");
  const DType out_dtype = dtype.value_or(self.dtype);
  if (!is_floating_point(out_dtype)) {
    fail(op, "self", "mean needs a floating-point tensor or dtype, got {}", self.to_string());
  }
  return {make_spec(out_dtype, reduce_shape(op, self, "dim", dims_arg(op, args),
                                            bool_value(op, args, "keepdim")))};
}

std::vector<TensorSpec> sum_dim(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const std::optional<DType> dtype = optional_dtype(op, args, "dtype");
  // Integral (and bool) inputs accumulate in int64 unless a dtype is given.
  const DType out_dtype =
      dtype.value_or(is_integral(self.dtype, /*include_bool=*/true) ? DType::Long : self.dtype);
  return {make_spec(out_dtype, reduce_shape(op, self, "dim", dims_arg(op, args),
                                            bool_value(op, args, "keepdim")))};
}

std::vector<TensorSpec> amax_amin(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  return {make_spec(self.dtype, reduce_shape(op, self, "dim", dims_arg(op, args),
                                             bool_value(op, args, "keepdim")))};
}

std::vector<TensorSpec> max_min_dim(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const int64_t dim = int_value(op, args, "dim");
  Shape shape =
      reduce_shape(op, self, "dim", std::vector<int64_t>{dim}, bool_value(op, args, "keepdim"));
  return {make_spec(self.dtype, shape), make_spec(DType::Long, shape)};
}

std::vector<TensorSpec> nonzero(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const Node* input = arg(op, args, "self").as_node();
  int64_t upper = 1;
  for (const SymInt& d : self.shape) upper *= d.upper_bound();
  auto count = std::make_shared<Symbol>(Symbol{"nonzero_" + input->name(), 0, upper, true});
  return {make_spec(DType::Long,
                    Shape{SymInt(std::move(count)), SymInt(static_cast<int64_t>(self.rank()))})};
}

std::vector<TensorSpec> non_max_suppression(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& boxes = tensor(op, args, "boxes");
  const TensorSpec& scores = tensor(op, args, "scores");
  if (boxes.rank() != 3 || scores.rank() != 3) {
    fail(op, "boxes",
         "expected boxes [batch, boxes, 4] and scores [batch, classes, boxes], got "
         "{} and {}",
         boxes.to_string(), scores.to_string());
  }
  // The box count may be symbolic (boxes selected by a mask before): its upper bound sizes the
  // output's.
  const int64_t batches = static_dim(op, "boxes", boxes, 0);
  const int64_t n = boxes.shape[1].upper_bound();
  const int64_t classes = static_dim(op, "scores", scores, 1);
  if (static_dim(op, "boxes", boxes, 2) != 4 || static_dim(op, "scores", scores, 0) != batches ||
      scores.shape[2] != boxes.shape[1]) {
    fail(op, "scores", "{} does not match boxes {}", scores.to_string(), boxes.to_string());
  }
  const int64_t keep = std::clamp<int64_t>(int_value(op, args, "max_output_boxes_per_class"), 0, n);
  const Node* input = arg(op, args, "boxes").as_node();
  auto count =
      std::make_shared<Symbol>(Symbol{"nms_" + input->name(), 0, batches * classes * keep, true});
  return {make_spec(DType::Long, Shape{SymInt(std::move(count)), SymInt(int64_t{3})})};
}

std::vector<TensorSpec> argmax_argmin(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const std::optional<int64_t> dim = optional_int(op, args, "dim");
  const bool keepdim = bool_value(op, args, "keepdim");
  Shape shape = dim ? reduce_shape(op, self, "dim", std::vector<int64_t>{*dim}, keepdim)
                    : reduce_shape(op, self, "dim", std::nullopt, keepdim);
  return {make_spec(DType::Long, std::move(shape))};
}

std::vector<TensorSpec> var_correction(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  if (!is_floating_point(self.dtype)) {
    fail(op, "self", "expected a floating-point tensor, got {}", self.to_string());
  }
  return {make_spec(self.dtype, reduce_shape(op, self, "dim", dims_arg(op, args),
                                             bool_value(op, args, "keepdim")))};
}

std::vector<TensorSpec> any_dims(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  return {make_spec(DType::Bool, reduce_shape(op, self, "dim", dims_arg(op, args),
                                              bool_value(op, args, "keepdim")))};
}

std::vector<TensorSpec> softmax(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank());
  if (!is_floating_point(self.dtype)) {
    fail(op, "self", "expected a floating-point tensor, got {}", self.to_string());
  }
  const bool half_to_float = bool_value(op, args, "half_to_float");
  if (half_to_float && self.dtype != DType::Half) {
    fail(op, "half_to_float", "True needs a f16 input, got {}", self.to_string());
  }
  return {make_spec(half_to_float ? DType::Float : self.dtype, self.shape)};
}

std::vector<TensorSpec> cumsum(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank());
  const std::optional<DType> dtype = optional_dtype(op, args, "dtype");
  const DType out_dtype =
      dtype.value_or(is_integral(self.dtype, /*include_bool=*/true) ? DType::Long : self.dtype);
  return {make_spec(out_dtype, self.shape)};
}

}  // namespace ptec::ir::shape
