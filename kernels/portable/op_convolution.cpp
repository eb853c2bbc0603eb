// convolution.out: 1-D and 2-D convolution (NC[H]W input, groups, stride, padding, dilation,
// optional bias). Direct loops: for each output channel and kernel tap, a strided axpy over
// output rows, accumulated in the tensor dtype. Transposed convolution is not supported yet.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {
namespace {

struct ConvGeometry {
  int64_t n, c_in, h, w;  // input (h = 1 for 1-D)
  int64_t c_out, kh, kw;  // weight
  int64_t oh, ow;         // output
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t groups;
};

template <typename T>
void conv2d(const ConvGeometry& g, const T* in, const T* weight, const T* bias, T* out) {
  const int64_t cin_g = g.c_in / g.groups, cout_g = g.c_out / g.groups;
  for (int64_t b = 0; b < g.n; ++b) {
    for (int64_t oc = 0; oc < g.c_out; ++oc) {
      const int64_t group = oc / cout_g;
      T* plane = out + (b * g.c_out + oc) * g.oh * g.ow;
      const T init = bias != nullptr ? bias[oc] : T{0};
      for (int64_t i = 0; i < g.oh * g.ow; ++i) plane[i] = init;
      for (int64_t ic = 0; ic < cin_g; ++ic) {
        const T* src = in + (b * g.c_in + group * cin_g + ic) * g.h * g.w;
        const T* wk = weight + (oc * cin_g + ic) * g.kh * g.kw;
        for (int64_t ky = 0; ky < g.kh; ++ky) {
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            const T wv = wk[ky * g.kw + kx];
            // Output columns whose input column ow*sw - pw + kx*dw falls inside [0, w).
            const int64_t off_x = kx * g.dw - g.pw;
            int64_t x_lo = off_x >= 0 ? 0 : (-off_x + g.sw - 1) / g.sw;
            int64_t x_hi = g.w - off_x <= 0 ? 0 : (g.w - off_x + g.sw - 1) / g.sw;
            if (x_hi > g.ow) x_hi = g.ow;
            if (x_lo >= x_hi) continue;
            for (int64_t oy = 0; oy < g.oh; ++oy) {
              const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
              if (iy < 0 || iy >= g.h) continue;
              const T* row = src + iy * g.w;
              T* orow = plane + oy * g.ow;
              if (g.sw == 1) {  // unit stride: a contiguous axpy the compiler vectorizes
                const T* __restrict r = row + (off_x + x_lo);
                T* __restrict o = orow + x_lo;
                const int64_t len = x_hi - x_lo;
                for (int64_t j = 0; j < len; ++j) o[j] = o[j] + wv * r[j];
              } else {
                for (int64_t ox = x_lo; ox < x_hi; ++ox) {
                  orow[ox] = static_cast<T>(orow[ox] + wv * row[ox * g.sw + off_x]);
                }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

Tensor& convolution_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const OptTensor& bias, IntList stride, IntList padding, IntList dilation,
                        bool transposed, IntList output_padding, int64_t groups, Tensor& out) {
  constexpr const char* kOp = "convolution.out";
  (void)output_padding;  // only meaningful for transposed convolution
  PTEC_KERNEL_CHECK_MSG(ctx, !transposed, NotImplemented, out,
                        "%s: transposed convolution is not supported", kOp);
  if (!check_contiguous(ctx, kOp, {&input, &weight, &out})) return out;
  const size_t rank = input.dim();
  PTEC_KERNEL_CHECK_MSG(ctx, rank == 3 || rank == 4, InvalidArgument, out,
                        "%s: input must be 3-D (N, C, L) or 4-D (N, C, H, W), got rank %zu", kOp,
                        rank);
  PTEC_KERNEL_CHECK_MSG(ctx, weight.dim() == rank, InvalidArgument, out,
                        "%s: weight rank %zu does not match input rank %zu", kOp, weight.dim(),
                        rank);
  const size_t sp = rank - 2;  // spatial dims
  if (!check_int_list(ctx, kOp, stride, 1, sp, 1, "stride") ||
      !check_int_list(ctx, kOp, padding, 1, sp, 0, "padding") ||
      !check_int_list(ctx, kOp, dilation, 1, sp, 1, "dilation")) {
    return out;
  }
  PTEC_KERNEL_CHECK_MSG(ctx, weight.dtype() == input.dtype() && out.dtype() == input.dtype(),
                        InvalidArgument, out, "%s: input, weight and out dtypes differ", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, is_floating_point(input.dtype()) && is_supported_dtype(input.dtype()),
                        InvalidArgument, out, "%s: dtype %s is not Float or Double", kOp,
                        to_string(input.dtype()));
  ConvGeometry g{};
  g.n = input.sizes()[0];
  g.c_in = input.sizes()[1];
  g.h = sp == 2 ? input.sizes()[2] : 1;
  g.w = input.sizes()[rank - 1];
  g.c_out = weight.sizes()[0];
  g.kh = sp == 2 ? weight.sizes()[2] : 1;
  g.kw = weight.sizes()[rank - 1];
  g.groups = groups;
  g.sh = sp == 2 ? list_at(stride, 0) : 1;
  g.sw = list_at(stride, sp - 1);
  g.ph = sp == 2 ? list_at(padding, 0) : 0;
  g.pw = list_at(padding, sp - 1);
  g.dh = sp == 2 ? list_at(dilation, 0) : 1;
  g.dw = list_at(dilation, sp - 1);
  PTEC_KERNEL_CHECK_MSG(ctx, groups > 0 && g.c_in % groups == 0 && g.c_out % groups == 0,
                        InvalidArgument, out,
                        "%s: groups %lld must divide input channels %lld and output channels %lld",
                        kOp, static_cast<long long>(groups), static_cast<long long>(g.c_in),
                        static_cast<long long>(g.c_out));
  PTEC_KERNEL_CHECK_MSG(ctx, weight.sizes()[1] * groups == g.c_in, InvalidArgument, out,
                        "%s: weight has %d input channels per group, expected %lld", kOp,
                        static_cast<int>(weight.sizes()[1]),
                        static_cast<long long>(g.c_in / groups));
  if (bias) {
    if (!check_contiguous(ctx, kOp, {&*bias})) return out;
    PTEC_KERNEL_CHECK_MSG(ctx, bias->dim() == 1 && bias->sizes()[0] == g.c_out, InvalidArgument,
                          out, "%s: bias must have shape [%lld]", kOp,
                          static_cast<long long>(g.c_out));
    if (!check_dtype(ctx, kOp, *bias, input.dtype(), "bias")) return out;
  }
  const int64_t eff_h = g.dh * (g.kh - 1) + 1, eff_w = g.dw * (g.kw - 1) + 1;
  PTEC_KERNEL_CHECK_MSG(ctx, g.h + 2 * g.ph >= eff_h && g.w + 2 * g.pw >= eff_w, InvalidArgument,
                        out, "%s: kernel (dilated) is larger than the padded input", kOp);
  g.oh = (g.h + 2 * g.ph - eff_h) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - eff_w) / g.sw + 1;
  Shape shape;
  shape.push(g.n);
  shape.push(g.c_out);
  if (sp == 2) shape.push(g.oh);
  shape.push(g.ow);
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  dispatch_float(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    conv2d<T>(g, input.const_data_ptr<T>(), weight.const_data_ptr<T>(),
              bias ? bias->const_data_ptr<T>() : nullptr, out.mutable_data_ptr<T>());
  });
  return out;
}

}  // namespace ptec::kernels
