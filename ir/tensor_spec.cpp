#include "ir/tensor_spec.h"

#include <fmt/format.h>

#include "ir/exception.h"

namespace ptec::ir {

TensorSpec::TensorSpec(DType dt, const std::vector<int64_t>& sizes) : dtype(dt) {
  shape.reserve(sizes.size());
  for (int64_t s : sizes) shape.emplace_back(s);
}

bool TensorSpec::is_static() const {
  for (const SymInt& d : shape) {
    if (d.is_symbolic()) return false;
  }
  return true;
}

std::vector<int64_t> TensorSpec::upper_bound_sizes() const {
  std::vector<int64_t> sizes;
  sizes.reserve(shape.size());
  for (const SymInt& d : shape) sizes.push_back(d.upper_bound());
  return sizes;
}

int64_t TensorSpec::numel_upper_bound() const {
  int64_t n = 1;
  for (const SymInt& d : shape) {
    const int64_t v = d.upper_bound();
    PTEC_ENFORCE(v >= 0, InvalidArgument, "tensor {} has a negative dimension", to_string());
    PTEC_ENFORCE(v == 0 || n <= INT64_MAX / v, InvalidArgument,
                 "tensor {} has more than 2^63 elements", to_string());
    n *= v;
  }
  return n;
}

size_t TensorSpec::nbytes_upper_bound() const {
  return static_cast<size_t>(numel_upper_bound()) * element_size(dtype);
}

std::vector<uint8_t> TensorSpec::effective_dim_order() const {
  if (!dim_order.empty()) return dim_order;
  std::vector<uint8_t> order(shape.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint8_t>(i);
  return order;
}

bool TensorSpec::operator==(const TensorSpec& other) const {
  return dtype == other.dtype && shape == other.shape &&
         effective_dim_order() == other.effective_dim_order();
}

std::string TensorSpec::to_string() const {
  std::string out = fmt::format("{}[", ptec::to_string(dtype));
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += shape[i].to_string();
  }
  out += "]";
  return out;
}

void TensorData::check(const std::string& what) const {
  PTEC_ENFORCE(spec.is_static(), InvalidArgument,
               "{}: tensor data must have a static shape, got {}", what, spec.to_string());
  PTEC_ENFORCE(data != nullptr, InvalidArgument, "{}: tensor {} has no data", what,
               spec.to_string());
  PTEC_ENFORCE(data->size() == spec.nbytes_upper_bound(), InvalidArgument,
               "{}: tensor {} needs {} bytes but its buffer holds {}", what, spec.to_string(),
               spec.nbytes_upper_bound(), data->size());
}

}  // namespace ptec::ir
