// Conv and ConvTranspose → aten::convolution (1-D, 2-D and 3-D). Conv: asymmetric padding
// (explicit or from auto_pad SAME_*) becomes constant_pad_nd of the excess followed by a
// symmetrically padded conv. ConvTranspose: pads come from `pads`, or from output_shape / auto_pad
// SAME_* as the ONNX spec computes them; the transposed conv runs with the smaller pad of each dim
// and slice_copy crops the excess; an output larger than the unpadded result becomes
// output_padding.

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

struct ConvAttrs {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  int64_t group;
};

ConvAttrs conv_attrs(const NodeView& node, const std::vector<int64_t>& x,
                     const std::vector<int64_t>& w) {
  if (x.size() < 3 || x.size() > 5) {
    node.fail(Error::NotSupported,
              "input of rank {}: only 1-D, 2-D and 3-D convolutions (rank 3 to 5) are supported",
              x.size());
  }
  const size_t n = x.size() - 2;
  if (w.size() != x.size()) {
    node.fail(Error::InvalidArgument, "weight of rank {} for an input of rank {}", w.size(),
              x.size());
  }
  ConvAttrs a;
  a.kernel = node.attr_ints("kernel_shape", std::vector<int64_t>(w.begin() + 2, w.end()));
  if (a.kernel != std::vector<int64_t>(w.begin() + 2, w.end())) {
    node.fail(Error::InvalidArgument, "kernel_shape {} does not match weight {}",
              sizes_to_string(a.kernel), sizes_to_string(w));
  }
  a.strides = node.attr_ints("strides", std::vector<int64_t>(n, 1));
  a.dilations = node.attr_ints("dilations", std::vector<int64_t>(n, 1));
  a.group = node.attr_int("group", 1);
  if (a.strides.size() != n || a.dilations.size() != n) {
    node.fail(Error::InvalidArgument, "strides/dilations need {} values", n);
  }
  for (size_t i = 0; i < n; ++i) {
    if (a.strides[i] <= 0 || a.dilations[i] <= 0) {
      node.fail(Error::InvalidArgument, "strides and dilations must be positive");
    }
  }
  if (a.group <= 0) node.fail(Error::InvalidArgument, "group must be positive");
  return a;
}

}  // namespace

ir::Node* conv_nodes(ImportContext& ctx, const NodeView& node, ir::Node* input,
                     const std::vector<int64_t>& x, ir::Node* weight, const std::vector<int64_t>& w,
                     ir::Argument bias, const std::vector<bool>* dynamic) {
  const ConvAttrs a = conv_attrs(node, x, w);
  const size_t n = x.size() - 2;
  std::vector<int64_t> effective(n);
  for (size_t i = 0; i < n; ++i) effective[i] = (a.kernel[i] - 1) * a.dilations[i] + 1;
  const Pads pads = resolve_pads(node, std::vector<int64_t>(x.begin() + 2, x.end()), effective,
                                 a.strides, dynamic);
  std::vector<int64_t> padding(n), extra_begin(n), extra_end(n);
  bool asymmetric = false;
  for (size_t i = 0; i < n; ++i) {
    padding[i] = std::min(pads.begin[i], pads.end[i]);
    extra_begin[i] = pads.begin[i] - padding[i];
    extra_end[i] = pads.end[i] - padding[i];
    asymmetric = asymmetric || extra_begin[i] != 0 || extra_end[i] != 0;
  }
  if (asymmetric) {
    input = ctx.call("aten::constant_pad_nd", {input, aten_pad_list(extra_begin, extra_end), 0.0});
  }
  return ctx.call("aten::convolution", {input, weight, std::move(bias), a.strides, padding,
                                        a.dilations, false, std::vector<int64_t>(n, 0), a.group});
}

namespace {

void import_conv(ImportContext& ctx, const NodeView& node) {
  std::vector<bool> dynamic;
  const std::vector<int64_t> x = spatial_bounds(ctx, node, 0, &dynamic);
  const std::vector<int64_t> w = ctx.input_sizes(node, 1);
  // Inputs in this order: constants get their placeholders in first-use order.
  ir::Node* input = ctx.input(node, 0);
  ir::Argument bias = node.has_input(2) ? ir::Argument(ctx.input(node, 2)) : ir::Argument();
  ir::Node* weight = ctx.input(node, 1);
  ctx.set_output(node, 0, conv_nodes(ctx, node, input, x, weight, w, std::move(bias), &dynamic));
}

void import_conv_transpose(ImportContext& ctx, const NodeView& node) {
  std::vector<bool> dynamic;
  const std::vector<int64_t> x = spatial_bounds(ctx, node, 0, &dynamic);
  const bool any_dynamic = std::find(dynamic.begin(), dynamic.end(), true) != dynamic.end();
  const std::vector<int64_t> w = ctx.input_sizes(node, 1);
  const ConvAttrs a = conv_attrs(node, x, w);
  const size_t n = x.size() - 2;
  std::vector<int64_t> output_padding =
      node.attr_ints("output_padding", std::vector<int64_t>(n, 0));
  if (output_padding.size() != n) {
    node.fail(Error::InvalidArgument, "output_padding has {} values; {} spatial dims need {}",
              output_padding.size(), n, n);
  }
  // The output size of each dim before padding is removed.
  std::vector<int64_t> full(n);
  for (size_t i = 0; i < n; ++i) {
    if (output_padding[i] < 0) node.fail(Error::InvalidArgument, "negative output_padding");
    full[i] =
        a.strides[i] * (x[i + 2] - 1) + output_padding[i] + (a.kernel[i] - 1) * a.dilations[i] + 1;
  }
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> begin(n, 0), end(n, 0);
  if (any_dynamic &&
      (node.has_attr("output_shape") || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER")) {
    node.fail(Error::NotSupported,
              "output_shape or auto_pad {} on a dynamic spatial dim: the padding depends on the "
              "size",
              auto_pad);
  }
  if (node.has_attr("output_shape") || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    // The spec: total_padding = full - output_shape, split evenly; the odd element goes to the
    // end for SAME_UPPER and to the beginning otherwise. A larger output_shape than `full` extends
    // the end (output_padding).
    std::vector<int64_t> target(n);
    for (size_t i = 0; i < n; ++i) target[i] = x[i + 2] * a.strides[i];
    if (node.has_attr("output_shape")) {
      target = node.attr_ints("output_shape", {});
      if (target.size() == n + 2) target.erase(target.begin(), target.begin() + 2);
      if (target.size() != n) {
        node.fail(Error::InvalidArgument, "output_shape has {} values; {} spatial dims need {}",
                  target.size(), n, n);
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const int64_t total = full[i] - target[i];
      if (total < 0) {
        output_padding[i] -= total;
        if (output_padding[i] >= a.strides[i] && output_padding[i] >= a.dilations[i]) {
          node.fail(Error::NotSupported,
                    "output_shape {} exceeds the computed size {} by {}: at most stride - 1 or "
                    "dilation - 1 extra elements are supported",
                    target[i], full[i], -total);
        }
        full[i] -= total;
        continue;
      }
      begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end[i] = total - begin[i];
    }
  } else if (auto_pad == "NOTSET") {
    const std::vector<int64_t> pads = node.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
    if (pads.size() != 2 * n) {
      node.fail(Error::InvalidArgument, "pads has {} values; {} spatial dims need {}", pads.size(),
                n, 2 * n);
    }
    for (size_t i = 0; i < n; ++i) {
      begin[i] = pads[i];
      end[i] = pads[i + n];
      if (begin[i] < 0 || end[i] < 0) node.fail(Error::InvalidArgument, "negative pads");
    }
  } else if (auto_pad != "VALID") {
    node.fail(Error::InvalidArgument, "unknown auto_pad '{}'", auto_pad);
  }
  std::vector<int64_t> padding(n);
  for (size_t i = 0; i < n; ++i) {
    if (dynamic[i] && begin[i] != end[i]) {
      node.fail(Error::NotSupported, "asymmetric pads {} and {} on a dynamic spatial dim", begin[i],
                end[i]);
    }
    padding[i] = std::min(begin[i], end[i]);
    if (full[i] - begin[i] - end[i] <= 0) {
      node.fail(Error::InvalidArgument, "pads {} + {} remove the whole output of size {}", begin[i],
                end[i], full[i]);
    }
  }
  ir::Node* input = ctx.input(node, 0);
  ir::Node* weight = ctx.input(node, 1);
  ir::Argument bias = node.has_input(2) ? ir::Argument(ctx.input(node, 2)) : ir::Argument();
  ir::Node* y = ctx.call("aten::convolution", {input, weight, std::move(bias), a.strides, padding,
                                               a.dilations, true, output_padding, a.group});
  // Crop what the symmetric padding left of an asymmetric pad.
  for (size_t i = 0; i < n; ++i) {
    const int64_t size = full[i] - 2 * padding[i];
    const int64_t crop_begin = begin[i] - padding[i], crop_end = end[i] - padding[i];
    if (crop_begin == 0 && crop_end == 0) continue;
    y = ctx.call("aten::slice_copy.Tensor",
                 {y, static_cast<int64_t>(i + 2), crop_begin, size - crop_end, int64_t{1}});
  }
  ctx.set_output(node, 0, y);
}

}  // namespace

std::vector<OpEntry> conv_ops() {
  return {
      {"Conv", 1, 22, import_conv},
      {"ConvTranspose", 1, 22, import_conv_transpose},
  };
}

}  // namespace ptec::onnx_import
