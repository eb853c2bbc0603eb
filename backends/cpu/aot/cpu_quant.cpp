#include "backends/cpu/aot/cpu_quant.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "backends/cpu/aot/cpu_ops.h"
#include "ir/op_schema.h"
#include "kernels/optimized/qgemm.h"

namespace ptec::backends::cpu {
namespace {

// The values of a constant reached through _to_copy / view_copy / clone (each used only on this
// path is not required: parameters are often shared), as doubles; `chain` receives the nodes
// passed through.
std::optional<std::vector<double>> constant_values(const ir::ExportedProgram& program,
                                                   const ir::Node* node,
                                                   std::vector<const ir::Node*>* chain) {
  while (node->is_call() && (node->is_op("aten::_to_copy") || node->is_op("aten::view_copy") ||
                             node->is_op("aten::clone"))) {
    if (chain != nullptr) chain->push_back(node);
    const ir::Argument& src = node->arg(0);
    if (!src.is_node()) return std::nullopt;
    node = src.as_node();
  }
  if (!is_constant(program, *node)) return std::nullopt;
  const ir::TensorData* data = program.constant_for_placeholder(node->name());
  if (data == nullptr || data->data == nullptr) return std::nullopt;
  const int64_t n = data->spec.numel_upper_bound();
  const uint8_t* p = data->data->data();
  const size_t es = element_size(data->spec.dtype);
  if (n < 0 || data->data->size() < static_cast<size_t>(n) * es) return std::nullopt;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* e = p + static_cast<size_t>(i) * es;
    switch (data->spec.dtype) {
      case DType::Float: {
        float f;
        std::memcpy(&f, e, 4);
        v[static_cast<size_t>(i)] = f;
        break;
      }
      case DType::Double: std::memcpy(&v[static_cast<size_t>(i)], e, 8); break;
      case DType::Long: {
        int64_t x;
        std::memcpy(&x, e, 8);
        v[static_cast<size_t>(i)] = static_cast<double>(x);
        break;
      }
      case DType::Int: {
        int32_t x;
        std::memcpy(&x, e, 4);
        v[static_cast<size_t>(i)] = x;
        break;
      }
      case DType::Byte: v[static_cast<size_t>(i)] = *e; break;
      case DType::Char: v[static_cast<size_t>(i)] = static_cast<int8_t>(*e); break;
      default: return std::nullopt;
    }
  }
  return v;
}

// A scale / zero point argument: a number, or a one-element constant tensor.
std::optional<double> scalar_param(const ir::ExportedProgram& program, const ir::Argument& a,
                                   std::vector<const ir::Node*>* chain) {
  if (a.is_int() || a.is_double()) return a.to_double();
  if (!a.is_node()) return std::nullopt;
  auto v = constant_values(program, a.as_node(), chain);
  if (!v || v->size() != 1) return std::nullopt;
  return (*v)[0];
}

bool quant_dtype(DType t, bool* is_signed) {
  if (t != DType::Byte && t != DType::Char) return false;
  *is_signed = t == DType::Char;
  return true;
}

bool float_tensor(const ir::Node* n) {
  return n->meta().val.size() == 1 && n->spec().dtype == DType::Float && n->spec().is_static();
}

// Fills qmin / qmax / dtype of `q` from the op's quant_min, quant_max and dtype arguments.
bool range_args(const ir::Node& node, QParams* q) {
  const ir::Argument lo = node.arg("quant_min"), hi = node.arg("quant_max"), dt = node.arg("dtype");
  if (!lo.is_int() || !hi.is_int() || !dt.is_dtype() ||
      !quant_dtype(dt.as_dtype(), &q->is_signed)) {
    return false;
  }
  const int64_t tlo = q->is_signed ? -128 : 0, thi = q->is_signed ? 127 : 255;
  if (lo.as_int() < tlo || hi.as_int() > thi || lo.as_int() > hi.as_int()) return false;
  q->qmin = static_cast<int32_t>(lo.as_int());
  q->qmax = static_cast<int32_t>(hi.as_int());
  return true;
}

bool is_one(const ir::Argument& a) {
  return a.is_none() || ((a.is_int() || a.is_double()) && a.to_double() == 1.0);
}

bool valid_scale(double s) { return std::isfinite(s) && s > 0.0; }

// The one user of `node` when it has exactly one and is not a graph output.
const ir::Node* sole_user(const ir::ExportedProgram& program, const ir::Node* node) {
  if (node->users().size() != 1) return nullptr;
  for (const ir::Node* out : program.graph().outputs()) {
    if (out == node) return nullptr;
  }
  return node->users()[0];
}

std::optional<WeightMatch> match_weight(const ir::ExportedProgram& program, const ir::Node* node) {
  const bool per_channel = node->is_op("quantized_decomposed::dequantize_per_channel");
  if (!per_channel && !node->is_op("quantized_decomposed::dequantize_per_tensor") &&
      !node->is_op("quantized_decomposed::dequantize_per_tensor.tensor")) {
    return std::nullopt;
  }
  const ir::Argument& w = node->arg("input");
  if (!w.is_node() || !is_constant(program, *w.as_node()) ||
      w.as_node()->spec().dtype != DType::Char || !float_tensor(node)) {
    return std::nullopt;
  }
  QParams range;
  if (!range_args(*node, &range) || !range.is_signed) return std::nullopt;
  WeightMatch m;
  m.weight = w.as_node();
  m.nodes.push_back(node);
  if (per_channel) {
    const int64_t rank = static_cast<int64_t>(m.weight->spec().rank());
    m.axis = node->arg("axis").as_int();
    if (m.axis < 0) m.axis += rank;
    if (m.axis < 0 || m.axis >= rank) return std::nullopt;
    const ir::Argument sa = node->arg("scales");
    if (!sa.is_node()) return std::nullopt;
    auto scales = constant_values(program, sa.as_node(), &m.nodes);
    const int64_t channels = m.weight->spec().shape[static_cast<size_t>(m.axis)].value();
    if (!scales || static_cast<int64_t>(scales->size()) != channels) return std::nullopt;
    std::vector<double> zps(scales->size(), 0.0);
    const ir::Argument za = arg_or_default(*node, "zero_points");
    if (za.is_node()) {
      auto z = constant_values(program, za.as_node(), &m.nodes);
      if (!z || z->size() != scales->size()) return std::nullopt;
      zps = *z;
    } else if (!za.is_none()) {
      return std::nullopt;
    }
    for (size_t i = 0; i < scales->size(); ++i) {
      if (!valid_scale((*scales)[i]) || zps[i] < -128 || zps[i] > 127) return std::nullopt;
      m.scales.push_back(static_cast<float>((*scales)[i]));
      m.zero_points.push_back(static_cast<int32_t>(zps[i]));
    }
  } else {
    auto s = scalar_param(program, node->arg("scale"), &m.nodes);
    auto z = scalar_param(program, node->arg("zero_point"), &m.nodes);
    if (!s || !z || !valid_scale(*s) || *z < -128 || *z > 127) return std::nullopt;
    m.scales = {static_cast<float>(*s)};
    m.zero_points = {static_cast<int32_t>(*z)};
  }
  return m;
}

// A bias operand: a float constant of `n` elements, or a dequantized integer constant.
std::optional<std::vector<float>> bias_values(const ir::ExportedProgram& program,
                                              const ir::Node* node, int64_t n,
                                              std::vector<const ir::Node*>* nodes) {
  std::vector<float> out;
  if (node->is_op("quantized_decomposed::dequantize_per_tensor") ||
      node->is_op("quantized_decomposed::dequantize_per_tensor.tensor") ||
      node->is_op("quantized_decomposed::dequantize_per_channel")) {
    const ir::Argument& in = node->arg("input");
    if (!in.is_node() || !is_constant(program, *in.as_node())) return std::nullopt;
    std::vector<const ir::Node*> chain = {node};
    auto v = constant_values(program, in.as_node(), nullptr);
    if (!v || static_cast<int64_t>(v->size()) != n) return std::nullopt;
    std::vector<double> scales, zps;
    if (node->is_op("quantized_decomposed::dequantize_per_channel")) {
      auto s = constant_values(program, node->arg("scales").as_node(), &chain);
      if (!s || s->size() != v->size()) return std::nullopt;
      scales = *s;
      zps.assign(scales.size(), 0.0);
      const ir::Argument za = arg_or_default(*node, "zero_points");
      if (za.is_node()) {
        auto z = constant_values(program, za.as_node(), &chain);
        if (!z || z->size() != v->size()) return std::nullopt;
        zps = *z;
      }
    } else {
      auto s = scalar_param(program, node->arg("scale"), &chain);
      auto z = scalar_param(program, node->arg("zero_point"), &chain);
      if (!s || !z) return std::nullopt;
      scales.assign(v->size(), *s);
      zps.assign(v->size(), *z);
    }
    for (size_t i = 0; i < v->size(); ++i) {
      out.push_back(static_cast<float>(((*v)[i] - zps[i]) * scales[i]));
    }
    nodes->insert(nodes->end(), chain.begin(), chain.end());
    return out;
  }
  if (!is_constant(program, *node) || node->spec().dtype != DType::Float) return std::nullopt;
  auto v = constant_values(program, node, nullptr);
  if (!v || static_cast<int64_t>(v->size()) != n) return std::nullopt;
  for (double x : *v) out.push_back(static_cast<float>(x));
  return out;
}

bool is_activation(const ir::Node* n) {
  if (n->is_op("aten::relu") || n->is_op("aten::hardtanh")) return true;
  if (!n->is_op("aten::clamp")) return false;
  const ir::Argument lo = arg_or_default(*n, "min"), hi = arg_or_default(*n, "max");
  return (lo.is_none() || lo.is_int() || lo.is_double()) &&
         (hi.is_none() || hi.is_int() || hi.is_double());
}

}  // namespace

std::optional<DequantMatch> match_dequant(const ir::ExportedProgram& program,
                                          const ir::Node& node) {
  if (!node.is_call() || (!node.is_op("quantized_decomposed::dequantize_per_tensor") &&
                          !node.is_op("quantized_decomposed::dequantize_per_tensor.tensor"))) {
    return std::nullopt;
  }
  const ir::Argument& in = node.arg("input");
  if (!in.is_node() || !float_tensor(&node)) return std::nullopt;
  DequantMatch m;
  m.node = &node;
  m.input = in.as_node();
  m.nodes.push_back(&node);
  if (!range_args(node, &m.q)) return std::nullopt;
  if (m.input->meta().val.size() != 1 ||
      m.input->spec().dtype != (m.q.is_signed ? DType::Char : DType::Byte) ||
      is_constant(program, *m.input)) {
    return std::nullopt;
  }
  auto s = scalar_param(program, node.arg("scale"), &m.nodes);
  auto z = scalar_param(program, node.arg("zero_point"), &m.nodes);
  if (!s || !z || !valid_scale(*s) || *z < m.q.qmin || *z > m.q.qmax) return std::nullopt;
  m.q.scale = static_cast<float>(*s);
  m.q.zero_point = static_cast<int32_t>(*z);
  return m;
}

std::optional<QuantMatch> match_quant(const ir::ExportedProgram& program, const ir::Node& tail) {
  if (!tail.is_call()) return std::nullopt;
  QuantMatch m;
  m.tail = &tail;
  if (tail.is_op("quantized_decomposed::quantize_per_tensor") ||
      tail.is_op("quantized_decomposed::quantize_per_tensor.tensor")) {
    const ir::Argument& in = tail.arg("input");
    if (!in.is_node() || !float_tensor(in.as_node()) || !range_args(tail, &m.q)) {
      return std::nullopt;
    }
    m.input = in.as_node();
    m.nodes.push_back(&tail);
    auto s = scalar_param(program, tail.arg("scale"), &m.nodes);
    auto z = scalar_param(program, tail.arg("zero_point"), &m.nodes);
    if (!s || !z || !valid_scale(*s) || *z < m.q.qmin || *z > m.q.qmax) return std::nullopt;
    m.q.scale = static_cast<float>(*s);
    m.q.zero_point = static_cast<int32_t>(*z);
    m.reciprocal = true;
    return m;
  }
  // ONNX: div(x, scale) → round → [add(zero point)] → clamp(lo, hi) → _to_copy(dtype).
  if (!tail.is_op("aten::_to_copy")) return std::nullopt;
  const ir::Argument dt = arg_or_default(tail, "dtype");
  if (!dt.is_dtype() || !quant_dtype(dt.as_dtype(), &m.q.is_signed)) return std::nullopt;
  const ir::Node* clamp = tail.arg("self").as_node();
  if (!clamp->is_op("aten::clamp") || sole_user(program, clamp) != &tail) return std::nullopt;
  const ir::Argument lo = arg_or_default(*clamp, "min"), hi = arg_or_default(*clamp, "max");
  if (!(lo.is_int() || lo.is_double()) || !(hi.is_int() || hi.is_double())) return std::nullopt;
  const double tlo = m.q.is_signed ? -128 : 0, thi = m.q.is_signed ? 127 : 255;
  if (lo.to_double() < tlo || hi.to_double() > thi || lo.to_double() > hi.to_double() ||
      lo.to_double() != std::floor(lo.to_double()) ||
      hi.to_double() != std::floor(hi.to_double())) {
    return std::nullopt;
  }
  m.q.qmin = static_cast<int32_t>(lo.to_double());
  m.q.qmax = static_cast<int32_t>(hi.to_double());
  m.nodes = {&tail, clamp};
  const ir::Node* n = clamp->arg("self").as_node();
  double zp = 0.0;
  if (n->is_op("aten::add.Tensor")) {
    if (sole_user(program, n) == nullptr || !is_one(arg_or_default(*n, "alpha"))) {
      return std::nullopt;
    }
    const ir::Argument other = n->arg("other");
    auto z = other.is_node() ? scalar_param(program, other, &m.nodes) : std::nullopt;
    if (!z) return std::nullopt;
    zp = *z;
    m.nodes.push_back(n);
    n = n->arg("self").as_node();
  }
  if (!n->is_op("aten::round") || sole_user(program, n) == nullptr) return std::nullopt;
  m.nodes.push_back(n);
  const ir::Node* div = n->arg("self").as_node();
  if (!div->is_op("aten::div.Tensor") || sole_user(program, div) == nullptr || !float_tensor(div)) {
    return std::nullopt;
  }
  const ir::Argument other = div->arg("other");
  auto s = other.is_node() ? scalar_param(program, other, &m.nodes) : std::nullopt;
  if (!s || !valid_scale(*s) || zp != std::floor(zp) || zp < m.q.qmin || zp > m.q.qmax) {
    return std::nullopt;
  }
  m.nodes.push_back(div);
  m.input = div->arg("self").as_node();
  if (!float_tensor(m.input)) return std::nullopt;
  m.q.scale = static_cast<float>(*s);
  m.q.zero_point = static_cast<int32_t>(zp);
  return m;
}

std::optional<QOpMatch> match_qop(const ir::ExportedProgram& program, const ir::Node& op) {
  if (!op.is_call()) return std::nullopt;
  QOpMatch m;
  m.op = &op;
  m.nodes.push_back(&op);
  const ir::Node* x = nullptr;
  int64_t n_out = 0;
  if (op.is_op("aten::convolution")) {
    m.conv = true;
    const ir::Argument in = op.arg("input"), w = op.arg("weight");
    if (!in.is_node() || !w.is_node() || in.as_node()->spec().rank() != 4 ||
        op.arg("transposed").as_bool() || !op.spec().is_static()) {
      return std::nullopt;
    }
    for (const char* name : {"stride", "padding", "dilation"}) {
      const ir::Argument a = op.arg(name);
      if (!a.is_list() || a.as_list().size() != 2) return std::nullopt;
    }
    x = in.as_node();
    auto wm = match_weight(program, w.as_node());
    if (!wm || wm->weight->spec().rank() != 4 || (wm->scales.size() > 1 && wm->axis != 0) ||
        sole_user(program, w.as_node()) != &op) {
      return std::nullopt;
    }
    m.w = std::move(*wm);
    n_out = m.w.weight->spec().shape[0].value();
    const ir::Argument bias = arg_or_default(op, "bias");
    if (bias.is_node()) {
      auto b = bias_values(program, bias.as_node(), n_out, &m.nodes);
      if (!b) return std::nullopt;
      m.bias = std::move(*b);
    } else if (!bias.is_none()) {
      return std::nullopt;
    }
  } else if (op.is_op("aten::mm") || op.is_op("aten::addmm")) {
    const bool addmm = op.is_op("aten::addmm");
    const ir::Argument in = op.arg(addmm ? "mat1" : "self"), mat2 = op.arg("mat2");
    if (!in.is_node() || !mat2.is_node() || !op.spec().is_static()) return std::nullopt;
    x = in.as_node();
    const ir::Node* wn = mat2.as_node();
    if (wn->is_op("aten::permute_copy")) {
      if (wn->arg("dims").to_int_vector() != std::vector<int64_t>{1, 0} ||
          sole_user(program, wn) != &op) {
        return std::nullopt;
      }
      m.nodes.push_back(wn);
      m.weight_transposed = true;
      wn = wn->arg("self").as_node();
    }
    auto wm = match_weight(program, wn);
    const int64_t channel_axis = m.weight_transposed ? 0 : 1;
    if (!wm || wm->weight->spec().rank() != 2 ||
        (wm->scales.size() > 1 && wm->axis != channel_axis) || sole_user(program, wn) == nullptr) {
      return std::nullopt;
    }
    m.w = std::move(*wm);
    n_out = m.w.weight->spec().shape[static_cast<size_t>(channel_axis)].value();
    if (addmm) {
      if (!is_one(arg_or_default(op, "beta")) || !is_one(arg_or_default(op, "alpha"))) {
        return std::nullopt;
      }
      auto b = bias_values(program, op.arg("self").as_node(), n_out, &m.nodes);
      if (!b) return std::nullopt;
      m.bias = std::move(*b);
    }
  } else {
    return std::nullopt;
  }
  // The int8 GEMM's reduction length is bounded (int32 sums); longer ones stay in float.
  const int64_t w_numel = m.w.weight->spec().numel_upper_bound();
  if (n_out <= 0 || w_numel / n_out > kernels::optimized::kQGemmMaxK) return std::nullopt;
  m.nodes.insert(m.nodes.end(), m.w.nodes.begin(), m.w.nodes.end());
  // x: a dequantize, possibly behind a view (a linear layer over [.., K] rows).
  if (!m.conv && x->is_op("aten::view_copy") && sole_user(program, x) == &op) {
    m.nodes.push_back(x);
    x = x->arg("self").as_node();
  }
  auto xd = match_dequant(program, *x);
  if (!xd) return std::nullopt;
  m.x = std::move(*xd);
  // Tail: [bias add (linear)] [view] [activation] [view] then the quantize.
  const ir::Node* cur = &op;
  bool bias_add_allowed = !m.conv && m.bias.empty();
  for (int steps = 0; steps < 6; ++steps) {
    const ir::Node* user = sole_user(program, cur);
    if (user == nullptr) return std::nullopt;
    if (!m.conv && user->is_op("aten::view_copy")) {
      m.nodes.push_back(user);
      cur = user;
      continue;
    }
    if (bias_add_allowed && user->is_op("aten::add.Tensor") &&
        is_one(arg_or_default(*user, "alpha")) && user->arg("other").is_node() &&
        user->arg("self").is_node() && user->spec().shape == cur->spec().shape) {
      const ir::Node* other = user->arg("self").as_node() == cur ? user->arg("other").as_node()
                                                                 : user->arg("self").as_node();
      std::vector<const ir::Node*> bn;
      auto b = other != cur ? bias_values(program, other, n_out, &bn) : std::nullopt;
      if (b && other->spec().shape.back().value() == n_out) {
        m.bias = std::move(*b);
        m.nodes.push_back(user);
        m.nodes.insert(m.nodes.end(), bn.begin(), bn.end());
        bias_add_allowed = false;
        cur = user;
        continue;
      }
    }
    if (m.activation == nullptr && is_activation(user)) {
      m.activation = user;
      m.nodes.push_back(user);
      bias_add_allowed = false;
      cur = user;
      continue;
    }
    // The quantize: quantize_per_tensor directly, or the ONNX chain that starts with a div.
    const ir::Node* tail = user;
    if (user->is_op("aten::div.Tensor")) {
      for (int i = 0; i < 4 && tail != nullptr && !tail->is_op("aten::_to_copy"); ++i) {
        tail = sole_user(program, tail);
      }
      if (tail == nullptr) return std::nullopt;
    }
    auto q = match_quant(program, *tail);
    if (!q || q->input != cur) return std::nullopt;
    m.out = std::move(*q);
    m.nodes.insert(m.nodes.end(), m.out.nodes.begin(), m.out.nodes.end());
    return m;
  }
  return std::nullopt;
}

std::optional<QSimpleMatch> match_qsimple(const ir::ExportedProgram& program,
                                          const ir::Node& tail) {
  auto q = match_quant(program, tail);
  if (!q) return std::nullopt;
  QSimpleMatch m;
  m.out = std::move(*q);
  m.nodes = m.out.nodes;
  const ir::Node* n = m.out.input;
  auto dq = [&](const ir::Node* x) -> bool {
    auto d = match_dequant(program, *x);
    if (!d) return false;
    m.inputs.push_back(std::move(*d));
    return true;
  };
  if (dq(n)) {
    m.kind = QSimpleMatch::Kind::Requantize;
    return m;
  }
  if (sole_user(program, n) == nullptr) return std::nullopt;
  if (n->is_op("aten::relu")) {
    m.relu = true;
    m.nodes.push_back(n);
    n = n->arg("self").as_node();
    if (sole_user(program, n) == nullptr) return std::nullopt;
  }
  m.op = n;
  if (n->is_op("getitem") && n->arg(1).as_int() == 0 && !m.relu) {
    const ir::Node* pool = n->arg(0).as_node();
    if (!pool->is_op("aten::max_pool2d_with_indices") ||
        pool->arg("self").as_node()->spec().rank() != 4 || !dq(pool->arg("self").as_node()) ||
        !(m.inputs[0].q == m.out.q)) {
      return std::nullopt;
    }
    // The indices are unused: every other user is an unused getitem.
    for (const ir::Node* u : pool->users()) {
      if (u == n) continue;
      if (!u->is_op("getitem") || !u->users().empty() || sole_user(program, n) == nullptr) {
        return std::nullopt;
      }
      for (const ir::Node* out : program.graph().outputs()) {
        if (out == u) return std::nullopt;
      }
      m.nodes.push_back(u);
    }
    m.kind = QSimpleMatch::Kind::MaxPool;
    m.op = pool;
    m.nodes.push_back(n);
    m.nodes.push_back(pool);
    return m;
  }
  if (n->is_op("aten::add.Tensor")) {
    if (!is_one(arg_or_default(*n, "alpha")) || !n->arg("other").is_node() ||
        n->arg("self").as_node()->spec().shape != n->spec().shape ||
        n->arg("other").as_node()->spec().shape != n->spec().shape ||
        !dq(n->arg("self").as_node()) || !dq(n->arg("other").as_node())) {
      return std::nullopt;
    }
    m.kind = QSimpleMatch::Kind::Add;
    m.nodes.push_back(n);
    return m;
  }
  if (m.relu) return std::nullopt;
  if (n->is_op("aten::mean.dim")) {
    const ir::Node* x = n->arg("self").as_node();
    const ir::Argument dim = arg_or_default(*n, "dim");
    const ir::Argument dtype = arg_or_default(*n, "dtype");
    if (x->spec().rank() != 4 || !dim.is_list() || !dtype.is_none()) return std::nullopt;
    std::vector<int64_t> dims = dim.to_int_vector();
    for (int64_t& d : dims) d = d < 0 ? d + 4 : d;
    std::sort(dims.begin(), dims.end());
    if (dims != std::vector<int64_t>{2, 3} || !dq(x)) return std::nullopt;
    m.kind = QSimpleMatch::Kind::GlobalAvgPool;
    m.nodes.push_back(n);
    return m;
  }
  if (n->is_op("aten::cat")) {
    for (const ir::Node* t : n->arg("tensors").to_node_vector()) {
      if (t->spec().rank() != n->spec().rank() || !dq(t)) return std::nullopt;
    }
    m.kind = QSimpleMatch::Kind::Cat;
    m.nodes.push_back(n);
    return m;
  }
  return std::nullopt;
}

QuantPlan plan_quant(const ir::ExportedProgram& program) {
  QuantPlan plan;
  auto add_set = [&](std::vector<const ir::Node*> set) {
    for (const ir::Node* n : set) plan.claimed.insert(n);
    plan.together.push_back(std::move(set));
  };
  std::set<const ir::Node*> tails;  // quantizes already part of a pattern
  for (const ir::Node* node : program.graph().nodes()) {
    auto m = match_qop(program, *node);
    if (!m) continue;
    std::vector<const ir::Node*> set = m->nodes;
    set.insert(set.end(), m->x.nodes.begin(), m->x.nodes.end());
    tails.insert(m->out.tail);
    add_set(std::move(set));
  }
  for (const ir::Node* node : program.graph().nodes()) {
    if (tails.count(node) != 0) continue;
    if (auto m = match_qsimple(program, *node)) {
      std::vector<const ir::Node*> set = m->nodes;
      for (const DequantMatch& d : m->inputs) set.insert(set.end(), d.nodes.begin(), d.nodes.end());
      tails.insert(node);
      add_set(std::move(set));
    }
  }
  for (const ir::Node* node : program.graph().nodes()) {
    if (tails.count(node) == 0) {
      if (auto q = match_quant(program, *node)) add_set(q->nodes);
    }
    if (auto d = match_dequant(program, *node)) add_set(d->nodes);
  }
  return plan;
}

}  // namespace ptec::backends::cpu
