#pragma once

// Direct stride-1 convolution (internal to kernels/optimized; conv2d() chooses it): the GEMM of
// conv2d.h without an im2col copy. The input of a group is copied once into zero-padded planes
// of pitch W + 2 pw; output pixel (oy, ox) at flat index i = oy * pitch + ox then reads tap
// (c, ky, kx) at padded[c][i + ky dh pitch + kx dw], so row p = (c, ky, kx) of the GEMM's B is
// a shifted view of the padded input (gemm_indirect), and nr consecutive flat outputs are one
// contiguous vector load per tap, however narrow the image. The pitch - ow extra columns per
// row are computed into a flat result and dropped when it is copied out with the epilogue.

#include <cstddef>

#include "kernels/optimized/conv2d.h"

namespace ptec::kernels::optimized {

/// Stride 1 and not a depthwise or an unpadded pointwise convolution (those have their own
/// paths).
bool conv2d_direct_applies(const Conv2dShape& s);

/// Scratch of conv2d_direct (64-byte aligned).
size_t conv2d_direct_scratch_bytes(const Conv2dShape& s);

/// conv2d() for a shape where conv2d_direct_applies, with packed weights (conv2d_pack_weights).
bool conv2d_direct(const Conv2dShape& s, const float* input, const float* packed_weights,
                   const GemmEpilogue& epilogue, float* output, void* scratch,
                   const float* input_scale);

}  // namespace ptec::kernels::optimized
