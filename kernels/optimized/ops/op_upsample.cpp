// upsample_bilinear2d.vec_out and upsample_nearest2d.vec_out, optimized for fp32 contiguous
// tensors: the source taps of a column are computed once per run of output rows instead of once
// per output, and output rows that read the same input rows reuse what the first of them
// computed (a segmentation head's 16x upsampling reads each pair of input rows for 16 output
// rows). Same arithmetic as the portable kernels (kernels/portable/util/upsample.h), so the
// results are bitwise the same; everything else runs the portable kernels.

#include <cstring>

#include "kernels/optimized/ops/ops.h"
#include "kernels/optimized/threadpool.h"
#include "kernels/portable/functions.h"
#include "kernels/portable/util/upsample.h"

namespace ptec::kernels::optimized {
namespace {

bool is_float(DType t) { return t == DType::Float; }

bool float_contiguous(const Tensor& input, const Tensor& out) {
  return input.dtype() == DType::Float && out.dtype() == DType::Float && input.dim() == 4 &&
         input.is_contiguous() && out.is_contiguous();
}

// Output row `o` of a bilinear resize: the taps' weighted sum of input rows r0 and r1 along x
// (the same expression as the portable kernel's, term by term).
void bilinear_row(const float* r0, const float* r1, const LinearTap& ty, int64_t w, int64_t ow,
                  bool align_corners, const std::optional<double>& sw, float* o) {
  for (int64_t x = 0; x < ow; ++x) {
    const LinearTap tx = linear_tap(x, w, ow, align_corners, sw);
    o[x] = ty.l0 * (tx.l0 * r0[tx.i0] + tx.l1 * r0[tx.i1]) +
           ty.l1 * (tx.l0 * r1[tx.i0] + tx.l1 * r1[tx.i1]);
  }
}

}  // namespace

Tensor& upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                    const OptIntList& output_size, bool align_corners,
                                    const std::optional<Span<const double>>& scale_factors,
                                    Tensor& out) {
  if (!float_contiguous(input, out)) {
    return kernels::upsample_bilinear2d_vec_out(ctx, input, output_size, align_corners,
                                                scale_factors, out);
  }
  Upsample2d g;
  if (!upsample2d_prepare(ctx, "upsample_bilinear2d.vec_out", input, output_size, scale_factors,
                          is_float, "Float", out, &g)) {
    return out;
  }
  const int64_t h = g.h, w = g.w, oh = g.oh, ow = g.ow, planes = g.planes;
  const std::optional<double>&sh = g.scale_h, &sw = g.scale_w;
  const float* in_data = input.const_data_ptr<float>();
  float* out_data = out.mutable_data_ptr<float>();
  parallel_for(planes, [&](int64_t p) {
    const float* in = in_data + p * h * w;
    float* o = out_data + p * oh * ow;
    for (int64_t y = 0; y < oh;) {
      const LinearTap ty = linear_tap(y, h, oh, align_corners, sh);
      int64_t end = y + 1;  // rows [y, end) read input rows i0 and i1
      while (end < oh) {
        const LinearTap next = linear_tap(end, h, oh, align_corners, sh);
        if (next.i0 != ty.i0 || next.i1 != ty.i1) break;
        ++end;
      }
      const float* r0 = in + ty.i0 * w;
      const float* r1 = in + ty.i1 * w;
      if (end - y == 1) {
        bilinear_row(r0, r1, ty, w, ow, align_corners, sw, o + y * ow);
        y = end;
        continue;
      }
      // Row y holds the x-interpolation of r0 and row y + 1 that of r1; every row of the run is
      // their weighted sum, rows y and y + 1 last (both from the same two values).
      float* h0 = o + y * ow;
      float* h1 = o + (y + 1) * ow;
      for (int64_t x = 0; x < ow; ++x) {
        const LinearTap tx = linear_tap(x, w, ow, align_corners, sw);
        h0[x] = tx.l0 * r0[tx.i0] + tx.l1 * r0[tx.i1];
        h1[x] = tx.l0 * r1[tx.i0] + tx.l1 * r1[tx.i1];
      }
      for (int64_t r = y + 2; r < end; ++r) {
        const LinearTap t = linear_tap(r, h, oh, align_corners, sh);
        float* row = o + r * ow;
        for (int64_t x = 0; x < ow; ++x) row[x] = t.l0 * h0[x] + t.l1 * h1[x];
      }
      const LinearTap t1 = linear_tap(y + 1, h, oh, align_corners, sh);
      for (int64_t x = 0; x < ow; ++x) {
        const float a = h0[x], b = h1[x];
        h0[x] = ty.l0 * a + ty.l1 * b;
        h1[x] = t1.l0 * a + t1.l1 * b;
      }
      y = end;
    }
  });
  return out;
}

Tensor& upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   const OptIntList& output_size,
                                   const std::optional<Span<const double>>& scale_factors,
                                   Tensor& out) {
  if (!float_contiguous(input, out)) {
    return kernels::upsample_nearest2d_vec_out(ctx, input, output_size, scale_factors, out);
  }
  Upsample2d g;
  if (!upsample2d_prepare(ctx, "upsample_nearest2d.vec_out", input, output_size, scale_factors,
                          is_float, "Float", out, &g)) {
    return out;
  }
  const int64_t h = g.h, w = g.w, oh = g.oh, ow = g.ow, planes = g.planes;
  const std::optional<double>&sh = g.scale_h, &sw = g.scale_w;
  const float* in_data = input.const_data_ptr<float>();
  float* out_data = out.mutable_data_ptr<float>();
  parallel_for(planes, [&](int64_t p) {
    const float* in = in_data + p * h * w;
    float* o = out_data + p * oh * ow;
    int64_t last_iy = -1;
    for (int64_t y = 0; y < oh; ++y) {
      const int64_t iy = nearest_index(y, h, oh, sh);
      float* row = o + y * ow;
      if (iy == last_iy) {  // the same input row as the row above: a copy of it
        std::memcpy(row, row - ow, static_cast<size_t>(ow) * sizeof(float));
        continue;
      }
      const float* src = in + iy * w;
      for (int64_t x = 0; x < ow; ++x) row[x] = src[nearest_index(x, w, ow, sw)];
      last_iy = iy;
    }
  });
  return out;
}

}  // namespace ptec::kernels::optimized
