#pragma once

// fp32 2-D convolution in NCHW on top of the packed GEMM (kernels/optimized/gemm.h):
//
//   per image and group, output[OCg x OH*OW] = weights[OCg x Cg*KH*KW] * columns[Cg*KH*KW x OH*OW]
//
// The weights are the GEMM's A operand (packable once, ahead of time). A 1x1, stride-1, unpadded
// convolution multiplies the input directly; other convolutions with strides up to 64 read the
// columns as shifted views of a zero-padded copy of the input (conv2d_direct.h, no im2col
// matrix); larger strides gather the columns straight into B panels, a chunk of output pixels at
// a time. Depthwise convolutions (one input channel per group) run a direct kernel instead. Bias,
// residual add and activation are fused (GemmEpilogue; bias is per output channel, residual has the
// output's shape).

#include <cstddef>
#include <cstdint>

#include "kernels/optimized/gemm.h"

namespace ptec::kernels::optimized {

struct Conv2dShape {
  int64_t n = 1, c = 0, h = 0, w = 0;  // input
  int64_t oc = 0, kh = 1, kw = 1;      // output channels, kernel extent
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t groups = 1;

  int64_t oh() const { return (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
  int64_t ow() const { return (w + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
  int64_t c_per_group() const { return c / groups; }
  int64_t oc_per_group() const { return oc / groups; }
  /// The GEMM's K: input channels of a group times kernel taps.
  int64_t k() const { return c_per_group() * kh * kw; }
  /// True when the shape is a valid convolution (positive sizes, divisible groups, output >= 1).
  bool valid() const;
  /// One input channel per group (depthwise, any channel multiplier).
  bool depthwise() const { return groups == c && groups > 1; }
  bool pointwise() const { return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0; }
};

/// How a depthwise convolution runs its planes. Rows: one output row at a time (3x3 and 5x5 rows
/// inside the input in one fused pass). Flat: a stride-1 or stride-2 3x3 or 5x5 plane as one
/// stencil over a zero-padded copy of the input, a band of output rows at a time whose copy fits
/// 16 KiB (split into stride x stride phases at stride 2; vectorized however narrow the plane).
/// Channels: 16 channels at a time, interleaved, each tap one multiply-add for all 16 (any
/// kernel, stride and dilation; conv2d_depthwise_channels.h). Auto: Channels where it is
/// preferred, else Flat where it is, else Rows.
enum class DepthwisePath : uint8_t { Auto, Rows, Flat, Channels };
/// True when the Flat path applies to the (depthwise) shape: a row of the padded input is narrow
/// enough for a band of at least one output row.
bool depthwise_flat_applies(const Conv2dShape& s);
/// True when the Channels path applies to the (depthwise) shape: at most 64 taps, and the padded
/// input rows of one output row fit 32 KiB for 16 channels (rows up to 510 pixels wide for 3x3).
bool depthwise_channels_applies(const Conv2dShape& s);
/// True where Auto takes the Channels path (measured, 1 thread): see conv2d.cpp.
bool depthwise_channels_preferred(const Conv2dShape& s);
/// True where Auto takes the Flat path (measured, 1 thread): 5x5 kernels, and 3x3 ones whose
/// input rows are narrower than 64 columns; wider 3x3 rows are as fast or faster on Rows, which
/// reads the input in place.
bool depthwise_flat_preferred(const Conv2dShape& s);

/// Weights packed for the active GEMM microkernel, one PackedMatrix per group (depthwise
/// convolutions keep the plain [OC, 1, KH, KW] layout and need no packing).
size_t conv2d_packed_weights_bytes(const Conv2dShape& s);
/// Packs `weights` ([OC, C/groups, KH, KW]) into `out` (conv2d_packed_weights_bytes, 64-byte
/// aligned) for the active GEMM microkernel; use them while the same microkernel is active.
void conv2d_pack_weights(const Conv2dShape& s, const float* weights, float* out);

/// Scratch conv2d() needs (64-byte aligned); `weights_packed` says whether the caller passes
/// packed weights.
size_t conv2d_scratch_bytes(const Conv2dShape& s, bool weights_packed);

/// output[N, OC, OH, OW] = act(conv(input, weights) + bias + residual). `weights` is the plain
/// [OC, C/groups, KH, KW] tensor, or (packed_weights != null) what conv2d_pack_weights wrote.
/// epilogue.bias (per output channel), epilogue.residual (output-shaped, ldr ignored) and the
/// activation are applied; bias_per_row is implied. `input_scale` (N x C, may be null)
/// multiplies input channel c of image n by input_scale[n * C + c] first (a squeeze-and-excite
/// gate folded into the convolution that reads it; not for depthwise convolutions).
/// `depthwise_path` chooses a depthwise convolution's path (Flat where it does not apply runs
/// Rows). Returns false on an invalid shape, missing scratch or a scale on a depthwise
/// convolution.
bool conv2d(const Conv2dShape& s, const float* input, const float* weights,
            const float* packed_weights, const GemmEpilogue& epilogue, float* output, void* scratch,
            const float* input_scale = nullptr, DepthwisePath depthwise_path = DepthwisePath::Auto);

}  // namespace ptec::kernels::optimized
