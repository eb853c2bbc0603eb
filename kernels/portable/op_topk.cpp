// topk.values: the k largest (or smallest) elements of self along `dim` and their int64
// indices. NaN compares greater than every number (ATen). The result is always sorted (which
// sorted=False allows) and equal values keep their order: the lower index comes first, as ONNX
// TopK requires. Real dtypes, Half and BFloat16 (compared as float). Runs in O(n log k) per row
// with a bounded heap kept in the outputs themselves, so it needs no scratch memory.

#include <utility>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/scatter_util.h"

namespace ptec::kernels {
namespace {

/// True when (a, ia) comes before (b, ib) in the output order.
template <typename T>
bool before(T a, int64_t ia, T b, int64_t ib, bool largest) {
  const bool na = is_nan_value(a), nb = is_nan_value(b);
  if (na || nb) {
    if (na && nb) return ia < ib;
    return largest ? na : nb;  // NaN is the largest value
  }
  if (a != b) return largest ? a > b : a < b;
  return ia < ib;
}

}  // namespace

std::tuple<Tensor&, Tensor&> topk_values(KernelRuntimeContext& ctx, const Tensor& self, int64_t k,
                                         int64_t dim, bool largest, bool sorted, Tensor& values,
                                         Tensor& indices) {
  (void)sorted;
  constexpr const char* kOp = "topk.values";
  std::tuple<Tensor&, Tensor&> ret{values, indices};
  if (!check_contiguous(ctx, kOp, {&self, &values, &indices})) return ret;
  size_t d = 0;
  if (!wrap_dim(ctx, kOp, dim, self.dim(), &d)) return ret;
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  PTEC_KERNEL_CHECK_MSG(ctx, k >= 0 && k <= n, InvalidArgument, ret,
                        "%s: selected index k=%lld out of range for a dim of size %lld", kOp,
                        static_cast<long long>(k), static_cast<long long>(n));
  PTEC_KERNEL_CHECK_MSG(
      ctx, self.dtype() != DType::Bool && is_accepted_dtype(self.dtype(), kReducedFloat),
      InvalidArgument, ret, "%s: unsupported dtype %s", kOp, to_string(self.dtype()));
  if (!check_dtype(ctx, kOp, values, self.dtype(), "values")) return ret;
  if (!check_dtype(ctx, kOp, indices, DType::Long, "indices")) return ret;
  Shape shape = shape_of(self);
  if (self.dim() > 0) shape.sizes[d] = static_cast<SizesType>(k);
  if (!resize_out(ctx, kOp, values, shape.span(), "values")) return ret;
  if (!resize_out(ctx, kOp, indices, shape.span(), "indices")) return ret;
  if (k == 0) return ret;
  const int64_t outer = self.dim() == 0 ? 1 : size_product(self, 0, d);
  const int64_t inner = self.dim() == 0 ? 1 : size_product(self, d + 1, self.dim());
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* in = self.const_data_ptr<T>();
    T* vals = values.mutable_data_ptr<T>();
    int64_t* idxs = indices.mutable_data_ptr<int64_t>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const T* row = in + o * n * inner + i;
        T* hv = vals + o * k * inner + i;
        int64_t* hi = idxs + o * k * inner + i;
        // A heap of the best `size` elements so far with the worst at the root: slot j of the
        // heap is element j * inner of the output row.
        auto worse = [&](int64_t a, int64_t b) {  // heap slot a comes after slot b
          return before(hv[b * inner], hi[b * inner], hv[a * inner], hi[a * inner], largest);
        };
        auto swap_slots = [&](int64_t a, int64_t b) {
          std::swap(hv[a * inner], hv[b * inner]);
          std::swap(hi[a * inner], hi[b * inner]);
        };
        auto sift_down = [&](int64_t j, int64_t size) {
          while (true) {
            const int64_t l = 2 * j + 1, r = l + 1;
            int64_t w = j;
            if (l < size && worse(l, w)) w = l;
            if (r < size && worse(r, w)) w = r;
            if (w == j) return;
            swap_slots(j, w);
            j = w;
          }
        };
        int64_t size = 0;
        for (int64_t e = 0; e < n; ++e) {
          const T x = row[e * inner];
          if (size < k) {
            // Append and sift up.
            int64_t j = size++;
            hv[j * inner] = x;
            hi[j * inner] = e;
            while (j > 0) {
              const int64_t p = (j - 1) / 2;
              if (!worse(j, p)) break;
              swap_slots(j, p);
              j = p;
            }
          } else if (before(x, e, hv[0], hi[0], largest)) {
            hv[0] = x;
            hi[0] = e;
            sift_down(0, size);
          }
        }
        // Heap sort: move the worst to the end each time; the row ends best first.
        for (int64_t end = size - 1; end > 0; --end) {
          swap_slots(0, end);
          sift_down(0, end);
        }
      }
    }
  };
  if (self.dtype() == DType::Half) {
    run(Half{});
  } else if (self.dtype() == DType::BFloat16) {
    run(BFloat16{});
  } else {
    dispatch_real(self.dtype(), run);
  }
  return ret;
}

}  // namespace ptec::kernels
