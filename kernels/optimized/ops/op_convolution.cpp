// convolution.out, optimized: fp32 1-D and 2-D forward convolutions run on
// kernels/optimized/conv2d.h (packed GEMM / direct depthwise; 1-D as one row) with scratch from
// the temp allocator, 3-D ones (video models) as 2-D convolutions of frames (a single temporal
// tap: one over all the frames; several: a sum per output frame; 1 x 1 spatial kernels: one
// over [time, pixels]), and 1-D and 2-D transposed ones as a GEMM and a scatter (col2im); every
// other case (other dtypes or ranks, no temp allocator) runs the portable kernel.

#include <algorithm>
#include <cstring>

#include "kernels/optimized/conv2d.h"
#include "kernels/optimized/conv_transpose2d.h"
#include "kernels/optimized/gemm.h"
#include "kernels/optimized/ops/ops.h"
#include "kernels/portable/functions.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels::optimized {
namespace {

// conv2d() of `input` with plain `weights` (packed, or read in place, by conv2d) and `bias` into
// `output`, its scratch from the temp allocator; false when that cannot hold it.
bool conv2d_plain(KernelRuntimeContext& ctx, const Conv2dShape& s, const float* input,
                  const float* weights, const float* bias, float* output) {
  const size_t scratch_bytes = conv2d_scratch_bytes(s, false);
  void* scratch = scratch_bytes > 0 ? ctx.allocate_temp(scratch_bytes, 64) : nullptr;
  if (scratch_bytes > 0 && scratch == nullptr) return false;
  GemmEpilogue e;
  e.bias = bias;
  return conv2d(s, input, weights, nullptr, e, output, scratch);
}

// The bias of a convolution, or nullptr.
const float* bias_of(const OptTensor& bias) {
  return bias.has_value() ? bias->const_data_ptr<float>() : nullptr;
}

// The 2-D convolution of one frame of every image of a 3-D convolution over [N, C, T, H, W].
Conv2dShape frame_shape(const Tensor& input, const Tensor& weight, IntList stride, IntList padding,
                        IntList dilation, int64_t groups) {
  Conv2dShape s;
  s.n = input.size(0);
  s.c = input.size(1);
  s.h = input.size(3);
  s.w = input.size(4);
  s.oc = weight.size(0);
  s.kh = weight.size(3);
  s.kw = weight.size(4);
  s.sh = stride[1];
  s.sw = stride[2];
  s.ph = padding[1];
  s.pw = padding[2];
  s.dh = dilation[1];
  s.dw = dilation[2];
  s.groups = groups;
  return s;
}

// Frame f of every image of `input` ([N, C, T, H, W]) into dst as N contiguous [C, H, W] images.
void gather_frame(const Tensor& input, int64_t f, float* dst) {
  const int64_t n = input.size(0), c = input.size(1), t = input.size(2);
  const int64_t plane = input.size(3) * input.size(4);
  const float* in = input.const_data_ptr<float>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      std::memcpy(dst + (b * c + ch) * plane, in + ((b * c + ch) * t + f) * plane,
                  static_cast<size_t>(plane) * sizeof(float));
    }
  }
}

// Output frame f of every image of `out` ([N, OC, T, OH, OW]) from src (N contiguous
// [OC, OH, OW] images), or the bias (zeros without one) where src is null.
void scatter_frame(const float* src, const float* bias, int64_t f, Tensor& out) {
  const int64_t n = out.size(0), oc = out.size(1), t = out.size(2);
  const int64_t plane = out.size(3) * out.size(4);
  float* o = out.mutable_data_ptr<float>();
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < oc; ++ch) {
      float* dst = o + ((b * oc + ch) * t + f) * plane;
      if (src == nullptr) {
        std::fill(dst, dst + plane, bias != nullptr ? bias[ch] : 0.0f);
      } else {
        std::memcpy(dst, src + (b * oc + ch) * plane, static_cast<size_t>(plane) * sizeof(float));
      }
    }
  }
}

// A 3-D convolution whose spatial kernel is 1 x 1 (stride 1, no spatial padding; the temporal
// half of a (2+1)-D block): the contiguous [N, C, T, H, W] input is an [N, C, T, H * W] image
// and the weights [OC, C/groups, KT, 1, 1] a KT x 1 kernel, so one 2-D convolution reads both in
// place and writes the output in place. False when the temp allocator cannot hold the scratch.
bool conv3d_temporal(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                     const OptTensor& bias, IntList stride, IntList padding, IntList dilation,
                     int64_t groups, Tensor& out) {
  Conv2dShape s;
  s.n = input.size(0);
  s.c = input.size(1);
  s.h = input.size(2);
  s.w = input.size(3) * input.size(4);
  s.oc = weight.size(0);
  s.kh = weight.size(2);
  s.sh = stride[0];
  s.ph = padding[0];
  s.dh = dilation[0];
  s.groups = groups;
  return conv2d_plain(ctx, s, input.const_data_ptr<float>(), weight.const_data_ptr<float>(),
                      bias_of(bias), out.mutable_data_ptr<float>());
}

// A 3-D convolution with one temporal tap (kernels (1, KH, KW): the spatial half of (2+1)-D and
// MC3 blocks, 1 x 1 x 1 projections): output frame f is the 2-D convolution of input frame
// f * st - pt, or the bias where that frame lies in the temporal padding. The frames read are
// gathered into one batch, so a single 2-D convolution covers them all and reads the weights
// [OC, C/groups, 1, KH, KW] as they are (in place, or packed once); its frames are scattered
// back. False when the temp allocator cannot hold the scratch.
bool conv3d_frames(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                   const OptTensor& bias, IntList stride, IntList padding, IntList dilation,
                   int64_t groups, Tensor& out) {
  const int64_t n = input.size(0), t = input.size(2), ot = out.size(2);
  const int64_t st = stride[0], pt = padding[0];
  // Output frames [first, last) read input frames (0 <= f * st - pt < t).
  const int64_t first = std::min(ot, (pt + st - 1) / st);
  const int64_t last = std::max(first, std::min(ot, (t - 1 + pt) / st + 1));
  Conv2dShape s = frame_shape(input, weight, stride, padding, dilation, groups);
  const float* b = bias_of(bias);
  const int64_t in_image = s.c * s.h * s.w, out_image = s.oc * s.oh() * s.ow();
  s.n = n * (last - first);  // the images of every frame read, frame after frame
  if (s.n > 0) {
    auto* frames = static_cast<float*>(
        ctx.allocate_temp(static_cast<size_t>(s.n * in_image) * sizeof(float), 64));
    auto* result = static_cast<float*>(
        ctx.allocate_temp(static_cast<size_t>(s.n * out_image) * sizeof(float), 64));
    if (frames == nullptr || result == nullptr) return false;
    for (int64_t f = first; f < last; ++f) {
      gather_frame(input, f * st - pt, frames + (f - first) * n * in_image);
    }
    if (!conv2d_plain(ctx, s, frames, weight.const_data_ptr<float>(), b, result)) return false;
    for (int64_t f = first; f < last; ++f) {
      scatter_frame(result + (f - first) * n * out_image, b, f, out);
    }
  }
  for (int64_t f = 0; f < ot; ++f) {
    if (f < first || f >= last) scatter_frame(nullptr, b, f, out);
  }
  return true;
}

// A 3-D convolution over [N, C, T, H, W]: output frame t is the sum over temporal taps kt of the
// 2-D convolution of input frame t * st - pt + kt * dt (those inside the clip) with the weights'
// slice kt, each accumulated through the epilogue's residual. Frames are gathered into
// contiguous [N, C, H, W] blocks first and the output frames scattered back. False when the temp
// allocator cannot hold the scratch (the caller falls back).
bool conv3d(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
            const OptTensor& bias, IntList stride, IntList padding, IntList dilation,
            int64_t groups, Tensor& out) {
  const int64_t n = input.size(0), t = input.size(2);
  const int64_t kt = weight.size(2), st = stride[0], pt = padding[0], dt = dilation[0];
  const Conv2dShape s = frame_shape(input, weight, stride, padding, dilation, groups);
  const int64_t ot = (t + 2 * pt - dt * (kt - 1) - 1) / st + 1;
  const int64_t in_frame = s.c * s.h * s.w, out_plane = s.oh() * s.ow();
  const int64_t out_frame = s.oc * out_plane, taps = s.kh * s.kw;
  const int64_t filters = s.oc * s.c_per_group();
  // Per temporal tap: packed weights, or (depthwise, which reads them plain) the slice itself.
  const bool plain = s.depthwise();
  const size_t packed_bytes = ((plain ? static_cast<size_t>(filters * taps) * sizeof(float)
                                      : conv2d_packed_weights_bytes(s)) +
                               63) /
                              64 * 64;
  auto* frames = static_cast<float*>(
      ctx.allocate_temp(static_cast<size_t>(n * t * in_frame) * sizeof(float), 64));
  auto* packed = static_cast<uint8_t*>(ctx.allocate_temp(packed_bytes * kt, 64));
  auto* slice = plain ? nullptr
                      : static_cast<float*>(ctx.allocate_temp(
                            static_cast<size_t>(filters * taps) * sizeof(float), 64));
  auto* acc = static_cast<float*>(
      ctx.allocate_temp(static_cast<size_t>(2 * n * out_frame) * sizeof(float), 64));
  const size_t scratch_bytes = conv2d_scratch_bytes(s, !plain);
  void* scratch = scratch_bytes > 0 ? ctx.allocate_temp(scratch_bytes, 64) : nullptr;
  if (frames == nullptr || packed == nullptr || (slice == nullptr && !plain) || acc == nullptr ||
      (scratch_bytes > 0 && scratch == nullptr)) {
    return false;
  }
  // Frames: frames[(f * n + b) * in_frame + ...] = input[b, :, f].
  for (int64_t f = 0; f < t; ++f) gather_frame(input, f, frames + f * n * in_frame);
  // Weights: slice k of [OC, C/groups, KT, KH, KW], gathered straight into its place when read
  // plain, else into `slice` and packed from there.
  const float* w = weight.const_data_ptr<float>();
  for (int64_t k = 0; k < kt; ++k) {
    auto* dst = reinterpret_cast<float*>(packed + k * packed_bytes);
    float* gathered = plain ? dst : slice;
    for (int64_t f = 0; f < filters; ++f) {
      std::memcpy(gathered + f * taps, w + (f * kt + k) * taps,
                  static_cast<size_t>(taps) * sizeof(float));
    }
    if (!plain) conv2d_pack_weights(s, slice, dst);
  }
  const float* b = bias_of(bias);
  for (int64_t of = 0; of < ot; ++of) {
    float* sum = acc;
    bool first = true;
    for (int64_t k = 0; k < kt; ++k) {
      const int64_t f = of * st - pt + k * dt;
      if (f < 0 || f >= t) continue;
      GemmEpilogue e;
      e.bias = first ? b : nullptr;
      e.residual = first ? nullptr : sum;
      float* dst = first ? sum : (sum == acc ? acc + n * out_frame : acc);
      const auto* wk = reinterpret_cast<const float*>(packed + k * packed_bytes);
      if (!conv2d(s, frames + f * n * in_frame, plain ? wk : nullptr, plain ? nullptr : wk, e, dst,
                  scratch)) {
        return false;
      }
      sum = dst;
      first = false;
    }
    scatter_frame(first ? nullptr : sum, b, of, out);  // no tap inside the clip: the bias
  }
  return true;
}

// convolution.out of a 5-D input: conv3d where the shape is valid, else `portable` (which
// reports the error).
template <typename Portable>
Tensor& convolution3d(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                      const OptTensor& bias, IntList stride, IntList padding, IntList dilation,
                      int64_t groups, Tensor& out, Portable portable) {
  int64_t sizes[3];
  for (size_t d = 0; d < 3; ++d) {
    const int64_t in = input.size(2 + d), k = weight.size(2 + d);
    if (in <= 0 || k <= 0 || stride[d] <= 0 || dilation[d] <= 0 || padding[d] < 0) {
      return portable();
    }
    sizes[d] = (in + 2 * padding[d] - dilation[d] * (k - 1) - 1) / stride[d] + 1;
    if (sizes[d] < 1) return portable();
  }
  const int64_t c = input.size(1), oc = weight.size(0);
  if (input.size(0) < 0 || c <= 0 || oc <= 0 || c % groups != 0 || oc % groups != 0 ||
      weight.size(1) != c / groups) {
    return portable();
  }
  const SizesType out_sizes[5] = {
      input.size(0), static_cast<SizesType>(oc), static_cast<SizesType>(sizes[0]),
      static_cast<SizesType>(sizes[1]), static_cast<SizesType>(sizes[2])};
  if (!check_contiguous(ctx, "convolution.out", {&input, &weight, &out})) return out;
  if (!resize_out(ctx, "convolution.out", out, out_sizes)) return out;
  if (out.numel() == 0) return out;
  const bool temporal = weight.size(3) == 1 && weight.size(4) == 1 && stride[1] == 1 &&
                        stride[2] == 1 && padding[1] == 0 && padding[2] == 0;
  const auto path = temporal ? conv3d_temporal : weight.size(2) == 1 ? conv3d_frames : conv3d;
  if (!path(ctx, input, weight, bias, stride, padding, dilation, groups, out)) return portable();
  return out;
}

// A transposed convolution ([N, C, H, W] input, weights [C, OC / groups, KH, KW]): a GEMM and a
// scatter (conv_transpose2d.h), the weights packed per call into the temp allocator. `s` holds
// the input's sizes, the kernel, stride, padding and dilation, and the output channels.
template <typename Portable>
Tensor& conv_transpose(KernelRuntimeContext& ctx, const Conv2dShape& s, int64_t oph, int64_t opw,
                       const Tensor& input, const Tensor& weight, const OptTensor& bias,
                       Tensor& out, Portable portable) {
  ConvTranspose2dShape t;
  t.n = s.n;
  t.c = s.c;
  t.h = s.h;
  t.w = s.w;
  t.oc = s.oc;
  t.kh = s.kh;
  t.kw = s.kw;
  t.sh = s.sh;
  t.sw = s.sw;
  t.ph = s.ph;
  t.pw = s.pw;
  t.dh = s.dh;
  t.dw = s.dw;
  t.oph = oph;
  t.opw = opw;
  t.groups = s.groups;
  if (!t.valid() || weight.size(0) != s.c) return portable();  // it reports the error
  const size_t rank = input.dim();
  SizesType out_sizes[4] = {static_cast<SizesType>(t.n), static_cast<SizesType>(t.oc),
                            static_cast<SizesType>(t.oh()), static_cast<SizesType>(t.ow())};
  if (rank == 3) out_sizes[2] = out_sizes[3];
  if (!check_contiguous(ctx, "convolution.out", {&input, &weight, &out})) return out;
  if (!resize_out(ctx, "convolution.out", out, {out_sizes, rank})) return out;
  void* scratch = ctx.allocate_temp(conv_transpose2d_scratch_bytes(t, false), 64);
  if (scratch == nullptr ||
      !conv_transpose2d(t, input.const_data_ptr<float>(), weight.const_data_ptr<float>(), nullptr,
                        bias_of(bias), Activation::None, 0.0f, 0.0f, out.mutable_data_ptr<float>(),
                        scratch)) {
    return portable();
  }
  return out;
}

}  // namespace

Tensor& convolution_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const OptTensor& bias, IntList stride, IntList padding, IntList dilation,
                        bool transposed, IntList output_padding, int64_t groups, Tensor& out) {
  auto portable = [&]() -> Tensor& {
    return kernels::convolution_out(ctx, input, weight, bias, stride, padding, dilation, transposed,
                                    output_padding, groups, out);
  };
  const bool floats = input.dtype() == DType::Float && weight.dtype() == DType::Float &&
                      out.dtype() == DType::Float &&
                      (!bias.has_value() || bias->dtype() == DType::Float);
  if (!floats || groups <= 0 || weight.dim() != input.dim() || input.dim() < 3) return portable();
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  if (bias.has_value() && (bias->dim() != 1 || bias->size(0) != out_channels)) return portable();
  if (!transposed && input.dim() == 5 && stride.size() == 3 && padding.size() == 3 &&
      dilation.size() == 3) {
    return convolution3d(ctx, input, weight, bias, stride, padding, dilation, groups, out,
                         portable);
  }
  // 1-D and 2-D; a 1-D convolution is a 2-D one of a single row.
  const size_t rank = input.dim(), spatial = rank - 2;
  if (rank > 4 || stride.size() != spatial || padding.size() != spatial ||
      dilation.size() != spatial || (transposed && output_padding.size() != spatial)) {
    return portable();
  }
  auto along = [&](IntList values, size_t d, int64_t row_value) {  // d: 0 rows, 1 columns
    return spatial == 1 ? (d == 0 ? row_value : values[0]) : values[d];
  };
  Conv2dShape s;
  s.n = input.size(0);
  s.c = input.size(1);
  s.h = spatial == 1 ? 1 : input.size(2);
  s.w = input.size(rank - 1);
  s.oc = out_channels;
  s.kh = spatial == 1 ? 1 : weight.size(2);
  s.kw = weight.size(rank - 1);
  s.sh = along(stride, 0, 1);
  s.sw = along(stride, 1, 1);
  s.ph = along(padding, 0, 0);
  s.pw = along(padding, 1, 0);
  s.dh = along(dilation, 0, 1);
  s.dw = along(dilation, 1, 1);
  s.groups = groups;
  if (transposed) {
    return conv_transpose(ctx, s, along(output_padding, 0, 0), along(output_padding, 1, 0), input,
                          weight, bias, out, portable);
  }
  if (!s.valid() || weight.size(1) != s.c_per_group()) return portable();  // it reports the error
  SizesType out_sizes[4] = {static_cast<SizesType>(s.n), static_cast<SizesType>(s.oc),
                            static_cast<SizesType>(s.oh()), static_cast<SizesType>(s.ow())};
  if (spatial == 1) out_sizes[2] = out_sizes[3];
  if (!check_contiguous(ctx, "convolution.out", {&input, &weight, &out})) return out;
  if (!resize_out(ctx, "convolution.out", out, {out_sizes, rank})) return out;
  if (!conv2d_plain(ctx, s, input.const_data_ptr<float>(), weight.const_data_ptr<float>(),
                    bias_of(bias), out.mutable_data_ptr<float>())) {
    return portable();
  }
  return out;
}

}  // namespace ptec::kernels::optimized
