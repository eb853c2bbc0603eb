// scatter_reduce.two_out: out = self, then src[i] is reduced into out[..., index[i], ...] along
// `dim` with reduce = "sum", "prod", "mean", "amax" or "amin". With include_self=False the
// positions that receive a value start from the reduction's identity instead of self (ATen).
// amax/amin propagate NaN; "mean" divides by the number of values reduced into a position
// (floor division for integral dtypes) and needs count scratch from the context's temp
// allocator.

#include <cmath>
#include <cstring>
#include <string_view>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/scatter_util.h"

namespace ptec::kernels {
namespace {

enum class Reduce { Sum, Prod, Mean, Amax, Amin };

template <typename T>
T identity(Reduce r) {
  if constexpr (is_reduced_float_v<T>) {
    return T(identity<float>(r));
  } else {
    switch (r) {
      case Reduce::Prod: return T(1);
      case Reduce::Amax: return lowest_value<T>();
      case Reduce::Amin: return highest_value<T>();
      default: return T(0);
    }
  }
}

template <typename T>
T combine(Reduce r, T a, T b) {
  switch (r) {
    case Reduce::Prod: return reduce_mul(a, b);
    case Reduce::Amax:
      if (is_nan_value(a) || is_nan_value(b)) return is_nan_value(a) ? a : b;
      return a < b ? b : a;
    case Reduce::Amin:
      if (is_nan_value(a) || is_nan_value(b)) return is_nan_value(a) ? a : b;
      return b < a ? b : a;
    default: return reduce_add(a, b);
  }
}

/// sum / count for the mean: true division for floating types, floor division otherwise.
template <typename T>
T mean_of(T sum, int64_t count) {
  if constexpr (is_reduced_float_v<T>) {
    return T(static_cast<float>(sum) / static_cast<float>(count));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(sum / static_cast<T>(count));
  } else {
    const int64_t s = static_cast<int64_t>(sum);
    int64_t q = s / count;
    if ((s % count != 0) && (s < 0)) --q;
    return static_cast<T>(q);
  }
}

}  // namespace

Tensor& scatter_reduce_two_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                               const Tensor& index, const Tensor& src, std::string_view reduce,
                               bool include_self, Tensor& out) {
  constexpr const char* kOp = "scatter_reduce.two_out";
  Reduce r = Reduce::Sum;
  if (reduce == "sum") {
    r = Reduce::Sum;
  } else if (reduce == "prod") {
    r = Reduce::Prod;
  } else if (reduce == "mean") {
    r = Reduce::Mean;
  } else if (reduce == "amax") {
    r = Reduce::Amax;
  } else if (reduce == "amin") {
    r = Reduce::Amin;
  } else {
    PTEC_KERNEL_CHECK_MSG(ctx, false, InvalidArgument, out,
                          "%s: reduce argument must be either sum, prod, mean, amax or amin, got "
                          "%.*s",
                          kOp, static_cast<int>(reduce.size()), reduce.data());
  }
  size_t d = 0;
  if (!scatter_prologue(ctx, kOp, self, dim, index, &src, out, kReducedFloat, &d)) return out;
  if (index.numel() == 0) return out;
  int64_t* count = nullptr;
  if (r == Reduce::Mean) {
    PTEC_KERNEL_CHECK_MSG(ctx, self.dtype() != DType::Bool, InvalidArgument, out,
                          "%s: reduce='mean' does not support Bool", kOp);
    count = static_cast<int64_t*>(ctx.allocate_temp(out.numel() * sizeof(int64_t)));
    PTEC_KERNEL_CHECK_MSG(ctx, count != nullptr, MemoryAllocationFailed, out,
                          "%s: reduce='mean' needs %zu bytes of temp memory", kOp,
                          out.numel() * sizeof(int64_t));
    const int64_t init = include_self ? 1 : 0;
    for (size_t i = 0; i < out.numel(); ++i) count[i] = init;
    scatter_for_each(self, d, index, &src, [&](int64_t oi, int64_t) { ++count[oi]; });
  }
  dispatch_real_bool_reduced(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.mutable_data_ptr<T>();
    const T* s = src.const_data_ptr<T>();
    if (!include_self) {
      const T init = identity<T>(r);
      scatter_for_each(self, d, index, &src, [&](int64_t oi, int64_t) { o[oi] = init; });
    }
    scatter_for_each(self, d, index, &src,
                     [&](int64_t oi, int64_t si) { o[oi] = combine(r, o[oi], s[si]); });
    if constexpr (!std::is_same_v<T, bool>) {
      if (count == nullptr) return;
      for (size_t i = 0; i < out.numel(); ++i) {
        if (count[i] > 1) o[i] = mean_of(o[i], count[i]);
      }
    }
  });
  return out;
}

}  // namespace ptec::kernels
