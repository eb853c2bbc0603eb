#include "kernels/portable/util/pool.h"

namespace ptec::kernels {
namespace {

int64_t output_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                    bool ceil_mode) {
  const int64_t num = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  // Floor division (num may be negative).
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

}  // namespace

bool make_pool2d(KernelRuntimeContext& ctx, const char* op, const Tensor& in, IntList kernel_size,
                 IntList stride, IntList padding, IntList dilation, bool ceil_mode, Pool2d* p) {
  if (!check_contiguous(ctx, op, {&in})) return false;
  PTEC_KERNEL_CHECK_MSG(ctx, in.dim() == 3 || in.dim() == 4, InvalidArgument, false,
                        "%s: expected a 3-D or 4-D input, got rank %zu", op, in.dim());
  if (!check_int_list(ctx, op, kernel_size, 1, 2, 1, "kernel_size") ||
      !check_int_list(ctx, op, stride, 0, 2, 1, "stride") ||
      !check_int_list(ctx, op, padding, 1, 2, 0, "padding") ||
      !check_int_list(ctx, op, dilation, 1, 2, 1, "dilation")) {
    return false;
  }
  p->kh = list_at(kernel_size, 0);
  p->kw = list_at(kernel_size, 1);
  p->sh = stride.empty() ? p->kh : list_at(stride, 0);
  p->sw = stride.empty() ? p->kw : list_at(stride, 1);
  p->ph = list_at(padding, 0);
  p->pw = list_at(padding, 1);
  p->dh = list_at(dilation, 0);
  p->dw = list_at(dilation, 1);
  PTEC_KERNEL_CHECK_MSG(ctx, p->kh / 2 >= p->ph && p->kw / 2 >= p->pw, InvalidArgument, false,
                        "%s: pad should be at most half of the kernel size", op);
  const size_t r = in.dim();
  p->h = in.sizes()[r - 2];
  p->w = in.sizes()[r - 1];
  p->planes = size_product(in, 0, r - 2);
  PTEC_KERNEL_CHECK_MSG(ctx, in.sizes()[r - 3] > 0 && p->h > 0 && p->w > 0, InvalidArgument, false,
                        "%s: channel and spatial sizes must be non-zero", op);
  p->oh = output_size(p->h, p->kh, p->ph, p->sh, p->dh, ceil_mode);
  p->ow = output_size(p->w, p->kw, p->pw, p->sw, p->dw, ceil_mode);
  PTEC_KERNEL_CHECK_MSG(ctx, p->oh >= 1 && p->ow >= 1, InvalidArgument, false,
                        "%s: output size %lldx%lld is too small", op, static_cast<long long>(p->oh),
                        static_cast<long long>(p->ow));
  p->out_shape = Shape{};
  for (size_t i = 0; i + 2 < r; ++i) p->out_shape.push(in.sizes()[i]);
  p->out_shape.push(p->oh);
  p->out_shape.push(p->ow);
  return true;
}

bool make_pool3d(KernelRuntimeContext& ctx, const char* op, const Tensor& in, IntList kernel_size,
                 IntList stride, IntList padding, IntList dilation, bool ceil_mode, Pool3d* p) {
  if (!check_contiguous(ctx, op, {&in})) return false;
  PTEC_KERNEL_CHECK_MSG(ctx, in.dim() == 4 || in.dim() == 5, InvalidArgument, false,
                        "%s: expected a 4-D or 5-D input, got rank %zu", op, in.dim());
  if (!check_int_list(ctx, op, kernel_size, 1, 3, 1, "kernel_size") ||
      !check_int_list(ctx, op, stride, 0, 3, 1, "stride") ||
      !check_int_list(ctx, op, padding, 1, 3, 0, "padding") ||
      !check_int_list(ctx, op, dilation, 1, 3, 1, "dilation")) {
    return false;
  }
  PTEC_KERNEL_CHECK_MSG(
      ctx,
      kernel_size.size() != 2 && stride.size() != 2 && padding.size() != 2 && dilation.size() != 2,
      InvalidArgument, false, "%s: kernel_size, stride, padding and dilation take 1 or 3 values",
      op);
  p->kd = list_at(kernel_size, 0);
  p->kh = list_at(kernel_size, 1);
  p->kw = list_at(kernel_size, 2);
  p->sd = stride.empty() ? p->kd : list_at(stride, 0);
  p->sh = stride.empty() ? p->kh : list_at(stride, 1);
  p->sw = stride.empty() ? p->kw : list_at(stride, 2);
  p->pd = list_at(padding, 0);
  p->ph = list_at(padding, 1);
  p->pw = list_at(padding, 2);
  p->dd = list_at(dilation, 0);
  p->dh = list_at(dilation, 1);
  p->dw = list_at(dilation, 2);
  PTEC_KERNEL_CHECK_MSG(ctx, p->kd / 2 >= p->pd && p->kh / 2 >= p->ph && p->kw / 2 >= p->pw,
                        InvalidArgument, false, "%s: pad should be at most half of the kernel size",
                        op);
  const size_t r = in.dim();
  p->d = in.sizes()[r - 3];
  p->h = in.sizes()[r - 2];
  p->w = in.sizes()[r - 1];
  p->planes = size_product(in, 0, r - 3);
  PTEC_KERNEL_CHECK_MSG(ctx, in.sizes()[r - 4] > 0 && p->d > 0 && p->h > 0 && p->w > 0,
                        InvalidArgument, false, "%s: channel and spatial sizes must be non-zero",
                        op);
  p->od = output_size(p->d, p->kd, p->pd, p->sd, p->dd, ceil_mode);
  p->oh = output_size(p->h, p->kh, p->ph, p->sh, p->dh, ceil_mode);
  p->ow = output_size(p->w, p->kw, p->pw, p->sw, p->dw, ceil_mode);
  PTEC_KERNEL_CHECK_MSG(ctx, p->od >= 1 && p->oh >= 1 && p->ow >= 1, InvalidArgument, false,
                        "%s: output size %lldx%lldx%lld is too small", op,
                        static_cast<long long>(p->od), static_cast<long long>(p->oh),
                        static_cast<long long>(p->ow));
  p->out_shape = Shape{};
  for (size_t i = 0; i + 3 < r; ++i) p->out_shape.push(in.sizes()[i]);
  p->out_shape.push(p->od);
  p->out_shape.push(p->oh);
  p->out_shape.push(p->ow);
  return true;
}

}  // namespace ptec::kernels
