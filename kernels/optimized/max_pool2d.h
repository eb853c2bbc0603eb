#pragma once

// fp32 2-D max pooling in NCHW (aten::max_pool2d semantics without indices): each output is the
// largest input of its window (kernel, stride, padding, dilation; padding never wins), NaN when
// the window holds a NaN, -inf for a window with no input element. Planes of rows shorter than
// 32 pooled at stride 1 (undilated, kernels up to 7x7) are copied into a -inf-padded buffer and
// pooled as one flat range, every tap a vector maximum. Other planes go one output row at a time:
// rows whose window lies inside the input take a fused pass for undilated 2x2 and 3x3 kernels at
// stride 1 or 2 (the column maxima of the window's rows, then the maxima of neighbouring
// columns, in registers as wide as the ISA's), edges and other shapes go tap by tap.

#include <cstdint>

namespace ptec::kernels::optimized {

struct MaxPool2dShape {
  int64_t planes = 0;      // batch x channels
  int64_t h = 0, w = 0;    // input
  int64_t oh = 0, ow = 0;  // output (the caller's: floor or ceil mode)
  int64_t kh = 1, kw = 1;  // kernel
  int64_t sh = 1, sw = 1;  // stride
  int64_t ph = 0, pw = 0;  // padding
  int64_t dh = 1, dw = 1;  // dilation

  /// Positive sizes, strides and dilations, non-negative padding.
  bool valid() const;
};

/// out[planes, oh, ow] = max pooling of in[planes, h, w], planes spread over the threads.
/// Returns false (and writes nothing) for an invalid shape.
bool max_pool2d(const MaxPool2dShape& s, const float* in, float* out);

}  // namespace ptec::kernels::optimized
