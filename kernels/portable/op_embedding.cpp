// embedding.out: rows of a 2-D weight picked by an index tensor of any shape; out has shape
// indices.shape + [embedding_dim]. padding_idx / scale_grad_by_freq / sparse only matter for
// gradients.

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/index_util.h"

namespace ptec::kernels {

Tensor& embedding_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& indices,
                      int64_t padding_idx, bool scale_grad_by_freq, bool sparse, Tensor& out) {
  (void)padding_idx;
  (void)scale_grad_by_freq;
  (void)sparse;
  constexpr const char* kOp = "embedding.out";
  if (!check_contiguous(ctx, kOp, {&weight, &out})) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, weight.dim() == 2, InvalidArgument, out,
                        "%s: weight must be 2-D, got rank %zu", kOp, weight.dim());
  if (!check_dtype(ctx, kOp, out, weight.dtype(), "out")) return out;
  const int64_t rows = weight.sizes()[0], dim = weight.sizes()[1];
  if (!check_indices(ctx, kOp, indices, rows, /*allow_negative=*/false)) return out;
  Shape shape = shape_of(indices);
  PTEC_KERNEL_CHECK_MSG(ctx, shape.push(dim), InvalidArgument, out, "%s: rank limit", kOp);
  if (!resize_out(ctx, kOp, out, shape.span())) return out;
  const size_t row_bytes = static_cast<size_t>(dim) * weight.element_size();
  const auto* src = static_cast<const uint8_t*>(weight.const_data_ptr());
  auto* dst = static_cast<uint8_t*>(out.mutable_data_ptr());
  for (size_t i = 0; i < indices.numel() && row_bytes > 0; ++i) {
    std::memcpy(dst + i * row_bytes,
                src + index_at(indices, static_cast<int64_t>(i), rows) * row_bytes, row_bytes);
  }
  return out;
}

}  // namespace ptec::kernels
