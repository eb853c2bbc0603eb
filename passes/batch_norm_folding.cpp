#include "passes/batch_norm_folding.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "ir/exception.h"
#include "ir/exported_program.h"
#include "ir/op_schema.h"
#include "memory/lifetime.h"
#include "passes/rewrite_utils.h"

namespace ptec::passes {

namespace {

std::vector<double> to_doubles(const ir::TensorData& t) {
  std::vector<float> values(t.data->size() / sizeof(float));
  std::memcpy(values.data(), t.data->data(), values.size() * sizeof(float));
  return {values.begin(), values.end()};
}

ir::TensorData make_float_tensor(const std::vector<int64_t>& sizes,
                                 const std::vector<double>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  for (size_t i = 0; i < values.size(); ++i) {
    const auto f = static_cast<float>(values[i]);
    std::memcpy(bytes.data() + i * sizeof(float), &f, sizeof(float));
  }
  return {ir::TensorSpec(DType::Float, sizes), ir::Buffer::from_vector(std::move(bytes))};
}

/// Folds `bn` into its convolution; false when the pattern does not apply.
bool fold(ir::ExportedProgram& program, ir::Node* bn) {
  ir::Graph& graph = program.graph();
  if (!bn->arg(0).is_node()) return false;
  ir::Node* conv = bn->arg(0).as_node();
  if (!conv->is_op("aten::convolution") || conv->users().size() != 1) return false;
  if (!conv->arg("transposed").is_bool() || conv->arg("transposed").as_bool()) return false;

  // Only output 0 of the batch norm may be used, through getitems.
  std::vector<ir::Node*> getitems;
  for (ir::Node* user : bn->users()) {
    if (!memory::is_getitem(*user)) return false;
    if (memory::resolve_value(user).second != 0 && !user->users().empty()) return false;
    getitems.push_back(user);
  }

  const ir::TensorData* weight = float_constant(program, conv->arg("weight"));
  if (weight == nullptr || weight->spec.rank() < 1) return false;
  const ir::Argument& bias_arg = conv->arg("bias");
  const ir::TensorData* bias = bias_arg.is_none() ? nullptr : float_constant(program, bias_arg);
  if (!bias_arg.is_none() && bias == nullptr) return false;
  const ir::Argument& gamma_arg = bn->arg(1);
  const ir::Argument& beta_arg = bn->arg(2);
  const ir::TensorData* gamma = gamma_arg.is_none() ? nullptr : float_constant(program, gamma_arg);
  const ir::TensorData* beta = beta_arg.is_none() ? nullptr : float_constant(program, beta_arg);
  const ir::TensorData* mean = float_constant(program, bn->arg(3));
  const ir::TensorData* var = float_constant(program, bn->arg(4));
  if ((!gamma_arg.is_none() && gamma == nullptr) || (!beta_arg.is_none() && beta == nullptr) ||
      mean == nullptr || var == nullptr) {
    return false;
  }
  const ir::Argument& eps_arg = bn->arg(6);
  if (!eps_arg.is_double() && !eps_arg.is_int()) return false;
  const double eps = eps_arg.to_double();

  const std::vector<int64_t> w_sizes = weight->spec.upper_bound_sizes();
  const auto channels = static_cast<size_t>(w_sizes[0]);
  auto per_channel = [&](const ir::TensorData* t) {
    return t == nullptr || static_cast<size_t>(t->spec.numel_upper_bound()) == channels;
  };
  if (!per_channel(bias) || !per_channel(gamma) || !per_channel(beta) || !per_channel(mean) ||
      !per_channel(var)) {
    return false;
  }

  std::vector<double> w = to_doubles(*weight);
  const std::vector<double> b = bias ? to_doubles(*bias) : std::vector<double>(channels, 0.0);
  const std::vector<double> g = gamma ? to_doubles(*gamma) : std::vector<double>(channels, 1.0);
  const std::vector<double> be = beta ? to_doubles(*beta) : std::vector<double>(channels, 0.0);
  const std::vector<double> mu = to_doubles(*mean);
  const std::vector<double> v = to_doubles(*var);
  const size_t per_out = channels == 0 ? 0 : w.size() / channels;
  std::vector<double> new_bias(channels);
  for (size_t c = 0; c < channels; ++c) {
    const double scale = g[c] / std::sqrt(v[c] + eps);
    for (size_t k = 0; k < per_out; ++k) w[c * per_out + k] *= scale;
    new_bias[c] = (b[c] - mu[c]) * scale + be[c];
  }

  ir::Node* weight_node = conv->arg("weight").as_node();
  ir::Node* new_w = add_parameter(program, conv->name() + "_fused_bn_weight",
                                  make_float_tensor(w_sizes, w), weight_node);
  ir::Node* new_b =
      add_parameter(program, conv->name() + "_fused_bn_bias",
                    make_float_tensor({static_cast<int64_t>(channels)}, new_bias), weight_node);
  ir::ArgumentList args = conv->args();
  args[static_cast<size_t>(conv->op()->arg_index("weight"))] = new_w;
  args[static_cast<size_t>(conv->op()->arg_index("bias"))] = new_b;
  graph.set_args(conv, std::move(args));

  for (ir::Node* item : getitems) {
    if (memory::resolve_value(item).second == 0 && !item->users().empty()) {
      replace_all_uses(program, item, conv);
    }
    graph.erase(item);
  }
  graph.erase(bn);
  return true;
}

}  // namespace

PassResult BatchNormFolding::run(ir::ExportedProgram& program) {
  std::vector<ir::Node*> candidates;
  for (ir::Node* node : program.graph().nodes()) {
    if (node->is_op("aten::_native_batch_norm_legit_no_training")) candidates.push_back(node);
  }
  bool modified = false;
  for (ir::Node* bn : candidates) modified |= fold(program, bn);
  if (modified) remove_unused_constants(program);
  return {modified};
}

}  // namespace ptec::passes
