// native_group_norm.out, optimized for fp32 contiguous tensors: the statistics of each (image,
// group) are float sums in 16 lanes (row_sum.h; the portable kernel accumulates in double, one
// element at a time), and the normalization with the per-channel affine is one vectorizable pass.
// Groups run in parallel. Everything else runs the portable kernel.

#include <cmath>

#include "kernels/optimized/ops/ops.h"
#include "kernels/optimized/row_sum.h"
#include "kernels/optimized/threadpool.h"
#include "kernels/portable/functions.h"

namespace ptec::kernels::optimized {
namespace {

bool float_contiguous(const Tensor& t) { return t.dtype() == DType::Float && t.is_contiguous(); }

// sum((x[i] - mean)^2) over [0, n), in 16 lanes added pairwise.
float squared_deviations(const float* x, int64_t n, float mean) {
  float lanes[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int l = 0; l < 16; ++l) {
      const float d = x[i + l] - mean;
      lanes[l] += d * d;
    }
  }
  for (int l = 0; i < n; ++i, ++l) {
    const float d = x[i] - mean;
    lanes[l] += d * d;
  }
  for (int width = 8; width >= 1; width /= 2) {
    for (int l = 0; l < width; ++l) lanes[l] += lanes[l + width];
  }
  return lanes[0];
}

}  // namespace

std::tuple<Tensor&, Tensor&, Tensor&> native_group_norm_out(
    KernelRuntimeContext& ctx, const Tensor& input, const OptTensor& weight, const OptTensor& bias,
    int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, Tensor& out0, Tensor& out1,
    Tensor& out2) {
  auto portable = [&]() {
    return kernels::native_group_norm_out(ctx, input, weight, bias, n, c, hxw, group, eps, out0,
                                          out1, out2);
  };
  const bool shapes = input.dim() >= 2 && n >= 0 && c > 0 && hxw >= 0 && group > 0 &&
                      c % group == 0 && input.sizes()[0] == n && input.sizes()[1] == c &&
                      static_cast<int64_t>(input.numel()) == n * c * hxw;
  bool params = true;
  for (const OptTensor* p : {&weight, &bias}) {
    if (p->has_value()) params &= float_contiguous(**p) && (*p)->dim() == 1 && (*p)->size(0) == c;
  }
  if (!shapes || !params || !float_contiguous(input) || !float_contiguous(out0) ||
      !float_contiguous(out1) || !float_contiguous(out2)) {
    return portable();
  }
  std::tuple<Tensor&, Tensor&, Tensor&> ret{out0, out1, out2};
  constexpr const char* kOp = "native_group_norm.out";
  const SizesType stat[2] = {static_cast<SizesType>(n), static_cast<SizesType>(group)};
  if (!resize_out(ctx, kOp, out0, input.sizes(), "out0") ||
      !resize_out(ctx, kOp, out1, stat, "out1") || !resize_out(ctx, kOp, out2, stat, "out2")) {
    return ret;
  }
  const int64_t cg = c / group, len = cg * hxw;
  const float* x = input.const_data_ptr<float>();
  const float* w = weight ? weight->const_data_ptr<float>() : nullptr;
  const float* b = bias ? bias->const_data_ptr<float>() : nullptr;
  float* y = out0.mutable_data_ptr<float>();
  float* means = out1.mutable_data_ptr<float>();
  float* rstds = out2.mutable_data_ptr<float>();
  parallel_for(n * group, [&](int64_t i) {
    const float* xi = x + i * len;
    float* yi = y + i * len;
    const float mean = len > 0 ? row_sum(xi, len) / static_cast<float>(len) : 0.0f;
    const float var = len > 0 ? squared_deviations(xi, len, mean) / static_cast<float>(len) : 0.0f;
    const float rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(var) + eps));
    for (int64_t ch = 0; ch < cg; ++ch) {
      const int64_t cc = (i % group) * cg + ch;
      const float scale = w != nullptr ? rstd * w[cc] : rstd;
      const float shift = b != nullptr ? b[cc] : 0.0f;
      const float* xc = xi + ch * hxw;
      float* yc = yi + ch * hxw;
      for (int64_t j = 0; j < hxw; ++j) yc[j] = (xc[j] - mean) * scale + shift;
    }
    means[i] = mean;
    rstds[i] = rstd;
  });
  return ret;
}

}  // namespace ptec::kernels::optimized
