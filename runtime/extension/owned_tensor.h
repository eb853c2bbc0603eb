#pragma once

// A tensor that owns its sizes, dim order, strides and data (heap), for callers of the runtime:
// the CLI, tests, Module users. Contiguous layout.

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"

namespace ptec::runtime {

class OwnedTensor final {
 public:
  /// A zero-filled contiguous tensor.
  OwnedTensor(DType dtype, std::vector<int32_t> sizes)
      : sizes_(std::move(sizes)), dim_order_(sizes_.size()), strides_(sizes_.size()) {
    for (size_t i = 0; i < dim_order_.size(); ++i) dim_order_[i] = static_cast<uint8_t>(i);
    size_t numel = 1;
    for (int32_t s : sizes_) numel *= static_cast<size_t>(s < 0 ? 0 : s);
    // uint64_t storage keeps the data 8-byte aligned for every element type.
    data_.assign((numel * ptec::element_size(dtype) + 7) / 8, 0);
    tensor_ = Tensor(dtype, sizes_.size(), sizes_.data(), dim_order_.data(), strides_.data(),
                     data_.data());
  }

  /// A tensor holding `values` (whose count must equal the element count).
  template <typename T>
  static OwnedTensor from(DType dtype, std::vector<int32_t> sizes, const std::vector<T>& values) {
    OwnedTensor t(dtype, std::move(sizes));
    const size_t n = std::min(values.size() * sizeof(T), t.tensor_.nbytes());
    if (n > 0) std::memcpy(t.tensor_.mutable_data_ptr(), values.data(), n);
    return t;
  }

  /// A tensor with every element equal to `value` (Float, Double, Long, Int, Bool, Byte, Char).
  static OwnedTensor full(DType dtype, std::vector<int32_t> sizes, double value) {
    OwnedTensor t(dtype, std::move(sizes));
    for (size_t i = 0; i < t.tensor_.numel(); ++i) t.set_element(i, value);
    return t;
  }

  OwnedTensor(OwnedTensor&& other) noexcept = default;
  OwnedTensor& operator=(OwnedTensor&& other) noexcept = default;
  OwnedTensor(const OwnedTensor&) = delete;
  OwnedTensor& operator=(const OwnedTensor&) = delete;

  Tensor& tensor() { return tensor_; }
  const Tensor& tensor() const { return tensor_; }
  /// A value referring to this tensor; valid while the OwnedTensor lives and is not moved.
  EValue evalue() { return EValue(&tensor_); }

 private:
  void set_element(size_t i, double v) {
    void* p = tensor_.mutable_data_ptr();
    switch (tensor_.dtype()) {
      case DType::Float: static_cast<float*>(p)[i] = static_cast<float>(v); break;
      case DType::Double: static_cast<double*>(p)[i] = v; break;
      case DType::Long: static_cast<int64_t*>(p)[i] = static_cast<int64_t>(v); break;
      case DType::Int: static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v); break;
      case DType::Short: static_cast<int16_t*>(p)[i] = static_cast<int16_t>(v); break;
      case DType::Char: static_cast<int8_t*>(p)[i] = static_cast<int8_t>(v); break;
      case DType::Byte: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(v); break;
      case DType::Bool: static_cast<uint8_t*>(p)[i] = v != 0.0; break;
      default: break;  // other types stay zero
    }
  }

  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  std::vector<uint64_t> data_;
  Tensor tensor_;
};

/// The elements of a tensor as T (which must match its element size); contiguous tensors only.
template <typename T>
std::vector<T> tensor_values(const Tensor& t) {
  std::vector<T> out(t.numel());
  if (t.nbytes() == out.size() * sizeof(T) && t.const_data_ptr() != nullptr && !out.empty()) {
    std::memcpy(out.data(), t.const_data_ptr(), t.nbytes());
  }
  return out;
}

}  // namespace ptec::runtime
