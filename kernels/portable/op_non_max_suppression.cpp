// ptec::non_max_suppression.out: ONNX NonMaxSuppression (ExecuTorch's portable library has no
// such kernel; torchvision's nms is per class and unbatched). For each batch and class: the boxes
// whose score is above score_threshold, visited by descending score (ties: lower index first),
// each kept unless its IoU with a box kept before in the same class exceeds iou_threshold, up to
// max_output_boxes_per_class. Rows [batch, class, box] in that order; out is resized to
// [selected, 3] (planned at its upper bound).

#include <algorithm>
#include <cmath>

#include "kernels/portable/functions.h"

namespace ptec::kernels {
namespace {

struct Box {
  float y1, x1, y2, x2;  // y1 <= y2, x1 <= x2
};

Box load_box(const float* b, bool center) {
  if (center) {  // [x_center, y_center, width, height]
    const float hw = b[2] / 2, hh = b[3] / 2;
    return {b[1] - hh, b[0] - hw, b[1] + hh, b[0] + hw};
  }
  // [y1, x1, y2, x2]: either diagonal's corners.
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

float iou(const Box& a, const Box& b) {
  const float area_a = (a.y2 - a.y1) * (a.x2 - a.x1);
  const float area_b = (b.y2 - b.y1) * (b.x2 - b.x1);
  if (area_a <= 0 || area_b <= 0) return 0;
  const float h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  const float w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (h <= 0 || w <= 0) return 0;
  const float inter = h * w;
  return inter / (area_a + area_b - inter);
}

}  // namespace

Tensor& non_max_suppression_out(KernelRuntimeContext& ctx, const Tensor& boxes,
                                const Tensor& scores, int64_t max_output_boxes_per_class,
                                double iou_threshold, double score_threshold,
                                int64_t center_point_box, Tensor& out) {
  constexpr const char* kOp = "non_max_suppression.out";
  if (!check_contiguous(ctx, kOp, {&boxes, &scores, &out})) return out;
  PTEC_KERNEL_CHECK_MSG(ctx, boxes.dtype() == DType::Float && scores.dtype() == DType::Float,
                        InvalidArgument, out, "%s: boxes and scores must be float32", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, out.dtype() == DType::Long && out.dim() == 2, InvalidArgument, out,
                        "%s: out must be 2-D int64", kOp);
  PTEC_KERNEL_CHECK_MSG(
      ctx, boxes.dim() == 3 && boxes.size(2) == 4 && scores.dim() == 3, InvalidArgument, out,
      "%s: boxes must be [batch, boxes, 4] and scores [batch, classes, boxes]", kOp);
  const int64_t batches = boxes.size(0), n = boxes.size(1), classes = scores.size(1);
  PTEC_KERNEL_CHECK_MSG(ctx, scores.size(0) == batches && scores.size(2) == n, InvalidArgument, out,
                        "%s: scores [%d, %d, %d] do not match boxes [%d, %d, 4]", kOp,
                        static_cast<int>(scores.size(0)), static_cast<int>(classes),
                        static_cast<int>(scores.size(2)), static_cast<int>(batches),
                        static_cast<int>(n));
  PTEC_KERNEL_CHECK_MSG(ctx, center_point_box == 0 || center_point_box == 1, InvalidArgument, out,
                        "%s: center_point_box must be 0 or 1", kOp);
  const int64_t keep_max = std::max<int64_t>(0, std::min(max_output_boxes_per_class, n));
  // Capacity: out's planned rows; the kernel writes at most batches * classes * keep_max.
  const int64_t capacity = batches * classes * keep_max;
  const SizesType full[2] = {static_cast<SizesType>(capacity), 3};
  if (!resize_out(ctx, kOp, out, full)) return out;
  const float* box_data = boxes.const_data_ptr<float>();
  const float* score_data = scores.const_data_ptr<float>();
  int64_t* o = out.mutable_data_ptr<int64_t>();
  int64_t rows = 0;
  // Per (batch, class): candidate order, and the boxes kept so far. Scratch from the temp
  // allocator: n indices and n boxes.
  auto* order = static_cast<int64_t*>(ctx.allocate_temp(static_cast<size_t>(n) * sizeof(int64_t)));
  auto* kept = static_cast<Box*>(ctx.allocate_temp(static_cast<size_t>(n) * sizeof(Box)));
  PTEC_KERNEL_CHECK_MSG(ctx, n == 0 || (order != nullptr && kept != nullptr),
                        MemoryAllocationFailed, out, "%s: no temp memory for %d boxes", kOp,
                        static_cast<int>(n));
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = score_data + (b * classes + c) * n;
      int64_t candidates = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (static_cast<double>(s[i]) > score_threshold) order[candidates++] = i;
      }
      std::sort(order, order + candidates, [&](int64_t l, int64_t r) {
        return s[l] > s[r] || (s[l] == s[r] && l < r);  // ties: the lower index first
      });
      int64_t kept_count = 0;
      for (int64_t k = 0; k < candidates && kept_count < keep_max; ++k) {
        const Box box = load_box(box_data + (b * n + order[k]) * 4, center_point_box == 1);
        bool suppressed = false;
        for (int64_t j = 0; j < kept_count && !suppressed; ++j) {
          suppressed = static_cast<double>(iou(box, kept[j])) > iou_threshold;
        }
        if (suppressed) continue;
        kept[kept_count++] = box;
        o[rows * 3] = b;
        o[rows * 3 + 1] = c;
        o[rows * 3 + 2] = order[k];
        ++rows;
      }
    }
  }
  const SizesType shape[2] = {static_cast<SizesType>(rows), 3};
  resize_out(ctx, kOp, out, shape);
  return out;
}

}  // namespace ptec::kernels
