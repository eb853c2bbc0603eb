// Resize (opsets 10+) and Upsample (7–9) of [N, C, H, W] tensors → upsample_nearest2d.vec and
// upsample_bilinear2d.vec. ONNX's coordinate modes are many; ATen's kernels implement a few:
//   linear: align_corners → align_corners=True; half_pixel (and pytorch_half_pixel when every
//           output size is > 1) → align_corners=False;
//   nearest: ATen takes floor(o * in/out) (or o / scale); a mode is accepted when, for these
//           static sizes, every output index maps to the same input index as ONNX's rule would.
// Scales, when given, go to ATen as scale_factors (ATen then uses 1/scale like ONNX); sizes go
// as output_size. Anything else (cubic, tf_crop_and_resize, N/C scaling) is NotSupported.

#include <cmath>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

/// ONNX's source coordinate of output index `o` along an axis (in → out, scale).
double onnx_coordinate(const std::string& mode, int64_t o, int64_t in, int64_t out, double scale) {
  const double x = static_cast<double>(o);
  if (mode == "asymmetric") return x / scale;
  if (mode == "align_corners") {
    return out == 1 ? 0.0 : x * static_cast<double>(in - 1) / static_cast<double>(out - 1);
  }
  if (mode == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  return (x + 0.5) / scale - 0.5;  // half_pixel
}

int64_t onnx_nearest(const std::string& rule, double x, int64_t in) {
  const double fl = std::floor(x);
  double r = 0;
  if (rule == "floor") {
    r = fl;
  } else if (rule == "ceil") {
    r = std::ceil(x);
  } else if (x - fl == 0.5) {
    r = rule == "round_prefer_ceil" ? fl + 1 : fl;
  } else {
    r = std::round(x);
  }
  return std::clamp<int64_t>(static_cast<int64_t>(r), 0, in - 1);
}

/// ATen's nearest source index (upsample_nearest2d with output_size or scale_factors).
int64_t aten_nearest(int64_t o, int64_t in, int64_t out, bool scales_given, double scale) {
  const float s = scales_given ? static_cast<float>(1.0 / scale)
                               : static_cast<float>(in) / static_cast<float>(out);
  const auto i = static_cast<int64_t>(std::floor(static_cast<float>(o) * s));
  return std::min(i, in - 1);
}

void resize(ImportContext& ctx, const NodeView& node, std::string mode,
            const std::string& coordinate_mode, const std::string& nearest_rule,
            const std::vector<double>& scales, std::vector<int64_t> sizes) {
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  if (in.size() != 4) {
    node.fail(Error::NotSupported, "input of rank {}: only 4-D (N, C, H, W) is supported",
              in.size());
  }
  const bool scales_given = !scales.empty();
  if (scales_given) {
    if (scales.size() != 4)
      node.fail(Error::InvalidArgument, "scales has {} values", scales.size());
    sizes.clear();
    for (size_t d = 0; d < 4; ++d) {
      sizes.push_back(static_cast<int64_t>(std::floor(static_cast<double>(in[d]) * scales[d])));
    }
  }
  if (sizes.size() != 4) node.fail(Error::InvalidArgument, "sizes has {} values", sizes.size());
  if (sizes[0] != in[0] || sizes[1] != in[1] ||
      (scales_given && (scales[0] != 1 || scales[1] != 1))) {
    node.fail(Error::NotSupported, "only H and W can be resized");
  }
  std::vector<double> axis_scale(4);
  for (size_t d = 2; d < 4; ++d) {
    axis_scale[d] =
        scales_given ? scales[d] : static_cast<double>(sizes[d]) / static_cast<double>(in[d]);
  }
  ir::Argument output_size = std::vector<int64_t>{sizes[2], sizes[3]};
  ir::Argument scale_factors;
  if (scales_given) {
    output_size = ir::Argument();
    scale_factors = ir::ArgumentList{ir::Argument(scales[2]), ir::Argument(scales[3])};
  }
  ir::Node* x = ctx.input(node, 0);
  if (mode == "nearest") {
    for (size_t d = 2; d < 4; ++d) {
      for (int64_t o = 0; o < sizes[d]; ++o) {
        const double c = onnx_coordinate(coordinate_mode, o, in[d], sizes[d], axis_scale[d]);
        if (onnx_nearest(nearest_rule, c, in[d]) !=
            aten_nearest(o, in[d], sizes[d], scales_given, axis_scale[d])) {
          node.fail(Error::NotSupported,
                    "nearest resize with coordinate_transformation_mode '{}' and nearest_mode "
                    "'{}' does not match upsample_nearest2d for these sizes",
                    coordinate_mode, nearest_rule);
        }
      }
    }
    ctx.set_output(node, 0,
                   ctx.call("aten::upsample_nearest2d.vec", {x, output_size, scale_factors}));
    return;
  }
  if (mode != "linear" && mode != "bilinear") {
    node.fail(Error::NotSupported, "mode '{}' is not supported", mode);
  }
  bool align_corners = false;
  if (coordinate_mode == "align_corners") {
    align_corners = true;
    output_size = std::vector<int64_t>{sizes[2], sizes[3]};  // ATen ignores scales here
    scale_factors = ir::Argument();
  } else if (coordinate_mode == "pytorch_half_pixel") {
    if (sizes[2] == 1 || sizes[3] == 1) {
      node.fail(Error::NotSupported, "pytorch_half_pixel with an output size of 1");
    }
  } else if (coordinate_mode != "half_pixel") {
    node.fail(Error::NotSupported, "linear resize with coordinate_transformation_mode '{}'",
              coordinate_mode);
  }
  ctx.set_output(
      node, 0,
      ctx.call("aten::upsample_bilinear2d.vec", {x, output_size, align_corners, scale_factors}));
}

std::vector<double> const_doubles(ImportContext& ctx, const NodeView& node, size_t i,
                                  const char* what) {
  if (!node.has_input(i)) return {};
  const ConstTensor& c = ctx.require_constant(node, i, what);
  return c.to_double();
}

void import_resize(ImportContext& ctx, const NodeView& node) {
  const std::string mode = node.attr_string("mode", "nearest");
  if (node.opset() < 11) {
    resize(ctx, node, mode, "asymmetric", "floor", const_doubles(ctx, node, 1, "scales"), {});
    return;
  }
  const std::string coordinate_mode =
      node.attr_string("coordinate_transformation_mode", "half_pixel");
  if (coordinate_mode == "tf_crop_and_resize") {
    node.fail(Error::NotSupported, "tf_crop_and_resize is not supported");
  }
  const std::vector<double> scales = const_doubles(ctx, node, 2, "scales");
  std::vector<int64_t> sizes;
  if (node.has_input(3)) sizes = ctx.require_constant(node, 3, "sizes").to_int64();
  resize(ctx, node, mode, coordinate_mode, node.attr_string("nearest_mode", "round_prefer_floor"),
         scales, sizes);
}

void import_upsample(ImportContext& ctx, const NodeView& node) {
  std::vector<double> scales;
  if (node.opset() < 9) {
    for (float f : node.attr_floats("scales")) scales.push_back(f);
  } else {
    scales = const_doubles(ctx, node, 1, "scales");
  }
  resize(ctx, node, node.attr_string("mode", "nearest"), "asymmetric", "floor", scales, {});
}

}  // namespace

std::vector<OpEntry> resize_ops() {
  return {
      {"Resize", 10, 17, import_resize},
      {"Upsample", 7, 9, import_upsample},
  };
}

}  // namespace ptec::onnx_import
