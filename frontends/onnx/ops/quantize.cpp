// Quantization ops: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
// ConvInteger, QLinearMatMul and QLinearConv (uint8 / int8; int32 for DequantizeLinear).
//
// - DequantizeLinear → quantized_decomposed::dequantize_per_tensor.tensor /
//   dequantize_per_channel ((x - zero_point) * scale in float: ONNX's formula exactly).
// - QuantizeLinear → ATen ops: saturate(round_half_even(x / scale) + zero_point) as div, round,
//   add, clamp, _to_copy. quantized_decomposed::quantize_per_tensor multiplies by the float
//   reciprocal of the scale instead of dividing, which rounds differently at ties (x = -2.5,
//   scale = 5/255: -127.5 instead of -127.49999, test_dynamicquantizelinear), so it is not used.
// - DynamicQuantizeLinear → ATen ops with ONNX's formulas (scale = (max(x, 0) - min(x, 0)) / 255,
//   1 when that range is 0; zero point = round(clamp(-min / scale, 0, 255))), which differ from
//   quantized_decomposed::choose_qparams (double math, zero point from the smaller-error end,
//   minimum scale), then the QuantizeLinear lowering.
// - MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv: operands minus zero points in Double
//   (integer products and sums stay exact below 2^53), mm/bmm/convolution in Double; the integer
//   ops convert the result to Int, the QLinear ops multiply by a_scale * b_scale / y_scale
//   (computed in float, as ONNX's reference does) and requantize: round half to even, add the
//   output zero point, saturate, convert.
//
// Scales and zero points are run-time tensors (the ONNX backend tests feed them as inputs).

#include <limits>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

struct QuantRange {
  int64_t lo;
  int64_t hi;
};

/// The range of a quantized ONNX type; fails for anything but uint8 / int8 (and int32 when
/// `allow_int32`).
QuantRange quant_range(const NodeView& node, DType dtype, std::string_view what,
                       bool allow_int32 = false) {
  switch (dtype) {
    case DType::Byte: return {0, 255};
    case DType::Char: return {-128, 127};
    case DType::Int:
      if (allow_int32) {
        return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
      }
      break;
    default: break;
  }
  node.fail(Error::NotSupported, "{} has type {}; only uint8 and int8{} are supported", what,
            to_string(dtype), allow_int32 ? " (and int32)" : "");
}

/// Fails unless input `i` has a floating dtype ptec computes in (float or double).
void require_float_input(ImportContext& ctx, const NodeView& node, size_t i,
                         std::string_view what) {
  const DType t = ctx.input_dtype(node, i);
  if (t != DType::Float && t != DType::Double) {
    node.fail(Error::NotSupported, "{} has type {}; expected float", what, to_string(t));
  }
}

/// A 1-D per-axis parameter (scale or zero point) viewed so that it broadcasts along `axis`
/// (normalized here; negative counts from the end) of a rank-`rank` tensor. A scalar is returned
/// as is and a one-element 1-D tensor becomes a scalar (per tensor, whatever the axis).
ir::Node* along_axis(ImportContext& ctx, const NodeView& node, ir::Node* param, int64_t rank,
                     int64_t axis, std::string_view what) {
  const ir::TensorSpec& spec = param->spec();
  if (spec.rank() == 0) return param;
  if (spec.rank() != 1) {
    node.fail(Error::InvalidArgument, "{} must be a scalar or a 1-D tensor, got {}", what,
              spec.to_string());
  }
  const ir::SymInt n = spec.shape[0];
  if (!n.is_static()) node.fail(Error::NotSupported, "{} has a dynamic size", what);
  if (n.value() == 1) return view(ctx, param, {});
  const auto d = static_cast<size_t>(node.normalize_axis(axis, rank, "axis"));
  std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
  shape[d] = n.value();
  return view(ctx, param, shape);
}

/// `x` converted to `dtype` (no node when it already has it).
ir::Node* to_dtype(ImportContext& ctx, ir::Node* x, DType dtype) {
  if (x->spec().dtype == dtype) return x;
  return ctx.call("aten::_to_copy", {x, dtype});
}

/// saturate(round_half_even(value) + zero_point) converted to `dtype`: `value` and `zero_point`
/// (or nullptr) are floating tensors.
ir::Node* requantize(ImportContext& ctx, ir::Node* value, ir::Node* zero_point, DType dtype,
                     QuantRange range) {
  ir::Node* q = ctx.call("aten::round", {value});
  if (zero_point != nullptr) q = ctx.call("aten::add.Tensor", {q, zero_point});
  q = ctx.call("aten::clamp", {q, static_cast<double>(range.lo), static_cast<double>(range.hi)});
  return ctx.call("aten::_to_copy", {q, dtype});
}

/// Fails for the opset-21 blocked quantization (float8 and 16-bit types fail in quant_range).
void require_no_block_size(const NodeView& node) {
  if (node.attr_int("block_size", 0) != 0) {
    node.fail(Error::NotSupported, "blocked quantization (block_size) is not supported");
  }
}

// QuantizeLinear(x, y_scale, y_zero_point?) = saturate(round(x / y_scale) + y_zero_point).
void import_quantize_linear(ImportContext& ctx, const NodeView& node) {
  require_no_block_size(node);
  const DType in = ctx.input_dtype(node, 0);
  if (in != DType::Float && in != DType::Double && in != DType::Int) {
    node.fail(Error::NotSupported, "x has type {}; expected float or int32", to_string(in));
  }
  require_float_input(ctx, node, 1, "y_scale");
  // QuantizeLinear-23's precision: the type x / y_scale is computed in (default y_scale's).
  const int64_t precision = node.attr_int("precision", 0);
  if (precision != 0 && precision != onnx::TensorProto::FLOAT) {
    node.fail(Error::NotSupported, "precision {} (only float)", precision);
  }
  // QuantizeLinear-21's output_dtype: y's type where no zero point gives it (default uint8).
  DType out = node.has_input(2) ? ctx.input_dtype(node, 2) : DType::Byte;
  const int64_t output_dtype = node.attr_int("output_dtype", 0);
  if (output_dtype != 0) {
    const DType wanted = dtype_from_onnx(static_cast<int32_t>(output_dtype), node.where());
    if (node.has_input(2) && wanted != out) {
      node.fail(Error::InvalidArgument, "output_dtype {} differs from y_zero_point's type {}",
                to_string(wanted), to_string(out));
    }
    out = wanted;
  }
  const QuantRange range = quant_range(node, out, "y_zero_point");
  const int64_t rank = ctx.input_rank(node, 0);
  // Per-axis along `axis` (opset 13; default 1) when the scale is a 1-D tensor.
  const int64_t axis = node.attr_int("axis", 1);
  // int32 inputs divide in double, as ONNX's reference (NumPy) does.
  const DType compute = in == DType::Float ? DType::Float : DType::Double;
  ir::Node* x = to_dtype(ctx, ctx.input(node, 0), compute);
  ir::Node* scale =
      along_axis(ctx, node, to_dtype(ctx, ctx.input(node, 1), compute), rank, axis, "y_scale");
  ir::Node* zero_point = nullptr;
  if (node.has_input(2)) {
    zero_point = along_axis(ctx, node, to_dtype(ctx, ctx.input(node, 2), compute), rank, axis,
                            "y_zero_point");
  }
  ir::Node* scaled = ctx.call("aten::div.Tensor", {x, scale});
  ctx.set_output(node, 0, requantize(ctx, scaled, zero_point, out, range));
}

// DequantizeLinear(x, x_scale, x_zero_point?) = (x - x_zero_point) * x_scale.
void import_dequantize_linear(ImportContext& ctx, const NodeView& node) {
  require_no_block_size(node);
  // DequantizeLinear-23's output_dtype (default x_scale's type, float here).
  const int64_t output_dtype = node.attr_int("output_dtype", 0);
  if (output_dtype != 0 && output_dtype != onnx::TensorProto::FLOAT) {
    node.fail(Error::NotSupported, "output_dtype {} (only float)", output_dtype);
  }
  const DType in = ctx.input_dtype(node, 0);
  const QuantRange range = quant_range(node, in, "x", /*allow_int32=*/true);
  if (node.has_input(2) && ctx.input_dtype(node, 2) != in) {
    node.fail(Error::InvalidArgument, "x_zero_point has type {} but x has type {}",
              to_string(ctx.input_dtype(node, 2)), to_string(in));
  }
  if (ctx.input_dtype(node, 1) != DType::Float) {
    node.fail(Error::NotSupported, "x_scale has type {}; expected float",
              to_string(ctx.input_dtype(node, 1)));
  }
  const int64_t rank = ctx.input_rank(node, 0);
  ir::Node* x = ctx.input(node, 0);
  const ir::TensorSpec scale_spec = ctx.input_spec(node, 1);
  if (scale_spec.rank() > 1) {
    node.fail(Error::InvalidArgument, "x_scale must be a scalar or a 1-D tensor, got {}",
              scale_spec.to_string());
  }
  // A one-element 1-D scale is per tensor (whatever the size of the axis).
  const bool per_axis = scale_spec.rank() == 1 && scale_spec.numel_upper_bound() != 1;
  if (per_axis && rank == 0) {
    node.fail(Error::InvalidArgument, "per-axis x_scale {} for a scalar x", scale_spec.to_string());
  }
  if (node.has_input(2) &&
      ctx.input_spec(node, 2).numel_upper_bound() != scale_spec.numel_upper_bound()) {
    node.fail(Error::InvalidArgument, "x_zero_point {} and x_scale {} differ in size",
              ctx.input_spec(node, 2).to_string(), scale_spec.to_string());
  }
  ir::Node* scale = to_dtype(ctx, ctx.input(node, 1), DType::Double);
  ir::Node* zero_point =
      node.has_input(2) ? to_dtype(ctx, ctx.input(node, 2), DType::Long) : nullptr;
  if (per_axis) {
    const int64_t axis = node.normalize_axis(node.attr_int("axis", 1), rank, "axis");
    ir::Argument zp = zero_point != nullptr ? ir::Argument(zero_point) : ir::Argument();
    ctx.set_output(node, 0,
                   ctx.call("quantized_decomposed::dequantize_per_channel",
                            {x, scale, std::move(zp), axis, range.lo, range.hi, in}));
    return;
  }
  if (zero_point == nullptr) {
    zero_point = ctx.constant_tensor("zero_point", ConstTensor::from_int64(DType::Long, {}, {0}));
  }
  ctx.set_output(node, 0,
                 ctx.call("quantized_decomposed::dequantize_per_tensor.tensor",
                          {x, scale, zero_point, range.lo, range.hi, in}));
}

// DynamicQuantizeLinear(x) -> (y, y_scale, y_zero_point), uint8, with ONNX's formulas.
void import_dynamic_quantize_linear(ImportContext& ctx, const NodeView& node) {
  if (ctx.input_dtype(node, 0) != DType::Float) {
    node.fail(Error::NotSupported, "x has type {}; expected float",
              to_string(ctx.input_dtype(node, 0)));
  }
  const int64_t rank = ctx.input_rank(node, 0);
  std::vector<int64_t> all_dims;
  for (int64_t d = 0; d < rank; ++d) all_dims.push_back(d);
  ir::Node* x = ctx.input(node, 0);
  ir::Node* lo = ctx.call("aten::amin", {x, all_dims, false});
  ir::Node* hi = ctx.call("aten::amax", {x, all_dims, false});
  lo = ctx.call("aten::clamp", {lo, ir::Argument(), 0.0});
  hi = ctx.call("aten::clamp", {hi, 0.0});
  ir::Node* range = ctx.call("aten::sub.Tensor", {hi, lo});
  ir::Node* scale = ctx.call("aten::div.Scalar", {range, 255.0});
  // An all-zero x has range 0: scale 1 (as onnxruntime does) instead of 0, whose 0 / 0 would
  // make every output NaN converted to uint8.
  ir::Node* one = ctx.constant_tensor("one", ConstTensor::from_double(DType::Float, {}, {1.0}));
  scale = ctx.call("aten::where.self", {ctx.call("aten::eq.Scalar", {range, 0.0}), one, scale});
  ir::Node* zp_float = ctx.call("aten::neg", {ctx.call("aten::div.Tensor", {lo, scale})});
  zp_float = ctx.call("aten::round", {ctx.call("aten::clamp", {zp_float, 0.0, 255.0})});
  ir::Node* scaled = ctx.call("aten::div.Tensor", {x, scale});
  ctx.set_output(node, 0, requantize(ctx, scaled, zp_float, DType::Byte, {0, 255}));
  if (node.has_output(1)) ctx.set_output(node, 1, scale);
  if (node.has_output(2))
    ctx.set_output(node, 2, ctx.call("aten::_to_copy", {zp_float, DType::Byte}));
}

/// Input `i` (uint8 / int8) minus zero point input `zp_index` (when given), in Double. A 1-D
/// zero point of more than one element lies along dim `axis` (negative: from the end).
ir::Node* centered(ImportContext& ctx, const NodeView& node, size_t i, size_t zp_index,
                   int64_t axis, std::string_view what) {
  const DType dtype = ctx.input_dtype(node, i);
  quant_range(node, dtype, what);
  ir::Node* x = to_dtype(ctx, ctx.input(node, i), DType::Double);
  if (!node.has_input(zp_index)) return x;
  const DType zp_dtype = ctx.input_dtype(node, zp_index);
  if (zp_dtype != dtype) {
    node.fail(Error::InvalidArgument, "the zero point of {} has type {} but {} has type {}", what,
              to_string(zp_dtype), what, to_string(dtype));
  }
  const int64_t rank = x->spec().rank();
  ir::Node* zp = to_dtype(ctx, ctx.input(node, zp_index), DType::Double);
  zp = along_axis(ctx, node, zp, rank, axis, what);
  return ctx.call("aten::sub.Tensor", {x, zp});
}

// MatMulInteger(A, B, a_zero_point?, b_zero_point?) -> int32: zero points per tensor, per row
// of A or per column of B.
void import_matmul_integer(ImportContext& ctx, const NodeView& node) {
  ir::Node* a = centered(ctx, node, 0, 2, -2, "A");
  ir::Node* b = centered(ctx, node, 1, 3, -1, "B");
  ctx.set_output(node, 0, to_dtype(ctx, matmul_nodes(ctx, node, a, b), DType::Int));
}

// ConvInteger(x, w, x_zero_point?, w_zero_point?) -> int32: w_zero_point per tensor or per
// output channel.
void import_conv_integer(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> x_sizes = ctx.input_sizes_batch(node, 0);
  const std::vector<int64_t> w_sizes = ctx.input_sizes(node, 1);
  ir::Node* x = centered(ctx, node, 0, 2, 1, "x");
  ir::Node* w = centered(ctx, node, 1, 3, 0, "w");
  ir::Node* y = conv_nodes(ctx, node, x, x_sizes, w, w_sizes, ir::Argument());
  ctx.set_output(node, 0, to_dtype(ctx, y, DType::Int));
}

/// a_scale * b_scale / y_scale in float (ONNX's reference), converted to Double, each scale
/// viewed with along_axis for dim `*_axis` of a rank-`rank` result (negative: from the end).
ir::Node* output_multiplier(ImportContext& ctx, const NodeView& node, size_t a_scale,
                            int64_t a_axis, size_t b_scale, int64_t b_axis, size_t y_scale,
                            int64_t rank) {
  for (size_t i : {a_scale, b_scale, y_scale}) {
    if (ctx.input_dtype(node, i) != DType::Float) {
      node.fail(Error::NotSupported, "input {} (a scale) has type {}; expected float", i,
                to_string(ctx.input_dtype(node, i)));
    }
  }
  auto scale = [&](size_t i, int64_t axis) {
    return along_axis(ctx, node, ctx.input(node, i), rank, axis, "scale");
  };
  ir::Node* sa = scale(a_scale, a_axis);
  ir::Node* sb = scale(b_scale, b_axis);
  ir::Node* sy = ctx.input(node, y_scale);
  if (sy->spec().numel_upper_bound() != 1) {
    node.fail(Error::InvalidArgument, "y_scale must have one element, got {}",
              sy->spec().to_string());
  }
  ir::Node* m = ctx.call("aten::div.Tensor", {ctx.call("aten::mul.Tensor", {sa, sb}), sy});
  return to_dtype(ctx, m, DType::Double);
}

/// The output zero point input `i` in Double and the output dtype and range it decides.
ir::Node* output_zero_point(ImportContext& ctx, const NodeView& node, size_t i, DType* dtype,
                            QuantRange* range) {
  *dtype = ctx.input_dtype(node, i);
  *range = quant_range(node, *dtype, "y_zero_point");
  ir::Node* zp = ctx.input(node, i);
  if (zp->spec().numel_upper_bound() != 1) {
    node.fail(Error::InvalidArgument, "y_zero_point must have one element, got {}",
              zp->spec().to_string());
  }
  return to_dtype(ctx, zp, DType::Double);
}

// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point).
void import_qlinear_matmul(ImportContext& ctx, const NodeView& node) {
  ir::Node* a = centered(ctx, node, 0, 2, -2, "a");
  ir::Node* b = centered(ctx, node, 3, 5, -1, "b");
  ir::Node* acc = matmul_nodes(ctx, node, a, b);
  const int64_t rank = acc->spec().rank();
  ir::Node* m = output_multiplier(ctx, node, 1, -2, 4, -1, 6, rank);
  DType dtype = DType::Byte;
  QuantRange range{};
  ir::Node* zp = output_zero_point(ctx, node, 7, &dtype, &range);
  ir::Node* scaled = ctx.call("aten::mul.Tensor", {acc, m});
  ctx.set_output(node, 0, requantize(ctx, scaled, zp, dtype, range));
}

// QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B?):
// w_scale / w_zero_point per tensor or per output channel; B is int32 in the accumulator's
// scale (x_scale * w_scale) and is added before requantizing.
void import_qlinear_conv(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> x_sizes = ctx.input_sizes_batch(node, 0);
  const std::vector<int64_t> w_sizes = ctx.input_sizes(node, 3);
  ir::Node* x = centered(ctx, node, 0, 2, 1, "x");
  ir::Node* w = centered(ctx, node, 3, 5, 0, "w");
  ir::Argument bias;
  if (node.has_input(8)) {
    if (ctx.input_dtype(node, 8) != DType::Int) {
      node.fail(Error::InvalidArgument, "B has type {}; expected int32",
                to_string(ctx.input_dtype(node, 8)));
    }
    bias = to_dtype(ctx, ctx.input(node, 8), DType::Double);
  }
  ir::Node* acc = conv_nodes(ctx, node, x, x_sizes, w, w_sizes, std::move(bias));
  const int64_t rank = acc->spec().rank();
  ir::Node* m = output_multiplier(ctx, node, 1, 0, 4, 1, 6, rank);
  DType dtype = DType::Byte;
  QuantRange range{};
  ir::Node* zp = output_zero_point(ctx, node, 7, &dtype, &range);
  ir::Node* scaled = ctx.call("aten::mul.Tensor", {acc, m});
  ctx.set_output(node, 0, requantize(ctx, scaled, zp, dtype, range));
}

}  // namespace

std::vector<OpEntry> quantize_ops() {
  return {
      {"QuantizeLinear", 10, 25, import_quantize_linear},
      {"DequantizeLinear", 10, 25, import_dequantize_linear},
      {"DynamicQuantizeLinear", 11, 19, import_dynamic_quantize_linear},
      {"MatMulInteger", 10, 19, import_matmul_integer},
      {"ConvInteger", 10, 19, import_conv_integer},
      {"QLinearMatMul", 10, 21, import_qlinear_matmul},
      {"QLinearConv", 10, 19, import_qlinear_conv},
  };
}

}  // namespace ptec::onnx_import
