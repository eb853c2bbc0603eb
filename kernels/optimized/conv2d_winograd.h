#pragma once

// Winograd F(2x2, 3x3) convolution (Lavin & Gray, "Fast Algorithms for Convolutional Neural
// Networks", 2015) for 3x3, stride-1, undilated, ungrouped fp32 convolutions in NCHW.
//
// The output is cut into 2x2 tiles; each tile needs a 4x4 input patch d. With the fixed
// matrices B, G and A,
//
//   V = B^T d B (per input channel),  U = G g G^T (per weight 3x3, once at pack time),
//   M[xi] = U[xi] * V[xi]             (16 GEMMs, one per position xi of the 4x4 transforms:
//                                      OC x C times C x tiles),
//   y = A^T M A                       (per output channel and tile: the 2x2 outputs),
//
// so a tile costs 16 multiply-adds per (input, output) channel pair instead of 36: 2.25x fewer
// than im2col + GEMM, paid for with the transforms (linear in channels) and 16/9 more packed
// weight bytes. Tiles go through in chunks so that the transformed inputs and the products of a
// chunk stay in cache; the chunk (tiles per pass) is a blocking a caller may choose (engines
// autotune it; 0 picks the default). Bias, residual add and activation are applied when the
// outputs are written (GemmEpilogue, bias per output channel, residual shaped like the output).
//
// Rounding differs from a direct convolution by a few ulps of the largest partial sums (the
// transforms add and subtract up to 4 values, G halves); tests compare with a tolerance of
// 1e-4 relative to the sum of absolute products.

#include <cstddef>
#include <cstdint>

#include "kernels/optimized/conv2d.h"
#include "kernels/optimized/gemm.h"

namespace ptec::kernels::optimized {

/// True when the shape is one Winograd F(2x2, 3x3) computes: valid, 3x3 kernel, stride 1,
/// dilation 1, one group (any padding, batch, channel counts and spatial size).
bool winograd_applies(const Conv2dShape& s);

/// The default choice between Winograd and conv2d (a direct convolution at stride 1): Winograd
/// where it applies, both channel counts are at least 128 (the transforms' cost is per channel,
/// the saving per channel pair: at 64 channels on 56x56 the direct convolution is faster, 1.76
/// vs 2.16 ms) and the image has at least 32 tiles (on fewer, the 16/9 more weight bytes streamed
/// per pass outweigh the saved multiplies: ResNet-18's 7x7 layer runs faster directly, its 14x14
/// and 28x28 ones 1.3x faster with Winograd; bench/conv_bench).
bool winograd_preferred(const Conv2dShape& s);

/// Bytes of the transformed, packed weights: 16 packed OC x C matrices for the active GEMM
/// microkernel.
size_t winograd_packed_weights_bytes(const Conv2dShape& s);
/// Transforms `weights` ([OC, C, 3, 3]) and packs them into `out` (winograd_packed_weights_bytes,
/// 64-byte aligned). Use them while the same GEMM microkernel is active.
void winograd_pack_weights(const Conv2dShape& s, const float* weights, float* out);

/// The default chunk: tiles per pass, a multiple of the microkernel's nr, sized so that one
/// pass's transformed inputs and products take about 2 MiB (never more tiles than the image has,
/// rounded up to nr).
int64_t winograd_default_chunk(const Conv2dShape& s);
/// Scratch conv2d_winograd needs with `chunk` tiles per pass (0: the default), 64-byte aligned.
size_t winograd_scratch_bytes(const Conv2dShape& s, int64_t chunk);

/// output[N, OC, OH, OW] = act(conv(input, weights) + bias + residual) with the weights as
/// winograd_pack_weights wrote them. `chunk` as for winograd_scratch_bytes (a value that is not
/// a multiple of nr is rounded up to one). `input_scale` as for conv2d. Returns false when the
/// shape does not apply, chunk is negative, or scratch is missing.
bool conv2d_winograd(const Conv2dShape& s, const float* input, const float* packed_weights,
                     const GemmEpilogue& epilogue, float* output, int64_t chunk, void* scratch,
                     const float* input_scale = nullptr);

}  // namespace ptec::kernels::optimized
