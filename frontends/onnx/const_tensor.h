#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "ir/buffer.h"
#include "ir/tensor_spec.h"

namespace ptec::onnx_import {

/// A tensor whose value is known at import time: an initializer, a Constant's value, or the
/// result of evaluating a Shape/Gather/Concat/... chain. Contiguous, little-endian bytes held in a
/// shared Buffer (reshaping shares the Buffer; no stage copies payloads).
struct ConstTensor {
  DType dtype = DType::Float;
  std::vector<int64_t> sizes;
  ir::BufferPtr data;

  int64_t numel() const;
  size_t nbytes() const;
  ir::TensorSpec spec() const { return ir::TensorSpec(dtype, sizes); }
  ir::TensorData to_tensor_data() const { return ir::TensorData{spec(), data}; }

  /// Element `i` (flat index) converted to int64 / double. Supports every integral, bool and
  /// floating dtype (Half and BFloat16 included).
  int64_t int_at(int64_t i) const;
  double double_at(int64_t i) const;
  std::vector<int64_t> to_int64() const;
  std::vector<double> to_double() const;

  /// The same bytes with other sizes (same element count); shares the Buffer.
  ConstTensor reshaped(std::vector<int64_t> new_sizes) const;

  /// New tensors of `dtype` holding `values` converted element-wise.
  static ConstTensor from_int64(DType dtype, std::vector<int64_t> sizes,
                                const std::vector<int64_t>& values);
  static ConstTensor from_double(DType dtype, std::vector<int64_t> sizes,
                                 const std::vector<double>& values);
  /// A 1-D int64 tensor.
  static ConstTensor int64_vector(const std::vector<int64_t>& values);
};

/// True when ConstTensor arithmetic supports `dtype` (numbers and bool; not quantized types).
bool is_numeric(DType dtype);

/// Number of elements of `sizes` (1 for a scalar); throws InvalidArgument on negative sizes or
/// overflow.
int64_t element_count(const std::vector<int64_t>& sizes);

/// "[1, 3, 224, 224]".
std::string sizes_to_string(const std::vector<int64_t>& sizes);

}  // namespace ptec::onnx_import
