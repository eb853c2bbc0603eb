#pragma once

// Vocabulary shared by every portable kernel: the runtime types, shape storage, dim wrapping,
// layout checks and out resizing. Every helper that can fail logs a message that names the op
// and fails the context, so a kernel only has to return when a helper returns false.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>

#include "core/dtype.h"
#include "core/log.h"
#include "core/span.h"
#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_runtime_context.h"

namespace ptec::kernels {

using runtime::KernelRuntimeContext;
using runtime::kTensorDimensionLimit;
using runtime::Scalar;
using runtime::SizesType;
using runtime::Tensor;
using OptTensor = std::optional<Tensor>;
using OptScalar = std::optional<Scalar>;
using IntList = Span<const int64_t>;
using OptIntList = std::optional<Span<const int64_t>>;
using TensorList = Span<const Tensor>;

/// A tensor shape held by value (no heap): up to kTensorDimensionLimit sizes.
struct Shape {
  SizesType sizes[kTensorDimensionLimit] = {};
  size_t ndim = 0;

  Span<const SizesType> span() const { return {sizes, ndim}; }
  /// Appends a size; returns false when the rank limit is reached.
  bool push(int64_t size);
  int64_t numel() const;
};

/// The sizes of `t` as a Shape.
Shape shape_of(const Tensor& t);

/// Wraps `dim` into [0, rank) as ATen's maybe_wrap_dim does (a rank-0 tensor accepts -1 and 0).
/// Logs and fails the context when out of range.
bool wrap_dim(KernelRuntimeContext& ctx, const char* op, int64_t dim, size_t rank, size_t* out);

/// Checks that every tensor has the default (contiguous) dim order.
bool check_contiguous(KernelRuntimeContext& ctx, const char* op,
                      std::initializer_list<const Tensor*> tensors);

/// Checks that `t` has dtype `dtype`; `what` names the argument in the message.
bool check_dtype(KernelRuntimeContext& ctx, const char* op, const Tensor& t, DType dtype,
                 const char* what);

/// Checks that `a` and `b` have the same sizes.
bool check_same_shape(KernelRuntimeContext& ctx, const char* op, const Tensor& a, const Tensor& b,
                      const char* what_a, const char* what_b);

/// Resizes `out` to `sizes` (rank must match); logs and fails the context when `out` cannot take
/// that shape (static shape, capacity, rank).
bool resize_out(KernelRuntimeContext& ctx, const char* op, Tensor& out, Span<const SizesType> sizes,
                const char* what = "out");

/// Product of sizes[begin, end) of `t`.
int64_t size_product(const Tensor& t, size_t begin, size_t end);

/// Checks that an int list (kernel_size, stride, ...) has between `min_len` and `max_len`
/// elements and that each element is at least `min_value`.
bool check_int_list(KernelRuntimeContext& ctx, const char* op, Span<const int64_t> list,
                    size_t min_len, size_t max_len, int64_t min_value, const char* what);

/// Element `i` of a list of length 1 (broadcast to every position) or more.
inline int64_t list_at(Span<const int64_t> list, size_t i) {
  return list.size() == 1 ? list[0] : list[i];
}

}  // namespace ptec::kernels
