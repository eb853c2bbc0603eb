#pragma once

// Reduction plans: which dims a reduction collapses, the output shape, and strided views that
// enumerate, for each output element, the input elements folded into it.

#include <cstdint>
#include <optional>

#include "kernels/portable/util/kernel_util.h"
#include "kernels/portable/util/strided.h"

namespace ptec::kernels {

/// A reduction over a set of dims of a contiguous input.
struct ReducePlan {
  bool reduced[kTensorDimensionLimit] = {};
  /// The output shape (reduced dims kept as 1 when keepdim, dropped otherwise).
  Shape out_shape;
  /// Offsets of the first input element of each output element, in output order.
  StridedView outer;
  /// Offsets (relative to an outer offset) of the elements folded into one output element.
  StridedView inner;
  int64_t reduced_numel = 1;
};

/// Builds a plan. `dims` None or empty reduces every dim. Dims are wrapped; a duplicate or an
/// out-of-range dim logs and fails the context.
bool make_reduce_plan(KernelRuntimeContext& ctx, const char* op, const Tensor& in,
                      std::optional<Span<const int64_t>> dims, bool keepdim, ReducePlan* plan);

/// A tensor seen as [outer, size, inner] around one dim.
struct DimSplit {
  int64_t outer = 1;
  int64_t size = 1;
  int64_t inner = 1;
};

/// Splits `t` around `dim` (already wrapped; a rank-0 tensor gives 1, 1, 1).
DimSplit split_at(const Tensor& t, size_t dim);

}  // namespace ptec::kernels
