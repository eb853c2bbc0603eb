#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

bool Shape::push(int64_t size) {
  if (ndim == kTensorDimensionLimit) return false;
  sizes[ndim++] = static_cast<SizesType>(size);
  return true;
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (size_t i = 0; i < ndim; ++i) n *= sizes[i];
  return n;
}

Shape shape_of(const Tensor& t) {
  Shape s;
  for (SizesType v : t.sizes()) s.push(v);
  return s;
}

bool wrap_dim(KernelRuntimeContext& ctx, const char* op, int64_t dim, size_t rank, size_t* out) {
  const int64_t r = rank == 0 ? 1 : static_cast<int64_t>(rank);
  PTEC_KERNEL_CHECK_MSG(ctx, dim >= -r && dim < r, InvalidArgument, false,
                        "%s: dim %lld is out of range for a tensor of rank %zu", op,
                        static_cast<long long>(dim), rank);
  *out = static_cast<size_t>(dim < 0 ? dim + r : dim);
  return true;
}

bool check_contiguous(KernelRuntimeContext& ctx, const char* op,
                      std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors) {
    PTEC_KERNEL_CHECK_MSG(ctx, t->is_contiguous(), InvalidArgument, false,
                          "%s: only the default (contiguous) dim order is supported", op);
  }
  return true;
}

bool check_dtype(KernelRuntimeContext& ctx, const char* op, const Tensor& t, DType dtype,
                 const char* what) {
  PTEC_KERNEL_CHECK_MSG(ctx, t.dtype() == dtype, InvalidArgument, false,
                        "%s: %s has dtype %s, expected %s", op, what, to_string(t.dtype()),
                        to_string(dtype));
  return true;
}

bool check_same_shape(KernelRuntimeContext& ctx, const char* op, const Tensor& a, const Tensor& b,
                      const char* what_a, const char* what_b) {
  bool same = a.dim() == b.dim();
  for (size_t i = 0; same && i < a.dim(); ++i) same = a.sizes()[i] == b.sizes()[i];
  PTEC_KERNEL_CHECK_MSG(ctx, same, InvalidArgument, false, "%s: %s and %s must have the same shape",
                        op, what_a, what_b);
  return true;
}

bool resize_out(KernelRuntimeContext& ctx, const char* op, Tensor& out, Span<const SizesType> sizes,
                const char* what) {
  PTEC_KERNEL_CHECK_MSG(ctx, out.dim() == sizes.size(), InvalidArgument, false,
                        "%s: %s has rank %zu, expected rank %zu", op, what, out.dim(),
                        sizes.size());
  PTEC_KERNEL_CHECK_MSG(ctx, out.resize(sizes) == Error::Ok, InvalidArgument, false,
                        "%s: cannot resize %s to the output shape", op, what);
  return true;
}

int64_t size_product(const Tensor& t, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end && i < t.dim(); ++i) n *= t.sizes()[i];
  return n;
}

bool check_int_list(KernelRuntimeContext& ctx, const char* op, Span<const int64_t> list,
                    size_t min_len, size_t max_len, int64_t min_value, const char* what) {
  PTEC_KERNEL_CHECK_MSG(ctx, list.size() >= min_len && list.size() <= max_len, InvalidArgument,
                        false, "%s: %s must have %zu to %zu elements, got %zu", op, what, min_len,
                        max_len, list.size());
  for (int64_t v : list) {
    PTEC_KERNEL_CHECK_MSG(ctx, v >= min_value, InvalidArgument, false,
                          "%s: %s must be >= %lld, got %lld", op, what,
                          static_cast<long long>(min_value), static_cast<long long>(v));
  }
  return true;
}

}  // namespace ptec::kernels
