#pragma once

// Shared 2-D and 3-D pooling geometry: parameter checks and output sizes as ATen's
// pool2d_shape_check / pool3d_shape_check and pooling_output_shape compute them.

#include <cstdint>

#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

/// A 2-D pooling window over the last two dims of a 3-D (C, H, W) or 4-D (N, C, H, W) input.
struct Pool2d {
  int64_t planes = 0;  // N * C
  int64_t h = 0, w = 0, oh = 0, ow = 0;
  int64_t kh = 0, kw = 0, sh = 0, sw = 0, ph = 0, pw = 0, dh = 1, dw = 1;
  /// The output shape: the input's leading dims, then (oh, ow).
  Shape out_shape;
};

/// Validates kernel_size (1 or 2 values), stride (empty: the kernel size), padding, dilation
/// and the input rank, computes the output size (ceil_mode rounds up, but a window may not start
/// in the right/bottom padding) and fills `p`. Logs and fails the context on bad arguments.
bool make_pool2d(KernelRuntimeContext& ctx, const char* op, const Tensor& in, IntList kernel_size,
                 IntList stride, IntList padding, IntList dilation, bool ceil_mode, Pool2d* p);

/// A 3-D pooling window over the last three dims of a 4-D (C, D, H, W) or 5-D (N, C, D, H, W)
/// input.
struct Pool3d {
  int64_t planes = 0;  // N * C
  int64_t d = 0, h = 0, w = 0, od = 0, oh = 0, ow = 0;
  int64_t kd = 0, kh = 0, kw = 0, sd = 0, sh = 0, sw = 0, pd = 0, ph = 0, pw = 0;
  int64_t dd = 1, dh = 1, dw = 1;
  /// The output shape: the input's leading dims, then (od, oh, ow).
  Shape out_shape;
};

/// make_pool2d for 3-D pooling: kernel_size, stride, padding and dilation take 1 or 3 values.
bool make_pool3d(KernelRuntimeContext& ctx, const char* op, const Tensor& in, IntList kernel_size,
                 IntList stride, IntList padding, IntList dilation, bool ceil_mode, Pool3d* p);

}  // namespace ptec::kernels
