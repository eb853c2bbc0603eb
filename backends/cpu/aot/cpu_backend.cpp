#include "backends/cpu/aot/cpu_backend.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "backends/cpu/aot/cpu_ops.h"
#include "backends/cpu/aot/cpu_quant.h"
#include "backends/cpu/cpu_delegate_generated.h"
#include "ir/exception.h"
#include "ir/op_schema.h"
#include "ir/printer.h"

namespace ptec::backends::cpu {
namespace {

namespace fb = ptec_cpu_fb;
constexpr uint32_t kAbsent = 0xFFFFFFFFu;

// The activation a unary node applies, with clamp bounds.
struct ActivationInfo {
  fb::Activation kind = fb::Activation::None;
  float lo = 0.0f, hi = 0.0f;
};

ActivationInfo activation_of(const ir::Node& node) {
  ActivationInfo a;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (node.is_op("aten::relu")) {
    a.kind = fb::Activation::Relu;
  } else if (node.is_op("aten::sigmoid")) {
    a.kind = fb::Activation::Sigmoid;
  } else if (node.is_op("aten::tanh")) {
    a.kind = fb::Activation::Tanh;
  } else if (node.is_op("aten::gelu")) {
    a.kind = fb::Activation::Gelu;
  } else if (node.is_op("aten::silu")) {
    a.kind = fb::Activation::Silu;
  } else if (node.is_op("aten::hardswish")) {
    a.kind = fb::Activation::HardSwish;
  } else if (node.is_op("aten::leaky_relu")) {
    a.kind = fb::Activation::LeakyRelu;
    a.lo = static_cast<float>(arg_or_default(node, "negative_slope").to_double());
  } else if (node.is_op("aten::hardtanh")) {
    a.kind = fb::Activation::Clamp;
    a.lo = static_cast<float>(arg_or_default(node, "min_val").to_double());
    a.hi = static_cast<float>(arg_or_default(node, "max_val").to_double());
  } else if (node.is_op("aten::clamp")) {
    a.kind = fb::Activation::Clamp;
    const ir::Argument lo = arg_or_default(node, "min");
    const ir::Argument hi = arg_or_default(node, "max");
    a.lo = lo.is_none() ? -kInf : static_cast<float>(lo.to_double());
    a.hi = hi.is_none() ? kInf : static_cast<float>(hi.to_double());
  }
  return a;
}

// Elements of a tensor seen through permutes, slices and views: element i is element
// offset + sum_d i_d strides_d of the underlying tensor's contiguous storage.
struct View {
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;
};

View contiguous(const ir::TensorSpec& spec) {
  View v;
  for (const ir::SymInt& d : spec.shape) v.sizes.push_back(d.value());
  v.strides.assign(v.sizes.size(), 1);
  for (size_t d = v.sizes.size(); d-- > 1;) v.strides[d - 1] = v.strides[d] * v.sizes[d];
  return v;
}

// A BatchMatMul operand read in place: `base`'s storage through `view` (the nodes of `chain`,
// operand first, lead from base to the operand), as batches of matrices: element (b, r, c) at
// view.offset + b * batch_stride + (trans ? c * ld + r : r * ld + c).
struct OperandView {
  const ir::Node* base = nullptr;
  View view;
  std::vector<const ir::Node*> chain;
  int64_t batch_stride = 0, ld = 0;
  bool trans = false;
};

class Lowering {
 public:
  Lowering(const ir::ExportedProgram& program, partition::PreprocessResult& result)
      : program_(program), result_(result) {}

  std::unique_ptr<fb::GraphT> run() {
    graph_ = std::make_unique<fb::GraphT>();
    graph_->version = kCpuBlobVersion;
    const ir::Graph& g = program_.graph();
    for (const ir::Node* node : g.nodes()) {
      if (node->is_placeholder() && !is_constant(program_, *node)) {
        graph_->inputs.push_back(tensor_of(node));
      }
    }
    plan_quantized();
    plan_fusions();
    for (const ir::Node* node : g.nodes()) {
      if (node->is_call()) lower(*node);
    }
    for (const ir::Node* out : g.outputs()) {
      uint32_t id = tensor_of(out);
      if (out->is_placeholder()) {  // an input or constant returned as is: copy it out
        const uint32_t copy = new_tensor(out->spec());
        add_node(fb::NodeKind::Copy, {id}, {copy}, {}, *out);
        id = copy;
      }
      graph_->outputs.push_back(id);
    }
    return std::move(graph_);
  }

 private:
  uint32_t new_tensor(const ir::TensorSpec& spec, std::string constant = {}) {
    auto t = std::make_unique<fb::TensorT>();
    for (const ir::SymInt& s : spec.shape) t->sizes.push_back(s.value());  // bounds
    if (std::optional<size_t> d = row_dim(spec)) t->dynamic_dim = static_cast<int32_t>(*d);
    t->constant = std::move(constant);
    t->dtype = spec.dtype == DType::Byte   ? fb::TensorType::U8
               : spec.dtype == DType::Char ? fb::TensorType::S8
                                           : fb::TensorType::F32;
    graph_->tensors.push_back(std::move(t));
    return static_cast<uint32_t>(graph_->tensors.size() - 1);
  }

  // The tensor holding `node`'s (first) value, created on first use.
  uint32_t tensor_of(const ir::Node* node) {
    auto it = tensors_.find(node);
    if (it != tensors_.end()) return it->second;
    uint32_t id = 0;
    if (is_constant(program_, *node)) {
      const ir::TensorData* data = program_.constant_for_placeholder(node->name());
      const ir::BufferPtr& bytes = data->data;
      // The tensor's name (for errors a user can act on) and a hash of its bytes (identical
      // weights of several methods share one entry; payload_hash releases the pages of mapped
      // weights once hashed).
      const ir::InputSpec* spec = program_.signature().find_input(node->name());
      const std::string name =
          spec != nullptr && !spec->target.empty() ? spec->target : node->name();
      const std::string key = fmt::format("ptec_cpu/{}/{}", name, ir::payload_hash(*bytes));
      result_.named_data[key] = bytes;  // shared, not copied
      id = new_tensor(data->spec, key);
    } else if (node->is_op("getitem") &&
               classify(program_, *node->arg(0).as_node()) != CpuOpKind::Split) {
      id = tensor_of(node->arg(0).as_node());  // a max pool's or batch norm's values
    } else {
      id = new_tensor(node->meta().val.at(0));
    }
    tensors_[node] = id;
    return id;
  }

  // Conv2d / Linear + (residual add) + (activation): `fused_into_[add or act] = producer`;
  // decomposed LayerNorms: `ln_tails_[last node] = match`.
  void plan_fusions() {
    for (const ir::Node* node : program_.graph().nodes()) {
      if (!node->is_op("aten::mean.dim") || ln_absorbed_.count(node) != 0) continue;
      std::optional<LayerNormMatch> m = match_layer_norm(program_, *node);
      if (!m) continue;
      for (const ir::Node* n : m->nodes) ln_absorbed_.insert(n);
      const ir::Node* tail = m->nodes.back();
      ln_tails_[tail] = std::move(*m);
    }
    for (const ir::Node* node : program_.graph().nodes()) {
      if (!node->is_op("aten::div.Scalar") || ln_absorbed_.count(node) != 0) continue;
      std::optional<GeluMatch> m = match_gelu(program_, *node);
      if (!m) continue;
      bool free = true;
      for (const ir::Node* n : m->nodes) free &= ln_absorbed_.count(n) == 0;
      if (!free) continue;
      for (const ir::Node* n : m->nodes) ln_absorbed_.insert(n);
      gelu_tails_[m->nodes.back()] = std::move(*m);
    }
    std::set<const ir::Node*> outputs;
    for (const ir::Node* out : program_.graph().outputs()) outputs.insert(out);
    plan_operand_views(outputs);
    // x * c or x / c (c > 0) whose only reader is a softmax over the last dim (attention's
    // 1/sqrt(d) on the scores): the softmax scales its rows itself, so the scores (heads x
    // tokens x tokens) are not written and read once more.
    for (const ir::Node* node : program_.graph().nodes()) {
      if (classify(program_, *node) != CpuOpKind::Softmax) continue;
      const int64_t rank = static_cast<int64_t>(node->spec().rank());
      int64_t dim = node->arg("dim").as_int();
      if (dim < 0) dim += rank;
      const ir::Node* scaled = node->arg("self").as_node();
      const bool mul = scaled->is_op("aten::mul.Scalar"), div = scaled->is_op("aten::div.Scalar");
      if (rank == 0 || dim != rank - 1 || (!mul && !div) ||
          classify(program_, *scaled) != CpuOpKind::ScalarBinary || scaled->users().size() != 1 ||
          outputs.count(scaled) != 0 ||
          !(scaled->arg("other").is_int() || scaled->arg("other").is_double())) {
        continue;
      }
      const double c = scaled->arg("other").to_double();
      const double factor = mul ? c : 1.0 / c;
      if (!(factor > 0.0) || !std::isfinite(factor)) continue;
      softmax_scales_[node] = {scaled->arg("self").as_node(), static_cast<float>(factor)};
      scaled_away_.insert(scaled);
    }
    auto single_use = [&](const ir::Node* n) {
      return n->users().size() == 1 && outputs.count(n) == 0 &&
             ln_absorbed_.count(n->users()[0]) == 0;
    };
    // mm → view → add of a constant vector of the product's columns (ONNX MatMul + Add on 3-D
    // activations: the view restores the batch dims): the vector becomes the Linear's bias and
    // the add an aliasing copy of the view.
    for (const ir::Node* node : program_.graph().nodes()) {
      if (!node->is_op("aten::mm") || classify(program_, *node) != CpuOpKind::Linear ||
          !single_use(node)) {
        continue;
      }
      const ir::Node* view = node->users()[0];
      if (classify(program_, *view) != CpuOpKind::Copy || !single_use(view)) continue;
      const ir::Node* add = view->users()[0];
      if (!add->is_op("aten::add.Tensor") || classify(program_, *add) != CpuOpKind::Binary ||
          add->spec().shape != view->spec().shape) {
        continue;
      }
      const ir::Node* a = add->arg("self").as_node();
      const ir::Node* b = add->arg("other").as_node();
      const ir::Node* bias = a == view ? b : a;
      const int64_t n = node->spec().shape.back().value();
      bool vector = bias != view && is_constant(program_, *bias) &&
                    bias->spec().dtype == DType::Float && bias->spec().rank() >= 1 &&
                    bias->spec().shape.back().value() == n;
      for (size_t d = 0; vector && d + 1 < bias->spec().rank(); ++d) {
        vector = bias->spec().shape[d].value() == 1;
      }
      if (!vector) continue;
      linear_bias_[node] = bias;
      bias_adds_[add] = view;
      // An activation that alone reads the sum joins the Linear as well (GELU also in its erf
      // form, whose nodes are the sum's only readers); its output aliases the sum.
      if (single_use(add) && absorbed_.count(add->users()[0]) == 0 &&
          classify(program_, *add->users()[0]) == CpuOpKind::Unary) {
        const ir::Node* act = add->users()[0];
        linear_act_[node] = activation_of(*act);
        act_aliases_[act] = add;
        continue;
      }
      for (const auto& [tail, m] : gelu_tails_) {
        if (m.x != add || outputs.count(add) != 0) continue;
        bool only = true;
        for (const ir::Node* user : add->users()) {
          only &= std::find(m.nodes.begin(), m.nodes.end(), user) != m.nodes.end();
        }
        if (!only) break;
        ActivationInfo gelu;
        gelu.kind = fb::Activation::Gelu;
        linear_act_[node] = gelu;
        act_aliases_[tail] = add;
        break;
      }
    }
    for (const ir::Node* node : program_.graph().nodes()) {
      const CpuOpKind kind = classify(program_, *node);
      if (kind != CpuOpKind::Conv2d && kind != CpuOpKind::Linear &&
          kind != CpuOpKind::ConvTranspose2d) {
        continue;
      }
      Fusion f;
      const ir::Node* tail = node;
      // A transposed convolution takes an activation (unary, or SiLU as x * sigmoid(x)) only.
      const bool activation_only = kind == CpuOpKind::ConvTranspose2d;
      // An addmm whose self is computed already adds it as its residual.
      const bool has_residual =
          node->is_op("aten::addmm") && !is_constant(program_, *node->arg("self").as_node());
      if (single_use(tail) && !has_residual && !activation_only) {
        const ir::Node* user = tail->users()[0];
        // Both operands of a residual add may be convolutions (ResNet's downsample branch):
        // the first one in graph order takes the add.
        if (user->is_op("aten::add.Tensor") && absorbed_.count(user) == 0 &&
            classify(program_, *user) == CpuOpKind::Binary) {
          const ir::Node* a = user->arg("self").as_node();
          const ir::Node* b = user->arg("other").as_node();
          const ir::Node* other = a == tail ? b : a;
          if (other != tail && other->spec().shape == tail->spec().shape) {
            f.residual = other;
            f.add = user;
            tail = user;
          }
        }
      }
      if (single_use(tail)) {
        const ir::Node* user = tail->users()[0];
        if (absorbed_.count(user) == 0 && classify(program_, *user) == CpuOpKind::Unary) {
          f.activation = user;
          tail = user;
        }
      } else if (const ir::Node* mul = silu_of(tail, outputs); mul != nullptr) {
        // SiLU as ONNX exporters write it, x * sigmoid(x): fused as the Silu activation.
        for (const ir::Node* user : tail->users()) {
          if (user != mul) f.gate.push_back(user);
        }
        f.gated = fb::Activation::Silu;
        f.activation = mul;
        tail = mul;
      } else if (std::optional<HardSwishMatch> hs = match_hardswish(program_, *tail);
                 !activation_only && hs &&
                 std::none_of(hs->nodes.begin(), hs->nodes.end(), [&](const ir::Node* n) {
                   return absorbed_.count(n) != 0 || ln_absorbed_.count(n) != 0;
                 })) {
        // x * hardsigmoid(x) (MobileNetV3's activation): fused as the HardSwish activation.
        f.gate.assign(hs->nodes.begin(), hs->nodes.end() - 1);
        f.gated = fb::Activation::HardSwish;
        f.activation = hs->nodes.back();
        tail = f.activation;
      }
      if (tail == node) continue;
      f.tail = tail;
      fusions_[node] = f;
      if (f.add != nullptr) absorbed_[f.add] = node;
      if (f.activation != nullptr) absorbed_[f.activation] = node;
      for (const ir::Node* n : f.gate) absorbed_[n] = node;
      deferred_[tail] = node;
    }
    // A batch norm no convolution absorbed (DenseNet's pre-activation BN -> ReLU) or a group norm,
    // with the activation that alone reads it: a unary one, or SiLU as x * sigmoid(x) (the
    // GroupNorm -> SiLU of diffusion models' blocks).
    for (const ir::Node* node : program_.graph().nodes()) {
      const CpuOpKind kind = classify(program_, *node);
      if (kind != CpuOpKind::BatchNorm && kind != CpuOpKind::GroupNorm) continue;
      const ir::Node* values = nullptr;
      size_t reads = 0;
      for (const ir::Node* item : node->users()) {
        if (item->arg(1).as_int() == 0) values = item;
        reads += item->users().size();
      }
      if (values == nullptr || reads != values->users().size() || outputs.count(values) != 0) {
        continue;
      }
      Fusion f;
      if (single_use(values)) {
        const ir::Node* act = values->users()[0];
        if (absorbed_.count(act) != 0 || classify(program_, *act) != CpuOpKind::Unary) continue;
        f.activation = act;
      } else if (const ir::Node* mul = silu_of(values, outputs); mul != nullptr) {
        for (const ir::Node* user : values->users()) {
          if (user != mul) f.gate.push_back(user);
        }
        f.gated = fb::Activation::Silu;
        f.activation = mul;
      } else {
        continue;
      }
      f.tail = f.activation;
      fusions_[node] = f;
      absorbed_[f.activation] = node;
      for (const ir::Node* n : f.gate) absorbed_[n] = node;
      deferred_[f.tail] = node;
    }
    // After the fusions above: a convolution (not depthwise) whose input is x * s with s of shape
    // [N, C, 1, 1] and that is the product's only reader (squeeze-and-excite: s =
    // sigmoid(conv(mean(x)))): the convolution reads x and scales each input channel by s itself;
    // the mul emits nothing.
    for (const ir::Node* node : program_.graph().nodes()) {
      if (classify(program_, *node) != CpuOpKind::Conv2d) continue;
      const ir::Node* mul = node->arg("input").as_node();
      const int64_t groups = node->arg("groups").as_int();
      const ir::TensorSpec& in = mul->spec();
      if (!mul->is_op("aten::mul.Tensor") || classify(program_, *mul) != CpuOpKind::Binary ||
          mul->users().size() != 1 || outputs.count(mul) != 0 || absorbed_.count(mul) != 0 ||
          ln_absorbed_.count(mul) != 0 || in.rank() != 4 ||
          (groups > 1 && groups == in.shape[1].value())) {
        continue;
      }
      const ir::Node* a = mul->arg("self").as_node();
      const ir::Node* b = mul->arg("other").as_node();
      auto gate = [&](const ir::Node* g) {
        const ir::TensorSpec& gs = g->spec();
        return gs.dtype == DType::Float && gs.rank() == 4 && gs.shape[0] == in.shape[0] &&
               gs.shape[1] == in.shape[1] && gs.shape[2].value() == 1 && gs.shape[3].value() == 1;
      };
      const ir::Node* x = a->spec().shape == in.shape ? a : b;
      const ir::Node* g = x == a ? b : a;
      // Both operands must be tensors of their own: not folded into another node's fusion
      // (SiLU's x * sigmoid(x) on a [N, C, 1, 1] tensor looks like a gate but is fused first).
      auto materialized = [&](const ir::Node* v) {
        return (absorbed_.count(v) == 0 || deferred_.count(v) != 0) &&
               (ln_absorbed_.count(v) == 0 || ln_tails_.count(v) != 0 || gelu_tails_.count(v) != 0);
      };
      if (x == g || x->spec().shape != in.shape || !gate(g) || !materialized(x) ||
          !materialized(g)) {
        continue;
      }
      input_scales_[node] = {x, g};
      scale_muls_.insert(mul);
    }
  }

  // The mul of `x * sigmoid(x)` when x's only users are that sigmoid and that mul, neither is a
  // program output or already absorbed, and both run here; nullptr otherwise.
  const ir::Node* silu_of(const ir::Node* x, const std::set<const ir::Node*>& outputs) const {
    if (x->users().size() != 2 || outputs.count(x) != 0) return nullptr;
    const ir::Node* sigmoid = nullptr;
    const ir::Node* mul = nullptr;
    for (const ir::Node* user : x->users()) {
      if (user->is_op("aten::sigmoid")) sigmoid = user;
      if (user->is_op("aten::mul.Tensor")) mul = user;
    }
    if (sigmoid == nullptr || mul == nullptr || sigmoid->users().size() != 1 ||
        sigmoid->users()[0] != mul || outputs.count(sigmoid) != 0 ||
        absorbed_.count(sigmoid) != 0 || absorbed_.count(mul) != 0 ||
        ln_absorbed_.count(mul) != 0 || classify(program_, *sigmoid) != CpuOpKind::Unary ||
        classify(program_, *mul) != CpuOpKind::Binary) {
      return nullptr;
    }
    const ir::Node* a = mul->arg("self").as_node();
    const ir::Node* b = mul->arg("other").as_node();
    const bool operands = (a == x && b == sigmoid) || (a == sigmoid && b == x);
    return operands && mul->spec().shape == x->spec().shape ? mul : nullptr;
  }

  void add_node(fb::NodeKind kind, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs,
                std::vector<int64_t> ints, const ir::Node& origin,
                std::vector<const ir::Node*> also = {}) {
    auto n = std::make_unique<fb::NodeT>();
    n->kind = kind;
    n->inputs = std::move(inputs);
    n->outputs = std::move(outputs);
    n->ints = std::move(ints);
    n->name = origin.meta().source.empty() ? origin.name() : origin.meta().source;
    n->debug_handles.push_back(origin.debug_handle());
    for (const ir::Node* a : also) n->debug_handles.push_back(a->debug_handle());
    graph_->nodes.push_back(std::move(n));
  }

  static fb::QParam qparam(const QParams& q) {
    return fb::QParam(q.scale, q.zero_point, q.qmin, q.qmax);
  }

  // Quantized patterns (cpu_quant.h): each is emitted at its last node (the quantize), which
  // follows every node it reads; the other nodes of the pattern emit nothing. A dequantize is
  // emitted only when some node reads its float value (int8 nodes read the quantized tensor).
  void plan_quantized() {
    const ir::Graph& g = program_.graph();
    auto absorb = [&](const std::vector<const ir::Node*>& nodes, size_t from) {
      for (size_t i = from; i < nodes.size(); ++i) q_absorbed_.insert(nodes[i]);
    };
    for (const ir::Node* node : g.nodes()) {
      if (auto m = match_qop(program_, *node)) {
        absorb(m->nodes, 0);
        absorb(m->x.nodes, 1);
        qop_tails_[m->out.tail] = std::move(*m);
      }
    }
    for (const ir::Node* node : g.nodes()) {
      if (qop_tails_.count(node) != 0) continue;
      if (auto m = match_qsimple(program_, *node)) {
        absorb(m->nodes, 0);
        for (const DequantMatch& d : m->inputs) absorb(d.nodes, 1);
        qsimple_tails_[node] = std::move(*m);
      } else if (auto q = match_quant(program_, *node)) {
        absorb(q->nodes, 0);
        quant_tails_[node] = std::move(*q);
      }
    }
    for (const ir::Node* node : g.nodes()) {
      if (auto d = match_dequant(program_, *node)) {
        absorb(d->nodes, 1);
        dequants_[node] = std::move(*d);
      }
    }
  }

  bool is_output(const ir::Node* node) const {
    for (const ir::Node* out : program_.graph().outputs()) {
      if (out == node) return true;
    }
    return false;
  }

  std::vector<const ir::Node*> calls_except(const std::vector<const ir::Node*>& nodes,
                                            const ir::Node* origin) {
    std::vector<const ir::Node*> r;
    for (const ir::Node* n : nodes) {
      if (n != origin && n->is_call()) r.push_back(n);
    }
    return r;
  }

  // True when `node` was lowered as part of a quantized pattern.
  bool lower_quantized(const ir::Node& node) {
    if (auto it = qop_tails_.find(&node); it != qop_tails_.end()) {
      const QOpMatch& m = it->second;
      const ir::Node& op = *m.op;
      fb::NodeKind kind = fb::NodeKind::QLinear;
      std::vector<int64_t> ints = {m.weight_transposed ? 1 : 0};
      if (m.conv) {
        kind = fb::NodeKind::QConv2d;
        const std::vector<int64_t> st = op.arg("stride").to_int_vector();
        const std::vector<int64_t> p = op.arg("padding").to_int_vector();
        const std::vector<int64_t> d = op.arg("dilation").to_int_vector();
        ints = {st[0], st[1], p[0], p[1], d[0], d[1], op.arg("groups").as_int()};
      }
      add_node(kind, {tensor_of(m.x.input), tensor_of(m.w.weight)}, {tensor_of(&node)}, ints, op,
               calls_except(m.nodes, &op));
      fb::NodeT& n = *graph_->nodes.back();
      n.qin.push_back(qparam(m.x.q));
      n.qout = std::make_unique<fb::QParam>(qparam(m.out.q));
      n.wscales = m.w.scales;
      n.wzero_points = m.w.zero_points;
      n.bias = m.bias;
      if (m.activation != nullptr) {
        const ActivationInfo a = activation_of(*m.activation);
        n.activation = a.kind;
        n.clamp_min = a.lo;
        n.clamp_max = a.hi;
      }
      return true;
    }
    if (auto it = qsimple_tails_.find(&node); it != qsimple_tails_.end()) {
      const QSimpleMatch& m = it->second;
      using K = QSimpleMatch::Kind;
      std::vector<uint32_t> inputs;
      for (const DequantMatch& d : m.inputs) inputs.push_back(tensor_of(d.input));
      if (m.kind == K::Requantize && m.inputs[0].q == m.out.q && !is_output(&node) &&
          !m.inputs[0].input->is_placeholder()) {
        tensors_[&node] = inputs[0];  // a dq → q round trip: the same values
        return true;
      }
      const fb::NodeKind kind = m.kind == K::Requantize      ? fb::NodeKind::Requantize
                                : m.kind == K::MaxPool       ? fb::NodeKind::QMaxPool2d
                                : m.kind == K::Add           ? fb::NodeKind::QAdd
                                : m.kind == K::GlobalAvgPool ? fb::NodeKind::QGlobalAvgPool
                                                             : fb::NodeKind::QCat;
      std::vector<int64_t> ints;
      if (m.kind == K::MaxPool) ints = max_pool_ints(*m.op);
      if (m.kind == K::Cat) {
        int64_t dim = arg_or_default(*m.op, "dim").as_int();
        if (dim < 0) dim += static_cast<int64_t>(m.op->spec().rank());
        ints = {dim};
      }
      const ir::Node& origin = m.op != nullptr ? *m.op : node;
      add_node(kind, inputs, {tensor_of(&node)}, ints, origin, calls_except(m.nodes, &origin));
      fb::NodeT& n = *graph_->nodes.back();
      for (const DequantMatch& d : m.inputs) n.qin.push_back(qparam(d.q));
      n.qout = std::make_unique<fb::QParam>(qparam(m.out.q));
      if (m.relu) n.activation = fb::Activation::Relu;
      return true;
    }
    if (auto it = quant_tails_.find(&node); it != quant_tails_.end()) {
      const QuantMatch& m = it->second;
      add_node(fb::NodeKind::Quantize, {tensor_of(m.input)}, {tensor_of(&node)},
               {m.reciprocal ? 1 : 0}, node, calls_except(m.nodes, &node));
      graph_->nodes.back()->qout = std::make_unique<fb::QParam>(qparam(m.q));
      return true;
    }
    if (auto it = dequants_.find(&node); it != dequants_.end()) {
      bool needed = is_output(&node);
      for (const ir::Node* user : node.users()) needed |= q_absorbed_.count(user) == 0;
      if (needed) {
        const DequantMatch& m = it->second;
        add_node(fb::NodeKind::Dequantize, {tensor_of(m.input)}, {tensor_of(&node)}, {}, node,
                 calls_except(m.nodes, &node));
        graph_->nodes.back()->qin.push_back(qparam(m.q));
      }
      return true;
    }
    return q_absorbed_.count(&node) != 0;
  }

  // An int[2] pool argument: empty means `fallback`, one value stands for both dims.
  static std::vector<int64_t> pool_pair(std::vector<int64_t> v,
                                        const std::vector<int64_t>& fallback) {
    if (v.empty()) v = fallback;
    if (v.size() == 1) v.push_back(v[0]);
    return v;
  }

  // [kernel h, w, stride h, w, pad h, w] of a pool node (the stride defaults to the kernel).
  static std::vector<int64_t> pool_window_ints(const ir::Node& node) {
    const std::vector<int64_t> k = pool_pair(node.arg("kernel_size").to_int_vector(), {1});
    const std::vector<int64_t> s = pool_pair(arg_or_default(node, "stride").to_int_vector(), k);
    const std::vector<int64_t> p = pool_pair(arg_or_default(node, "padding").to_int_vector(), {0});
    return {k[0], k[1], s[0], s[1], p[0], p[1]};
  }

  static std::vector<int64_t> max_pool_ints(const ir::Node& node) {
    std::vector<int64_t> ints = pool_window_ints(node);
    const std::vector<int64_t> d = pool_pair(arg_or_default(node, "dilation").to_int_vector(), {1});
    ints.insert(ints.end(), {d[0], d[1]});
    return ints;
  }

  void lower(const ir::Node& node) {
    if (lower_quantized(node)) return;
    if (auto it = ln_tails_.find(&node); it != ln_tails_.end()) {
      lower_layer_norm(it->second);
      return;
    }
    if (auto it = act_aliases_.find(&node); it != act_aliases_.end()) {
      // Its activation runs in the producing Linear: the result is the sum's data.
      add_node(fb::NodeKind::Copy, {tensor_of(it->second)}, {tensor_of(&node)}, {}, node);
      return;
    }
    if (auto it = gelu_tails_.find(&node); it != gelu_tails_.end()) {
      std::vector<const ir::Node*> also(it->second.nodes.begin() + 1, it->second.nodes.end());
      add_node(fb::NodeKind::Unary, {tensor_of(it->second.x)}, {tensor_of(&node)}, {},
               *it->second.nodes.front(), also);
      graph_->nodes.back()->activation = fb::Activation::Gelu;
      return;
    }
    if (ln_absorbed_.count(&node) != 0) return;  // emitted at the pattern's tail
    if (scaled_away_.count(&node) != 0) return;  // its softmax scales the rows
    if (viewed_away_.count(&node) != 0) return;  // read in place by the products it feeds
    if (absorbed_.count(&node) != 0) {
      // The tail of a fusion emits the fused node at its own position (every input, the
      // residual included, is computed by then).
      auto it = deferred_.find(&node);
      if (it != deferred_.end()) lower_fused(*it->second);
      return;
    }
    if (fusions_.count(&node) != 0) return;     // emitted at its tail
    if (scale_muls_.count(&node) != 0) return;  // the convolution reading it scales its input
    if (auto it = bias_adds_.find(&node); it != bias_adds_.end()) {
      // Its vector is the producing Linear's bias: the sum is the view's data.
      add_node(fb::NodeKind::Copy, {tensor_of(it->second)}, {tensor_of(&node)}, {}, node);
      return;
    }
    switch (classify(program_, node)) {
      case CpuOpKind::Unsupported:
        ptec::raise(Error::NotSupported, "PtecCpuBackend cannot run node %{} ({})", node.name(),
                    node.target());
      case CpuOpKind::Conv2d:
      case CpuOpKind::Linear:
      case CpuOpKind::BatchNorm:
      case CpuOpKind::GroupNorm:
      case CpuOpKind::ConvTranspose2d: lower_fused(node); return;
      case CpuOpKind::WeightPermute:
      case CpuOpKind::Split: return;  // absorbed by their users / read by their getitems
      case CpuOpKind::GetItem:
        if (classify(program_, *node.arg(0).as_node()) == CpuOpKind::Split) lower_split_part(node);
        return;  // else the producer's value
      case CpuOpKind::LayerNorm: {
        const ir::Argument& weight = node.arg(2);
        const ir::Argument& bias = node.arg(3);
        add_node(fb::NodeKind::LayerNorm,
                 {tensor_of(node.arg(0).as_node()),
                  weight.is_node() ? tensor_of(weight.as_node()) : kAbsent,
                  bias.is_node() ? tensor_of(bias.as_node()) : kAbsent},
                 {tensor_of(&node)}, {}, node);
        graph_->nodes.back()->scalar = static_cast<float>(node.arg(4).to_double());
        return;
      }
      case CpuOpKind::MaxPool2d:
        add_node(fb::NodeKind::MaxPool2d, {tensor_of(node.arg("self").as_node())},
                 {tensor_of(&node)}, max_pool_ints(node), node);
        return;
      case CpuOpKind::AvgPool2d: {
        std::vector<int64_t> ints = pool_window_ints(node);
        const ir::Argument include_pad = arg_or_default(node, "count_include_pad");
        const ir::Argument divisor = arg_or_default(node, "divisor_override");
        ints.push_back(include_pad.as_bool() ? 1 : 0);
        ints.push_back(divisor.is_none() ? 0 : divisor.as_int());
        add_node(fb::NodeKind::AvgPool2d, {tensor_of(node.arg("self").as_node())},
                 {tensor_of(&node)}, ints, node);
        return;
      }
      case CpuOpKind::GlobalAvgPool:
        add_node(fb::NodeKind::GlobalAvgPool, {tensor_of(node.arg("self").as_node())},
                 {tensor_of(&node)}, {}, node);
        return;
      case CpuOpKind::Unary: {
        add_node(fb::NodeKind::Unary, {tensor_of(node.arg("self").as_node())}, {tensor_of(&node)},
                 {}, node);
        const ActivationInfo a = activation_of(node);
        graph_->nodes.back()->activation = a.kind;
        graph_->nodes.back()->clamp_min = a.lo;
        graph_->nodes.back()->clamp_max = a.hi;
        return;
      }
      case CpuOpKind::Binary: {
        add_node(fb::NodeKind::Binary,
                 {tensor_of(node.arg("self").as_node()), tensor_of(node.arg("other").as_node())},
                 {tensor_of(&node)}, {}, node);
        graph_->nodes.back()->binary = node.is_op("aten::add.Tensor")   ? fb::BinaryOp::Add
                                       : node.is_op("aten::sub.Tensor") ? fb::BinaryOp::Sub
                                       : node.is_op("aten::mul.Tensor") ? fb::BinaryOp::Mul
                                                                        : fb::BinaryOp::Div;
        return;
      }
      case CpuOpKind::Copy:
        add_node(fb::NodeKind::Copy, {tensor_of(node.arg(0).as_node())}, {tensor_of(&node)}, {},
                 node);
        return;
      case CpuOpKind::Cat: {
        std::vector<uint32_t> inputs;
        for (const ir::Node* t : node.arg("tensors").to_node_vector()) {
          inputs.push_back(tensor_of(t));
        }
        int64_t dim = arg_or_default(node, "dim").as_int();
        const int64_t rank = static_cast<int64_t>(node.spec().rank());
        if (dim < 0) dim += rank;
        add_node(fb::NodeKind::Cat, inputs, {tensor_of(&node)}, {dim}, node);
        return;
      }
      case CpuOpKind::BatchMatMul: {
        // ints: [0, K, then per operand: offset, batch stride, leading dimension, transposed]
        const std::array<OperandView, 2>& v = operand_views_.at(&node);
        const int64_t k = node.arg("self").as_node()->spec().shape.back().value();
        std::vector<int64_t> ints = {0, k};
        std::vector<const ir::Node*> also;
        for (const OperandView& o : v) {
          ints.insert(ints.end(), {o.view.offset, o.batch_stride, o.ld, o.trans ? 1 : 0});
          for (const ir::Node* c : o.chain) {
            if (viewed_away_.count(c) != 0) also.push_back(c);
          }
        }
        add_node(fb::NodeKind::BatchMatMul, {tensor_of(v[0].base), tensor_of(v[1].base)},
                 {tensor_of(&node)}, std::move(ints), node, also);
        return;
      }
      case CpuOpKind::Softmax: {
        int64_t dim = node.arg("dim").as_int();
        const int64_t rank = static_cast<int64_t>(node.spec().rank());
        if (dim < 0) dim += rank;
        const auto scale = softmax_scales_.find(&node);
        if (scale != softmax_scales_.end()) {
          add_node(fb::NodeKind::Softmax, {tensor_of(scale->second.first)}, {tensor_of(&node)},
                   {std::max<int64_t>(dim, 0)}, node, {node.arg("self").as_node()});
          graph_->nodes.back()->scalar = scale->second.second;
          return;
        }
        add_node(fb::NodeKind::Softmax, {tensor_of(node.arg("self").as_node())}, {tensor_of(&node)},
                 {std::max<int64_t>(dim, 0)}, node);
        return;
      }
      case CpuOpKind::StridedCopy: {
        std::vector<int64_t> view = strided_view(node);
        // A permute that moves only size-1 dims (or a slice or select that keeps every element
        // in place) reads all its input in order: the output aliases it.
        const View same = contiguous(node.spec());
        const View input = contiguous(node.arg("self").as_node()->spec());
        int64_t in_numel = 1, out_numel = 1;
        for (int64_t d : input.sizes) in_numel *= d;
        for (int64_t d : same.sizes) out_numel *= d;
        bool in_order = view[0] == 0 && in_numel == out_numel;
        for (size_t d = 0; d < same.sizes.size() && in_order; ++d) {
          in_order = same.sizes[d] == 1 || view[d + 1] == same.strides[d];
        }
        if (in_order && same.sizes.size() + 1 == view.size()) {
          add_node(fb::NodeKind::Copy, {tensor_of(node.arg("self").as_node())}, {tensor_of(&node)},
                   {}, node);
          return;
        }
        add_node(fb::NodeKind::StridedCopy, {tensor_of(node.arg("self").as_node())},
                 {tensor_of(&node)}, std::move(view), node);
        return;
      }
      case CpuOpKind::ScalarBinary: {
        add_node(fb::NodeKind::ScalarBinary, {tensor_of(node.arg("self").as_node())},
                 {tensor_of(&node)}, {}, node);
        fb::NodeT& n = *graph_->nodes.back();
        if (node.is_op("aten::pow.Tensor_Scalar")) {
          n.binary = fb::BinaryOp::Pow;
          n.scalar = static_cast<float>(node.arg("exponent").to_double());
        } else {
          const bool add = node.is_op("aten::add.Scalar"), sub = node.is_op("aten::sub.Scalar");
          const double alpha = add || sub ? arg_or_default(node, "alpha").to_double() : 1.0;
          n.binary = add                              ? fb::BinaryOp::Add
                     : sub                            ? fb::BinaryOp::Sub
                     : node.is_op("aten::mul.Scalar") ? fb::BinaryOp::Mul
                                                      : fb::BinaryOp::Div;
          n.scalar = static_cast<float>(node.arg("other").to_double() * alpha);
        }
        return;
      }
      case CpuOpKind::Math: {
        add_node(fb::NodeKind::Math, {tensor_of(node.arg("self").as_node())}, {tensor_of(&node)},
                 {}, node);
        graph_->nodes.back()->unary = node.is_op("aten::sqrt")    ? fb::UnaryOp::Sqrt
                                      : node.is_op("aten::rsqrt") ? fb::UnaryOp::Rsqrt
                                      : node.is_op("aten::erf")   ? fb::UnaryOp::Erf
                                      : node.is_op("aten::exp")   ? fb::UnaryOp::Exp
                                      : node.is_op("aten::log")   ? fb::UnaryOp::Log
                                      : node.is_op("aten::neg")   ? fb::UnaryOp::Neg
                                      : node.is_op("aten::abs")   ? fb::UnaryOp::Abs
                                                                  : fb::UnaryOp::Reciprocal;
        return;
      }
      case CpuOpKind::MeanInner:
        add_node(fb::NodeKind::MeanInner, {tensor_of(node.arg("self").as_node())},
                 {tensor_of(&node)}, {}, node);
        return;
      case CpuOpKind::Reduce: {
        // MeanInner with [inner, sum]: the elements after the reduced dims, and sum or mean.
        const ir::Node* x = node.arg("self").as_node();
        const int64_t rank = static_cast<int64_t>(x->spec().rank());
        int64_t last = 0;
        for (int64_t d : node.arg("dim").to_int_vector())
          last = std::max(last, d < 0 ? d + rank : d);
        int64_t inner = 1;
        for (int64_t d = last + 1; d < rank; ++d) inner *= x->spec().shape[d].value();
        add_node(fb::NodeKind::MeanInner, {tensor_of(x)}, {tensor_of(&node)},
                 {inner, node.is_op("aten::sum.dim_IntList") ? 1 : 0}, node);
        return;
      }
    }
  }

  // Part `i` (a getitem) of split_with_sizes_copy(x, sizes, dim): a strided copy of x starting at
  // the sum of the sizes before it along dim.
  void lower_split_part(const ir::Node& item) {
    if (item.users().empty() && !is_output(&item)) return;  // a part nothing reads
    const ir::Node& split = *item.arg(0).as_node();
    const ir::Node* x = split.arg(0).as_node();
    const View v = contiguous(x->spec());
    const int64_t rank = static_cast<int64_t>(v.sizes.size());
    int64_t dim = arg_or_default(split, "dim").as_int();
    if (dim < 0) dim += rank;
    const std::vector<int64_t> sizes = split.arg(1).to_int_vector();
    const int64_t index = item.arg(1).as_int();
    int64_t start = 0;
    for (int64_t k = 0; k < index; ++k) start += sizes[static_cast<size_t>(k)];
    std::vector<int64_t> view = {start * v.strides[static_cast<size_t>(dim)]};
    view.insert(view.end(), v.strides.begin(), v.strides.end());
    add_node(fb::NodeKind::StridedCopy, {tensor_of(x)}, {tensor_of(&item)}, std::move(view), item);
  }

  // [offset, stride per output dim] of a permute / slice / select / expand of a contiguous input.
  std::vector<int64_t> strided_view(const ir::Node& node) {
    const View v = apply_strided(node, contiguous(node.arg("self").as_node()->spec()));
    std::vector<int64_t> r = {v.offset};
    r.insert(r.end(), v.strides.begin(), v.strides.end());
    return r;
  }

  // The view a permute / slice / select / expand takes of its input, itself the view `in` of
  // some tensor: element i of the result is element offset + sum i_d strides_d of that tensor.
  static View apply_strided(const ir::Node& node, const View& in) {
    const ir::TensorSpec& out = node.spec();
    const int64_t rank = static_cast<int64_t>(in.sizes.size());
    auto norm_dim = [&](int64_t d) { return d < 0 ? d + rank : d; };
    auto at = [](const std::vector<int64_t>& v, int64_t i) { return v[static_cast<size_t>(i)]; };
    View r;
    r.offset = in.offset;
    for (const ir::SymInt& d : out.shape) r.sizes.push_back(d.value());
    if (node.is_op("aten::permute_copy")) {
      for (int64_t d : node.arg("dims").to_int_vector())
        r.strides.push_back(at(in.strides, norm_dim(d)));
    } else if (node.is_op("aten::slice_copy.Tensor")) {
      const int64_t dim = norm_dim(arg_or_default(node, "dim").as_int());
      const int64_t size = at(in.sizes, dim);
      const ir::Argument start_arg = arg_or_default(node, "start");
      int64_t start = start_arg.is_none() ? 0 : start_arg.as_int();
      if (start < 0) start += size;
      start = std::clamp<int64_t>(start, 0, size);
      const int64_t step = arg_or_default(node, "step").as_int();
      r.offset += start * at(in.strides, dim);
      for (int64_t d = 0; d < rank; ++d)
        r.strides.push_back(at(in.strides, d) * (d == dim ? step : 1));
    } else if (node.is_op("aten::select_copy.int")) {
      const int64_t dim = norm_dim(node.arg("dim").as_int());
      int64_t index = node.arg("index").as_int();
      if (index < 0) index += at(in.sizes, dim);
      r.offset += index * at(in.strides, dim);
      for (int64_t d = 0; d < rank; ++d) {
        if (d != dim) r.strides.push_back(at(in.strides, d));
      }
    } else {  // expand_copy
      const int64_t out_rank = static_cast<int64_t>(out.rank());
      for (int64_t d = 0; d < out_rank; ++d) {
        const int64_t j = d - (out_rank - rank);
        const bool broadcast = j < 0 || (at(in.sizes, j) == 1 && at(r.sizes, d) != 1);
        r.strides.push_back(broadcast ? 0 : at(in.strides, j));
      }
    }
    return r;
  }

  // `in` viewed with other sizes (view, squeeze, unsqueeze, clone), if strides can express it:
  // every run of dims that merges or splits must be contiguous within `in`.
  static std::optional<View> apply_reshape(const View& in, const ir::TensorSpec& out) {
    View r;
    r.offset = in.offset;
    for (const ir::SymInt& d : out.shape) r.sizes.push_back(d.value());
    r.strides.assign(r.sizes.size(), 0);
    auto empty = [](const std::vector<int64_t>& sizes) {
      return std::any_of(sizes.begin(), sizes.end(), [](int64_t d) { return d <= 0; });
    };
    if (empty(in.sizes) || empty(r.sizes)) return std::nullopt;  // not worth viewing
    // Walk both shapes from the innermost dim: chunks of `in` whose dims are contiguous with
    // each other hold equal numbers of elements as runs of the output's dims.
    int64_t oi = static_cast<int64_t>(r.sizes.size()) - 1;
    int64_t ii = static_cast<int64_t>(in.sizes.size()) - 1;
    while (ii >= 0 || oi >= 0) {
      // Skip size-1 dims (any stride reads them).
      if (ii >= 0 && in.sizes[static_cast<size_t>(ii)] == 1) {
        --ii;
        continue;
      }
      if (oi >= 0 && r.sizes[static_cast<size_t>(oi)] == 1) {
        r.strides[static_cast<size_t>(oi)] = 0;
        --oi;
        continue;
      }
      if (ii < 0 || oi < 0) return std::nullopt;
      // One chunk: `in` dims [lo, ii] with in.strides[d] == in.strides[d + 1] * in.sizes[d + 1].
      int64_t chunk = in.sizes[static_cast<size_t>(ii)];
      const int64_t base_stride = in.strides[static_cast<size_t>(ii)];
      int64_t lo = ii;
      int64_t out_elems = 1;
      int64_t stride = base_stride;
      while (true) {
        while (oi >= 0 && out_elems * r.sizes[static_cast<size_t>(oi)] <= chunk &&
               chunk % (out_elems * r.sizes[static_cast<size_t>(oi)]) == 0) {
          r.strides[static_cast<size_t>(oi)] = stride;
          stride *= r.sizes[static_cast<size_t>(oi)];
          out_elems *= r.sizes[static_cast<size_t>(oi)];
          --oi;
          if (out_elems == chunk) break;
        }
        if (out_elems == chunk) break;
        // The output dim spans more than this chunk: extend it with the next `in` dim, which
        // must continue it contiguously.
        if (lo == 0) return std::nullopt;
        const int64_t prev = lo - 1;
        if (in.sizes[static_cast<size_t>(prev)] == 1) {
          lo = prev;
          continue;
        }
        if (in.strides[static_cast<size_t>(prev)] !=
            in.strides[static_cast<size_t>(lo)] * in.sizes[static_cast<size_t>(lo)]) {
          return std::nullopt;
        }
        chunk *= in.sizes[static_cast<size_t>(prev)];
        lo = prev;
      }
      ii = lo - 1;
    }
    return r;
  }

  // The tensor `node`'s elements are read from through permutes, slices, selects, expands and
  // views that only the default lowering would emit (each a copy or an alias), and how.
  OperandView operand_view(const ir::Node* node) {
    OperandView v;
    v.base = node;
    v.view = contiguous(node->spec());
    const CpuOpKind kind = classify(program_, *node);
    const bool plain = (kind == CpuOpKind::StridedCopy || kind == CpuOpKind::Copy) &&
                       !is_constant(program_, *node) && absorbed_.count(node) == 0 &&
                       ln_absorbed_.count(node) == 0 && fusions_.count(node) == 0 &&
                       scale_muls_.count(node) == 0 && bias_adds_.count(node) == 0 &&
                       act_aliases_.count(node) == 0 && q_absorbed_.count(node) == 0 &&
                       qop_tails_.count(node) == 0 && qsimple_tails_.count(node) == 0 &&
                       quant_tails_.count(node) == 0 && dequants_.count(node) == 0;
    if (!plain) return v;
    OperandView parent = operand_view(node->arg(0).as_node());
    if (kind == CpuOpKind::StridedCopy) {
      parent.view = apply_strided(*node, parent.view);
    } else {
      std::optional<View> r = apply_reshape(parent.view, node->spec());
      if (!r) return v;
      parent.view = *r;
    }
    parent.chain.insert(parent.chain.begin(), node);
    return parent;
  }

  // How each BatchMatMul reads its operands: through the permutes, slices and views before them
  // when the result is a (batched) matrix of the base tensor (unit stride along its rows or its
  // columns, one stride between batches); those nodes are then emitted only if something else
  // reads them. Attention's per-head slices and permutes of a fused QKV projection disappear.
  void plan_operand_views(const std::set<const ir::Node*>& outputs) {
    std::set<const ir::Node*> read_through;  // chain nodes some product reads through
    for (const ir::Node* node : program_.graph().nodes()) {
      if (classify(program_, *node) != CpuOpKind::BatchMatMul) continue;
      std::array<OperandView, 2> views;
      for (int i = 0; i < 2; ++i) {
        const ir::Node* operand = node->arg(i == 0 ? "self" : "mat2").as_node();
        OperandView v = operand_view(operand);
        if (!as_matrix(v)) {  // read the operand itself (a contiguous matrix batch)
          v = OperandView{operand, contiguous(operand->spec()), {}, 0, 0, false};
          as_matrix(v);
        }
        read_through.insert(v.chain.begin(), v.chain.end());
        views[static_cast<size_t>(i)] = std::move(v);
      }
      operand_views_[node] = std::move(views);
    }
    // A chain node goes away when nothing else reads it: every user is a product reading through
    // it or a chain node that goes away too (users come after their inputs: walk backwards).
    auto reads_through = [&](const ir::Node* product, const ir::Node* n) {
      auto it = operand_views_.find(product);
      if (it == operand_views_.end()) return false;
      for (const OperandView& v : it->second) {
        if (std::find(v.chain.begin(), v.chain.end(), n) != v.chain.end()) return true;
      }
      return false;
    };
    const auto& nodes = program_.graph().nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      const ir::Node* n = *it;
      if (read_through.count(n) == 0 || outputs.count(n) != 0) continue;
      bool away = true;
      for (const ir::Node* u : n->users())
        away &= reads_through(u, n) || viewed_away_.count(u) != 0;
      if (away) viewed_away_.insert(n);
    }
  }

  // Fills v's matrix layout from its view of sizes [batch.., R, C]: false when the rows and
  // columns have no unit stride or the batch dims no single stride.
  static bool as_matrix(OperandView& v) {
    const std::vector<int64_t>& sizes = v.view.sizes;
    const std::vector<int64_t>& strides = v.view.strides;
    const size_t rank = sizes.size();
    if (rank < 2) return false;
    const int64_t rows = sizes[rank - 2], cols = sizes[rank - 1];
    const int64_t rs = rows == 1 ? cols : strides[rank - 2];
    const int64_t cs = cols == 1 ? 1 : strides[rank - 1];
    if (cs == 1 && rs >= 1) {
      v.trans = false;
      v.ld = rs;
    } else if (rs == 1 || rows == 1) {
      v.trans = true;
      v.ld = cs;
    } else {
      return false;
    }
    // Batch dims: one stride, the innermost non-1 dim's, that the outer ones continue.
    int64_t bs = 0, span = 0;
    for (size_t d = rank - 2; d-- > 0;) {
      if (sizes[d] == 1) continue;
      if (span == 0) {
        bs = strides[d];
      } else if (strides[d] != bs * span) {
        return false;
      }
      span = (span == 0 ? 1 : span) * sizes[d];
    }
    v.batch_stride = bs;
    return true;
  }

  void lower_layer_norm(const LayerNormMatch& m) {
    const ir::Node& head = *m.nodes.front();
    std::vector<const ir::Node*> also(m.nodes.begin() + 1, m.nodes.end());
    add_node(fb::NodeKind::LayerNorm,
             {tensor_of(m.x), m.weight != nullptr ? tensor_of(m.weight) : kAbsent,
              m.bias != nullptr ? tensor_of(m.bias) : kAbsent},
             {tensor_of(m.nodes.back())}, {}, head, also);
    graph_->nodes.back()->scalar = static_cast<float>(m.eps);
  }

  void lower_fused(const ir::Node& node) {
    const auto it = fusions_.find(&node);
    const Fusion f = it != fusions_.end() ? it->second : Fusion{};
    const ir::Node* tail = f.tail != nullptr ? f.tail : &node;
    const uint32_t out = tensor_of(tail);
    std::vector<const ir::Node*> also;
    if (f.add != nullptr) also.push_back(f.add);
    also.insert(also.end(), f.gate.begin(), f.gate.end());
    if (f.activation != nullptr) also.push_back(f.activation);
    const uint32_t residual = f.residual != nullptr ? tensor_of(f.residual) : kAbsent;
    if (node.is_op("aten::_native_batch_norm_legit_no_training")) {
      std::vector<uint32_t> inputs = {tensor_of(node.arg(0).as_node())};
      for (size_t i = 1; i <= 4; ++i) {
        inputs.push_back(node.arg(i).is_none() ? kAbsent : tensor_of(node.arg(i).as_node()));
      }
      add_node(fb::NodeKind::BatchNorm, inputs, {out}, {}, node, also);
      graph_->nodes.back()->scalar = static_cast<float>(node.arg(6).to_double());
    } else if (node.is_op("aten::native_group_norm")) {
      std::vector<uint32_t> inputs = {tensor_of(node.arg(0).as_node())};
      for (size_t i = 1; i <= 2; ++i) {
        inputs.push_back(node.arg(i).is_none() ? kAbsent : tensor_of(node.arg(i).as_node()));
      }
      add_node(fb::NodeKind::GroupNorm, inputs, {out}, {node.arg(6).as_int()}, node, also);
      graph_->nodes.back()->scalar = static_cast<float>(node.arg(7).to_double());
    } else if (node.is_op("aten::convolution") && node.arg("transposed").as_bool()) {
      const ir::Argument bias = arg_or_default(node, "bias");
      std::vector<int64_t> ints;
      for (const char* name : {"stride", "padding", "dilation", "output_padding"}) {
        const std::vector<int64_t> v = node.arg(name).to_int_vector();
        ints.insert(ints.end(), v.begin(), v.end());
      }
      ints.push_back(node.arg("groups").as_int());
      add_node(fb::NodeKind::ConvTranspose2d,
               {tensor_of(node.arg("input").as_node()), tensor_of(node.arg("weight").as_node()),
                bias.is_none() ? kAbsent : tensor_of(bias.as_node())},
               {out}, ints, node, also);
    } else if (node.is_op("aten::convolution")) {
      const ir::Argument bias = arg_or_default(node, "bias");
      const std::vector<int64_t> s = node.arg("stride").to_int_vector();
      const std::vector<int64_t> p = node.arg("padding").to_int_vector();
      const std::vector<int64_t> d = node.arg("dilation").to_int_vector();
      const auto scaled = input_scales_.find(&node);
      std::vector<uint32_t> inputs = {
          tensor_of(scaled != input_scales_.end() ? scaled->second.first
                                                  : node.arg("input").as_node()),
          tensor_of(node.arg("weight").as_node()),
          bias.is_none() ? kAbsent : tensor_of(bias.as_node()), residual};
      if (scaled != input_scales_.end()) {
        inputs.push_back(tensor_of(scaled->second.second));
        also.push_back(node.arg("input").as_node());  // the mul
      }
      add_node(fb::NodeKind::Conv2d, inputs, {out},
               {s[0], s[1], p[0], p[1], d[0], d[1], node.arg("groups").as_int()}, node, also);
    } else {
      const bool addmm = node.is_op("aten::addmm");
      const ir::Node* mat2 = node.arg("mat2").as_node();
      const bool transposed = mat2->is_op("aten::permute_copy");
      const ir::Node* weight = transposed ? mat2->arg("self").as_node() : mat2;
      const auto bias = linear_bias_.find(&node);
      // addmm's self: the bias when constant, else a residual (no residual add was fused then).
      const ir::Node* self = addmm ? node.arg("self").as_node() : nullptr;
      const bool self_bias = self != nullptr && is_constant(program_, *self);
      const uint32_t bias_id = self_bias                    ? tensor_of(self)
                               : bias != linear_bias_.end() ? tensor_of(bias->second)
                                                            : kAbsent;
      add_node(fb::NodeKind::Linear,
               {tensor_of(node.arg(addmm ? "mat1" : "self").as_node()), tensor_of(weight), bias_id,
                self != nullptr && !self_bias ? tensor_of(self) : residual},
               {out}, {transposed ? 1 : 0}, node, also);
    }
    if (auto act = linear_act_.find(&node); act != linear_act_.end()) {
      graph_->nodes.back()->activation = act->second.kind;
      graph_->nodes.back()->clamp_min = act->second.lo;
      graph_->nodes.back()->clamp_max = act->second.hi;
    } else if (f.gated != fb::Activation::None) {
      graph_->nodes.back()->activation = f.gated;
    } else if (f.activation != nullptr) {
      const ActivationInfo a = activation_of(*f.activation);
      graph_->nodes.back()->activation = a.kind;
      graph_->nodes.back()->clamp_min = a.lo;
      graph_->nodes.back()->clamp_max = a.hi;
    }
  }

  struct Fusion {
    const ir::Node* residual = nullptr;
    const ir::Node* add = nullptr;
    const ir::Node* activation = nullptr;  // the unary op, or a gated activation's last node
    // A gated activation (x * f(x)): its kind and its other nodes (SiLU's sigmoid; hard swish's
    // scale, shift and clamp).
    fb::Activation gated = fb::Activation::None;
    std::vector<const ir::Node*> gate;
    const ir::Node* tail = nullptr;
  };

  const ir::ExportedProgram& program_;
  partition::PreprocessResult& result_;
  std::unique_ptr<fb::GraphT> graph_;
  std::map<const ir::Node*, uint32_t> tensors_;
  std::map<const ir::Node*, Fusion> fusions_;            // producer → its fusion
  std::map<const ir::Node*, const ir::Node*> absorbed_;  // add / activation → producer
  std::map<const ir::Node*, const ir::Node*> deferred_;  // fusion tail → producer
  std::map<const ir::Node*, LayerNormMatch> ln_tails_;   // last node → its LayerNorm
  std::set<const ir::Node*> ln_absorbed_;  // every node of a LayerNorm or GELU pattern
  // softmax → (its input before the scale, the scale); the scale nodes they absorb.
  std::map<const ir::Node*, std::pair<const ir::Node*, float>> softmax_scales_;
  std::set<const ir::Node*> scaled_away_;
  std::map<const ir::Node*, GeluMatch> gelu_tails_;  // last node → its GELU
  // BatchMatMul → how it reads each operand in place: (base tensor, matrix layout)
  std::map<const ir::Node*, std::array<OperandView, 2>> operand_views_;
  std::set<const ir::Node*> viewed_away_;  // permutes / slices / views only those products read
  // convolution → (x, s) of the x * s it reads; those muls
  std::map<const ir::Node*, std::pair<const ir::Node*, const ir::Node*>> input_scales_;
  std::set<const ir::Node*> scale_muls_;
  std::map<const ir::Node*, const ir::Node*> linear_bias_;  // mm → the vector added after a view
  std::map<const ir::Node*, const ir::Node*> bias_adds_;    // that add → the view it aliases
  std::map<const ir::Node*, ActivationInfo> linear_act_;    // such an mm → the activation after
  std::map<const ir::Node*, const ir::Node*> act_aliases_;  // that activation → the add
  std::map<const ir::Node*, QOpMatch> qop_tails_;           // quantize → its int8 conv / linear
  std::map<const ir::Node*, QSimpleMatch> qsimple_tails_;   // quantize → its simple int8 op
  std::map<const ir::Node*, QuantMatch> quant_tails_;       // lone quantizes
  std::map<const ir::Node*, DequantMatch> dequants_;        // dequantizes of activations
  std::set<const ir::Node*> q_absorbed_;  // nodes of quantized patterns other than their tails
};

}  // namespace

std::string CpuBackend::id() const { return kCpuBackendId; }

partition::PreprocessResult CpuBackend::preprocess(
    const ir::ExportedProgram& subgraph, const std::vector<partition::CompileSpec>&) const {
  partition::PreprocessResult result;
  const std::unique_ptr<fb::GraphT> graph = Lowering(subgraph, result).run();
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(fb::Graph::Pack(builder, graph.get()), fb::GraphIdentifier());
  result.processed_bytes = ir::Buffer::copy_of(builder.GetBufferPointer(), builder.GetSize());
  for (const auto& n : graph->nodes) {
    // Delegate debug id = index of the backend node; it covers the graph nodes it computes.
    const int64_t id = static_cast<int64_t>(result.debug_handle_map.size());
    result.debug_handle_map[id] = n->debug_handles;
  }
  return result;
}

void register_cpu_backend_aot() {
  static std::once_flag once;
  std::call_once(once, [] { partition::register_backend(std::make_shared<CpuBackend>()); });
}

}  // namespace ptec::backends::cpu
