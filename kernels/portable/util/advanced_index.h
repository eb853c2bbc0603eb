#pragma once

// ATen advanced indexing with a Tensor?[] index list, shared by index.Tensor_out and
// index_put.out: the index tensors (Long or Int; None keeps a dim whole) broadcast together to
// a shape B. When the indexed dims are adjacent, the result is self's leading dims, B, then
// self's trailing dims; otherwise B comes first, followed by every non-indexed dim in order.
// Index values lie in [-size, size) and wrap. Boolean mask indices (data-dependent shapes) are
// not supported.

#include <cstdint>

#include "kernels/portable/util/kernel_util.h"
#include "kernels/portable/util/strided.h"

namespace ptec::kernels {

class AdvancedIndex {
 public:
  /// Checks `indices` against `self` and computes the result shape. Logs (naming `op`) and fails
  /// the context on error.
  bool init(KernelRuntimeContext& ctx, const char* op, const Tensor& self,
            Span<const OptTensor> indices) {
    PTEC_KERNEL_CHECK_MSG(ctx, indices.size() <= self.dim(), InvalidArgument, false,
                          "%s: too many indices for tensor of dimension %zu (got %zu)", op,
                          self.dim(), indices.size());
    int64_t self_strides[kTensorDimensionLimit] = {};
    contiguous_strides(self, self_strides);
    // Broadcast shape of the index tensors (right-aligned).
    size_t first = 0, last = 0;
    bool adjacent = true;
    for (size_t i = 0; i < indices.size(); ++i) {
      if (!indices[i].has_value()) continue;
      const Tensor& t = *indices[i];
      PTEC_KERNEL_CHECK_MSG(
          ctx, t.dtype() != DType::Bool && t.dtype() != DType::Byte, NotSupported, false,
          "%s: boolean mask indices (data-dependent shapes) are not supported", op);
      PTEC_KERNEL_CHECK_MSG(ctx, t.dtype() == DType::Long || t.dtype() == DType::Int,
                            InvalidArgument, false,
                            "%s: tensors used as indices must be long, int, byte or bool tensors, "
                            "got %s",
                            op, to_string(t.dtype()));
      if (!check_contiguous(ctx, op, {&t})) return false;
      if (nidx_ == 0) {
        first = i;
      } else if (i != last + 1) {
        adjacent = false;
      }
      last = i;
      if (!broadcast_into(ctx, op, t)) return false;
      idx_[nidx_] = &t;
      idx_size_[nidx_] = self.sizes()[i];
      idx_self_stride_[nidx_] = self_strides[i];
      ++nidx_;
    }
    PTEC_KERNEL_CHECK_MSG(ctx, nidx_ > 0, InvalidArgument, false,
                          "%s: needs at least one index tensor", op);
    // Index values, and each index tensor's strides over B (0 where it broadcasts).
    for (size_t k = 0; k < nidx_; ++k) {
      const Tensor& t = *idx_[k];
      int64_t s = 1;
      for (size_t j = 0; j < bnd_; ++j) idx_strides_[k][j] = 0;
      for (size_t j = t.dim(); j > 0; --j) {
        const size_t bj = bnd_ - (t.dim() - j) - 1;
        idx_strides_[k][bj] = t.sizes()[j - 1] == 1 ? 0 : s;
        s *= t.sizes()[j - 1];
      }
      const int64_t size = idx_size_[k];
      for (size_t e = 0; e < t.numel(); ++e) {
        const int64_t v = value(k, static_cast<int64_t>(e));
        PTEC_KERNEL_CHECK_MSG(ctx, v >= -size && v < size, InvalidArgument, false,
                              "%s: index %lld is out of bounds for dimension with size %lld", op,
                              static_cast<long long>(v), static_cast<long long>(size));
      }
    }
    // Result dims: either a self dim (stride in self) or a B dim.
    auto add_self_dim = [&](size_t d) {
      if (!result_.push(self.sizes()[d])) return false;
      bdim_[result_.ndim - 1] = -1;
      self_stride_[result_.ndim - 1] = self_strides[d];
      return true;
    };
    auto add_b_dims = [&]() {
      for (size_t j = 0; j < bnd_; ++j) {
        if (!result_.push(b_[j])) return false;
        bdim_[result_.ndim - 1] = static_cast<int64_t>(j);
        self_stride_[result_.ndim - 1] = 0;
      }
      return true;
    };
    bool ok = true;
    if (adjacent) {
      for (size_t d = 0; d < first; ++d) ok = ok && add_self_dim(d);
      ok = ok && add_b_dims();
    } else {
      ok = add_b_dims();
      for (size_t d = 0; d <= last; ++d) {
        if (d >= indices.size() || !indices[d].has_value()) ok = ok && add_self_dim(d);
      }
    }
    for (size_t d = last + 1; d < self.dim(); ++d) ok = ok && add_self_dim(d);
    PTEC_KERNEL_CHECK_MSG(ctx, ok, InvalidArgument, false, "%s: result has more than %zu dims", op,
                          kTensorDimensionLimit);
    return true;
  }

  /// The result's shape.
  const Shape& result() const { return result_; }

  /// Calls f(result_offset, self_offset) for every element of the result, in row-major order.
  template <typename F>
  void for_each(F&& f) const {
    const int64_t n = result_.numel();
    int64_t coord[kTensorDimensionLimit] = {};
    for (int64_t r = 0; r < n; ++r) {
      int64_t off = 0;
      int64_t bpos[kTensorDimensionLimit] = {};
      for (size_t d = 0; d < result_.ndim; ++d) {
        if (bdim_[d] < 0) {
          off += coord[d] * self_stride_[d];
        } else {
          bpos[bdim_[d]] = coord[d];
        }
      }
      for (size_t k = 0; k < nidx_; ++k) {
        int64_t e = 0;
        for (size_t j = 0; j < bnd_; ++j) e += bpos[j] * idx_strides_[k][j];
        int64_t v = value(k, e);
        if (v < 0) v += idx_size_[k];
        off += v * idx_self_stride_[k];
      }
      f(r, off);
      for (size_t d = result_.ndim; d > 0; --d) {
        if (++coord[d - 1] < result_.sizes[d - 1]) break;
        coord[d - 1] = 0;
      }
    }
  }

 private:
  bool broadcast_into(KernelRuntimeContext& ctx, const char* op, const Tensor& t) {
    if (nidx_ == 0) {
      bnd_ = t.dim();
      for (size_t j = 0; j < bnd_; ++j) b_[j] = t.sizes()[j];
      return true;
    }
    const size_t nd = t.dim() > bnd_ ? t.dim() : bnd_;
    int64_t out[kTensorDimensionLimit] = {};
    for (size_t j = 0; j < nd; ++j) {
      const int64_t a = j + bnd_ >= nd ? b_[j + bnd_ - nd] : 1;
      const int64_t b = j + t.dim() >= nd ? t.sizes()[j + t.dim() - nd] : 1;
      PTEC_KERNEL_CHECK_MSG(ctx, a == b || a == 1 || b == 1, InvalidArgument, false,
                            "%s: shape mismatch: indices could not be broadcast together", op);
      out[j] = a == 1 ? b : a;
    }
    bnd_ = nd;
    for (size_t j = 0; j < nd; ++j) b_[j] = out[j];
    return true;
  }

  int64_t value(size_t k, int64_t e) const {
    const Tensor& t = *idx_[k];
    return t.dtype() == DType::Long ? t.const_data_ptr<int64_t>()[e]
                                    : t.const_data_ptr<int32_t>()[e];
  }

  // Index tensors in order, with the size and stride of the self dim each indexes.
  const Tensor* idx_[kTensorDimensionLimit] = {};
  int64_t idx_size_[kTensorDimensionLimit] = {};
  int64_t idx_self_stride_[kTensorDimensionLimit] = {};
  int64_t idx_strides_[kTensorDimensionLimit][kTensorDimensionLimit] = {};
  size_t nidx_ = 0;
  // Broadcast shape B of the index tensors.
  int64_t b_[kTensorDimensionLimit] = {};
  size_t bnd_ = 0;
  // Result shape; per result dim the B dim it is (or -1) and the self stride of a self dim.
  Shape result_;
  int64_t bdim_[kTensorDimensionLimit] = {};
  int64_t self_stride_[kTensorDimensionLimit] = {};
};

}  // namespace ptec::kernels
