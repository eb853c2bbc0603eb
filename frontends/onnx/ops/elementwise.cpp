// Element-wise ONNX ops: binary arithmetic and comparisons with broadcasting, variadic
// Sum/Max/Min/Mean, Where, Mod, IsInf, logical ops and one-to-one unary math.

#include <limits>
#include <string_view>

#include <cmath>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

using eval::BinaryOp;

struct BinaryInfo {
  std::string_view onnx;
  const char* tensor_op;
  const char* scalar_op;    // nullptr: no Scalar overload used
  std::string_view mirror;  // op with swapped operands (for a constant first operand)
  BinaryOp fold;
  bool can_fold;
};

constexpr BinaryInfo kBinary[] = {
    {"Add", "aten::add.Tensor", "aten::add.Scalar", "Add", BinaryOp::Add, true},
    {"Sub", "aten::sub.Tensor", "aten::sub.Scalar", "", BinaryOp::Sub, true},
    {"Mul", "aten::mul.Tensor", "aten::mul.Scalar", "Mul", BinaryOp::Mul, true},
    {"Div", "aten::div.Tensor", "aten::div.Scalar", "", BinaryOp::Div, true},
    {"Pow", "aten::pow.Tensor_Tensor", "aten::pow.Tensor_Scalar", "", BinaryOp::Pow, true},
    {"Equal", "aten::eq.Tensor", "aten::eq.Scalar", "Equal", BinaryOp::Equal, true},
    {"Less", "aten::lt.Tensor", "aten::lt.Scalar", "Greater", BinaryOp::Less, true},
    {"Greater", "aten::gt.Tensor", "aten::gt.Scalar", "Less", BinaryOp::Greater, true},
    {"LessOrEqual", "aten::le.Tensor", "aten::le.Scalar", "GreaterOrEqual", BinaryOp::LessEqual,
     true},
    {"GreaterOrEqual", "aten::ge.Tensor", "aten::ge.Scalar", "LessOrEqual", BinaryOp::GreaterEqual,
     true},
    {"And", "aten::logical_and", nullptr, "And", BinaryOp::And, true},
    {"Or", "aten::logical_or", nullptr, "Or", BinaryOp::Or, true},
    {"Xor", "aten::logical_xor", nullptr, "Xor", BinaryOp::Xor, true},
};

const BinaryInfo& binary_info(std::string_view op_type) {
  for (const BinaryInfo& b : kBinary) {
    if (b.onnx == op_type) return b;
  }
  raise(Error::Internal, "no binary mapping for {}", op_type);
}

/// True when `c` is a one-element constant that broadcasting against a tensor of rank `rank`
/// does not change the result's shape (so a Scalar overload computes the same thing).
bool scalar_like(const ConstTensor* c, size_t rank) {
  return c != nullptr && c->numel() == 1 && c->sizes.size() <= rank;
}

ir::Node* emit_binary(ImportContext& ctx, const NodeView& node, const BinaryInfo& info, size_t a,
                      size_t b) {
  const ir::TensorSpec sa = ctx.input_spec(node, a);
  const DType dtype = sa.dtype;
  const bool int_div = info.onnx == "Div" && !is_floating_point(dtype);
  const ConstTensor* cb = ctx.constant(node, b);
  // Pow with an integral exponent on a floating base stays exact through the Scalar overload.
  if (info.scalar_op != nullptr && scalar_like(cb, sa.rank()) && ctx.constant(node, a) == nullptr) {
    const ir::Argument s =
        scalar_arg(cb->double_at(0), is_floating_point(cb->dtype) ? cb->dtype : dtype);
    ir::Node* x = ctx.input(node, a);
    if (int_div) return ctx.call("aten::div.Scalar_mode", {x, s, "trunc"});
    if (info.onnx == "Add" || info.onnx == "Sub") return ctx.call(info.scalar_op, {x, s, 1});
    return ctx.call(info.scalar_op, {x, s});
  }
  ir::Node* x = ctx.input(node, a);
  ir::Node* y = ctx.input(node, b);
  if (int_div) return ctx.call("aten::div.Tensor_mode", {x, y, "trunc"});
  if (info.onnx == "Add" || info.onnx == "Sub") return ctx.call(info.tensor_op, {x, y, 1});
  return ctx.call(info.tensor_op, {x, y});
}

void import_binary(ImportContext& ctx, const NodeView& node) {
  const BinaryInfo& info = binary_info(node.op_type());
  if (node.opset() < 7 && node.attr_int("broadcast", 0) != 0 && node.has_attr("axis")) {
    // Opset-6 broadcasting aligns B at `axis`; NumPy's (trailing) alignment is the same only
    // when B ends at A's last dim.
    const int64_t rank_a = ctx.input_rank(node, 0);
    const int64_t axis = node.normalize_axis(node.attr_int("axis", 0), rank_a);
    if (axis + ctx.input_rank(node, 1) != rank_a) {
      node.fail(Error::NotSupported, "legacy broadcast with axis={} is not supported", axis);
    }
  }
  const ConstTensor* ca = ctx.constant(node, 0);
  const ConstTensor* cb = ctx.constant(node, 1);
  const size_t rank_b = ctx.input_rank(node, 1);
  // A one-element constant first operand: swap to the mirrored op's Scalar overload.
  if (info.scalar_op != nullptr && cb == nullptr && scalar_like(ca, rank_b)) {
    if (!info.mirror.empty()) {
      ctx.set_output(node, 0, emit_binary(ctx, node, binary_info(info.mirror), 1, 0));
      return;
    }
    if (info.onnx == "Sub") {  // c - x = rsub(x, c)
      const DType dtype = ctx.input_dtype(node, 1);
      ctx.set_output(node, 0,
                     ctx.call("aten::rsub.Scalar",
                              {ctx.input(node, 1), scalar_arg(ca->double_at(0), dtype), 1}));
      return;
    }
  }
  ir::Node* y = emit_binary(ctx, node, info, 0, 1);
  // ONNX's Pow keeps the base's dtype (ATen promotes an integral base to the exponent's float).
  if (info.onnx == "Pow" && y->spec().dtype != ctx.input_dtype(node, 0)) {
    y = ctx.call("aten::_to_copy", {y, ctx.input_dtype(node, 0)});
  }
  ctx.set_output(node, 0, y);
}

bool fold_binary(ImportContext& ctx, const NodeView& node) {
  const BinaryInfo& info = binary_info(node.op_type());
  const ConstTensor* a = ctx.constant(node, 0);
  const ConstTensor* b = ctx.constant(node, 1);
  if (!info.can_fold || a == nullptr || b == nullptr) return false;
  if (!is_numeric(a->dtype) || !is_numeric(b->dtype)) return false;
  ctx.set_output(node, 0, eval::binary(info.fold, *a, *b));
  return true;
}

/// Floor / Ceil / Round / Reciprocal / Sqrt / Neg / Abs / Sign of a float32 or float64
/// constant: exactly rounded operations, so computing them in double and rounding once gives the
/// kernels' result. Shape arithmetic on floats (torchvision's resize scale: Reciprocal, Min,
/// Floor of image sizes) then stays known at import. Other unary ops are left to the kernels.
bool fold_float_unary(ImportContext& ctx, const NodeView& node) {
  const ConstTensor* a = ctx.constant(node, 0);
  if (a == nullptr || (a->dtype != DType::Float && a->dtype != DType::Double)) return false;
  const std::string& op = node.op_type();
  std::vector<double> out(static_cast<size_t>(a->numel()));
  for (size_t k = 0; k < out.size(); ++k) {
    const double x = a->double_at(static_cast<int64_t>(k));
    out[k] = op == "Floor"        ? std::floor(x)
             : op == "Ceil"       ? std::ceil(x)
             : op == "Round"      ? std::nearbyint(x)  // half to even (the default mode)
             : op == "Reciprocal" ? 1.0 / x
             : op == "Sqrt"       ? std::sqrt(x)
             : op == "Neg"        ? -x
             : op == "Abs"        ? std::fabs(x)
                                  : (x > 0   ? 1.0
                                     : x < 0 ? -1.0
                                             : x);  // Sign (NaN stays NaN)
  }
  ctx.set_output(node, 0, ConstTensor::from_double(a->dtype, a->sizes, out));
  return true;
}

/// Neg / Abs of an integral constant (shape arithmetic such as `Neg(axis)` in expanded
/// functions), wrapping as the int kernels do; float constants as fold_float_unary does.
bool fold_int_unary(ImportContext& ctx, const NodeView& node) {
  const ConstTensor* a = ctx.constant(node, 0);
  if (a != nullptr && is_floating_point(a->dtype)) return fold_float_unary(ctx, node);
  if (a == nullptr || !is_numeric(a->dtype) || a->dtype == DType::Bool) return false;
  const bool neg = node.op_type() == "Neg";
  std::vector<int64_t> out(static_cast<size_t>(a->numel()));
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t x = a->int_at(static_cast<int64_t>(k));
    const uint64_t minus_x = uint64_t{0} - static_cast<uint64_t>(x);  // no signed overflow
    out[k] = neg || x < 0 ? static_cast<int64_t>(minus_x) : x;
  }
  ctx.set_output(node, 0, ConstTensor::from_int64(a->dtype, a->sizes, out));
  return true;
}

/// Sum / Max / Min over any number of inputs (broadcasting; before opset 8 the inputs have equal
/// shapes, which broadcasting covers).
void import_variadic(ImportContext& ctx, const NodeView& node) {
  const char* op = node.op_type() == "Sum"   ? "aten::add.Tensor"
                   : node.op_type() == "Max" ? "aten::maximum"
                                             : "aten::minimum";
  ir::Node* acc = ctx.input(node, 0);
  for (size_t i = 1; i < node.num_inputs(); ++i) {
    ir::Node* next = ctx.input(node, i);
    acc = node.op_type() == "Sum" ? ctx.call(op, {acc, next, 1}) : ctx.call(op, {acc, next});
  }
  ctx.set_output(node, 0, acc);
}

bool fold_variadic(ImportContext& ctx, const NodeView& node) {
  if (!all_inputs_constant(ctx, node)) return false;
  const BinaryOp op = node.op_type() == "Sum"   ? BinaryOp::Add
                      : node.op_type() == "Max" ? BinaryOp::Max
                                                : BinaryOp::Min;
  ConstTensor acc = *ctx.constant(node, 0);
  if (!is_numeric(acc.dtype)) return false;
  for (size_t i = 1; i < node.num_inputs(); ++i)
    acc = eval::binary(op, acc, *ctx.constant(node, i));
  ctx.set_output(node, 0, std::move(acc));
  return true;
}

/// Mean over any number of inputs (broadcasting): their sum divided by the count.
void import_mean(ImportContext& ctx, const NodeView& node) {
  ir::Node* acc = ctx.input(node, 0);
  for (size_t i = 1; i < node.num_inputs(); ++i) {
    acc = ctx.call("aten::add.Tensor", {acc, ctx.input(node, i), 1});
  }
  if (node.num_inputs() > 1) {
    acc = ctx.call("aten::div.Scalar", {acc, static_cast<double>(node.num_inputs())});
  }
  ctx.set_output(node, 0, acc);
}

/// Mod: fmod=0 is Python's % (the divisor's sign; integers only in ONNX), fmod=1 is C's fmod.
void import_mod(ImportContext& ctx, const NodeView& node) {
  const bool c_fmod = node.attr_int("fmod", 0) != 0;
  if (!c_fmod && is_floating_point(ctx.input_dtype(node, 0))) {
    node.fail(Error::InvalidArgument, "fmod=0 is only defined for integer inputs");
  }
  const char* op = c_fmod ? "aten::fmod.Tensor" : "aten::remainder.Tensor";
  ctx.set_output(node, 0, ctx.call(op, {ctx.input(node, 0), ctx.input(node, 1)}));
}

/// Mod of two constants (shape arithmetic such as Swin's window padding).
bool fold_mod(ImportContext& ctx, const NodeView& node) {
  const ConstTensor* a = ctx.constant(node, 0);
  const ConstTensor* b = ctx.constant(node, 1);
  if (a == nullptr || b == nullptr || !is_numeric(a->dtype) || !is_numeric(b->dtype)) return false;
  const bool c_fmod = node.attr_int("fmod", 0) != 0;
  if (!c_fmod && is_floating_point(a->dtype)) return false;  // import_mod names the error
  ctx.set_output(node, 0, eval::binary(c_fmod ? BinaryOp::FMod : BinaryOp::Mod, *a, *b));
  return true;
}

/// BitShift (unsigned integer tensors of one dtype): bitwise_left_shift / bitwise_right_shift.
void import_bitshift(ImportContext& ctx, const NodeView& node) {
  const std::string direction = node.attr_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    node.fail(Error::InvalidArgument, "direction must be \"LEFT\" or \"RIGHT\", got \"{}\"",
              direction);
  }
  const DType x = ctx.input_dtype(node, 0);
  const DType y = ctx.input_dtype(node, 1);
  if (x != y || !is_integral(x, /*include_bool=*/false)) {
    node.fail(Error::InvalidArgument,
              "inputs must be unsigned integer tensors of one dtype, got {} and {}", to_string(x),
              to_string(y));
  }
  const char* op =
      direction == "LEFT" ? "aten::bitwise_left_shift.Tensor" : "aten::bitwise_right_shift.Tensor";
  ctx.set_output(node, 0, ctx.call(op, {ctx.input(node, 0), ctx.input(node, 1)}));
}

/// IsInf: isinf, or a comparison with the one infinity that detect_positive/negative select.
void import_isinf(ImportContext& ctx, const NodeView& node) {
  const bool pos = node.attr_int("detect_positive", 1) != 0;
  const bool neg = node.attr_int("detect_negative", 1) != 0;
  ir::Node* x = ctx.input(node, 0);
  ir::Node* y = nullptr;
  if (pos && neg) {
    y = ctx.call("aten::isinf", {x});
  } else if (pos || neg) {
    const double inf = std::numeric_limits<double>::infinity();
    y = ctx.call("aten::eq.Scalar", {x, pos ? inf : -inf});
  } else {
    // Neither infinity is detected: all false, with x's shape.
    ir::Node* inf = ctx.call("aten::isinf", {x});
    y = ctx.call("aten::logical_and", {inf, ctx.call("aten::logical_not", {inf})});
  }
  ctx.set_output(node, 0, y);
}

void import_where(ImportContext& ctx, const NodeView& node) {
  ctx.set_output(
      node, 0,
      ctx.call("aten::where.self", {ctx.input(node, 0), ctx.input(node, 1), ctx.input(node, 2)}));
}

bool fold_where(ImportContext& ctx, const NodeView& node) {
  if (!all_inputs_constant(ctx, node)) return false;
  ctx.set_output(
      node, 0, eval::where(*ctx.constant(node, 0), *ctx.constant(node, 1), *ctx.constant(node, 2)));
  return true;
}

struct UnaryInfo {
  std::string_view onnx;
  const char* aten;
};

constexpr UnaryInfo kUnary[] = {
    {"Sigmoid", "aten::sigmoid"}, {"Tanh", "aten::tanh"},
    {"Exp", "aten::exp"},         {"Log", "aten::log"},
    {"Sqrt", "aten::sqrt"},       {"Neg", "aten::neg"},
    {"Abs", "aten::abs"},         {"Reciprocal", "aten::reciprocal"},
    {"Floor", "aten::floor"},     {"Ceil", "aten::ceil"},
    {"Erf", "aten::erf"},         {"Sin", "aten::sin"},
    {"Cos", "aten::cos"},         {"Tan", "aten::tan"},
    {"Asin", "aten::asin"},       {"Acos", "aten::acos"},
    {"Atan", "aten::atan"},       {"Sinh", "aten::sinh"},
    {"Cosh", "aten::cosh"},       {"Round", "aten::round"},
    {"Sign", "aten::sign"},       {"Not", "aten::logical_not"},
    {"IsNaN", "aten::isnan"},     {"Asinh", "aten::asinh"},
    {"Acosh", "aten::acosh"},     {"Atanh", "aten::atanh"},
};

void import_unary(ImportContext& ctx, const NodeView& node) {
  for (const UnaryInfo& u : kUnary) {
    if (u.onnx == node.op_type()) {
      ctx.set_output(node, 0, ctx.call(u.aten, {ctx.input(node, 0)}));
      return;
    }
  }
  node.fail(Error::Internal, "no unary mapping");
}

}  // namespace

std::vector<OpEntry> elementwise_ops() {
  std::vector<OpEntry> rows = {
      {"Add", 6, 17, import_binary, fold_binary},
      {"Sub", 6, 17, import_binary, fold_binary},
      {"Mul", 6, 17, import_binary, fold_binary},
      {"Div", 6, 17, import_binary, fold_binary},
      {"Pow", 1, 17, import_binary, fold_binary},
      {"Equal", 7, 19, import_binary, fold_binary},
      {"Less", 7, 17, import_binary, fold_binary},
      {"Greater", 7, 17, import_binary, fold_binary},
      {"LessOrEqual", 12, 17, import_binary, fold_binary},
      {"GreaterOrEqual", 12, 17, import_binary, fold_binary},
      {"And", 7, 17, import_binary, fold_binary},
      {"Or", 7, 17, import_binary, fold_binary},
      {"Xor", 7, 17, import_binary, fold_binary},
      {"Sum", 6, 17, import_variadic, fold_variadic},
      {"Max", 6, 17, import_variadic, fold_variadic},
      {"Min", 6, 17, import_variadic, fold_variadic},
      {"Where", 9, 17, import_where, fold_where},
      {"Mean", 6, 17, import_mean},
      {"Mod", 10, 17, import_mod, fold_mod},
      {"IsInf", 10, 20, import_isinf},
      {"BitShift", 11, 17, import_bitshift},
  };
  for (const UnaryInfo& u : kUnary) {
    const bool opset9 = u.onnx == "Erf" || u.onnx == "Sign" || u.onnx == "IsNaN" ||
                        u.onnx == "Asinh" || u.onnx == "Acosh" || u.onnx == "Atanh";
    const int min = opset9 ? 9 : u.onnx == "Round" ? 11 : u.onnx == "Not" ? 1 : 6;
    const bool int_foldable = u.onnx == "Neg" || u.onnx == "Abs";
    const bool float_foldable = u.onnx == "Floor" || u.onnx == "Ceil" || u.onnx == "Round" ||
                                u.onnx == "Reciprocal" || u.onnx == "Sqrt" || u.onnx == "Sign";
    rows.push_back({u.onnx, min, 22, import_unary,
                    int_foldable     ? fold_int_unary
                    : float_foldable ? fold_float_unary
                                     : nullptr});
  }
  return rows;
}

}  // namespace ptec::onnx_import
