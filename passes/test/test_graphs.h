#pragma once

// Helpers to build small programs in tests (passes/, program/, emit/) with the Graph API.

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "ir/op_schema.h"
#include "passes/rewrite_utils.h"

namespace ptec::testing {

/// A float32 tensor with the given values.
inline ir::TensorData float_tensor(const std::vector<int64_t>& sizes,
                                   const std::vector<float>& values) {
  return {ir::TensorSpec(DType::Float, sizes),
          ir::Buffer::copy_of(values.data(), values.size() * sizeof(float))};
}

inline std::vector<float> floats_of(const ir::TensorData& t) {
  std::vector<float> out(t.data->size() / sizeof(float));
  std::memcpy(out.data(), t.data->data(), out.size() * sizeof(float));
  return out;
}

/// A USER_INPUT placeholder.
inline ir::Node* input(ir::ExportedProgram& p, const std::string& name, ir::TensorSpec spec) {
  ir::Node* n = p.graph().add_placeholder(name, std::move(spec));
  p.signature().inputs.push_back({ir::InputKind::UserInput, n->name(), ""});
  return n;
}

/// A PARAMETER placeholder with its state_dict entry.
inline ir::Node* param(ir::ExportedProgram& p, const std::string& name, ir::TensorData data) {
  ir::Node* n = p.graph().add_placeholder(name, data.spec);
  p.signature().inputs.push_back({ir::InputKind::Parameter, n->name(), name});
  p.state_dict()[name] = std::move(data);
  return n;
}

/// A call of the registered op `op_name`; defaults filled, meta.val from the shape function.
inline ir::Node* call(ir::ExportedProgram& p, std::string_view op_name, ir::ArgumentList args,
                      const std::string& name = "") {
  return passes::insert_call(p.graph(), ir::get_op(op_name), std::move(args), nullptr, nullptr,
                             name);
}

/// Sets the outputs (USER_OUTPUT each).
inline void output(ir::ExportedProgram& p, const std::vector<ir::Node*>& nodes) {
  p.graph().set_output(nodes);
  p.signature().outputs.clear();
  for (ir::Node* n : nodes)
    p.signature().outputs.push_back({ir::OutputKind::UserOutput, n->name(), ""});
}

/// Names and targets of the calls, in order: "convolution(aten::convolution)".
inline std::vector<std::string> calls(const ir::ExportedProgram& p) {
  std::vector<std::string> out;
  for (const ir::Node* n : p.graph().nodes()) {
    if (n->is_call()) out.push_back(n->name() + "(" + n->target() + ")");
  }
  return out;
}

/// conv (1x1, 2 → 2 channels, bias) → batch norm → relu → add(x): the model of the BN folding,
/// to_edge and round-trip tests. x: [1, 2, 2, 2].
struct ConvBnReluAdd {
  ir::ExportedProgram program;
  std::vector<float> w{0.5f, -1.0f, 2.0f, 0.25f};  // [2, 2, 1, 1]
  std::vector<float> b{0.1f, -0.2f};
  std::vector<float> gamma{1.5f, 0.5f};
  std::vector<float> beta{0.3f, -0.4f};
  std::vector<float> mean{0.2f, -0.1f};
  std::vector<float> var{4.0f, 0.25f};
  double eps = 1e-5;

  ConvBnReluAdd() {
    ir::ExportedProgram& p = program;
    ir::Node* cw = param(p, "conv.weight", float_tensor({2, 2, 1, 1}, w));
    ir::Node* cb = param(p, "conv.bias", float_tensor({2}, b));
    ir::Node* g = param(p, "bn.weight", float_tensor({2}, gamma));
    ir::Node* be = param(p, "bn.bias", float_tensor({2}, beta));
    ir::Node* m = param(p, "bn.running_mean", float_tensor({2}, mean));
    ir::Node* v = param(p, "bn.running_var", float_tensor({2}, var));
    ir::Node* x = input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{1, 2, 2, 2}));
    ir::Node* conv =
        call(p, "aten::convolution",
             {x, cw, cb, std::vector<int64_t>{1, 1}, std::vector<int64_t>{0, 0},
              std::vector<int64_t>{1, 1}, false, std::vector<int64_t>{0, 0}, int64_t{1}});
    ir::Node* bn =
        call(p, "aten::_native_batch_norm_legit_no_training", {conv, g, be, m, v, 0.1, eps});
    ir::Node* item = call(p, "getitem", {bn, int64_t{0}});
    ir::Node* relu = call(p, "aten::relu", {item});
    ir::Node* add = call(p, "aten::add.Tensor", {relu, x});
    output(p, {add});
  }

  /// The model computed directly from its definition, for input `x` (NCHW [1, 2, 2, 2]).
  std::vector<float> reference(const std::vector<float>& x) const {
    std::vector<float> out(8);
    for (int c = 0; c < 2; ++c) {
      for (int hw = 0; hw < 4; ++hw) {
        const double conv = w[c * 2 + 0] * x[0 * 4 + hw] + w[c * 2 + 1] * x[1 * 4 + hw] + b[c];
        const double bn = (conv - mean[c]) / std::sqrt(var[c] + eps) * gamma[c] + beta[c];
        const double relu = bn > 0 ? bn : 0;
        out[c * 4 + hw] = static_cast<float>(relu + x[c * 4 + hw]);
      }
    }
    return out;
  }
};

}  // namespace ptec::testing
