#pragma once

// Convolution with the output pixels as the GEMM's rows (internal to kernels/optimized; conv2d()
// runs it for ConvRows::Pixels, conv2d.h):
//
//   output^T[OH*OW x OC] = columns^T[OH*OW x K] * W^T[K x OC]
//
// The weights are packed once as B (W^T, pack_b). A is read in place: row i (output pixel
// (oy, ox)) at column p = (c, ky, kx) is tap p's base in channel c's plane plus pixel i's offset
// (oy sh q + ox sw, q the plane's row pitch), through the offsets microkernel; the planes are
// the input itself, or a zero-padded (and scaled) copy where the convolution pads (or scales) its
// input. Every row is an output pixel, so no padding column is computed and only the pixel count
// is rounded up to the panel height (8 rows with AVX-512, 7 where that computes 5% fewer rows): a
// 7x7 output is 49 rows, where the channel-major GEMM (conv2d.h) computes 64 columns of its
// 32-wide panels. Each work item (one B
// panel of output channels, up to 128 pixels) accumulates its tile in a buffer on the stack over
// the k slices, then transposes it into the NCHW output with bias, residual and activation.

#include <cstddef>

#include "kernels/optimized/conv2d.h"

namespace ptec::kernels::optimized {

// conv2d_pixels_applies and conv2d_pixels_preferred are in conv2d.h.

/// Bytes of the packed weights (W^T as the GEMM's B for the active microkernel).
size_t conv2d_pixels_packed_weights_bytes(const Conv2dShape& s);
/// Packs `weights` ([OC, C, KH, KW]) into `out` (64-byte aligned) for the active microkernel.
void conv2d_pixels_pack_weights(const Conv2dShape& s, const float* weights, float* out);

/// Scratch of conv2d_pixels (64-byte aligned): the pixel offsets, the tap pointers and room for
/// a padded copy of one image's input.
size_t conv2d_pixels_scratch_bytes(const Conv2dShape& s);

/// conv2d() for a shape where conv2d_pixels_applies, with weights packed by
/// conv2d_pixels_pack_weights. Returns false when the shape does not apply or scratch is missing.
/// `layouts`: a blocked input (read in place: no padding or scale) and output (no residual), the
/// blocks conv2d.h describes; a blocked output is stored from the tile rows without transposing.
bool conv2d_pixels(const Conv2dShape& s, const float* input, const float* packed_weights,
                   const GemmEpilogue& epilogue, float* output, void* scratch,
                   const float* input_scale, ConvLayouts layouts = {});

}  // namespace ptec::kernels::optimized
