// ptec::roi_align.out: ONNX RoiAlign (torchvision's roi_align with its sampling rules; ExecuTorch's
// portable library has no such kernel). Each region of interest [x1, y1, x2, y2] of image
// batch_indices[r], scaled by spatial_scale (and shifted by half a pixel when aligned), is cut
// into output_height x output_width bins; each bin averages (or, in max mode, takes the largest
// of the weighted corners of) a grid of bilinear samples: sampling_ratio per side, or
// ceil(bin size) when it is 0. Samples more than one pixel outside the image count as 0.

#include <algorithm>
#include <cmath>

#include "kernels/portable/functions.h"

namespace ptec::kernels {
namespace {

// The four corners and weights of a bilinear sample at (y, x) of an h x w plane, as ONNX Runtime
// and torchvision compute them; `valid` false for a sample outside [-1, h] x [-1, w].
struct Sample {
  bool valid = false;
  int64_t i1 = 0, i2 = 0, i3 = 0, i4 = 0;  // offsets of (y0, x0), (y0, x1), (y1, x0), (y1, x1)
  float w1 = 0, w2 = 0, w3 = 0, w4 = 0;
};

Sample bilinear(float y, float x, int64_t h, int64_t w) {
  Sample s;
  if (y < -1.0f || y > static_cast<float>(h) || x < -1.0f || x > static_cast<float>(w)) return s;
  y = std::max(y, 0.0f);
  x = std::max(x, 0.0f);
  auto y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x);
  int64_t y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= h - 1) {
    y0 = y1 = h - 1;
    y = static_cast<float>(y0);
  }
  if (x0 >= w - 1) {
    x0 = x1 = w - 1;
    x = static_cast<float>(x0);
  }
  const float ly = y - static_cast<float>(y0), lx = x - static_cast<float>(x0);
  const float hy = 1.0f - ly, hx = 1.0f - lx;
  s.valid = true;
  s.i1 = y0 * w + x0;
  s.i2 = y0 * w + x1;
  s.i3 = y1 * w + x0;
  s.i4 = y1 * w + x1;
  s.w1 = hy * hx;
  s.w2 = hy * lx;
  s.w3 = ly * hx;
  s.w4 = ly * lx;
  return s;
}

}  // namespace

Tensor& roi_align_out(KernelRuntimeContext& ctx, const Tensor& x, const Tensor& rois,
                      const Tensor& batch_indices, int64_t output_height, int64_t output_width,
                      int64_t sampling_ratio, double spatial_scale, bool aligned, bool max_mode,
                      Tensor& out) {
  constexpr const char* kOp = "roi_align.out";
  if (!check_contiguous(ctx, kOp, {&x, &rois, &batch_indices, &out})) return out;
  PTEC_KERNEL_CHECK_MSG(
      ctx, x.dtype() == DType::Float && rois.dtype() == DType::Float && out.dtype() == DType::Float,
      InvalidArgument, out, "%s: x, rois and out must be float32", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, batch_indices.dtype() == DType::Long, InvalidArgument, out,
                        "%s: batch_indices must be int64", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx,
                        x.dim() == 4 && rois.dim() == 2 && rois.size(1) == 4 &&
                            batch_indices.dim() == 1 && batch_indices.size(0) == rois.size(0),
                        InvalidArgument, out,
                        "%s: expected x [N, C, H, W], rois [R, 4] and batch_indices [R]", kOp);
  PTEC_KERNEL_CHECK_MSG(ctx, output_height > 0 && output_width > 0 && sampling_ratio >= 0,
                        InvalidArgument, out, "%s: bad output size or sampling ratio", kOp);
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t r_count = rois.size(0);
  const SizesType shape[4] = {static_cast<SizesType>(r_count), static_cast<SizesType>(c),
                              static_cast<SizesType>(output_height),
                              static_cast<SizesType>(output_width)};
  if (!resize_out(ctx, kOp, out, shape)) return out;
  const float* xd = x.const_data_ptr<float>();
  const float* rd = rois.const_data_ptr<float>();
  const int64_t* bd = batch_indices.const_data_ptr<int64_t>();
  float* o = out.mutable_data_ptr<float>();
  const float offset = aligned ? 0.5f : 0.0f;
  const auto scale = static_cast<float>(spatial_scale);
  for (int64_t r = 0; r < r_count; ++r) {
    const int64_t b = bd[r];
    PTEC_KERNEL_CHECK_MSG(ctx, b >= 0 && b < n, InvalidArgument, out,
                          "%s: batch index %lld of roi %lld is out of range for %lld images", kOp,
                          static_cast<long long>(b), static_cast<long long>(r),
                          static_cast<long long>(n));
    const float* roi = rd + r * 4;
    const float x0 = roi[0] * scale - offset, y0 = roi[1] * scale - offset;
    float roi_w = roi[2] * scale - offset - x0, roi_h = roi[3] * scale - offset - y0;
    if (!aligned) {  // the legacy mode: at least one pixel
      roi_w = std::max(roi_w, 1.0f);
      roi_h = std::max(roi_h, 1.0f);
    }
    const float bin_h = roi_h / static_cast<float>(output_height);
    const float bin_w = roi_w / static_cast<float>(output_width);
    const int64_t grid_h = sampling_ratio > 0
                               ? sampling_ratio
                               : static_cast<int64_t>(std::ceil(roi_h / output_height));
    const int64_t grid_w =
        sampling_ratio > 0 ? sampling_ratio : static_cast<int64_t>(std::ceil(roi_w / output_width));
    const float count = static_cast<float>(std::max<int64_t>(grid_h * grid_w, 1));
    // Each bin's samples (positions and weights) serve every channel: computed once per bin.
    const float* image = xd + b * c * h * w;
    float* bins = o + r * c * output_height * output_width;
    for (int64_t ph = 0; ph < output_height; ++ph) {
      for (int64_t pw = 0; pw < output_width; ++pw) {
        float* out_bin = bins + ph * output_width + pw;  // channel ch at ch * plane_out
        const int64_t plane_out = output_height * output_width;
        for (int64_t ch = 0; ch < c; ++ch) out_bin[ch * plane_out] = 0.0f;
        bool first = true;
        for (int64_t iy = 0; iy < grid_h; ++iy) {
          const float y = y0 + static_cast<float>(ph) * bin_h +
                          (static_cast<float>(iy) + 0.5f) * bin_h / static_cast<float>(grid_h);
          for (int64_t ix = 0; ix < grid_w; ++ix) {
            const float xx = x0 + static_cast<float>(pw) * bin_w +
                             (static_cast<float>(ix) + 0.5f) * bin_w / static_cast<float>(grid_w);
            const Sample s = bilinear(y, xx, h, w);
            for (int64_t ch = 0; ch < c; ++ch) {
              const float* plane = image + ch * h * w;
              float& acc = out_bin[ch * plane_out];
              if (!max_mode) {
                if (s.valid) {
                  acc += s.w1 * plane[s.i1] + s.w2 * plane[s.i2] + s.w3 * plane[s.i3] +
                         s.w4 * plane[s.i4];
                }
                continue;
              }
              const float v = s.valid ? std::max(std::max(s.w1 * plane[s.i1], s.w2 * plane[s.i2]),
                                                 std::max(s.w3 * plane[s.i3], s.w4 * plane[s.i4]))
                                      : 0.0f;
              acc = first ? v : std::max(acc, v);
            }
            first = false;
          }
        }
        if (!max_mode) {
          for (int64_t ch = 0; ch < c; ++ch) out_bin[ch * plane_out] /= count;
        }
      }
    }
  }
  return out;
}

}  // namespace ptec::kernels
