#include "backends/cpu/aot/cpu_ops.h"

#include <algorithm>
#include <cmath>

#include "ir/op_schema.h"

namespace ptec::backends::cpu {
namespace {

// An fp32 contiguous tensor whose sizes the backend knows at init: static, or rows of a run-time
// count (row_dim); classify() keeps the latter to the ops that keep rows apart.
bool float_sized(const ir::TensorSpec& spec) {
  return spec.dtype == DType::Float && (spec.is_static() || row_dim(spec)) &&
         (spec.dim_order.empty() || std::is_sorted(spec.dim_order.begin(), spec.dim_order.end()));
}

// Every tensor `node` writes and every node it reads is an fp32 contiguous tensor (float_sized).
bool tensors_ok(const ir::Node& node) {
  if (node.meta().val.empty()) return false;
  for (const ir::TensorSpec& spec : node.meta().val) {
    if (!float_sized(spec)) return false;
  }
  for (const ir::Node* input : node.inputs()) {
    if (input->meta().val.size() != 1 || !float_sized(input->spec())) return false;
  }
  return true;
}

bool is_one(const ir::Argument& a) {
  return a.is_none() || ((a.is_int() || a.is_double()) && a.to_double() == 1.0);
}

bool is_number(const ir::Argument& a) { return a.is_int() || a.is_double(); }

constexpr size_t kMaxRank = 8;

bool int_list_of_length(const ir::Argument& a, size_t n) {
  if (!a.is_list() || a.as_list().size() != n) return false;
  return std::all_of(a.as_list().begin(), a.as_list().end(),
                     [](const ir::Argument& i) { return i.is_int(); });
}

bool is_weight_permute(const ir::ExportedProgram& program, const ir::Node& node) {
  if (!node.is_op("aten::permute_copy")) return false;
  const ir::Argument& self = node.arg("self");
  return self.is_node() && is_constant(program, *self.as_node()) &&
         self.as_node()->spec().rank() == 2 &&
         node.arg("dims").to_int_vector() == std::vector<int64_t>{1, 0};
}

// mat2 of a Linear: a constant [K, N], or permute_copy([1, 0]) of a constant [N, K] that its
// readers only multiply by, as mat2 (the steps of a recurrent cell share one): each Linear packs
// the constant itself, transposed.
bool linear_weight_ok(const ir::ExportedProgram& program, const ir::Node& mat2) {
  if (is_constant(program, mat2)) return mat2.spec().rank() == 2;
  if (!is_weight_permute(program, mat2)) return false;
  for (const ir::Node* user : mat2.users()) {
    const bool addmm = user->is_op("aten::addmm");
    if (!addmm && !user->is_op("aten::mm")) return false;
    const ir::Argument& lhs = user->arg(addmm ? "mat1" : "self");
    const ir::Argument& rhs = user->arg("mat2");
    if (!rhs.is_node() || rhs.as_node() != &mat2 || (lhs.is_node() && lhs.as_node() == &mat2)) {
      return false;
    }
  }
  return true;
}

bool is_linear(const ir::ExportedProgram& program, const ir::Node& node) {
  const bool addmm = node.is_op("aten::addmm");
  if (!addmm && !node.is_op("aten::mm")) return false;
  const ir::Argument mat1 = node.arg(addmm ? "mat1" : "self");
  const ir::Argument mat2 = node.arg("mat2");
  if (!mat1.is_node() || !mat2.is_node() || !linear_weight_ok(program, *mat2.as_node())) {
    return false;
  }
  if (!addmm) return true;
  if (!is_one(arg_or_default(node, "beta")) || !is_one(arg_or_default(node, "alpha"))) {
    return false;
  }
  const ir::Argument self = node.arg("self");
  if (!self.is_node()) return false;
  // A computed `self` of the product's shape is added as a residual (a recurrent cell's
  // H * R^T on top of its input projection); a constant one is the bias.
  if (!is_constant(program, *self.as_node())) {
    return self.as_node()->meta().val.size() == 1 && float_sized(self.as_node()->spec()) &&
           self.as_node()->spec().shape == node.spec().shape;
  }
  const ir::TensorSpec& bias = self.as_node()->spec();
  const int64_t n = node.spec().shape.back().value();
  return (bias.rank() == 1 && bias.shape[0].value() == n) ||
         (bias.rank() == 2 && bias.shape[0].value() == 1 && bias.shape[1].value() == n);
}

// split_with_sizes_copy of an fp32 static tensor whose parts are read through getitems.
bool is_split(const ir::Node& node) {
  if (!node.is_op("aten::split_with_sizes_copy") || !node.arg(0).is_node()) return false;
  for (const ir::Node* user : node.users()) {
    if (!user->is_op("getitem")) return false;
  }
  const ir::Node* x = node.arg(0).as_node();
  if (x->meta().val.size() != 1 || !float_sized(x->spec()) || x->spec().rank() > kMaxRank) {
    return false;
  }
  for (const ir::TensorSpec& part : node.meta().val) {
    if (!float_sized(part)) return false;
  }
  return true;
}

bool is_max_pool(const ir::Node& node) {
  if (!node.is_op("aten::max_pool2d_with_indices") || node.meta().val.size() != 2) return false;
  if (node.arg("self").as_node()->spec().rank() != 4) return false;
  // Only the values are used: every user is getitem 0.
  for (const ir::Node* user : node.users()) {
    if (!user->is_op("getitem") || user->arg(1).as_int() != 0) return false;
  }
  return float_sized(node.meta().val[0]) && node.arg("self").as_node()->meta().val.size() == 1 &&
         float_sized(node.arg("self").as_node()->spec());
}

// The input of a normalization `op` (three outputs: the normalized values and two statistics)
// of an fp32 tensor (N, C, ...), of which only the normalized values are used; null otherwise.
const ir::Node* normalized_input(const ir::Node& node, std::string_view op) {
  if (!node.is_op(op) || node.meta().val.size() != 3 || !node.arg(0).is_node()) return nullptr;
  for (const ir::Node* user : node.users()) {  // getitems, of output 0 where used
    if (!user->is_op("getitem") || (user->arg(1).as_int() != 0 && !user->users().empty())) {
      return nullptr;
    }
  }
  const ir::Node* x = node.arg(0).as_node();
  if (x->meta().val.size() != 1 || !float_sized(x->spec()) || x->spec().rank() < 2 ||
      !float_sized(node.meta().val[0])) {
    return nullptr;
  }
  return x;
}

// An inference batch norm over dim 1 with constant fp32 parameters of one value per channel
// (weight and bias may be absent), of which only the normalized values are used.
bool is_batch_norm(const ir::ExportedProgram& program, const ir::Node& node) {
  const ir::Node* x = normalized_input(node, "aten::_native_batch_norm_legit_no_training");
  if (x == nullptr) return false;
  const int64_t channels = x->spec().shape[1].value();
  for (size_t i = 1; i <= 4; ++i) {
    const ir::Argument& a = node.arg(i);
    if (a.is_none() && i <= 2) continue;
    if (!a.is_node() || !is_constant(program, *a.as_node())) return false;
    const ir::TensorSpec& spec = a.as_node()->spec();
    if (!float_sized(spec) || spec.numel_upper_bound() != channels) return false;
  }
  return node.arg(6).is_double() || node.arg(6).is_int();
}

// A group norm of an fp32 tensor (N, C, ...) whose weight and bias (may be absent) hold one fp32
// value per channel, of which only the normalized values are used.
// A layer norm over the last dim (ONNX LayerNormalization-17, torch's layer_norm) with constant
// fp32 weight and bias of its size (each may be absent), of which only the normalized values
// are used.
bool is_layer_norm(const ir::ExportedProgram& program, const ir::Node& node) {
  const ir::Node* x = normalized_input(node, "aten::native_layer_norm");
  if (x == nullptr) return false;
  const int64_t c = x->spec().shape.back().value();
  const ir::Argument& shape = node.arg(1);
  if (!int_list_of_length(shape, 1) || shape.as_list()[0].as_int() != c) return false;
  for (size_t i = 2; i <= 3; ++i) {
    const ir::Argument& a = node.arg(i);
    if (a.is_none()) continue;
    if (!a.is_node() || !is_constant(program, *a.as_node()) || a.as_node()->spec().rank() != 1 ||
        !float_sized(a.as_node()->spec()) || a.as_node()->spec().shape[0].value() != c) {
      return false;
    }
  }
  return node.arg(4).is_double() || node.arg(4).is_int();
}

bool is_group_norm(const ir::Node& node) {
  const ir::Node* x = normalized_input(node, "aten::native_group_norm");
  if (x == nullptr) return false;
  for (size_t i = 3; i <= 6; ++i) {
    if (!node.arg(i).is_int()) return false;
  }
  const int64_t n = node.arg(3).as_int(), c = node.arg(4).as_int(), hxw = node.arg(5).as_int();
  const int64_t groups = node.arg(6).as_int();
  const ir::TensorSpec& spec = x->spec();
  if (spec.shape[0].value() != n || spec.shape[1].value() != c || groups <= 0 || c % groups != 0 ||
      spec.numel_upper_bound() != n * c * hxw) {
    return false;
  }
  for (size_t i = 1; i <= 2; ++i) {
    const ir::Argument& a = node.arg(i);
    if (a.is_none()) continue;
    if (!a.is_node() || a.as_node()->meta().val.size() != 1 || !float_sized(a.as_node()->spec()) ||
        a.as_node()->spec().numel_upper_bound() != c) {
      return false;
    }
  }
  return node.arg(7).is_double() || node.arg(7).is_int();
}

}  // namespace

ir::Argument arg_or_default(const ir::Node& node, std::string_view name) {
  const int index = node.op()->arg_index(name);
  if (index >= 0 && static_cast<size_t>(index) < node.args().size()) {
    return node.args()[static_cast<size_t>(index)];
  }
  const ir::ArgSchema& a = node.op()->args.at(static_cast<size_t>(index));
  return a.default_value ? *a.default_value : ir::Argument();
}

bool is_constant(const ir::ExportedProgram& program, const ir::Node& node) {
  return node.is_placeholder() && program.constant_for_placeholder(node.name()) != nullptr;
}

namespace {

// classify() for tensors of known sizes (row_dim tensors pass as their bounds).
CpuOpKind classify_sizes(const ir::ExportedProgram& program, const ir::Node& node) {
  if (!node.is_call() || node.op() == nullptr) return CpuOpKind::Unsupported;
  if (node.is_op("getitem")) {
    const ir::Argument& src = node.arg(0);
    return src.is_node() &&
                   (is_max_pool(*src.as_node()) || is_batch_norm(program, *src.as_node()) ||
                    is_group_norm(*src.as_node()) || is_layer_norm(program, *src.as_node()) ||
                    is_split(*src.as_node()))
               ? CpuOpKind::GetItem
               : CpuOpKind::Unsupported;
  }
  if (is_split(node)) return CpuOpKind::Split;
  if (is_max_pool(node)) return CpuOpKind::MaxPool2d;
  if (is_batch_norm(program, node)) return CpuOpKind::BatchNorm;
  if (is_group_norm(node)) return CpuOpKind::GroupNorm;
  if (is_layer_norm(program, node)) return CpuOpKind::LayerNorm;
  if (!tensors_ok(node)) return CpuOpKind::Unsupported;

  if (node.is_op("aten::avg_pool2d")) {
    const ir::Argument divisor = arg_or_default(node, "divisor_override");
    const bool ok = node.arg("self").as_node()->spec().rank() == 4 &&
                    int_list_of_length(node.arg("kernel_size"), 2) &&
                    (divisor.is_none() || (divisor.is_int() && divisor.as_int() != 0));
    return ok ? CpuOpKind::AvgPool2d : CpuOpKind::Unsupported;
  }

  if (node.is_op("aten::convolution")) {
    const ir::Argument& weight = node.arg("weight");
    const ir::Argument bias = arg_or_default(node, "bias");
    const bool ok = node.arg("input").as_node()->spec().rank() == 4 && weight.is_node() &&
                    is_constant(program, *weight.as_node()) &&
                    (bias.is_none() || (bias.is_node() && is_constant(program, *bias.as_node()))) &&
                    int_list_of_length(node.arg("stride"), 2) &&
                    int_list_of_length(node.arg("padding"), 2) &&
                    int_list_of_length(node.arg("dilation"), 2);
    if (!ok) return CpuOpKind::Unsupported;
    if (!node.arg("transposed").as_bool()) return CpuOpKind::Conv2d;
    return int_list_of_length(node.arg("output_padding"), 2) ? CpuOpKind::ConvTranspose2d
                                                             : CpuOpKind::Unsupported;
  }
  if (is_linear(program, node)) return CpuOpKind::Linear;
  if (is_weight_permute(program, node)) {
    bool all_linear = true;
    for (const ir::Node* user : node.users()) all_linear &= is_linear(program, *user);
    if (all_linear) return CpuOpKind::WeightPermute;
  }
  if (node.is_op("aten::mm") || node.is_op("aten::bmm")) {
    const size_t rank = node.is_op("aten::mm") ? 2 : 3;
    return node.arg("self").as_node()->spec().rank() == rank &&
                   node.arg("mat2").as_node()->spec().rank() == rank
               ? CpuOpKind::BatchMatMul
               : CpuOpKind::Unsupported;
  }
  if (node.is_op("aten::_softmax")) {
    return !node.arg("half_to_float").as_bool() && node.spec().rank() <= kMaxRank
               ? CpuOpKind::Softmax
               : CpuOpKind::Unsupported;
  }
  if (node.is_op("aten::permute_copy") || node.is_op("aten::slice_copy.Tensor") ||
      node.is_op("aten::select_copy.int") || node.is_op("aten::expand_copy")) {
    const ir::Node* self = node.arg("self").as_node();
    if (node.spec().rank() > kMaxRank || self->spec().rank() > kMaxRank) {
      return CpuOpKind::Unsupported;
    }
    if (node.is_op("aten::slice_copy.Tensor")) {
      const ir::Argument start = arg_or_default(node, "start");
      const ir::Argument step = arg_or_default(node, "step");
      if (!(start.is_none() || start.is_int()) || !step.is_int() || step.as_int() < 1) {
        return CpuOpKind::Unsupported;
      }
    }
    return CpuOpKind::StridedCopy;
  }
  if (node.is_op("aten::add.Scalar") || node.is_op("aten::sub.Scalar") ||
      node.is_op("aten::mul.Scalar") || node.is_op("aten::div.Scalar")) {
    const ir::Argument other = node.arg("other");
    const bool alpha_ok = node.is_op("aten::mul.Scalar") || node.is_op("aten::div.Scalar") ||
                          is_number(arg_or_default(node, "alpha"));
    return is_number(other) && alpha_ok ? CpuOpKind::ScalarBinary : CpuOpKind::Unsupported;
  }
  if (node.is_op("aten::pow.Tensor_Scalar")) {
    return is_number(node.arg("exponent")) ? CpuOpKind::ScalarBinary : CpuOpKind::Unsupported;
  }
  if (node.is_op("aten::sqrt") || node.is_op("aten::rsqrt") || node.is_op("aten::erf") ||
      node.is_op("aten::exp") || node.is_op("aten::log") || node.is_op("aten::neg") ||
      node.is_op("aten::abs") || node.is_op("aten::reciprocal")) {
    return CpuOpKind::Math;
  }
  const bool mean = node.is_op("aten::mean.dim");
  if (mean || node.is_op("aten::sum.dim_IntList")) {
    const ir::Argument dim = arg_or_default(node, "dim");
    const ir::Argument dtype = arg_or_default(node, "dtype");
    const int64_t rank = static_cast<int64_t>(node.arg("self").as_node()->spec().rank());
    if (rank == 0 || !dim.is_list() || dim.as_list().empty() ||
        !(dtype.is_none() || (dtype.is_dtype() && dtype.as_dtype() == DType::Float))) {
      return CpuOpKind::Unsupported;
    }
    std::vector<int64_t> dims = dim.to_int_vector();
    for (int64_t& d : dims) d = d < 0 ? d + rank : d;
    std::sort(dims.begin(), dims.end());
    if (mean && rank == 4 && dims == std::vector<int64_t>{2, 3}) return CpuOpKind::GlobalAvgPool;
    if (mean && dims == std::vector<int64_t>{rank - 1}) return CpuOpKind::MeanInner;
    // Any other run of consecutive dims (a channels-last tensor's H and W, the channels of a
    // channels-first layer norm): a reduction with the dims after it as its inner stride.
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] < 0 || dims[i] >= rank || (i > 0 && dims[i] != dims[i - 1] + 1)) {
        return CpuOpKind::Unsupported;
      }
    }
    return CpuOpKind::Reduce;
  }
  if (node.is_op("aten::relu") || node.is_op("aten::sigmoid") || node.is_op("aten::tanh") ||
      node.is_op("aten::silu") || node.is_op("aten::hardswish")) {
    return CpuOpKind::Unary;
  }
  if (node.is_op("aten::gelu")) {
    const ir::Argument a = arg_or_default(node, "approximate");
    return a.is_string() && a.as_string() == "none" ? CpuOpKind::Unary : CpuOpKind::Unsupported;
  }
  if (node.is_op("aten::hardtanh")) return CpuOpKind::Unary;
  if (node.is_op("aten::leaky_relu")) {
    return is_number(arg_or_default(node, "negative_slope")) ? CpuOpKind::Unary
                                                             : CpuOpKind::Unsupported;
  }
  if (node.is_op("aten::clamp")) {
    const ir::Argument lo = arg_or_default(node, "min");
    const ir::Argument hi = arg_or_default(node, "max");
    const bool scalar_or_none = (lo.is_none() || lo.is_int() || lo.is_double()) &&
                                (hi.is_none() || hi.is_int() || hi.is_double());
    return scalar_or_none ? CpuOpKind::Unary : CpuOpKind::Unsupported;
  }
  if (node.is_op("aten::add.Tensor") || node.is_op("aten::sub.Tensor")) {
    return is_one(arg_or_default(node, "alpha")) && node.arg("other").is_node()
               ? CpuOpKind::Binary
               : CpuOpKind::Unsupported;
  }
  if (node.is_op("aten::mul.Tensor") || node.is_op("aten::div.Tensor")) {
    return node.arg("other").is_node() ? CpuOpKind::Binary : CpuOpKind::Unsupported;
  }
  if (node.is_op("aten::view_copy") || node.is_op("aten::squeeze_copy.dims") ||
      node.is_op("aten::squeeze_copy.dim") || node.is_op("aten::squeeze_copy") ||
      node.is_op("aten::unsqueeze_copy") || node.is_op("aten::clone")) {
    return CpuOpKind::Copy;
  }
  if (node.is_op("aten::cat")) return CpuOpKind::Cat;
  return CpuOpKind::Unsupported;
}

// The tensors `node` computes or reads that are not constants or weights: its first output (the
// others of a claimed node, a max pool's indices or a norm's statistics, are unused), and what
// it reads (of a multi-output node, the getitem's part).
std::vector<const ir::TensorSpec*> activations(const ir::ExportedProgram& program,
                                               const ir::Node& node) {
  std::vector<const ir::TensorSpec*> specs;
  if (node.meta().val.empty()) return specs;
  specs.push_back(&node.meta().val[0]);
  for (const ir::Node* input : node.inputs()) {
    if (is_constant(program, *input) || is_weight_permute(program, *input)) continue;
    const std::vector<ir::TensorSpec>& vals = input->meta().val;
    if (node.is_op("getitem") && node.arg(1).is_int()) {
      const int64_t i = node.arg(1).as_int();
      if (i >= 0 && static_cast<size_t>(i) < vals.size())
        specs.push_back(&vals[static_cast<size_t>(i)]);
      continue;
    }
    for (const ir::TensorSpec& spec : vals) specs.push_back(&spec);
  }
  return specs;
}

// Elements per unit of the run-time count: the product of the static dims.
int64_t elements_per_row(const ir::TensorSpec& spec) {
  int64_t n = 1;
  for (const ir::SymInt& d : spec.shape) n *= d.is_static() ? d.value() : 1;
  return n;
}

// Whether a node of `kind` whose activations include row_dim tensors runs on the rows the run
// gives. Every activation has rows of one symbol, and so does the output, and the op keeps
// them apart:
//   - images (convolution, pooling, batch and group norm): the rows are the batch, dim 0;
//   - cat and softmax along a dim after the rows, getitem: the rows in the output's dim;
//   - row by row (a linear layer, an element-wise op, a normalization, mean or copy along the
//     last dim): as many elements per row in and out (the last dim aside); an element-wise
//     operand has the rows in the output's dim (broadcast along others) or is static and
//     broadcast along them.
bool runs_on_rows(const ir::ExportedProgram& program, const ir::Node& node, CpuOpKind kind) {
  const std::vector<const ir::TensorSpec*> specs = activations(program, node);
  const ir::TensorSpec* first = nullptr;
  for (const ir::TensorSpec* spec : specs) {
    if (row_dim(*spec)) {
      first = spec;
      break;
    }
  }
  if (first == nullptr) return true;  // static
  const bool image = kind == CpuOpKind::Conv2d || kind == CpuOpKind::MaxPool2d ||
                     kind == CpuOpKind::AvgPool2d || kind == CpuOpKind::GlobalAvgPool ||
                     kind == CpuOpKind::BatchNorm || kind == CpuOpKind::GroupNorm;
  const bool along =
      image || kind == CpuOpKind::Cat || kind == CpuOpKind::Softmax || kind == CpuOpKind::GetItem;
  switch (kind) {
    case CpuOpKind::Linear:
    case CpuOpKind::Unary:
    case CpuOpKind::Binary:
    case CpuOpKind::Copy:
    case CpuOpKind::ScalarBinary:
    case CpuOpKind::Math:
    case CpuOpKind::MeanInner:
    case CpuOpKind::LayerNorm: break;
    default:
      if (!along) return false;
  }
  if (along) {
    const ir::TensorSpec& out = node.meta().val[0];
    const std::optional<size_t> d = row_dim(out);
    if (!d || (image && *d != 0)) return false;
    for (const ir::TensorSpec* spec : specs) {
      if (row_dim(*spec) != d || !(spec->shape[*d] == out.shape[*d])) return false;
    }
    const int64_t rank = static_cast<int64_t>(out.rank());
    auto dim_arg = [&](std::string_view name) {
      const int64_t v = arg_or_default(node, name).as_int();
      return v < 0 ? v + rank : v;
    };
    if (kind == CpuOpKind::Cat) return dim_arg("dim") != static_cast<int64_t>(*d);
    if (kind == CpuOpKind::Softmax) return dim_arg("dim") > static_cast<int64_t>(*d);
    return true;
  }
  const ir::SymInt& symbol = first->shape[*row_dim(*first)];
  const bool elementwise = kind != CpuOpKind::Linear && kind != CpuOpKind::MeanInner &&
                           kind != CpuOpKind::Copy && kind != CpuOpKind::LayerNorm;
  const ir::TensorSpec& out = node.meta().val[0];
  const std::optional<size_t> out_dim = row_dim(out);
  if (!out_dim || !(out.shape[*out_dim] == symbol)) return false;
  auto rows_of = [](const ir::TensorSpec& t) {
    return elements_per_row(t) / t.shape.back().value();
  };
  for (const ir::TensorSpec* spec : specs) {
    const std::optional<size_t> d = row_dim(*spec);
    if (d) {
      if (!(spec->shape[*d] == symbol)) return false;
      // An element-wise operand broadcasts along the other dims only (numbered from the last).
      if (elementwise && *d + out.rank() != *out_dim + spec->rank()) return false;
      if (kind == CpuOpKind::Copy
              ? elements_per_row(*spec) != elements_per_row(out)
              : spec->shape.back().value() > 0 && out.shape.back().value() > 0 &&
                    rows_of(*spec) != rows_of(out)) {
        return false;
      }
      continue;
    }
    // A static operand of an element-wise op broadcasts along the rows (size 1 there).
    if (!elementwise || !spec->is_static()) return false;
    const int64_t j = static_cast<int64_t>(*out_dim) -
                      (static_cast<int64_t>(out.rank()) - static_cast<int64_t>(spec->rank()));
    if (j >= 0 && spec->shape[static_cast<size_t>(j)].value() != 1) return false;
  }
  return true;
}

}  // namespace

std::optional<size_t> row_dim(const ir::TensorSpec& spec) {
  std::optional<size_t> found;
  for (size_t d = 0; d < spec.rank(); ++d) {
    if (spec.shape[d].is_static()) continue;
    if (found || d + 1 == spec.rank()) return std::nullopt;
    found = d;
  }
  return found;
}

CpuOpKind classify(const ir::ExportedProgram& program, const ir::Node& node) {
  const CpuOpKind kind = classify_sizes(program, node);
  if (kind == CpuOpKind::Unsupported || runs_on_rows(program, node, kind)) return kind;
  return CpuOpKind::Unsupported;
}

std::string rows_symbol(const ir::ExportedProgram& program, const ir::Node& node) {
  for (const ir::TensorSpec* spec : activations(program, node)) {
    if (std::optional<size_t> d = row_dim(*spec)) return spec->shape[*d].symbol()->name;
  }
  return {};
}

namespace {

// The one user of `node`, when it has exactly one and is not a graph output.
const ir::Node* only_user(const ir::ExportedProgram& program, const ir::Node* node) {
  if (node->users().size() != 1) return nullptr;
  for (const ir::Node* out : program.graph().outputs()) {
    if (out == node) return nullptr;
  }
  return node->users()[0];
}

bool is_last_dim_mean(const ir::ExportedProgram& program, const ir::Node* n) {
  return n != nullptr && classify(program, *n) == CpuOpKind::MeanInner &&
         arg_or_default(*n, "keepdim").as_bool();
}

// `n` is `op`(a, b) (in either order when commutative) with `a` as one operand; the other one.
const ir::Node* other_operand(const ir::Node* n, const ir::Node* a) {
  const ir::Argument self = n->arg("self");
  const ir::Argument other = n->arg("other");
  if (!self.is_node() || !other.is_node()) return nullptr;
  if (self.as_node() == a) return other.as_node();
  if (other.as_node() == a) return self.as_node();
  return nullptr;
}

}  // namespace

std::optional<LayerNormMatch> match_layer_norm(const ir::ExportedProgram& program,
                                               const ir::Node& mean) {
  if (!is_last_dim_mean(program, &mean)) return std::nullopt;
  LayerNormMatch m;
  m.x = mean.arg("self").as_node();
  const int64_t c = m.x->spec().shape.back().value();
  if (c <= 0) return std::nullopt;
  // d = x - m: the mean's only user.
  const ir::Node* d = only_user(program, &mean);
  if (d == nullptr || !d->is_op("aten::sub.Tensor") || classify(program, *d) != CpuOpKind::Binary ||
      d->arg("self").as_node() != m.x || d->arg("other").as_node() != &mean ||
      d->spec().shape != m.x->spec().shape || d->users().size() != 2) {
    return std::nullopt;
  }
  for (const ir::Node* out : program.graph().outputs()) {
    if (out == d) return std::nullopt;
  }
  const ir::Node* p = nullptr;
  const ir::Node* y = nullptr;
  for (const ir::Node* u : d->users()) {
    if (u->is_op("aten::pow.Tensor_Scalar")) p = u;
    if (u->is_op("aten::div.Tensor")) y = u;
  }
  if (p == nullptr || y == nullptr || classify(program, *p) != CpuOpKind::ScalarBinary ||
      p->arg("exponent").to_double() != 2.0 || y->arg("self").as_node() != d ||
      classify(program, *y) != CpuOpKind::Binary) {
    return std::nullopt;
  }
  const ir::Node* v = only_user(program, p);
  if (!is_last_dim_mean(program, v)) return std::nullopt;
  const ir::Node* e = only_user(program, v);
  if (e == nullptr || !e->is_op("aten::add.Scalar") ||
      classify(program, *e) != CpuOpKind::ScalarBinary) {
    return std::nullopt;
  }
  m.eps = e->arg("other").to_double() * arg_or_default(*e, "alpha").to_double();
  const ir::Node* s = only_user(program, e);
  if (s == nullptr || !s->is_op("aten::sqrt") || classify(program, *s) != CpuOpKind::Math ||
      only_user(program, s) != y || y->arg("other").as_node() != s) {
    return std::nullopt;
  }
  m.nodes = {&mean, d, p, v, e, s, y};
  // Optional affine part: y * weight, then + bias (constants of C elements).
  auto affine = [&](const ir::Node* n, const char* op) -> const ir::Node* {
    if (n == nullptr || !n->is_op(op) || classify(program, *n) != CpuOpKind::Binary) {
      return nullptr;
    }
    const ir::Node* w = other_operand(n, m.nodes.back());
    if (w == nullptr || !is_constant(program, *w) || w->spec().rank() != 1 ||
        w->spec().shape[0].value() != c || n->spec().shape != m.x->spec().shape) {
      return nullptr;
    }
    return w;
  };
  if (const ir::Node* mul = only_user(program, y); (m.weight = affine(mul, "aten::mul.Tensor"))) {
    m.nodes.push_back(mul);
    if (const ir::Node* add = only_user(program, mul); (m.bias = affine(add, "aten::add.Tensor"))) {
      m.nodes.push_back(add);
    }
  }
  return m;
}

std::optional<GeluMatch> match_gelu(const ir::ExportedProgram& program, const ir::Node& div) {
  auto scalar_op = [&](const ir::Node* n, const char* op, double value, double tolerance) {
    if (n == nullptr || !n->is_op(op) || classify(program, *n) != CpuOpKind::ScalarBinary) {
      return false;
    }
    double v = n->arg("other").to_double();
    if (n->is_op("aten::add.Scalar")) v *= arg_or_default(*n, "alpha").to_double();
    return std::fabs(v - value) <= tolerance;
  };
  // The divisor is sqrt(2) as far as an fp32 constant can say it.
  if (!scalar_op(&div, "aten::div.Scalar", 1.4142135623730951, 1e-6)) return std::nullopt;
  GeluMatch m;
  m.x = div.arg("self").as_node();
  const ir::Node* erf = only_user(program, &div);
  if (erf == nullptr || !erf->is_op("aten::erf") || classify(program, *erf) != CpuOpKind::Math) {
    return std::nullopt;
  }
  const ir::Node* add = only_user(program, erf);
  if (!scalar_op(add, "aten::add.Scalar", 1.0, 0.0)) return std::nullopt;
  const ir::Node* mul = only_user(program, add);
  if (mul == nullptr || !mul->is_op("aten::mul.Tensor") ||
      classify(program, *mul) != CpuOpKind::Binary || other_operand(mul, add) != m.x ||
      mul->spec().shape != m.x->spec().shape) {
    return std::nullopt;
  }
  const ir::Node* half = only_user(program, mul);
  if (!scalar_op(half, "aten::mul.Scalar", 0.5, 0.0)) return std::nullopt;
  m.nodes = {&div, erf, add, mul, half};
  return m;
}

std::optional<HardSwishMatch> match_hardswish(const ir::ExportedProgram& program,
                                              const ir::Node& x) {
  if (x.users().size() != 2) return std::nullopt;
  for (const ir::Node* out : program.graph().outputs()) {
    if (out == &x) return std::nullopt;
  }
  auto scalar_op = [&](const ir::Node* n, const char* op, double value) {
    if (n == nullptr || !n->is_op(op) || classify(program, *n) != CpuOpKind::ScalarBinary) {
      return false;
    }
    double v = n->arg("other").to_double();
    if (n->is_op("aten::add.Scalar")) v *= arg_or_default(*n, "alpha").to_double();
    return std::fabs(v - value) <= 1e-6 * std::fabs(value);  // 1/6 as an fp32 constant says it
  };
  auto clamp_op = [&](const ir::Node* n, double hi) {  // clamp or hardtanh to [0, hi]
    if (n == nullptr || classify(program, *n) != CpuOpKind::Unary) return false;
    const bool clamp = n->is_op("aten::clamp");
    if (!clamp && !n->is_op("aten::hardtanh")) return false;
    const ir::Argument lo = arg_or_default(*n, clamp ? "min" : "min_val");
    const ir::Argument up = arg_or_default(*n, clamp ? "max" : "max_val");
    return !lo.is_none() && !up.is_none() && lo.to_double() == 0.0 && up.to_double() == hi;
  };
  auto product_of = [&](const ir::Node* n, const ir::Node* gate) {
    return n != nullptr && n->is_op("aten::mul.Tensor") &&
           classify(program, *n) == CpuOpKind::Binary && other_operand(n, gate) == &x &&
           n->spec().shape == x.spec().shape;
  };
  const ir::Node* first = x.users()[0];
  const ir::Node* mul = x.users()[1];
  if (!mul->is_op("aten::mul.Tensor")) std::swap(first, mul);
  HardSwishMatch m;
  if (scalar_op(first, "aten::mul.Scalar", 1.0 / 6.0)) {
    const ir::Node* add = only_user(program, first);
    if (!scalar_op(add, "aten::add.Scalar", 0.5)) return std::nullopt;
    const ir::Node* clamp = only_user(program, add);
    if (!clamp_op(clamp, 1.0) || only_user(program, clamp) != mul || !product_of(mul, clamp)) {
      return std::nullopt;
    }
    m.nodes = {first, add, clamp, mul};
    return m;
  }
  if (scalar_op(first, "aten::add.Scalar", 3.0)) {
    const ir::Node* clamp = only_user(program, first);
    if (!clamp_op(clamp, 6.0) || only_user(program, clamp) != mul || !product_of(mul, clamp)) {
      return std::nullopt;
    }
    const ir::Node* div = only_user(program, mul);
    if (!scalar_op(div, "aten::div.Scalar", 6.0)) return std::nullopt;
    m.nodes = {first, clamp, mul, div};
    return m;
  }
  return std::nullopt;
}

}  // namespace ptec::backends::cpu
