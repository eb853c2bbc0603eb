#pragma once

// Convolution as a sum over its taps (internal to kernels/optimized; conv2d() chooses it): for a
// convolution whose taps read the input for a small share of the output pixels (a dilation about
// as large as the feature map, DeepLab's atrous rate 12 at 14x14, where every tap is live for
// some pixels but only a fifth of the (pixel, tap) pairs read anything but padding), each tap
// (ky, kx) is a 1x1 convolution of the input shifted by the tap, over just the rectangle of
// output pixels where it lands inside the input:
//
//   y[:, rect] += W[:, :, ky, kx] (OC x C) * x[:, rect shifted] (C x |rect|)
//
// so the GEMMs compute only the pairs that read the input. The rectangle's input pixels are
// gathered into a C x |rect| matrix; a rectangle of whole output rows is accumulated into the
// output by the GEMM itself, any other through a product buffer. Bias first, then the taps, then
// residual and activation over the output. The weights are packed per tap (OC x C each).

#include <cstddef>

#include "kernels/optimized/conv2d.h"
#include "kernels/optimized/gemm.h"

namespace ptec::kernels::optimized {

/// The share of (output pixel, tap) pairs of `s` whose tap reads the input (not padding).
double conv2d_live_share(const Conv2dShape& s);

/// True where conv2d() computes `s` tap by tap when free to choose (ConvRows::Auto): a valid
/// convolution of one group, not depthwise, of more than one tap, whose live share is at most
/// 60%. Measured with AVX-512, one thread, 3x3 with padding = dilation, ms tap by tap / with
/// pixel rows: 960 -> 256 at 14x14 rate 12 (share 18%) 2.04 / 7.72; 256 -> 256 at 14x14 rate 6
/// (51%) 0.96 / 1.51, rate 4 (66%) 1.33 / 1.46; 2048 -> 256 at 28x28 rate 12 (51%) 35.0 / 65.7;
/// but 128 -> 128 at 7x7 rate 2 (66%) 0.135 / 0.101 and 64 -> 64 at 56x56 rate 12 (73%) 2.19 /
/// 1.75.
bool conv2d_sparse_taps_preferred(const Conv2dShape& s);

size_t conv2d_sparse_taps_packed_weights_bytes(const Conv2dShape& s);
/// Packs `weights` ([OC, C, KH, KW]) tap by tap (one packed OC x C A per tap) into `out`.
void conv2d_sparse_taps_pack_weights(const Conv2dShape& s, const float* weights, float* out);
size_t conv2d_sparse_taps_scratch_bytes(const Conv2dShape& s);

/// conv2d() for such a shape, with weights packed by conv2d_sparse_taps_pack_weights;
/// `input_scale` (N x C, may be null) as conv2d() takes it.
bool conv2d_sparse_taps(const Conv2dShape& s, const float* input, const float* packed_weights,
                        const GemmEpilogue& epilogue, float* output, void* scratch,
                        const float* input_scale);

}  // namespace ptec::kernels::optimized
