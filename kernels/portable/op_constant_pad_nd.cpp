// constant_pad_nd.out: pads (or, with negative pads, crops) the last dims with `value`.
// pad = [last_before, last_after, second_last_before, ...].

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/strided.h"

namespace ptec::kernels {

Tensor& constant_pad_nd_out(KernelRuntimeContext& ctx, const Tensor& self, IntList pad,
                            const Scalar& value, Tensor& out) {
  constexpr const char* kOp = "constant_pad_nd.out";
  if (!check_contiguous(ctx, kOp, {&self, &out})) return out;
  if (!check_dtype(ctx, kOp, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, is_supported_dtype(self.dtype()), InvalidArgument, out,
                        "%s: unsupported dtype %s", kOp, to_string(self.dtype()));
  PTEC_KERNEL_CHECK_MSG(ctx, pad.size() % 2 == 0 && pad.size() / 2 <= self.dim(), InvalidArgument,
                        out, "%s: pad length %zu must be even and at most twice the rank %zu", kOp,
                        pad.size(), self.dim());
  const size_t rank = self.dim();
  int64_t before[kTensorDimensionLimit] = {};
  Shape shape = shape_of(self);
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const size_t d = rank - 1 - k;
    before[d] = pad[2 * k];
    const int64_t size = self.sizes()[d] + pad[2 * k] + pad[2 * k + 1];
    PTEC_KERNEL_CHECK_MSG(ctx, size >= 0, InvalidArgument, out,
                          "%s: padding dim %zu of size %d by (%lld, %lld) gives a negative size",
                          kOp, d, static_cast<int>(self.sizes()[d]),
                          static_cast<long long>(pad[2 * k]),
                          static_cast<long long>(pad[2 * k + 1]));
    shape.sizes[d] = static_cast<SizesType>(size);
  }
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  // Fill with the value, then copy the overlap of input and output.
  int64_t in_strides[kTensorDimensionLimit] = {}, out_strides[kTensorDimensionLimit] = {};
  contiguous_strides(self, in_strides);
  contiguous_strides(out, out_strides);
  StridedView src, dst;
  int64_t src_off = 0, dst_off = 0;
  for (size_t d = 0; d < rank; ++d) {
    // Output index o maps to input index o - before[d].
    const int64_t o_lo = before[d] > 0 ? before[d] : 0;
    const int64_t o_hi_in = self.sizes()[d] + before[d];
    const int64_t o_hi = o_hi_in < shape.sizes[d] ? o_hi_in : shape.sizes[d];
    const int64_t n = o_hi > o_lo ? o_hi - o_lo : 0;
    src.add_dim(n, in_strides[d]);
    dst.add_dim(n, out_strides[d]);
    src_off += (o_lo - before[d]) * in_strides[d];
    dst_off += o_lo * out_strides[d];
  }
  dispatch_real_bool(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* o = out.mutable_data_ptr<T>();
    const T v = scalar_to<T>(value);
    for (size_t i = 0; i < out.numel(); ++i) o[i] = v;
    const T* in = self.const_data_ptr<T>();
    for_each_pair(src, dst, [&](int64_t a, int64_t b) { o[dst_off + b] = in[src_off + a]; });
  });
  return out;
}

}  // namespace ptec::kernels
