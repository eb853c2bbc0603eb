// reflection_pad2d.out and replication_pad2d.out: pad the last two dims of a 3-D or 4-D tensor by
// padding = [left, right, top, bottom], mirroring without the edge (reflection; each pad must be
// smaller than its dim) or repeating the edge (replication).

#include <cstring>

#include "kernels/portable/functions.h"
#include "kernels/portable/util/dtype_util.h"

namespace ptec::kernels {
namespace {

int64_t source_index(int64_t i, int64_t size, bool reflect) {
  if (reflect) {
    if (i < 0) return -i;
    if (i >= size) return 2 * (size - 1) - i;
    return i;
  }
  return i < 0 ? 0 : (i >= size ? size - 1 : i);
}

Tensor& pad2d(KernelRuntimeContext& ctx, const char* op, bool reflect, const Tensor& self,
              IntList padding, Tensor& out) {
  if (!check_contiguous(ctx, op, {&self, &out})) return out;
  if (!check_dtype(ctx, op, out, self.dtype(), "out")) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, self.dim() == 3 || self.dim() == 4, InvalidArgument, out,
                        "%s: expected a 3-D or 4-D input, got rank %zu", op, self.dim());
  PTEC_KERNEL_CHECK_MSG(ctx, padding.size() == 4, InvalidArgument, out,
                        "%s: padding must have 4 elements", op);
  const size_t r = self.dim();
  const int64_t h = self.sizes()[r - 2], w = self.sizes()[r - 1];
  const int64_t left = padding[0], right = padding[1], top = padding[2], bottom = padding[3];
  if (reflect) {
    PTEC_KERNEL_CHECK_MSG(ctx,
                          left < w && right < w && top < h && bottom < h && left >= 0 &&
                              right >= 0 && top >= 0 && bottom >= 0,
                          InvalidArgument, out,
                          "%s: padding must be non-negative and smaller than the input dim", op);
  } else {
    PTEC_KERNEL_CHECK_MSG(ctx, left >= 0 && right >= 0 && top >= 0 && bottom >= 0 && h > 0 && w > 0,
                          InvalidArgument, out, "%s: padding must be non-negative", op);
  }
  Shape shape = shape_of(self);
  const int64_t oh = h + top + bottom, ow = w + left + right;
  shape.sizes[r - 2] = static_cast<SizesType>(oh);
  shape.sizes[r - 1] = static_cast<SizesType>(ow);
  if (!resize_out(ctx, op, out, shape.span())) return out;
  const int64_t planes = h * w == 0 ? 0 : static_cast<int64_t>(self.numel()) / (h * w);
  const size_t es = self.element_size();
  const auto* src = static_cast<const uint8_t*>(self.const_data_ptr());
  auto* dst = static_cast<uint8_t*>(out.mutable_data_ptr());
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t i = 0; i < oh; ++i) {
      const int64_t si = source_index(i - top, h, reflect);
      for (int64_t j = 0; j < ow; ++j) {
        const int64_t sj = source_index(j - left, w, reflect);
        std::memcpy(dst + static_cast<size_t>((p * oh + i) * ow + j) * es,
                    src + static_cast<size_t>((p * h + si) * w + sj) * es, es);
      }
    }
  }
  return out;
}

}  // namespace

Tensor& reflection_pad2d_out(KernelRuntimeContext& ctx, const Tensor& self, IntList padding,
                             Tensor& out) {
  return pad2d(ctx, "reflection_pad2d.out", true, self, padding, out);
}

Tensor& replication_pad2d_out(KernelRuntimeContext& ctx, const Tensor& self, IntList padding,
                              Tensor& out) {
  return pad2d(ctx, "replication_pad2d.out", false, self, padding, out);
}

}  // namespace ptec::kernels
