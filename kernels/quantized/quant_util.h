#pragma once

// Helpers shared by the quantized kernels: the quantized dtypes and their ranges, the
// per-channel loop, and the checks of scale / zero-point tensors.

#include <cstdint>

#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels::quant {

/// Calls f(T{}) for the quantized storage dtypes Byte, Char, Short and Int; false otherwise.
template <typename F>
bool dispatch_quant(DType t, F&& f) {
  switch (t) {
    case DType::Byte: f(uint8_t{}); return true;
    case DType::Char: f(int8_t{}); return true;
    case DType::Short: f(int16_t{}); return true;
    case DType::Int: f(int32_t{}); return true;
    default: return false;
  }
}

/// The range of a quantized storage dtype; false for any other dtype.
bool quant_range(DType t, int64_t* lo, int64_t* hi);

/// Checks that `t` is one of Byte, Char, Short, Int; `what` names the argument.
bool check_quant_dtype(KernelRuntimeContext& ctx, const char* op, DType t, const char* what);

/// Checks that `t` has dtype `dtype` and `numel` elements (a one-element scale or zero point
/// when numel is 1, one per channel otherwise).
bool check_param_tensor(KernelRuntimeContext& ctx, const char* op, const Tensor& t, DType dtype,
                        int64_t numel, const char* what);

/// The layout of dim `axis` of a contiguous tensor: outer * channels * inner elements.
struct ChannelLayout {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
};

/// Wraps `axis` for `input` (which must have at least one dim) and returns its layout.
bool channel_layout(KernelRuntimeContext& ctx, const char* op, const Tensor& input, int64_t axis,
                    ChannelLayout* layout);

/// Calls fn(i, c) for every flat index i of a tensor with `layout`, c being its channel.
template <typename Fn>
void for_each_channel(const ChannelLayout& layout, Fn&& fn) {
  int64_t i = 0;
  for (int64_t o = 0; o < layout.outer; ++o) {
    for (int64_t c = 0; c < layout.channels; ++c) {
      for (int64_t k = 0; k < layout.inner; ++k) fn(i++, c);
    }
  }
}

}  // namespace ptec::kernels::quant
