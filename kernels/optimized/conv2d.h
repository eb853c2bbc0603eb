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

/// The kernel rows [ky0, ky1] and columns [kx0, kx1] of a convolution that read the input for
/// at least one output pixel; the others read only padding (a dilation as large as the input,
/// as DeepLab's atrous pyramid has at a 14x14 feature map).
struct ConvTaps {
  int64_t ky0 = 0, ky1 = 0, kx0 = 0, kx1 = 0;
};
ConvTaps conv2d_live_taps(const Conv2dShape& s);
/// The same convolution with its dead taps left out: kernel (ky1 - ky0 + 1) x (kx1 - kx0 + 1),
/// padding less ky0 * dh / kx0 * dw, dilation 1 along a dim left with one tap. Applies (returns
/// true, with `reduced` and `taps` set) where some tap is dead, the convolution is not
/// depthwise, and the reduced padding is non-negative with the same output size; its weights
/// are conv2d_slice_taps of the full ones.
bool conv2d_without_dead_taps(const Conv2dShape& s, Conv2dShape* reduced, ConvTaps* taps);
/// Copies taps [ky0, ky1] x [kx0, kx1] of `weights` ([OC, C/groups, KH, KW] of `s`) into `out`
/// ([OC, C/groups, ky1 - ky0 + 1, kx1 - kx0 + 1]).
void conv2d_slice_taps(const Conv2dShape& s, const ConvTaps& taps, const float* weights,
                       float* out);

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
/// input rows of one output row fit 32 KiB for 16 channels (padded rows of up to 170 pixels for
/// 3x3 kernels), and one output row 16 KiB.
bool depthwise_channels_applies(const Conv2dShape& s);
/// True where Auto takes the Channels path (measured, 1 thread): see conv2d.cpp.
bool depthwise_channels_preferred(const Conv2dShape& s);
/// True where Auto takes the Flat path (measured, 1 thread): 5x5 kernels, and 3x3 ones whose
/// input rows are narrower than 64 columns; wider 3x3 rows are as fast or faster on Rows, which
/// reads the input in place.
bool depthwise_flat_preferred(const Conv2dShape& s);

/// Which of the GEMM's dimensions the output pixels are, for a convolution that is not
/// depthwise. Channels: the output channels are its rows (the weights its A), the pixels (or the
/// direct path's flat result, padding columns included) its columns. Pixels: the output pixels
/// are its rows, the weights its B, the tiles transposed into the output (one group only;
/// conv2d_pixels.h). Auto: Pixels where conv2d_pixels_preferred, else Channels.
enum class ConvRows : uint8_t { Auto, Channels, Pixels };
/// True when Pixels applies: a valid convolution of one group that is not depthwise.
bool conv2d_pixels_applies(const Conv2dShape& s);
/// True where Auto takes Pixels (measured, one thread): where its rows (output pixels rounded
/// up to the panel height) times the output channels rounded up to the panel width are at most
/// 97% of the Channels product's (output channels rounded up to the panel height times its
/// columns rounded up to the panel width); but not for a stride-1 pointwise convolution of more
/// than 256 pixels, whose few multiply-adds per output do not pay for transposing its tiles
/// (24 -> 144 channels at 56x56: 0.17 ms against 0.26). It pays most where the columns waste
/// most: 64 -> 256 channels 3x3 at 13x13 0.40 -> 0.30 ms, 256 -> 512 3x3 stride 2 at 14x14
/// 0.96 -> 0.78, 512 3x3 at 7x7 1.76 -> 1.56, 960 -> 160 at 7x7 0.118 -> 0.101.
/// A strided 1x1 convolution takes Pixels wherever its rows are no more than the Channels
/// product's and its input fits in 2 MiB (L2): Pixels reads it in place where Channels copies its
/// stride phase (64 -> 128 and 64 -> 256 channels at 56x56 stride 2: 0.116 -> 0.093 and
/// 0.23 -> 0.19 ms, 32 -> 64 at 112x112 0.17 -> 0.14); with a larger input Channels is faster
/// (256 -> 512 at 56x56: 1.54 ms against 1.77).
bool conv2d_pixels_preferred(const Conv2dShape& s);

/// Weights packed for the active GEMM microkernel and the rows `rows` resolves to: one
/// PackedMatrix (A) per group, or W^T as B (Pixels). Depthwise convolutions keep the plain
/// [OC, 1, KH, KW] layout and need no packing.
size_t conv2d_packed_weights_bytes(const Conv2dShape& s, ConvRows rows = ConvRows::Auto);
/// Packs `weights` ([OC, C/groups, KH, KW]) into `out` (conv2d_packed_weights_bytes, 64-byte
/// aligned) for the active GEMM microkernel and `rows`; use them while the same microkernel is
/// active, with the same `rows`.
void conv2d_pack_weights(const Conv2dShape& s, const float* weights, float* out,
                         ConvRows rows = ConvRows::Auto);

/// Whether conv2d() given plain weights (no packed_weights), with the default path choices and
/// layouts, reads them in place as the GEMM's A instead of packing them on every call: where
/// they are at least as many as the batch's output pixels per output channel and those pixels
/// few (the deep layers of a small image, where packing took longer than the product), unless
/// the tap-by-tap path would skip three quarters of the work. Packed weights never take this
/// path.
bool conv2d_weights_read_in_place(const Conv2dShape& s);

/// Scratch conv2d() needs (64-byte aligned) with `rows` and `workers` (conv2d()'s);
/// `weights_packed` says whether the caller passes packed weights.
size_t conv2d_scratch_bytes(const Conv2dShape& s, bool weights_packed,
                            ConvRows rows = ConvRows::Auto, int64_t workers = 1);

/// Where a convolution's input or output is kept in blocks of channels instead of planes (between
/// two convolutions that both run on it, so that neither transposes): element (n, c, y, x) of an
/// N x C x H x W tensor at ((n C / B + c / B) H W + y W + x) B + c % B, B = blocked_channels().
struct ConvLayouts {
  bool input_blocked = false;
  bool output_blocked = false;
};
/// The channels per block: half the active GEMM microkernel's panel width, which is also the
/// channel-interleaved depthwise path's lane count (16 with AVX-512, 8 with AVX2, else 4).
int64_t blocked_channels();
/// Whether conv2d() with these choices reads a blocked input / writes a blocked output (without a
/// residual or input scale): the channel-interleaved depthwise path (channel multiplier 1) both;
/// output pixels as the GEMM's rows the output, and the input where it reads it in place (no
/// padding). The channel counts must be multiples of blocked_channels().
bool conv2d_reads_blocked(const Conv2dShape& s, DepthwisePath depthwise_path, ConvRows rows);
bool conv2d_writes_blocked(const Conv2dShape& s, DepthwisePath depthwise_path, ConvRows rows);

/// output[N, OC, OH, OW] = act(conv(input, weights) + bias + residual). `weights` is the plain
/// [OC, C/groups, KH, KW] tensor, or (packed_weights != null) what conv2d_pack_weights wrote.
/// epilogue.bias (per output channel), epilogue.residual (output-shaped, ldr ignored) and the
/// activation are applied; bias_per_row is implied. `input_scale` (N x C, may be null)
/// multiplies input channel c of image n by input_scale[n * C + c] first (a squeeze-and-excite
/// gate folded into the convolution that reads it; not for depthwise convolutions).
/// `depthwise_path` chooses a depthwise convolution's path (Flat or Channels where it does not
/// apply runs Rows), `rows` another one's (Pixels where it does not apply runs Channels; packed
/// weights must have been packed for the same `rows`). `layouts`: a blocked input or output
/// (ConvLayouts) where conv2d_reads_blocked / conv2d_writes_blocked. Returns false on an invalid
/// shape, missing scratch, a scale on a depthwise convolution, or a blocked layout the chosen path
/// does not take (or with a residual or input scale).
/// `workers`: the threads a grouped convolution whose groups are too small to share them may
/// spread its groups over (one group per thread at a time), with scratch for as many
/// (conv2d_scratch_bytes with the same `workers`); 1 runs them in turn.
bool conv2d(const Conv2dShape& s, const float* input, const float* weights,
            const float* packed_weights, const GemmEpilogue& epilogue, float* output, void* scratch,
            const float* input_scale = nullptr, DepthwisePath depthwise_path = DepthwisePath::Auto,
            ConvRows rows = ConvRows::Auto, ConvLayouts layouts = {}, int64_t workers = 1);

}  // namespace ptec::kernels::optimized
