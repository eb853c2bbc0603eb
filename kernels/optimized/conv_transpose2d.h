#pragma once

// Transposed 2-D convolution of fp32 NCHW tensors as a GEMM and a scatter (col2im): per image and
// group, columns[(H W) x (OCg KH KW)] = X_g^T W_g, then each column value is added to the output
// pixel its input pixel and tap land on, on top of the bias; the activation runs over each
// finished output plane. The weights ([C, OC / groups, KH, KW]) are the GEMM's B as they are:
// packed once (conv_transpose2d_pack_weights, the CPU backend) or per call into the scratch.

#include <cstddef>
#include <cstdint>

#include "kernels/optimized/activation.h"

namespace ptec::kernels::optimized {

struct ConvTranspose2dShape {
  int64_t n = 1, c = 0, h = 0, w = 0;  // input
  int64_t oc = 0;                      // output channels
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  int64_t oph = 0, opw = 0;  // output padding
  int64_t groups = 1;

  int64_t oh() const { return (h - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1; }
  int64_t ow() const { return (w - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1; }
  /// Positive sizes, strides and dilations, non-negative padding, output padding below the
  /// stride or the dilation (as ATen), channels divisible by the groups, a non-empty output.
  bool valid() const;
};

/// Bytes of the packed weights (one GEMM B of C / groups x (OC / groups) KH KW per group).
size_t conv_transpose2d_packed_weights_bytes(const ConvTranspose2dShape& s);
/// Packs `weights` ([C, OC / groups, KH, KW]) into `out` (64-byte aligned) for the active GEMM
/// microkernel; use them while it stays active.
void conv_transpose2d_pack_weights(const ConvTranspose2dShape& s, const float* weights, float* out);
/// Scratch conv_transpose2d needs (64-byte aligned): the columns, the GEMM's packing of X^T and,
/// without packed weights, their packing.
size_t conv_transpose2d_scratch_bytes(const ConvTranspose2dShape& s, bool weights_packed);

/// y = act(conv_transpose(x, weights) + bias): x [N, C, H, W], y [N, OC, OH, OW]. `weights` is the
/// plain tensor, used when `packed_weights` (conv_transpose2d_pack_weights) is null. bias (OC
/// values) may be null; act as activate() takes it, with lo / hi. Returns false on an invalid
/// shape or missing scratch.
bool conv_transpose2d(const ConvTranspose2dShape& s, const float* x, const float* weights,
                      const float* packed_weights, const float* bias, Activation act, float lo,
                      float hi, float* y, void* scratch);

}  // namespace ptec::kernels::optimized
