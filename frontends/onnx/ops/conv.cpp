// Conv and ConvTranspose → aten::convolution (1-D and 2-D). Asymmetric padding (explicit or from
// auto_pad SAME_*) becomes constant_pad_nd of the excess followed by a symmetrically padded conv.

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
  if (x.size() < 3 || x.size() > 4) {
    node.fail(Error::NotSupported, "input of rank {}: only 1-D and 2-D convolutions are supported",
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

void import_conv(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> x = ctx.input_sizes_batch(node, 0);
  const std::vector<int64_t> w = ctx.input_sizes(node, 1);
  const ConvAttrs a = conv_attrs(node, x, w);
  const size_t n = x.size() - 2;
  std::vector<int64_t> effective(n);
  for (size_t i = 0; i < n; ++i) effective[i] = (a.kernel[i] - 1) * a.dilations[i] + 1;
  const Pads pads =
      resolve_pads(node, std::vector<int64_t>(x.begin() + 2, x.end()), effective, a.strides);
  ir::Node* input = ctx.input(node, 0);
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
  ir::Argument bias = node.has_input(2) ? ir::Argument(ctx.input(node, 2)) : ir::Argument();
  ctx.set_output(
      node, 0,
      ctx.call("aten::convolution", {input, ctx.input(node, 1), bias, a.strides, padding,
                                     a.dilations, false, std::vector<int64_t>(n, 0), a.group}));
}

void import_conv_transpose(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> x = ctx.input_sizes(node, 0);
  const std::vector<int64_t> w = ctx.input_sizes(node, 1);
  const ConvAttrs a = conv_attrs(node, x, w);
  const size_t n = x.size() - 2;
  if (node.has_attr("output_shape")) {
    node.fail(Error::NotSupported, "output_shape is not supported; give pads instead");
  }
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") {
    node.fail(Error::NotSupported, "auto_pad {} is not supported for ConvTranspose", auto_pad);
  }
  std::vector<int64_t> pads = node.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (auto_pad == "VALID") pads.assign(2 * n, 0);
  if (pads.size() != 2 * n) node.fail(Error::InvalidArgument, "pads needs {} values", 2 * n);
  std::vector<int64_t> padding(pads.begin(), pads.begin() + static_cast<ptrdiff_t>(n));
  if (padding != std::vector<int64_t>(pads.begin() + static_cast<ptrdiff_t>(n), pads.end())) {
    node.fail(Error::NotSupported, "asymmetric pads are not supported for ConvTranspose");
  }
  const std::vector<int64_t> output_padding =
      node.attr_ints("output_padding", std::vector<int64_t>(n, 0));
  if (output_padding.size() != n) {
    node.fail(Error::InvalidArgument, "output_padding needs {} values", n);
  }
  ir::Argument bias = node.has_input(2) ? ir::Argument(ctx.input(node, 2)) : ir::Argument();
  ctx.set_output(
      node, 0,
      ctx.call("aten::convolution", {ctx.input(node, 0), ctx.input(node, 1), bias, a.strides,
                                     padding, a.dilations, true, output_padding, a.group}));
}

}  // namespace

std::vector<OpEntry> conv_ops() {
  return {
      {"Conv", 1, 17, import_conv},
      {"ConvTranspose", 1, 17, import_conv_transpose},
  };
}

}  // namespace ptec::onnx_import
