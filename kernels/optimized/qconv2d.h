#pragma once

// int8 2-D convolution in NCHW on top of the int8 GEMM (kernels/optimized/qgemm.h):
//
//   per image and group, out[OCg x OH*OW] = requantize(weights[OCg x Cg*KH*KW] *
//                                                      columns[Cg*KH*KW x OH*OW])
//
// The columns are gathered (im2col) from the uint8 / int8 input, padding with the input's zero
// point (the quantized 0), then packed by qgemm a panel at a time; a 1x1, stride-1, unpadded
// convolution reads the input directly, and larger kernels read a zero-point-padded copy split
// by stride phase in place. Depthwise convolutions (one input channel per group) run a direct
// kernel (qconv2d_depthwise.h) over a 16-bit copy of each plane shifted by the zero point, two
// kernel rows per multiply-add. Weights are int8
// [OC, C/groups, KH, KW] with per-channel (or one) zero points; the requantization (scale, bias,
// output zero point, ReLU / clamp bounds) is the QEpilogue's with one entry per output channel
// (scale per row).

#include <cstddef>
#include <cstdint>

#include "kernels/optimized/conv2d.h"
#include "kernels/optimized/qgemm.h"

namespace ptec::kernels::optimized {

/// Bytes of the packed weights (one QPackedA per group; none for depthwise).
size_t qconv2d_packed_weights_bytes(const Conv2dShape& s);
/// Packs int8 `weights` ([OC, C/groups, KH, KW]) into `out` for the active int8 microkernel.
void qconv2d_pack_weights(const Conv2dShape& s, const int8_t* weights, void* out);
/// Scratch qconv2d() needs (64-byte aligned) with `workers` (qconv2d()'s).
size_t qconv2d_scratch_bytes(const Conv2dShape& s, int64_t workers = 1);

/// output[N, OC, OH, OW] = requantize(conv(input - x_zero_point, weights - w_zero_points)).
/// `input` is uint8, or int8 when `x_signed`. `epilogue` holds per-output-channel scale
/// (scale_per_row), bias and a_zero_points (weights' zero points, may be null); its
/// b_zero_point is ignored (x_zero_point is used). `weights` is always the plain int8 tensor;
/// `packed` what qconv2d_pack_weights wrote (unused for depthwise). Returns false on an invalid
/// shape, weights packed for another microkernel, missing scratch, workers below 1, or, for a
/// depthwise convolution, a zero point (x_zero_point, a_zero_points) outside [-128, 255].
/// `workers`: the threads a depthwise convolution's channels are spread over, a channel per
/// worker's scratch at a time (the scratch must hold qconv2d_scratch_bytes with the same
/// `workers`); the others parallelize inside their GEMMs.
bool qconv2d(const Conv2dShape& s, const void* input, bool x_signed, int32_t x_zero_point,
             const int8_t* weights, const void* packed, const QEpilogue& epilogue, void* output,
             void* scratch, int64_t workers = 1);

}  // namespace ptec::kernels::optimized
