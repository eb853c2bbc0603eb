// Shrink: y = x + bias where x < -lambd, x - bias where x > lambd, 0 elsewhere → lt/gt.Scalar,
// add/sub.Scalar and two where.self (a NaN input gives 0, as ONNX's definition does).

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

void import_shrink(ImportContext& ctx, const NodeView& node) {
  const DType dtype = ctx.input_dtype(node, 0);
  if (dtype == DType::Bool) node.fail(Error::InvalidArgument, "Bool input");
  const double lambd = node.attr_float("lambd", 0.5f);
  const double bias = node.attr_float("bias", 0.0f);
  ir::Node* x = ctx.input(node, 0);
  ir::Node* below = ctx.call("aten::lt.Scalar", {x, -lambd});
  ir::Node* above = ctx.call("aten::gt.Scalar", {x, lambd});
  ir::Node* plus = ctx.call("aten::add.Scalar", {x, scalar_arg(bias, dtype)});
  ir::Node* minus = ctx.call("aten::sub.Scalar", {x, scalar_arg(bias, dtype)});
  ir::Node* zero =
      ctx.constant_tensor(node.source() + ".zero", ConstTensor::from_double(dtype, {}, {0.0}));
  ir::Node* y = ctx.call("aten::where.self", {above, minus, zero});
  ctx.set_output(node, 0, ctx.call("aten::where.self", {below, plus, y}));
}

}  // namespace

std::vector<OpEntry> shrink_ops() {
  return {
      {"Shrink", 9, 17, import_shrink},
  };
}

}  // namespace ptec::onnx_import
