// cat.out: concatenates along `dim`. Legacy 1-D empty tensors (shape [0]) are skipped, as in
// ATen. Inputs of another dtype than out are converted element by element.

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/reduce.h"

namespace ptec::kernels {
namespace {

bool is_skipped(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

}  // namespace

Tensor& cat_out(KernelRuntimeContext& ctx, TensorList tensors, int64_t dim, Tensor& out) {
  constexpr const char* kOp = "cat.out";
  PTEC_KERNEL_CHECK_MSG(ctx, !tensors.empty(), InvalidArgument, out,
                        "%s: expects a non-empty list of tensors", kOp);
  constexpr unsigned kSupport = kReducedFloat | kBarebonesUnsigned;
  PTEC_KERNEL_CHECK_MSG(ctx, is_accepted_dtype(out.dtype(), kSupport), InvalidArgument, out,
                        "%s: unsupported out dtype %s", kOp, to_string(out.dtype()));
  const Tensor* ref = nullptr;
  DType common = tensors[0].dtype();
  for (const Tensor& t : tensors) {
    if (!check_contiguous(ctx, kOp, {&t})) return out;
    PTEC_KERNEL_CHECK_MSG(ctx, is_accepted_dtype(t.dtype(), kSupport), InvalidArgument, out,
                          "%s: unsupported dtype %s", kOp, to_string(t.dtype()));
    common = promote_types(common, t.dtype());
    if (ref == nullptr && !is_skipped(t)) ref = &t;
  }
  PTEC_KERNEL_CHECK_MSG(ctx, common != kNoPromotion, InvalidArgument, out,
                        "%s: type promotion of the inputs' dtypes is not supported", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, can_cast(common, out.dtype()), InvalidArgument, out,
                        "%s: result type %s can't be cast to the out dtype %s", kOp,
                        to_string(common), to_string(out.dtype()));
  if (ref == nullptr) {  // every input is a legacy empty tensor
    const SizesType zero[1] = {0};
    if (out.dim() == 1) resize_out(ctx, kOp, out, zero);
    return out;
  }
  PTEC_KERNEL_CHECK_MSG(ctx, ref->dim() > 0, InvalidArgument, out,
                        "%s: zero-dimensional tensors cannot be concatenated", kOp);
  size_t d = 0;
  if (!wrap_dim(ctx, kOp, dim, ref->dim(), &d)) return out;
  Shape shape = shape_of(*ref);
  int64_t total = 0;
  for (const Tensor& t : tensors) {
    if (is_skipped(t)) continue;
    PTEC_KERNEL_CHECK_MSG(ctx, t.dim() == ref->dim(), InvalidArgument, out,
                          "%s: tensors must have the same rank (%zu vs %zu)", kOp, t.dim(),
                          ref->dim());
    for (size_t i = 0; i < t.dim(); ++i) {
      PTEC_KERNEL_CHECK_MSG(ctx, i == d || t.sizes()[i] == ref->sizes()[i], InvalidArgument, out,
                            "%s: sizes must match except in dim %zu (dim %zu: %d vs %d)", kOp, d, i,
                            static_cast<int>(t.sizes()[i]), static_cast<int>(ref->sizes()[i]));
    }
    total += t.sizes()[d];
  }
  shape.sizes[d] = static_cast<SizesType>(total);
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  if (!check_contiguous(ctx, kOp, {&out})) return out;
  const DimSplit o = split_at(out, d);
  dispatch_storage(out.dtype(), [&](auto tag) {
    using OT = decltype(tag);
    OT* dst = out.mutable_data_ptr<OT>();
    int64_t offset = 0;  // position along dim
    for (const Tensor& t : tensors) {
      if (is_skipped(t)) continue;
      const int64_t chunk = t.sizes()[d] * o.inner;
      const LoadFn<OT> load = get_load_fn<OT>(t.dtype());
      for (int64_t outer = 0; outer < o.outer; ++outer) {
        OT* row = dst + outer * o.size * o.inner + offset * o.inner;
        const int64_t src = outer * chunk;
        if (t.dtype() == out.dtype()) {
          if (chunk > 0) std::memcpy(row, t.const_data_ptr<OT>() + src, chunk * sizeof(OT));
        } else {
          for (int64_t k = 0; k < chunk; ++k) row[k] = load(t.const_data_ptr(), src + k);
        }
      }
      offset += t.sizes()[d];
    }
  });
  return out;
}

}  // namespace ptec::kernels
