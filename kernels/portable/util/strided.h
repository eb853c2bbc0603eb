#pragma once

// Walking strided views of contiguous buffers: the index math behind permute, expand, slice,
// reductions and broadcasting, written once.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

/// A strided view over a buffer: sizes and strides in elements, enumerated in row-major order.
/// Holds at most kTensorDimensionLimit dims; dims of size 1 may be dropped by the caller.
class StridedView {
 public:
  /// Appends a dimension (outermost first). Returns false past the rank limit.
  bool add_dim(int64_t size, int64_t stride) {
    if (ndim_ == kTensorDimensionLimit) return false;
    sizes_[ndim_] = size;
    strides_[ndim_] = stride;
    ++ndim_;
    return true;
  }
  size_t ndim() const { return ndim_; }
  int64_t numel() const {
    int64_t n = 1;
    for (size_t i = 0; i < ndim_; ++i) n *= sizes_[i];
    return n;
  }

  /// Calls f(offset) for every element, in row-major order of the view.
  template <typename F>
  void for_each(F&& f) const {
    if (numel() == 0) return;
    if (ndim_ == 0) {
      f(int64_t{0});
      return;
    }
    const size_t last = ndim_ - 1;
    const int64_t inner = sizes_[last];
    const int64_t inner_stride = strides_[last];
    int64_t idx[kTensorDimensionLimit] = {};
    int64_t base = 0;
    while (true) {
      for (int64_t j = 0; j < inner; ++j) f(base + j * inner_stride);
      // Advance the outer counters (odometer); done when the outermost one wraps.
      size_t d = last;
      while (true) {
        if (d == 0) return;
        --d;
        base += strides_[d];
        if (++idx[d] < sizes_[d]) break;
        base -= strides_[d] * sizes_[d];
        idx[d] = 0;
      }
    }
  }

  int64_t size(size_t d) const { return sizes_[d]; }
  int64_t stride(size_t d) const { return strides_[d]; }

 private:
  int64_t sizes_[kTensorDimensionLimit] = {};
  int64_t strides_[kTensorDimensionLimit] = {};
  size_t ndim_ = 0;
};

/// Walks two views of the same sizes together: f(offset_in_a, offset_in_b) for every index.
template <typename F>
void for_each_pair(const StridedView& a, const StridedView& b, F&& f) {
  if (a.numel() == 0) return;
  const size_t nd = a.ndim();
  if (nd == 0) {
    f(int64_t{0}, int64_t{0});
    return;
  }
  const size_t last = nd - 1;
  int64_t idx[kTensorDimensionLimit] = {};
  int64_t base_a = 0, base_b = 0;
  while (true) {
    for (int64_t j = 0; j < a.size(last); ++j)
      f(base_a + j * a.stride(last), base_b + j * b.stride(last));
    size_t d = last;
    while (true) {
      if (d == 0) return;
      --d;
      base_a += a.stride(d);
      base_b += b.stride(d);
      if (++idx[d] < a.size(d)) break;
      base_a -= a.stride(d) * a.size(d);
      base_b -= b.stride(d) * b.size(d);
      idx[d] = 0;
    }
  }
}

/// Copies the elements of `view` over `src` (element size `elem_size`) into `dst`, densely and
/// in the view's order.
inline void copy_strided(const void* src, void* dst, size_t elem_size, const StridedView& view) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* s = static_cast<const T*>(src);
    T* d = static_cast<T*>(dst);
    view.for_each([&](int64_t off) { *d++ = s[off]; });
  };
  switch (elem_size) {
    case 1: run(uint8_t{}); return;
    case 2: run(uint16_t{}); return;
    case 4: run(uint32_t{}); return;
    case 8: run(uint64_t{}); return;
    default: break;
  }
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  view.for_each([&](int64_t off) {
    std::memcpy(d, s + off * static_cast<int64_t>(elem_size), elem_size);
    d += elem_size;
  });
}

/// Contiguous strides (in elements) of `t`, with the stride of size-1 dims kept as computed.
inline void contiguous_strides(const Tensor& t, int64_t* strides) {
  int64_t s = 1;
  for (size_t i = t.dim(); i > 0; --i) {
    strides[i - 1] = s;
    s *= t.size(static_cast<int64_t>(i - 1));
  }
}

}  // namespace ptec::kernels
