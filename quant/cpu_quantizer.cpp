#include "quant/cpu_quantizer.h"

#include <fmt/format.h>

#include "ir/node.h"

namespace ptec::quant {
namespace {

bool is_constant(const ir::ExportedProgram& program, const ir::Node* n) {
  return n->is_placeholder() && program.constant_for_placeholder(n->name()) != nullptr;
}

bool is_float(const ir::Node* n) {
  return n->meta().val.size() == 1 && n->meta().val[0].dtype == DType::Float;
}

/// A float activation: a float tensor computed at run time (not a constant).
bool is_activation(const ir::ExportedProgram& program, const ir::Argument& a) {
  return a.is_node() && !is_constant(program, a.as_node()) && is_float(a.as_node()) &&
         !a.as_node()->is_get_attr();
}

/// The constant float placeholder behind a weight argument (itself, or t_copy / permute_copy
/// [1, 0] of a 2-D constant); `transposed` tells which.
const ir::Node* weight_source(const ir::ExportedProgram& program, const ir::Argument& a,
                              bool* transposed) {
  *transposed = false;
  if (!a.is_node()) return nullptr;
  const ir::Node* n = a.as_node();
  const bool t =
      n->is_op("aten::t_copy") ||
      (n->is_op("aten::permute_copy") && n->arg(1).to_int_vector() == std::vector<int64_t>{1, 0});
  if (t && n->arg(0).is_node()) {
    *transposed = true;
    n = n->arg(0).as_node();
  }
  if (!is_constant(program, n) || !is_float(n)) return nullptr;
  return n;
}

bool graph_output(const ir::ExportedProgram& program, const ir::Node* n) {
  for (const ir::Node* o : program.graph().outputs()) {
    if (o == n) return true;
  }
  return false;
}

/// The activation fused after `op` (relu / clamp / hardtanh as its sole user), or nullptr.
const ir::Node* fused_activation(const ir::ExportedProgram& program, const ir::Node* op) {
  if (op->users().size() != 1 || graph_output(program, op)) return nullptr;
  const ir::Node* u = op->users()[0];
  if (u->is_op("aten::relu") || u->is_op("aten::hardtanh") || u->is_op("aten::clamp")) {
    if (u->is_op("aten::clamp")) {
      for (size_t i = 1; i < u->args().size(); ++i) {
        if (u->arg(i).is_node()) return nullptr;  // tensor bounds: not an activation
      }
    }
    return u;
  }
  return nullptr;
}

class Annotator {
 public:
  Annotator(const ir::ExportedProgram& program, const QuantizationConfig& config)
      : program_(program), config_(config) {}

  Annotations run() {
    const bool weight_only = !config_.input_activation && config_.weight;
    const bool is_static = config_.input_activation && !config_.input_activation->is_dynamic &&
                           config_.output_activation;
    for (const ir::Node* n : program_.graph().nodes()) {
      if (!n->is_call()) continue;
      if (weight_only) {
        linear(n, /*weight_only=*/true);
        continue;
      }
      if (n->is_op("aten::convolution")) {
        conv(n);
      } else if (n->is_op("aten::addmm") || n->is_op("aten::mm")) {
        linear(n, false);
      } else if (is_static) {
        others(n);
      }
    }
    return std::move(out_);
  }

 private:
  void output_of(const ir::Node* op) {
    if (!config_.output_activation || config_.input_activation->is_dynamic) return;
    const ir::Node* act = fused_activation(program_, op);
    out_[act != nullptr ? act->name() : op->name()].output = *config_.output_activation;
  }

  void conv(const ir::Node* n) {
    if (!config_.input_activation || !config_.weight) return;
    if (n->arg("transposed").is_bool() && n->arg("transposed").as_bool()) return;
    if (!is_activation(program_, n->arg(0))) return;
    bool transposed = false;
    const ir::Node* w = weight_source(program_, n->arg(1), &transposed);
    if (w == nullptr || transposed || w->spec().rank() < 3) return;
    NodeAnnotation& a = out_[n->name()];
    a.input_activations[0] = *config_.input_activation;
    QuantizationSpec ws = *config_.weight;
    if (ws.ch_axis) ws.ch_axis = 0;
    a.weights[1] = ws;
    output_of(n);
  }

  void linear(const ir::Node* n, bool weight_only) {
    size_t x_arg = 0, w_arg = 0;
    if (n->is_op("aten::addmm")) {
      x_arg = 1;
      w_arg = 2;
    } else if (n->is_op("aten::mm")) {
      x_arg = 0;
      w_arg = 1;
    } else {
      return;
    }
    if (!config_.weight || !is_activation(program_, n->arg(x_arg))) return;
    bool transposed = false;
    const ir::Node* w = weight_source(program_, n->arg(w_arg), &transposed);
    if (w == nullptr || w->spec().rank() != 2 || !w->spec().is_static()) return;
    QuantizationSpec ws = *config_.weight;
    // [N, K] behind a transpose: channels on axis 0; a [K, N] weight: on axis 1.
    const int64_t ch_axis = transposed ? 0 : 1;
    if (ws.ch_axis) ws.ch_axis = ch_axis;
    if (ws.qscheme == QScheme::PerGroupSymmetric) {
      const int64_t k = w->spec().shape[static_cast<size_t>(1 - ch_axis)].value();
      if (ws.group_size <= 0 || k % ws.group_size != 0) return;  // stays float
    }
    NodeAnnotation& a = out_[n->name()];
    a.weights[w_arg] = ws;
    if (weight_only || !config_.input_activation) return;
    a.input_activations[x_arg] = *config_.input_activation;
    output_of(n);
  }

  void others(const ir::Node* n) {
    const QuantizationSpec& act = *config_.input_activation;
    if (n->is_op("aten::add.Tensor")) {
      if (!is_activation(program_, n->arg(0)) || !is_activation(program_, n->arg(1))) return;
      if (n->arg("alpha").is_node()) return;
      NodeAnnotation& a = out_[n->name()];
      a.input_activations[0] = act;
      a.input_activations[1] = act;
      output_of(n);
    } else if (n->is_op("aten::max_pool2d_with_indices")) {
      if (!is_activation(program_, n->arg(0))) return;
      out_[n->name()].input_activations[0] = act;
      for (const ir::Node* u : n->users()) {
        if (u->is_op("getitem") && u->arg(1).is_int() && u->arg(1).as_int() == 0) {
          out_[u->name()].output_shares_with = n->arg(0).as_node()->name();
        }
      }
    } else if (n->is_op("aten::mean.dim") || n->is_op("aten::avg_pool2d")) {
      if (!is_activation(program_, n->arg(0)) || !is_float(n)) return;
      NodeAnnotation& a = out_[n->name()];
      a.input_activations[0] = act;
      a.output = act;
    } else if (n->is_op("aten::cat")) {
      const ir::Argument& tensors = n->arg(0);
      if (!tensors.is_list() || tensors.as_list().empty() || !is_float(n)) return;
      for (const ir::Argument& t : tensors.as_list()) {
        if (!is_activation(program_, t)) return;
      }
      NodeAnnotation& a = out_[n->name()];
      a.input_activations[0] = act;
      a.output = act;
      a.share_inputs_with_output = true;
    }
  }

  const ir::ExportedProgram& program_;
  const QuantizationConfig& config_;
  Annotations out_;
};

}  // namespace

std::string CpuQuantizer::name() const {
  if (!label_.empty()) return "CpuQuantizer(" + label_ + ")";
  std::string what;
  if (global_.weight) what += "weight " + global_.weight->to_string();
  if (global_.input_activation) what += "; activation " + global_.input_activation->to_string();
  return "CpuQuantizer(" + what + ")";
}

Annotations CpuQuantizer::annotate(const ir::ExportedProgram& program) const {
  return Annotator(program, global_).run();
}

}  // namespace ptec::quant
