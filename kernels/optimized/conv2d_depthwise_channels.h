#pragma once

// Depthwise convolution across channels (internal to kernels/optimized; conv2d() chooses it):
// 16 output channels at a time, their zero-padded input planes interleaved into one buffer
// (pixel-major, the 16 channels of a pixel side by side), so that each tap of each output pixel
// is one 16-wide multiply-add for all 16 channels, however narrow the plane; the outputs are
// interleaved the same way and copied back into their planes. On planes of 7x7 to 28x28, where a
// row is shorter than a few vectors, the per-plane paths spend more on padding, edges and
// partial vectors than on the taps. A band of output rows runs at a time, its buffers on the
// stack.

#include "kernels/optimized/conv2d.h"

namespace ptec::kernels::optimized {

/// conv2d() for a depthwise shape where depthwise_channels_applies (conv2d.h): `weights` is the
/// plain [OC, 1, KH, KW] tensor; epilogue.bias is per output channel, epilogue.residual
/// output-shaped. `layouts`: the input and output blocked (conv2d.h; their blocks are this path's
/// lanes, so a band is copied instead of transposed), with a channel multiplier of 1 and no
/// residual.
void depthwise_channels(const Conv2dShape& s, const float* input, const float* weights,
                        const GemmEpilogue& epilogue, float* output, ConvLayouts layouts = {});

}  // namespace ptec::kernels::optimized
