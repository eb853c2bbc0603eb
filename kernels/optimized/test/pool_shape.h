#pragma once

// The 2-D pooling shape the kernel tests build: square kernel, stride, padding and dilation,
// output sizes as ATen computes them (floor or ceil mode).

#include <cstdint>

#include "kernels/optimized/max_pool2d.h"

namespace ptec::kernels::optimized {

inline MaxPool2dShape pool(int64_t planes, int64_t h, int64_t w, int64_t k, int64_t stride,
                           int64_t pad, int64_t dilation = 1, bool ceil = false) {
  MaxPool2dShape s;
  s.planes = planes;
  s.h = h;
  s.w = w;
  s.kh = s.kw = k;
  s.sh = s.sw = stride;
  s.ph = s.pw = pad;
  s.dh = s.dw = dilation;
  auto out = [&](int64_t in) {
    const int64_t span = in + 2 * pad - dilation * (k - 1) - 1;
    int64_t o = (ceil ? (span + stride - 1) / stride : span / stride) + 1;
    if (ceil && (o - 1) * stride >= in + pad) --o;  // the last window starts inside (ATen)
    return o;
  };
  s.oh = out(h);
  s.ow = out(w);
  return s;
}

}  // namespace ptec::kernels::optimized
