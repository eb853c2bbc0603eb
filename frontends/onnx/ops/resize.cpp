// Resize (versions 10-19) and Upsample (7-9): every mode (nearest with each nearest_mode, linear,
// cubic with cubic_coeff_a and exclude_outside) and coordinate_transformation_mode (half_pixel,
// half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn,
// tf_crop_and_resize with extrapolation_value), for inputs of any rank with static sizes; from
// Resize-18 also axes, keep_aspect_ratio_policy and antialias (linear and cubic filters widened
// by 1 / scale when downscaling, as ONNX's reference computes them).
//
// ONNX's resize is separable: each resized axis is interpolated on its own, in order. Input and
// output sizes are known at import time, so the importer computes per axis, for every output
// index, the source indices and weights that ONNX's reference rule gives (the n nearest
// neighbours of the source coordinate in an edge-padded axis, n = 2 for nearest and linear, 4 for
// cubic; exclude_outside drops and renormalizes the ones outside the input). An axis then becomes
//   index_select(x, d, indices)                                  (one tap of weight 1), or
//   sum(view(index_select(x, d, tap-major indices), [.., T, out, ..]) * weights[T, out, 1..], d)
// and tf_crop_and_resize's out-of-roi positions become where(mask, extrapolation_value, y).
//
// Where ATen's kernels give the same taps (checked index by index at import time), a 4-D resize
// of H and W stays one call: upsample_nearest2d.vec or upsample_bilinear2d.vec. Dynamic H and W
// (sizes computed from Shape, or scales of a dynamic input) take those calls by rule
// (resize_dynamic).

#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "frontends/onnx/ops/op_util.h"
#include "ir/shape/shape_util.h"

namespace ptec::onnx_import {
namespace {

struct ResizeAttrs {
  std::string mode;             // nearest | linear | cubic
  std::string coordinate_mode;  // coordinate_transformation_mode
  std::string nearest_rule;     // nearest_mode
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation_value = 0.0;
  bool antialias = false;  // linear and cubic only
};

/// One axis: `out` outputs, each a weighted sum of `taps` source indices (tap-major:
/// index[t * out + o]); `outside[o]` marks tf_crop_and_resize positions outside the roi.
struct AxisTaps {
  int64_t taps = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<bool> outside;
  bool any_outside = false;
};

/// ONNX's source coordinate of output `o` of `out` (reference implementation's rule). `length` is
/// the resized length: the output size when sizes are given, in * scale (not floored) for scales.
double source_coordinate(const ResizeAttrs& a, int64_t o, int64_t in, int64_t out, double length,
                         double scale, double roi_start, double roi_end) {
  const double x = static_cast<double>(o);
  const std::string& m = a.coordinate_mode;
  if (m == "asymmetric") return x / scale;
  if (m == "half_pixel_symmetric") {
    // The centre of the resized length lands on the centre of the output (they differ when
    // in * scale is not an integer).
    const double offset = static_cast<double>(in) / 2 * (1 - static_cast<double>(out) / length);
    return offset + (x + 0.5) / scale - 0.5;
  }
  if (m == "align_corners") {
    return length == 1 ? 0.0 : x * static_cast<double>(in - 1) / (length - 1);
  }
  if (m == "pytorch_half_pixel") return length > 1 ? (x + 0.5) / scale - 0.5 : -0.5;
  if (m == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (m == "tf_crop_and_resize") {
    const double span = (roi_end - roi_start) * static_cast<double>(in - 1);
    const double c = length == 1 ? span / 2 : x * span / (length - 1);
    return c + roi_start * static_cast<double>(in - 1);
  }
  return (x + 0.5) / scale - 0.5;  // half_pixel
}

/// The cubic convolution kernel with parameter A at distance x.
double cubic_kernel(double x, double A) {
  x = std::abs(x);
  if (x <= 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
  if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return 0;
}

/// Antialiasing coefficients (linear or cubic) for downscaling by `scale` < 1: the kernel
/// stretched by 1 / scale over the neighbours at offsets start - ratio, ..., normalized to sum 1.
std::vector<double> antialias_coefficients(const ResizeAttrs& a, double ratio, double scale) {
  const double reach = a.mode == "linear" ? 1.0 : 2.0;
  const auto start = static_cast<int64_t>(std::floor(-reach / scale) + 1);
  const int64_t count = 2 - 2 * start;
  std::vector<double> c(static_cast<size_t>(count));
  double total = 0;
  for (int64_t i = 0; i < count; ++i) {
    const double x = (static_cast<double>(start + i) - ratio) * scale;
    const double v =
        a.mode == "linear" ? std::clamp(1 - std::abs(x), 0.0, 1.0) : cubic_kernel(x, a.cubic_a);
    c[static_cast<size_t>(i)] = v;
    total += v;
  }
  for (double& v : c) v /= total;
  return c;
}

/// Interpolation coefficients for the n neighbours at fractional offset `ratio` in (0, 1] of an
/// axis resized by `scale`.
std::vector<double> coefficients(const ResizeAttrs& a, double ratio, double scale) {
  if (a.antialias && a.mode != "nearest" && scale < 1) {
    return antialias_coefficients(a, ratio, scale);
  }
  if (a.mode == "nearest") {
    if (ratio == 1) return {0, 1};
    const std::string& r = a.nearest_rule;
    if (r == "floor") return {1, 0};
    if (r == "ceil") return {0, 1};
    if (r == "round_prefer_ceil") return {ratio < 0.5 ? 1.0 : 0.0, ratio < 0.5 ? 0.0 : 1.0};
    return {ratio <= 0.5 ? 1.0 : 0.0, ratio <= 0.5 ? 0.0 : 1.0};  // round_prefer_floor
  }
  if (a.mode == "linear") return {1 - ratio, ratio};
  const double A = a.cubic_a;
  const double r1 = ratio + 1, s = 1 - ratio, s1 = s + 1;
  return {((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A,
          ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1, ((A + 2) * s - (A + 3)) * s * s + 1,
          ((A * s1 - 5 * A) * s1 + 8 * A) * s1 - 4 * A};
}

/// The n integers of [-pad, in + pad) nearest to `x` (ties to the lower one), ascending, with
/// pad = ceil(n / 2): ONNX's neighbours in the edge-padded axis.
std::vector<int64_t> neighbours(double x, size_t n, int64_t in) {
  const auto pad = static_cast<int64_t>((n + 1) / 2);
  const int64_t lo = -pad, hi = in + pad - 1;
  const int64_t centre = std::clamp(static_cast<int64_t>(std::floor(x)), lo, hi);
  std::vector<int64_t> candidates;
  for (int64_t c = std::max(lo, centre - static_cast<int64_t>(n));
       c <= std::min(hi, centre + static_cast<int64_t>(n)); ++c) {
    candidates.push_back(c);
  }
  std::stable_sort(candidates.begin(), candidates.end(), [x](int64_t p, int64_t q) {
    return std::abs(x - static_cast<double>(p)) < std::abs(x - static_cast<double>(q));
  });
  candidates.resize(std::min(n, candidates.size()));
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

AxisTaps axis_taps(const ResizeAttrs& a, int64_t in, int64_t out, double length, double scale,
                   double roi_start, double roi_end) {
  std::vector<std::map<int64_t, double>> per_output(static_cast<size_t>(out));
  AxisTaps t;
  t.outside.assign(static_cast<size_t>(out), false);
  for (int64_t o = 0; o < out; ++o) {
    const double x = source_coordinate(a, o, in, out, length, scale, roi_start, roi_end);
    if (a.coordinate_mode == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(in - 1))) {
      t.outside[static_cast<size_t>(o)] = true;
      t.any_outside = true;
      continue;
    }
    const double fl = std::floor(x);
    const double ratio = x == fl ? 1.0 : x - fl;
    std::vector<double> coeffs = coefficients(a, ratio, scale);
    const std::vector<int64_t> idx = neighbours(x, coeffs.size(), in);
    if (a.exclude_outside) {
      double total = 0;
      for (size_t i = 0; i < idx.size(); ++i) {
        if (idx[i] < 0 || idx[i] >= in) coeffs[i] = 0;
        total += coeffs[i];
      }
      for (double& c : coeffs) c /= total;
    }
    auto& taps = per_output[static_cast<size_t>(o)];
    for (size_t i = 0; i < idx.size(); ++i) {
      if (coeffs[i] != 0) taps[std::clamp<int64_t>(idx[i], 0, in - 1)] += coeffs[i];
    }
  }
  for (const auto& m : per_output) t.taps = std::max(t.taps, static_cast<int64_t>(m.size()));
  t.taps = std::max<int64_t>(t.taps, 1);
  t.index.assign(static_cast<size_t>(t.taps * out), 0);
  t.weight.assign(static_cast<size_t>(t.taps * out), 0.0);
  for (int64_t o = 0; o < out; ++o) {
    int64_t k = 0;
    for (const auto& [i, w] : per_output[static_cast<size_t>(o)]) {
      t.index[static_cast<size_t>(k * out + o)] = i;
      t.weight[static_cast<size_t>(k * out + o)] = w;
      ++k;
    }
  }
  return t;
}

bool unit_weights(const AxisTaps& t) {
  if (t.taps != 1 || t.any_outside) return false;
  return std::all_of(t.weight.begin(), t.weight.end(), [](double w) { return w == 1; });
}

bool is_identity(const AxisTaps& t, int64_t in) {
  if (!unit_weights(t) || static_cast<int64_t>(t.index.size()) != in) return false;
  for (int64_t o = 0; o < in; ++o) {
    if (t.index[static_cast<size_t>(o)] != o) return false;
  }
  return true;
}

/// ATen's scale for an output index (area_pixel_compute_scale, computed in float as the
/// portable kernels do).
float aten_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) {
    return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f;
  }
  if (scale && *scale > 0) return static_cast<float>(1.0 / *scale);
  return static_cast<float>(in) / static_cast<float>(out);
}

/// True when upsample_nearest2d's index for every output of the axis equals `t`'s.
bool matches_aten_nearest(const AxisTaps& t, int64_t in, int64_t out, std::optional<double> scale) {
  if (!unit_weights(t)) return false;
  const float s = aten_scale(in, out, false, scale);
  for (int64_t o = 0; o < out; ++o) {
    const int64_t i = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
    if (i != t.index[static_cast<size_t>(o)]) return false;
  }
  return true;
}

/// True when upsample_bilinear2d's taps for every output of the axis equal `t`'s (weights to
/// within float rounding).
bool matches_aten_linear(const AxisTaps& t, int64_t in, int64_t out, bool align_corners,
                         std::optional<double> scale) {
  if (t.any_outside) return false;
  const float s = aten_scale(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    const auto of = static_cast<float>(o);
    float src = align_corners ? s * of : s * (of + 0.5f) - 0.5f;
    if (src < 0) src = 0;
    const auto i0 = static_cast<int64_t>(src);
    const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
    const double l1 = static_cast<double>(src - static_cast<float>(i0));
    std::map<int64_t, double> aten{{i0, 1 - l1}};
    aten[i1] += l1;
    std::map<int64_t, double> onnx;
    for (int64_t k = 0; k < t.taps; ++k) {
      const auto j = static_cast<size_t>(k * out + o);
      if (t.weight[j] != 0) onnx[t.index[j]] += t.weight[j];
    }
    for (const auto& [i, w] : aten) {
      if (w == 0) continue;
      auto it = onnx.find(i);
      if (it == onnx.end() || std::abs(it->second - w) > 1e-6) return false;
      onnx.erase(it);
    }
    for (const auto& [i, w] : onnx) {
      if (std::abs(w) > 1e-6) return false;
    }
  }
  return true;
}

/// Resizes `x` along `d` with the taps `t` (index_select, then a weighted sum when needed).
ir::Node* resize_axis(ImportContext& ctx, const NodeView& node, ir::Node* x, size_t d,
                      const AxisTaps& t) {
  std::vector<int64_t> sizes = x->spec().upper_bound_sizes();
  const int64_t out = static_cast<int64_t>(t.index.size()) / t.taps;
  const std::string key = node.source() + ".axis" + std::to_string(d);
  ir::Node* index = ctx.constant_tensor(key + "_index", ConstTensor::int64_vector(t.index));
  ir::Node* y = ctx.call("aten::index_select", {x, static_cast<int64_t>(d), index});
  if (unit_weights(t)) return y;
  const DType dtype = x->spec().dtype;
  if (!is_floating_point(dtype)) {
    node.fail(Error::NotSupported, "{} resize of a {} tensor: only floating-point inputs",
              node.attr_string("mode", "nearest"), to_string(dtype));
  }
  if (t.taps > 1) {
    std::vector<int64_t> split = sizes;
    split[d] = t.taps;
    split.insert(split.begin() + static_cast<std::ptrdiff_t>(d) + 1, out);
    y = view(ctx, y, split);
  }
  std::vector<int64_t> weight_sizes{t.taps, out};
  if (t.taps == 1) weight_sizes.erase(weight_sizes.begin());
  weight_sizes.resize(weight_sizes.size() + (sizes.size() - d - 1), 1);
  ir::Node* weight =
      ctx.constant_tensor(key + "_weight", ConstTensor::from_double(dtype, weight_sizes, t.weight));
  y = ctx.call("aten::mul.Tensor", {y, weight});
  if (t.taps > 1) {
    y = ctx.call("aten::sum.dim_IntList",
                 {y, std::vector<int64_t>{static_cast<int64_t>(d)}, false, dtype});
  }
  return y;
}

/// Per-axis scales and output sizes, for every dim: one of them, or both (Resize-18's
/// keep_aspect_ratio_policy, whose sizes are the scale's rounded).
void resize(ImportContext& ctx, const NodeView& node, const ResizeAttrs& a,
            const std::vector<double>& scales, std::vector<int64_t> sizes,
            const std::vector<double>& roi) {
  // Dynamic dims (a batch of boxes) must keep their size: scale 1, and ATen's 2-D upsampling.
  std::vector<bool> symbolic;
  const std::vector<int64_t> in = bounded_sizes(ctx, node, symbolic);
  const size_t rank = in.size();
  const bool dynamic = std::find(symbolic.begin(), symbolic.end(), true) != symbolic.end();
  for (size_t d = 0; d < symbolic.size(); ++d) {
    if (symbolic[d] && (d >= scales.size() || scales[d] != 1.0)) {
      node.fail(Error::NotSupported, "resizing the dynamic dim {} (only a scale of 1 keeps it)", d);
    }
  }
  if (a.mode != "nearest" && a.mode != "linear" && a.mode != "cubic") {
    node.fail(Error::NotSupported, "mode '{}' is not supported", a.mode);
  }
  const bool scales_given = !scales.empty();
  if (scales_given) {
    if (scales.size() != rank) {
      node.fail(Error::InvalidArgument, "scales has {} values for an input of rank {}",
                scales.size(), rank);
    }
    for (size_t d = 0; d < rank; ++d) {
      if (!(scales[d] > 0)) node.fail(Error::InvalidArgument, "scales must be positive");
    }
    if (sizes.empty()) {
      for (size_t d = 0; d < rank; ++d) {
        sizes.push_back(static_cast<int64_t>(std::floor(static_cast<double>(in[d]) * scales[d])));
      }
    }
  }
  if (sizes.size() != rank) {
    node.fail(Error::InvalidArgument, "sizes has {} values for an input of rank {}", sizes.size(),
              rank);
  }
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] <= 0 || in[d] <= 0) {
      node.fail(Error::NotSupported, "resize from {} to {}: empty tensors are not supported",
                sizes_to_string(in), sizes_to_string(sizes));
    }
  }
  const bool crop = a.coordinate_mode == "tf_crop_and_resize";
  if (crop && roi.size() != 2 * rank) {
    node.fail(Error::InvalidArgument, "tf_crop_and_resize needs an roi of {} values, got {}",
              2 * rank, roi.size());
  }
  std::vector<AxisTaps> taps(rank);
  std::vector<std::optional<double>> axis_scale(rank);
  std::vector<size_t> resized;
  for (size_t d = 0; d < rank; ++d) {
    const double scale =
        scales_given ? scales[d] : static_cast<double>(sizes[d]) / static_cast<double>(in[d]);
    if (scales_given) axis_scale[d] = scales[d];
    const double length =
        scales_given ? static_cast<double>(in[d]) * scales[d] : static_cast<double>(sizes[d]);
    taps[d] = axis_taps(a, in[d], sizes[d], length, scale, crop ? roi[d] : 0.0,
                        crop ? roi[d + rank] : 1.0);
    if (!is_identity(taps[d], in[d])) resized.push_back(d);
  }

  ir::Node* x = ctx.input(node, 0);
  const bool hw_only =
      rank == 4 && std::all_of(resized.begin(), resized.end(), [](size_t d) { return d >= 2; });
  if (hw_only && !resized.empty()) {
    ir::Argument output_size = std::vector<int64_t>{sizes[2], sizes[3]};
    ir::Argument scale_factors;
    if (scales_given) {
      output_size = ir::Argument();
      scale_factors = ir::ArgumentList{ir::Argument(scales[2]), ir::Argument(scales[3])};
    }
    if (a.mode == "nearest" && matches_aten_nearest(taps[2], in[2], sizes[2], axis_scale[2]) &&
        matches_aten_nearest(taps[3], in[3], sizes[3], axis_scale[3])) {
      ctx.set_output(node, 0,
                     ctx.call("aten::upsample_nearest2d.vec", {x, output_size, scale_factors}));
      return;
    }
    const DType dtype = ctx.input_dtype(node, 0);
    if (a.mode == "linear" && (dtype == DType::Float || dtype == DType::Double)) {
      for (bool align_corners : {false, true}) {
        if (matches_aten_linear(taps[2], in[2], sizes[2], align_corners, axis_scale[2]) &&
            matches_aten_linear(taps[3], in[3], sizes[3], align_corners, axis_scale[3])) {
          if (align_corners) {  // ATen ignores the scales with align_corners
            output_size = std::vector<int64_t>{sizes[2], sizes[3]};
            scale_factors = ir::Argument();
          }
          ctx.set_output(node, 0,
                         ctx.call("aten::upsample_bilinear2d.vec",
                                  {x, output_size, align_corners, scale_factors}));
          return;
        }
      }
    }
  }

  if (resized.empty()) {
    ctx.forward_input(node, 0, 0);
    return;
  }
  if (dynamic) {
    node.fail(Error::NotSupported,
              "resizing an input with dynamic dims needs ATen's 2-D upsampling (nearest or "
              "bilinear of the last two dims of a 4-D input)");
  }
  ir::Node* y = x;
  for (size_t d : resized) y = resize_axis(ctx, node, y, d, taps[d]);
  if (std::any_of(taps.begin(), taps.end(), [](const AxisTaps& t) { return t.any_outside; })) {
    // tf_crop_and_resize: positions outside the roi along any axis take extrapolation_value.
    std::vector<int64_t> mask_sizes(rank, 1);
    for (size_t d : resized) mask_sizes[d] = sizes[d];
    const int64_t count = element_count(mask_sizes);
    std::vector<int64_t> mask(static_cast<size_t>(count), 0);
    for (int64_t flat = 0; flat < count; ++flat) {
      int64_t rest = flat;
      for (size_t d = rank; d-- > 0;) {
        const auto i = static_cast<size_t>(rest % mask_sizes[d]);
        rest /= mask_sizes[d];
        if (taps[d].outside[i]) mask[static_cast<size_t>(flat)] = 1;
      }
    }
    ir::Node* outside = ctx.constant_tensor(node.source() + ".outside",
                                            ConstTensor::from_int64(DType::Bool, mask_sizes, mask));
    ir::Node* fill =
        ctx.constant_tensor(node.source() + ".extrapolation_value",
                            ConstTensor::from_double(x->spec().dtype, {}, {a.extrapolation_value}));
    y = ctx.call("aten::where.self", {outside, fill, y});
  }
  ctx.set_output(node, 0, y);
}

/// Resize of a 4-D input's dynamic H and W (a segmentation head upsampled to the image's size,
/// given by Shape, or a decoder's fixed scale): the taps cannot be checked index by index, so the
/// modes ATen's 2-D upsampling computes for every size are taken by rule: nearest with
/// asymmetric coordinates rounding down, linear with align_corners, half_pixel, or
/// pytorch_half_pixel (for outputs of at least 2). `scales` (4 values) or `sizes` (4 shape items)
/// is given; N and C keep their sizes.
void resize_dynamic(ImportContext& ctx, const NodeView& node, const ResizeAttrs& a,
                    const std::vector<double>& scales, const ir::ArgumentList& sizes) {
  const ir::Shape in = ctx.input_shape(node, 0);
  if (in.size() != 4) {
    node.fail(Error::NotSupported, "resizing dynamic dims of a rank-{} input (only 4-D)",
              in.size());
  }
  // Nearest with half-pixel coordinates rounding to the nearest is the same, for integer scales
  // s: x = q s + r maps to q + (2 r - s + 1) / (2 s), within half a pixel of q, never at a tie.
  const bool integer_scales =
      scales.size() == 4 && std::all_of(scales.begin() + 2, scales.end(),
                                        [](double v) { return v >= 1.0 && v == std::floor(v); });
  const bool nearest =
      a.mode == "nearest" &&
      ((a.coordinate_mode == "asymmetric" && a.nearest_rule == "floor") ||
       (integer_scales &&
        (a.coordinate_mode == "half_pixel" || a.coordinate_mode == "pytorch_half_pixel") &&
        (a.nearest_rule == "round_prefer_floor" || a.nearest_rule == "round_prefer_ceil")));
  const bool align_corners = a.mode == "linear" && a.coordinate_mode == "align_corners";
  const bool half_pixel = a.mode == "linear" && (a.coordinate_mode == "half_pixel" ||
                                                 a.coordinate_mode == "pytorch_half_pixel");
  if ((!nearest && !align_corners && !half_pixel) || a.antialias) {
    node.fail(Error::NotSupported,
              "resizing dynamic dims with mode '{}', coordinate_transformation_mode '{}'{}: only "
              "nearest (asymmetric, floor; or half_pixel rounding to the nearest by integer "
              "scales) and linear (align_corners, half_pixel, pytorch_half_pixel) are supported",
              a.mode, a.coordinate_mode, a.antialias ? " and antialias" : "");
  }
  ir::Argument output_size, scale_factors;
  if (!scales.empty()) {
    if (scales.size() != 4 || scales[0] != 1.0 || scales[1] != 1.0) {
      node.fail(Error::NotSupported, "scales must have 4 values, 1 for N and C");
    }
    scale_factors = ir::ArgumentList{ir::Argument(scales[2]), ir::Argument(scales[3])};
  } else {
    if (sizes.size() != 4) {
      node.fail(Error::InvalidArgument, "sizes has {} values for an input of rank 4", sizes.size());
    }
    output_size = ir::ArgumentList{sizes[2], sizes[3]};
  }
  // N and C must keep their sizes: an item is that int, or the sym_size of a dim that is it.
  auto keeps = [&](size_t d) {
    const std::optional<ir::SymInt> item = ir::shape::known_sym_int(sizes[d]);
    return item && *item == in[d];
  };
  if (!sizes.empty() && (!keeps(0) || !keeps(1))) {
    node.fail(Error::NotSupported, "sizes resize N or C of the input {}",
              ir::TensorSpec(ctx.input_dtype(node, 0), in).to_string());
  }
  ir::Node* x = ctx.input(node, 0);
  ir::Node* y = nearest ? ctx.call("aten::upsample_nearest2d.vec", {x, output_size, scale_factors})
                        : ctx.call("aten::upsample_bilinear2d.vec",
                                   {x, output_size, align_corners, scale_factors});
  const ir::Shape out = y->spec().shape;
  if (a.coordinate_mode == "pytorch_half_pixel" &&
      (out[2].lower_bound() < 2 || out[3].lower_bound() < 2)) {
    node.fail(Error::NotSupported, "pytorch_half_pixel to dynamic sizes {} x {} that may be 1",
              out[2].to_string(), out[3].to_string());
  }
  ctx.set_output(node, 0, y);
}

std::vector<double> const_doubles(ImportContext& ctx, const NodeView& node, size_t i,
                                  const char* what) {
  if (!node.has_input(i)) return {};
  const ConstTensor& c = ctx.require_constant(node, i, what);
  return c.to_double();
}

/// Resize-18's `axes`: scales, sizes and roi (starts, then ends) list only those axes. Gives them
/// one value per dim (scale 1, the input's size, roi 0 to 1 on the others).
void spread_over_axes(ImportContext& ctx, const NodeView& node, std::vector<double>* scales,
                      std::vector<int64_t>* sizes, std::vector<double>* roi) {
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> axes = node.attr_ints("axes", {});
  for (int64_t& axis : axes) axis = node.normalize_axis(axis, rank, "axes");
  const size_t n = axes.size();
  if (std::set<int64_t>(axes.begin(), axes.end()).size() != n) {
    node.fail(Error::InvalidArgument, "axes repeats an axis");
  }
  auto check = [&](size_t given, size_t want, const char* what) {
    if (given != want) {
      node.fail(Error::InvalidArgument, "{} has {} values for {} axes", what, given, n);
    }
  };
  if (!scales->empty()) {
    check(scales->size(), n, "scales");
    std::vector<double> full(static_cast<size_t>(rank), 1.0);
    for (size_t i = 0; i < n; ++i) full[static_cast<size_t>(axes[i])] = (*scales)[i];
    *scales = full;
  }
  if (!sizes->empty()) {
    check(sizes->size(), n, "sizes");
    std::vector<int64_t> full = in;
    for (size_t i = 0; i < n; ++i) full[static_cast<size_t>(axes[i])] = (*sizes)[i];
    *sizes = full;
  }
  if (!roi->empty()) {
    check(roi->size(), 2 * n, "roi");
    std::vector<double> full(static_cast<size_t>(rank), 0.0);
    full.resize(static_cast<size_t>(2 * rank), 1.0);
    for (size_t i = 0; i < n; ++i) {
      full[static_cast<size_t>(axes[i])] = (*roi)[i];
      full[static_cast<size_t>(axes[i] + rank)] = (*roi)[n + i];
    }
    *roi = full;
  }
}

/// Resize-18's keep_aspect_ratio_policy with sizes: one scale for the `axes` (every dim when there
/// are none), the smallest (not_larger) or largest (not_smaller) of their size / input ratios,
/// and their sizes rounded half up from it.
void keep_aspect_ratio(ImportContext& ctx, const NodeView& node, const std::string& policy,
                       std::vector<double>* scales, std::vector<int64_t>* sizes) {
  if (policy != "not_larger" && policy != "not_smaller") {
    node.fail(Error::InvalidArgument, "unknown keep_aspect_ratio_policy '{}'", policy);
  }
  if (sizes->empty()) return;  // (scales: the policy does not apply)
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  const size_t rank = in.size();
  if (sizes->size() != rank) {
    node.fail(Error::InvalidArgument, "sizes has {} values for an input of rank {}", sizes->size(),
              rank);
  }
  std::vector<bool> resized(rank, !node.has_attr("axes"));
  for (int64_t axis : node.attr_ints("axes", {})) {
    resized[static_cast<size_t>(node.normalize_axis(axis, static_cast<int64_t>(rank), "axes"))] =
        true;
  }
  std::optional<double> scale;
  for (size_t d = 0; d < rank; ++d) {
    if (!resized[d]) continue;
    if (in[d] <= 0) node.fail(Error::NotSupported, "resize of an empty tensor");
    const double r = static_cast<double>((*sizes)[d]) / static_cast<double>(in[d]);
    if (!scale || (policy == "not_larger" ? r < *scale : r > *scale)) scale = r;
  }
  if (!scale) return;
  scales->assign(rank, 1.0);
  for (size_t d = 0; d < rank; ++d) {
    if (!resized[d]) continue;
    (*scales)[d] = *scale;
    (*sizes)[d] = static_cast<int64_t>(*scale * static_cast<double>(in[d]) + 0.5);
  }
}

std::string resize_mode(const NodeView& node) {
  std::string mode = node.attr_string("mode", "nearest");
  if (mode == "bilinear") mode = "linear";  // Upsample-7's spelling
  return mode;
}

void import_resize(ImportContext& ctx, const NodeView& node) {
  ResizeAttrs a;
  a.mode = resize_mode(node);
  if (node.opset() < 11) {
    // Resize-10: asymmetric coordinates, nearest rounds down.
    a.coordinate_mode = "asymmetric";
    a.nearest_rule = "floor";
    resize(ctx, node, a, const_doubles(ctx, node, 1, "scales"), {}, {});
    return;
  }
  a.coordinate_mode = node.attr_string("coordinate_transformation_mode", "half_pixel");
  static const char* const kModes[] = {
      "half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
      "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (std::none_of(std::begin(kModes), std::end(kModes),
                   [&](const char* m) { return a.coordinate_mode == m; })) {
    node.fail(Error::InvalidArgument, "unknown coordinate_transformation_mode '{}'",
              a.coordinate_mode);
  }
  a.nearest_rule = node.attr_string("nearest_mode", "round_prefer_floor");
  static const char* const kRules[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (std::none_of(std::begin(kRules), std::end(kRules),
                   [&](const char* r) { return a.nearest_rule == r; })) {
    node.fail(Error::InvalidArgument, "unknown nearest_mode '{}'", a.nearest_rule);
  }
  a.cubic_a = node.attr_float("cubic_coeff_a", -0.75f);
  a.exclude_outside = node.attr_int("exclude_outside", 0) != 0;
  a.extrapolation_value = node.attr_float("extrapolation_value", 0.0f);
  a.antialias = node.attr_int("antialias", 0) != 0;
  std::vector<double> roi;
  if (a.coordinate_mode == "tf_crop_and_resize") roi = const_doubles(ctx, node, 1, "roi");
  std::vector<double> scales = const_doubles(ctx, node, 2, "scales");
  const ir::Shape in = ctx.input_shape(node, 0);
  const bool dynamic_hw =
      in.size() == 4 && (in[2].is_symbolic() || in[3].is_symbolic()) && !node.has_attr("axes");
  if (node.has_input(3) && ctx.sym_value(node.input(3)) != nullptr) {
    resize_dynamic(ctx, node, a, {}, ctx.sym_value(node.input(3))->items);
    return;
  }
  if (dynamic_hw && !scales.empty()) {
    resize_dynamic(ctx, node, a, scales, {});
    return;
  }
  std::vector<int64_t> sizes;
  if (node.has_input(3)) sizes = ctx.require_constant(node, 3, "sizes").to_int64();
  if (scales.empty() == sizes.empty()) {
    node.fail(Error::InvalidArgument, "exactly one of scales and sizes must be given");
  }
  if (node.has_attr("axes")) spread_over_axes(ctx, node, &scales, &sizes, &roi);
  const std::string policy = node.attr_string("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch") keep_aspect_ratio(ctx, node, policy, &scales, &sizes);
  resize(ctx, node, a, scales, sizes, roi);
}

void import_upsample(ImportContext& ctx, const NodeView& node) {
  std::vector<double> scales;
  if (node.opset() < 9) {
    for (float f : node.attr_floats("scales")) scales.push_back(f);
  } else {
    scales = const_doubles(ctx, node, 1, "scales");
  }
  ResizeAttrs a;
  a.mode = resize_mode(node);
  a.coordinate_mode = "asymmetric";
  a.nearest_rule = "floor";
  if (a.mode == "cubic") node.fail(Error::InvalidArgument, "Upsample has no cubic mode");
  resize(ctx, node, a, scales, {}, {});
}

}  // namespace

std::vector<OpEntry> resize_ops() {
  return {
      {"Resize", 10, 19, import_resize},
      {"Upsample", 7, 9, import_upsample},
  };
}

}  // namespace ptec::onnx_import
