#pragma once

// The part every scatter kernel shares (scatter.src_out, scatter.value_out, scatter_add.out,
// scatter_reduce.two_out): ATen's argument checks (scatter_gather_dtype_check,
// scatter_shape_check), index bounds, out = copy of self, and the walk over the index's positions.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/kernel_util.h"
#include "kernels/portable/util/strided.h"

namespace ptec::kernels {

/// Calls f with a value of the C++ type of `t` for real_bool, Half and BFloat16 (the dtypes
/// the arithmetic scatter kernels compute in; Half and BFloat16 round after every step, as
/// c10::Half arithmetic does). Returns false for other dtypes.
template <typename F>
bool dispatch_real_bool_reduced(DType t, F&& f) {
  switch (t) {
    case DType::Half: f(Half{}); return true;
    case DType::BFloat16: f(BFloat16{}); return true;
    default: return dispatch_real_bool(t, f);
  }
}

/// NaN test that also covers Half and BFloat16.
template <typename T>
bool is_nan_value(T v) {
  if constexpr (is_reduced_float_v<T>) {
    return std::isnan(static_cast<float>(v));
  } else {
    return is_nan(v);
  }
}

/// The Scalar as a value of T (any storage dtype): floating scalars convert from double,
/// integral ones from int64, as ATen's Scalar::to<T> does.
template <typename T>
T scalar_as(const Scalar& s) {
  if constexpr (std::is_same_v<T, bool>) {
    return s.to_bool();
  } else if (s.is_floating_point()) {
    return convert<T>(s.to_double());
  } else {
    return convert<T>(s.to_int());
  }
}

/// a + b as ATen computes it on CPU: two's-complement wrap for integral types (no signed
/// overflow UB), logical or for Bool.
template <typename T>
T reduce_add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}

/// a * b with the same conventions (logical and for Bool).
template <typename T>
T reduce_mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}

/// Size of dim `d` of `t`, 1 for a 0-dim tensor (ATen's ensure_nonempty_size).
inline int64_t nonempty_size(const Tensor& t, size_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }

/// Checks the arguments as ATen does, resizes `out` to self's shape and copies self into it.
/// `src` is null for the Scalar variant; `support` says which dtypes beyond real_bool the kernel
/// accepts (DTypeSupport flags). Sets `*dim_out` to the wrapped dim. Returns false (the
/// context failed, with a logged message naming `op`) when an argument does not fit.
inline bool scatter_prologue(KernelRuntimeContext& ctx, const char* op, const Tensor& self,
                             int64_t dim, const Tensor& index, const Tensor* src, Tensor& out,
                             unsigned support, size_t* dim_out) {
  if (!check_contiguous(ctx, op, {&self, &index, &out})) return false;
  if (src != nullptr && !check_contiguous(ctx, op, {src})) return false;
  PTEC_KERNEL_CHECK_MSG(ctx, is_accepted_dtype(self.dtype(), support), InvalidArgument, false,
                        "%s: unsupported dtype %s", op, to_string(self.dtype()));
  if (!wrap_dim(ctx, op, dim, self.dim(), dim_out)) return false;
  const size_t d = *dim_out;
  PTEC_KERNEL_CHECK_MSG(ctx, index.numel() == 0 || index.dtype() == DType::Long, InvalidArgument,
                        false, "%s: expected dtype int64 for index, got %s", op,
                        to_string(index.dtype()));
  if (src != nullptr) {
    PTEC_KERNEL_CHECK_MSG(ctx, src->dtype() == self.dtype(), InvalidArgument, false,
                          "%s: expected self.dtype to be equal to src.dtype (%s vs %s)", op,
                          to_string(self.dtype()), to_string(src->dtype()));
  }
  if (!check_dtype(ctx, op, out, self.dtype(), "out")) return false;
  if (!resize_out(ctx, op, out, self.sizes())) return false;
  if (index.numel() != 0) {
    const size_t rank = self.dim() == 0 ? 1 : self.dim();
    PTEC_KERNEL_CHECK_MSG(ctx, (index.dim() == 0 ? 1 : index.dim()) == rank, InvalidArgument, false,
                          "%s: index tensor must have the same number of dimensions as self "
                          "tensor (%zu vs %zu)",
                          op, index.dim(), self.dim());
    if (src != nullptr) {
      PTEC_KERNEL_CHECK_MSG(ctx, (src->dim() == 0 ? 1 : src->dim()) == rank, InvalidArgument, false,
                            "%s: index tensor must have the same number of dimensions as src "
                            "tensor (%zu vs %zu)",
                            op, index.dim(), src->dim());
    }
    for (size_t i = 0; i < rank; ++i) {
      const int64_t n = nonempty_size(index, i);
      PTEC_KERNEL_CHECK_MSG(ctx, i == d || n <= nonempty_size(self, i), InvalidArgument, false,
                            "%s: index size %lld exceeds self size %lld at dim %zu", op,
                            static_cast<long long>(n),
                            static_cast<long long>(nonempty_size(self, i)), i);
      PTEC_KERNEL_CHECK_MSG(ctx, src == nullptr || n <= nonempty_size(*src, i), InvalidArgument,
                            false, "%s: index size %lld exceeds src size %lld at dim %zu", op,
                            static_cast<long long>(n),
                            static_cast<long long>(src == nullptr ? 0 : nonempty_size(*src, i)), i);
    }
    const int64_t size = nonempty_size(self, d);
    const int64_t* idx = index.const_data_ptr<int64_t>();
    for (size_t i = 0; i < index.numel(); ++i) {
      PTEC_KERNEL_CHECK_MSG(ctx, idx[i] >= 0 && idx[i] < size, InvalidArgument, false,
                            "%s: index %lld is out of bounds for dimension %zu with size %lld", op,
                            static_cast<long long>(idx[i]), d, static_cast<long long>(size));
    }
  }
  if (out.const_data_ptr() != self.const_data_ptr() && self.nbytes() != 0) {
    std::memcpy(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
  }
  return true;
}

/// Calls f(out_offset, src_offset) for every element of `index` in row-major order: out_offset
/// is the element's position in self with dim `d` replaced by the index value, src_offset its
/// position in `src` (ignored when src is null). Offsets are in elements.
template <typename F>
void scatter_for_each(const Tensor& self, size_t d, const Tensor& index, const Tensor* src, F&& f) {
  if (index.numel() == 0) return;
  int64_t self_strides[kTensorDimensionLimit] = {};
  int64_t src_strides[kTensorDimensionLimit] = {};
  contiguous_strides(self, self_strides);
  if (src != nullptr) contiguous_strides(*src, src_strides);
  StridedView out_view, src_view;
  for (size_t i = 0; i < index.dim(); ++i) {
    out_view.add_dim(index.sizes()[i], self.dim() == 0 || i == d ? 0 : self_strides[i]);
    src_view.add_dim(index.sizes()[i], src == nullptr || src->dim() == 0 ? 0 : src_strides[i]);
  }
  const int64_t dim_stride = self.dim() == 0 ? 0 : self_strides[d];
  const int64_t* idx = index.const_data_ptr<int64_t>();
  int64_t i = 0;
  for_each_pair(out_view, src_view, [&](int64_t out_base, int64_t src_off) {
    f(out_base + idx[i] * dim_stride, src_off);
    ++i;
  });
}

}  // namespace ptec::kernels
