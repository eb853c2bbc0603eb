#pragma once

// Reading index tensors (Long or Int) with range checks, shared by embedding, index_select and
// gather.

#include <cstdint>

#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

/// Checks that `index` is Long or Int and that every element lies in [-size, size) when
/// `allow_negative`, else [0, size). Logs and fails the context otherwise.
bool check_indices(KernelRuntimeContext& ctx, const char* op, const Tensor& index, int64_t size,
                   bool allow_negative);

/// Element i of a Long or Int index tensor (already checked), wrapped into [0, size).
inline int64_t index_at(const Tensor& index, int64_t i, int64_t size) {
  const int64_t v = index.dtype() == DType::Long ? index.const_data_ptr<int64_t>()[i]
                                                 : index.const_data_ptr<int32_t>()[i];
  return v < 0 ? v + size : v;
}

}  // namespace ptec::kernels
