#pragma once

// Winograd convolution (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", 2015)
// for 3x3, stride-1, undilated, ungrouped fp32 convolutions in NCHW, in two variants:
// F(2x2, 3x3) and F(4x4, 3x3).
//
// The output is cut into t x t tiles (t = 2 or 4); each tile needs a (t + 2) x (t + 2) input
// patch d. With the variant's fixed matrices B, G and A,
//
//   V = B^T d B (per input channel),  U = G g G^T (per weight 3x3, once at pack time),
//   M[xi] = U[xi] * V[xi]             (one GEMM per position xi of the (t + 2)^2 transform
//                                      positions: OC x C times C x tiles),
//   y = A^T M A                       (per output channel and tile: the t x t outputs),
//
// so a tile costs (t + 2)^2 multiply-adds per (input, output) channel pair instead of 9 t^2:
// 2.25x fewer than a direct convolution for F(2x2), 4x fewer for F(4x4), paid for with the
// transforms (linear in channels) and 16/9 (36/9) more packed weight bytes. Tiles go through in
// chunks so that the transformed inputs and the products of a chunk stay in cache; the chunk
// (tiles per pass) is a blocking a caller may choose (engines autotune it; 0 picks the default).
// Bias, residual add and activation are applied when the outputs are written (GemmEpilogue, bias
// per output channel, residual shaped like the output).
//
// Rounding differs from a direct convolution: F(2x2)'s transforms add and subtract up to 4
// values and G halves; F(4x4)'s scale by up to 8 and G divides by 24, so its error is about ten
// times larger (tests compare F(2x2) with a tolerance of 1e-4 and F(4x4) of 1e-3 relative to the
// sum of absolute products).

#include <cstddef>
#include <cstdint>

#include "kernels/optimized/conv2d.h"
#include "kernels/optimized/gemm.h"

namespace ptec::kernels::optimized {

/// The output tile of a Winograd convolution: 2x2 or 4x4 outputs per transform.
enum class WinogradVariant : uint8_t { F2x2, F4x4 };
const char* to_string(WinogradVariant v);

/// True when the shape is one Winograd computes: valid, 3x3 kernel, stride 1, dilation 1, one
/// group (any padding, batch, channel counts and spatial size).
bool winograd_applies(const Conv2dShape& s);

/// The default choice between Winograd and conv2d (a direct convolution at stride 1), measured
/// with a residual and relu (ms, direct / F(2x2) / F(4x4), one thread unless said). The transforms
/// cost per channel and the saving is per channel pair, so the choice follows c oc / (c + oc):
/// F(4x4) where that is at least 14 and the image has at least 7 x 7 of its tiles (56x56x64: 1.21
/// / 1.16 / 0.68; 56x56x48: 0.84 / 0.82 / 0.48; 28x28x128: 1.13 / 0.91 / 0.59; ms direct or
/// pixel rows, the faster, / F(4x4), one and two threads: 104x104 32 -> 64 3.07 / 1.73, 1.50 /
/// 1.05; 56x56x32 0.42 / 0.31, 0.25 / 0.23; 56x56 24 -> 48 0.49 / 0.34, 0.29 / 0.24); not below
/// 14, where Winograd wins at one thread but loses at two (55x55 16 -> 64: 0.40 / 0.34, 0.22 /
/// 0.25; 208x208 16 -> 32 3.07 / 2.58, 1.64 / 1.64; 112x112x16 0.49 / 0.51); else F(2x2) where it
/// is at least 64 and there are at least 32 of its tiles (14x14x256: 1.34 / 0.92 / 1.06; 14x14x128:
/// 0.28 / 0.25 / 0.27) and its transformed weights take at most 6 MiB; else direct (14x14x96:
/// 0.180 / 0.167 / 0.179; 7x7x512: 1.28 / 1.60 / 4.05, the weights are 16/9 or 4 times the
/// bytes). The 6 MiB: run alone, with its weights in cache, F(2x2) wins at 13x13 256 -> 512 (2.10
/// ms against 2.64 for pixel rows) and 14x14 512 -> 512 (4.03 / 5.87), but in a model, where
/// they arrive from memory, it lost: a Tiny-YOLO's two 13x13 256 -> 512 layers 3.28 / 3.35 ->
/// 2.60 / 2.66 ms, VGG-11's 14x14 512 -> 512 ones 7.0 / 7.3 -> 6.3 / 6.4. Returns whether
/// Winograd is preferred and, if so and `variant` is not null, which variant.
bool winograd_preferred(const Conv2dShape& s, WinogradVariant* variant = nullptr);

/// Bytes of the transformed, packed weights: one packed OC x C matrix per transform position
/// ((t + 2)^2) for the active GEMM microkernel.
size_t winograd_packed_weights_bytes(const Conv2dShape& s, WinogradVariant v);
/// Transforms `weights` ([OC, C, 3, 3]) and packs them into `out` (winograd_packed_weights_bytes,
/// 64-byte aligned). Use them while the same GEMM microkernel is active.
void winograd_pack_weights(const Conv2dShape& s, WinogradVariant v, const float* weights,
                           float* out);

/// The default chunk: tiles per pass, a multiple of the microkernel's nr, sized so that one
/// pass's transformed inputs and products take about 1 MiB for F(4x4) and 2 MiB for F(2x2) (never
/// more tiles than the image has, rounded up to nr). Measured, one thread, AVX-512, ms by tiles
/// per pass (32 / 64 / 96 / all): F(4x4) 56x56x64 0.75 / 0.80 / 0.99 / 1.12, 28x28x128 0.62 /
/// 0.80 / 0.83 / 0.84; F(2x2) 14x14x256 0.96 / 0.90 / 0.90 / 0.90. Passes that outgrow L2 cost
/// more than the weights they read again; F(2x2)'s 14x14 layers pay more for each extra pass. With
/// `workers` > 1, also no more tiles than one worker's share (so that each has a pass to run).
int64_t winograd_default_chunk(const Conv2dShape& s, WinogradVariant v, int64_t workers = 1);
/// Scratch conv2d_winograd needs with `chunk` tiles per pass (0: the default) and `workers`
/// workers, 64-byte aligned: each worker's transformed inputs and products of one pass, and a
/// zero-padded copy of one image's input unless every patch lies inside it.
size_t winograd_scratch_bytes(const Conv2dShape& s, WinogradVariant v, int64_t chunk,
                              int64_t workers = 1);

/// output[N, OC, OH, OW] = act(conv(input, weights) + bias + residual) with the weights as
/// winograd_pack_weights wrote them for the same variant. `chunk` and `workers` as for
/// winograd_scratch_bytes (a chunk that is not a multiple of nr is rounded up to one); the
/// passes are split among up to `workers` threads (one parallel region per image; with one
/// worker the GEMMs may use the threads themselves). `input_scale` as for conv2d. Returns false
/// when the shape does not apply, chunk is negative, workers is below 1, or scratch is missing.
bool conv2d_winograd(const Conv2dShape& s, WinogradVariant v, const float* input,
                     const float* packed_weights, const GemmEpilogue& epilogue, float* output,
                     int64_t chunk, void* scratch, const float* input_scale = nullptr,
                     int64_t workers = 1);

}  // namespace ptec::kernels::optimized
