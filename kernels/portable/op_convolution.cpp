// convolution.out: 1-D, 2-D and 3-D convolution, regular and transposed (NC[D][H]W input, groups,
// stride, padding, dilation, output_padding, optional bias), as ATen computes it.
// Regular: for each output channel and kernel tap, a strided axpy over output rows, accumulated in
// the tensor dtype. Transposed: for each output channel, input channel and kernel tap, each input
// row is scattered (axpy) into the output row it lands on. Lower-rank convolutions run with unit
// leading spatial dims, so one loop nest serves every rank.

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {
namespace {

/// Spatial dims are (d, h, w); a 1-D or 2-D convolution has d = h = 1 or d = 1, with unit
/// kernel, stride and dilation and zero padding in the missing dims.
struct ConvGeometry {
  int64_t n, c_in, d, h, w;   // input
  int64_t c_out, kd, kh, kw;  // output channels and kernel extent
  int64_t od, oh, ow;         // output
  int64_t sd, sh, sw, pd, ph, pw, dd, dh, dw;
  int64_t groups;
};

/// First index i >= 0 with 0 <= i * s + off, and one past the last with i * s + off < limit
/// (clamped to [0, n]): the input (regular) or output (transposed) range a kernel tap touches.
inline void tap_range(int64_t off, int64_t s, int64_t limit, int64_t n, int64_t* lo, int64_t* hi) {
  *lo = off >= 0 ? 0 : (-off + s - 1) / s;
  *hi = limit - off <= 0 ? 0 : (limit - off + s - 1) / s;
  if (*hi > n) *hi = n;
}

template <typename T>
void conv_forward(const ConvGeometry& g, const T* in, const T* weight, const T* bias, T* out) {
  const int64_t cin_g = g.c_in / g.groups, cout_g = g.c_out / g.groups;
  const int64_t in_plane = g.d * g.h * g.w, out_plane = g.od * g.oh * g.ow;
  const int64_t taps = g.kd * g.kh * g.kw;
  for (int64_t b = 0; b < g.n; ++b) {
    for (int64_t oc = 0; oc < g.c_out; ++oc) {
      const int64_t group = oc / cout_g;
      T* plane = out + (b * g.c_out + oc) * out_plane;
      const T init = bias != nullptr ? bias[oc] : T{0};
      for (int64_t i = 0; i < out_plane; ++i) plane[i] = init;
      for (int64_t ic = 0; ic < cin_g; ++ic) {
        const T* src = in + (b * g.c_in + group * cin_g + ic) * in_plane;
        const T* wk = weight + (oc * cin_g + ic) * taps;
        for (int64_t kz = 0; kz < g.kd; ++kz) {
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              const T wv = wk[(kz * g.kh + ky) * g.kw + kx];
              // Output columns whose input column ow*sw - pw + kx*dw falls inside [0, w).
              const int64_t off_x = kx * g.dw - g.pw;
              int64_t x_lo = 0, x_hi = 0;
              tap_range(off_x, g.sw, g.w, g.ow, &x_lo, &x_hi);
              if (x_lo >= x_hi) continue;
              for (int64_t oz = 0; oz < g.od; ++oz) {
                const int64_t iz = oz * g.sd - g.pd + kz * g.dd;
                if (iz < 0 || iz >= g.d) continue;
                for (int64_t oy = 0; oy < g.oh; ++oy) {
                  const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
                  if (iy < 0 || iy >= g.h) continue;
                  const T* row = src + (iz * g.h + iy) * g.w;
                  T* orow = plane + (oz * g.oh + oy) * g.ow;
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
  }
}

/// Transposed convolution: input position i and tap k feed output position i*s - p + k*dil.
/// The weight is [c_in, c_out / groups, kd, kh, kw].
template <typename T>
void conv_transposed(const ConvGeometry& g, const T* in, const T* weight, const T* bias, T* out) {
  const int64_t cin_g = g.c_in / g.groups, cout_g = g.c_out / g.groups;
  const int64_t in_plane = g.d * g.h * g.w, out_plane = g.od * g.oh * g.ow;
  const int64_t taps = g.kd * g.kh * g.kw;
  for (int64_t b = 0; b < g.n; ++b) {
    for (int64_t oc = 0; oc < g.c_out; ++oc) {
      const int64_t group = oc / cout_g, ocg = oc % cout_g;
      T* plane = out + (b * g.c_out + oc) * out_plane;
      const T init = bias != nullptr ? bias[oc] : T{0};
      for (int64_t i = 0; i < out_plane; ++i) plane[i] = init;
      for (int64_t icg = 0; icg < cin_g; ++icg) {
        const int64_t ic = group * cin_g + icg;
        const T* src = in + (b * g.c_in + ic) * in_plane;
        const T* wk = weight + (ic * cout_g + ocg) * taps;
        for (int64_t kz = 0; kz < g.kd; ++kz) {
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              const T wv = wk[(kz * g.kh + ky) * g.kw + kx];
              // Input columns whose output column iw*sw - pw + kx*dw falls inside [0, ow).
              const int64_t off_x = kx * g.dw - g.pw;
              int64_t x_lo = 0, x_hi = 0;
              tap_range(off_x, g.sw, g.ow, g.w, &x_lo, &x_hi);
              if (x_lo >= x_hi) continue;
              for (int64_t iz = 0; iz < g.d; ++iz) {
                const int64_t oz = iz * g.sd - g.pd + kz * g.dd;
                if (oz < 0 || oz >= g.od) continue;
                for (int64_t iy = 0; iy < g.h; ++iy) {
                  const int64_t oy = iy * g.sh - g.ph + ky * g.dh;
                  if (oy < 0 || oy >= g.oh) continue;
                  const T* row = src + (iz * g.h + iy) * g.w;
                  T* orow = plane + (oz * g.oh + oy) * g.ow;
                  if (g.sw == 1) {
                    const T* __restrict r = row + x_lo;
                    T* __restrict o = orow + (off_x + x_lo);
                    const int64_t len = x_hi - x_lo;
                    for (int64_t j = 0; j < len; ++j) o[j] = o[j] + wv * r[j];
                  } else {
                    for (int64_t ix = x_lo; ix < x_hi; ++ix) {
                      T& o = orow[ix * g.sw + off_x];
                      o = static_cast<T>(o + wv * row[ix]);
                    }
                  }
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
  if (!check_contiguous(ctx, kOp, {&input, &weight, &out})) return out;
  const size_t rank = input.dim();
  PTEC_KERNEL_CHECK_MSG(ctx, rank >= 3 && rank <= 5, InvalidArgument, out,
                        "%s: input must be 3-D (N, C, L), 4-D (N, C, H, W) or 5-D (N, C, D, H, W), "
                        "got rank %zu",
                        kOp, rank);
  PTEC_KERNEL_CHECK_MSG(ctx, weight.dim() == rank, InvalidArgument, out,
                        "%s: weight rank %zu does not match input rank %zu", kOp, weight.dim(),
                        rank);
  const size_t sp = rank - 2;  // spatial dims
  if (!check_int_list(ctx, kOp, stride, 1, sp, 1, "stride") ||
      !check_int_list(ctx, kOp, padding, 1, sp, 0, "padding") ||
      !check_int_list(ctx, kOp, dilation, 1, sp, 1, "dilation")) {
    return out;
  }
  if (transposed && !check_int_list(ctx, kOp, output_padding, 1, sp, 0, "output_padding")) {
    return out;
  }
  PTEC_KERNEL_CHECK_MSG(ctx, weight.dtype() == input.dtype() && out.dtype() == input.dtype(),
                        InvalidArgument, out, "%s: input, weight and out dtypes differ", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, is_floating_point(input.dtype()) && is_supported_dtype(input.dtype()),
                        InvalidArgument, out, "%s: dtype %s is not Float or Double", kOp,
                        to_string(input.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, groups > 0, InvalidArgument, out,
                        "%s: groups must be positive, got %lld", kOp,
                        static_cast<long long>(groups));
  // Spatial parameter i of 3 (d, h, w): the list value for the present dims, `unit` otherwise.
  const size_t skip = 3 - sp;
  const auto spatial = [&](IntList list, size_t i, int64_t unit) {
    return i < skip ? unit : list_at(list, i - skip);
  };
  const auto spatial_size = [&](const Tensor& t, size_t i) -> int64_t {
    return i < skip ? 1 : t.sizes()[2 + i - skip];
  };
  ConvGeometry g{};
  g.n = input.sizes()[0];
  g.c_in = input.sizes()[1];
  g.d = spatial_size(input, 0);
  g.h = spatial_size(input, 1);
  g.w = spatial_size(input, 2);
  g.kd = spatial_size(weight, 0);
  g.kh = spatial_size(weight, 1);
  g.kw = spatial_size(weight, 2);
  g.sd = spatial(stride, 0, 1);
  g.sh = spatial(stride, 1, 1);
  g.sw = spatial(stride, 2, 1);
  g.pd = spatial(padding, 0, 0);
  g.ph = spatial(padding, 1, 0);
  g.pw = spatial(padding, 2, 0);
  g.dd = spatial(dilation, 0, 1);
  g.dh = spatial(dilation, 1, 1);
  g.dw = spatial(dilation, 2, 1);
  g.groups = groups;
  if (!transposed) {
    g.c_out = weight.sizes()[0];
    PTEC_KERNEL_CHECK_MSG(
        ctx, g.c_in % groups == 0 && g.c_out % groups == 0, InvalidArgument, out,
        "%s: groups %lld must divide input channels %lld and output channels %lld", kOp,
        static_cast<long long>(groups), static_cast<long long>(g.c_in),
        static_cast<long long>(g.c_out));
    PTEC_KERNEL_CHECK_MSG(ctx, weight.sizes()[1] * groups == g.c_in, InvalidArgument, out,
                          "%s: weight has %d input channels per group, expected %lld", kOp,
                          static_cast<int>(weight.sizes()[1]),
                          static_cast<long long>(g.c_in / groups));
  } else {
    PTEC_KERNEL_CHECK_MSG(ctx, weight.sizes()[0] == g.c_in, InvalidArgument, out,
                          "%s: transposed weight has %d input channels, input has %lld", kOp,
                          static_cast<int>(weight.sizes()[0]), static_cast<long long>(g.c_in));
    PTEC_KERNEL_CHECK_MSG(ctx, g.c_in % groups == 0, InvalidArgument, out,
                          "%s: groups %lld must divide input channels %lld", kOp,
                          static_cast<long long>(groups), static_cast<long long>(g.c_in));
    g.c_out = weight.sizes()[1] * groups;
  }
  if (bias) {
    if (!check_contiguous(ctx, kOp, {&*bias})) return out;
    PTEC_KERNEL_CHECK_MSG(ctx, bias->dim() == 1 && bias->sizes()[0] == g.c_out, InvalidArgument,
                          out, "%s: bias must have shape [%lld]", kOp,
                          static_cast<long long>(g.c_out));
    if (!check_dtype(ctx, kOp, *bias, input.dtype(), "bias")) return out;
  }
  const int64_t eff_d = g.dd * (g.kd - 1) + 1, eff_h = g.dh * (g.kh - 1) + 1,
                eff_w = g.dw * (g.kw - 1) + 1;
  if (!transposed) {
    PTEC_KERNEL_CHECK_MSG(
        ctx, g.d + 2 * g.pd >= eff_d && g.h + 2 * g.ph >= eff_h && g.w + 2 * g.pw >= eff_w,
        InvalidArgument, out, "%s: kernel (dilated) is larger than the padded input", kOp);
    g.od = (g.d + 2 * g.pd - eff_d) / g.sd + 1;
    g.oh = (g.h + 2 * g.ph - eff_h) / g.sh + 1;
    g.ow = (g.w + 2 * g.pw - eff_w) / g.sw + 1;
  } else {
    const int64_t opd = spatial(output_padding, 0, 0), oph = spatial(output_padding, 1, 0),
                  opw = spatial(output_padding, 2, 0);
    PTEC_KERNEL_CHECK_MSG(
        ctx, (opd < g.sd || opd < g.dd) && (oph < g.sh || oph < g.dh) && (opw < g.sw || opw < g.dw),
        InvalidArgument, out, "%s: output padding must be smaller than either stride or dilation",
        kOp);
    g.od = (g.d - 1) * g.sd - 2 * g.pd + eff_d + opd;
    g.oh = (g.h - 1) * g.sh - 2 * g.ph + eff_h + oph;
    g.ow = (g.w - 1) * g.sw - 2 * g.pw + eff_w + opw;
    PTEC_KERNEL_CHECK_MSG(ctx, g.od > 0 && g.oh > 0 && g.ow > 0, InvalidArgument, out,
                          "%s: output size %lldx%lldx%lld is too small (padding too large)", kOp,
                          static_cast<long long>(g.od), static_cast<long long>(g.oh),
                          static_cast<long long>(g.ow));
  }
  Shape shape;
  shape.push(g.n);
  shape.push(g.c_out);
  if (sp == 3) shape.push(g.od);
  if (sp >= 2) shape.push(g.oh);
  shape.push(g.ow);
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  dispatch_float(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* b = bias ? bias->const_data_ptr<T>() : nullptr;
    if (transposed) {
      conv_transposed<T>(g, input.const_data_ptr<T>(), weight.const_data_ptr<T>(), b,
                         out.mutable_data_ptr<T>());
    } else {
      conv_forward<T>(g, input.const_data_ptr<T>(), weight.const_data_ptr<T>(), b,
                      out.mutable_data_ptr<T>());
    }
  });
  return out;
}

}  // namespace ptec::kernels
