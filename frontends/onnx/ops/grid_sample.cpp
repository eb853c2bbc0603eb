// GridSample (versions 16, 20 and 22) → aten::grid_sampler_2d, whose modes and padding follow the
// same definitions (ONNX took them from PyTorch). Version 20 renamed the modes (linear, cubic)
// and allows N-d inputs; 2-D sampling (4-d input) only.

#include <string>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

void import_grid_sample(ImportContext& ctx, const NodeView& node) {
  const bool renamed = node.opset() >= 20;
  const std::string mode = node.attr_string("mode", renamed ? "linear" : "bilinear");
  int64_t interpolation = 0;
  if (mode == (renamed ? "linear" : "bilinear")) {
    interpolation = 0;
  } else if (mode == "nearest") {
    interpolation = 1;
  } else if (mode == (renamed ? "cubic" : "bicubic")) {
    interpolation = 2;
  } else {
    node.fail(Error::InvalidArgument, "unknown mode '{}' (GridSample-{} takes {})", mode,
              renamed ? 20 : 16,
              renamed ? "linear, nearest or cubic" : "bilinear, nearest or bicubic");
  }
  const std::string padding = node.attr_string("padding_mode", "zeros");
  int64_t padding_mode = 0;
  if (padding == "zeros") {
    padding_mode = 0;
  } else if (padding == "border") {
    padding_mode = 1;
  } else if (padding == "reflection") {
    padding_mode = 2;
  } else {
    node.fail(Error::InvalidArgument, "unknown padding_mode '{}' (zeros, border or reflection)",
              padding);
  }
  const bool align_corners = node.attr_int("align_corners", 0) != 0;
  ir::Node* x = ctx.input(node, 0);
  ir::Node* grid = ctx.input(node, 1);
  if (x->spec().rank() != 4) {
    node.fail(Error::NotSupported,
              "input {} samples {} spatial dims; only 2 (a 4-d input) are "
              "supported",
              x->spec().to_string(), static_cast<int64_t>(x->spec().rank()) - 2);
  }
  const DType dtype = x->spec().dtype;
  if (dtype != DType::Float && dtype != DType::Double) {
    node.fail(Error::NotSupported, "input of dtype {}: float and double inputs are supported",
              to_string(dtype));
  }
  if (grid->spec().dtype != dtype) grid = ctx.call("aten::_to_copy", {grid, dtype});
  ctx.set_output(
      node, 0,
      ctx.call("aten::grid_sampler_2d", {x, grid, interpolation, padding_mode, align_corners}));
}

}  // namespace

std::vector<OpEntry> grid_sample_ops() { return {{"GridSample", 16, 22, import_grid_sample}}; }

}  // namespace ptec::onnx_import
