#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "ir/buffer.h"
#include "ir/sym_int.h"

namespace ptec::ir {

using Shape = std::vector<SymInt>;

/// Type of a tensor value: dtype, shape (constants or symbols) and dim order.
struct TensorSpec {
  DType dtype = DType::Float;
  Shape shape;
  /// A permutation of [0, rank); empty means contiguous ([0, 1, ..., rank-1]).
  std::vector<uint8_t> dim_order;

  TensorSpec() = default;
  TensorSpec(DType dt, Shape s) : dtype(dt), shape(std::move(s)) {}
  TensorSpec(DType dt, const std::vector<int64_t>& sizes);

  size_t rank() const { return shape.size(); }
  bool is_static() const;
  /// Sizes of a static shape; for symbols, their upper bounds.
  std::vector<int64_t> upper_bound_sizes() const;
  /// Element count at the upper bound.
  int64_t numel_upper_bound() const;
  size_t nbytes_upper_bound() const;
  /// The explicit dim order (contiguous when dim_order is empty).
  std::vector<uint8_t> effective_dim_order() const;

  bool operator==(const TensorSpec& other) const;
  bool operator!=(const TensorSpec& other) const { return !(*this == other); }
  /// "f32[1, 3, seq]"
  std::string to_string() const;
};

/// A concrete tensor: a static spec plus its bytes (weights, constants, example inputs).
struct TensorData {
  TensorSpec spec;
  BufferPtr data;

  /// Checks that `data` holds exactly the spec's bytes; throws InvalidArgument naming `what`.
  void check(const std::string& what) const;
};

}  // namespace ptec::ir
