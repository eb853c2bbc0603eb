#include "passes/half_to_float.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "ir/exported_program.h"
#include "ir/op_schema.h"
#include "memory/lifetime.h"
#include "passes/rewrite_utils.h"
#include "runtime/core/bfloat16.h"
#include "runtime/core/half.h"

namespace ptec::passes {
namespace {

bool reduced(DType t) { return t == DType::Half || t == DType::BFloat16; }

bool has_reduced(const std::vector<ir::TensorSpec>& specs) {
  for (const ir::TensorSpec& s : specs) {
    if (reduced(s.dtype)) return true;
  }
  return false;
}

/// `t` (Half or BFloat16) as a Float tensor of the same sizes.
ir::TensorData widened(const ir::TensorData& t) {
  const size_t n = t.data->size() / 2;
  std::vector<uint8_t> bytes(n * sizeof(float));
  const auto* src = t.data->data();
  for (size_t i = 0; i < n; ++i) {
    uint16_t bits = 0;
    std::memcpy(&bits, src + 2 * i, 2);
    const float f =
        t.spec.dtype == DType::Half
            ? static_cast<float>(runtime::Half(bits, runtime::Half::from_bits()))
            : static_cast<float>(runtime::BFloat16(bits, runtime::BFloat16::from_bits()));
    std::memcpy(bytes.data() + i * sizeof(float), &f, sizeof(float));
  }
  ir::TensorSpec spec = t.spec;
  spec.dtype = DType::Float;
  return {spec, ir::Buffer::from_vector(std::move(bytes))};
}

void widen_specs(std::vector<ir::TensorSpec>& specs) {
  for (ir::TensorSpec& s : specs) {
    if (reduced(s.dtype)) s.dtype = DType::Float;
  }
}

}  // namespace

PassResult HalfToFloat::run(ir::ExportedProgram& program) {
  ir::Graph& graph = program.graph();
  bool any = false;
  for (const ir::Node* node : graph.nodes()) any = any || has_reduced(node->meta().val);
  for (const auto* table : {&program.state_dict(), &program.constants()}) {
    for (const auto& [name, data] : *table) any = any || reduced(data.spec.dtype);
  }
  if (!any) return {};

  // The outputs' dtypes before the rewrite, to cast back to.
  std::vector<ir::Node*> outputs = graph.outputs();
  std::vector<DType> output_dtypes;
  for (const ir::Node* out : outputs) {
    output_dtypes.push_back(out->meta().val.size() == 1 ? out->meta().val[0].dtype : DType::Float);
  }

  // Parameters, buffers and constants: converted in their tables.
  for (auto* table : {&program.state_dict(), &program.constants()}) {
    for (auto& [name, data] : *table) {
      if (reduced(data.spec.dtype)) data = widened(data);
    }
  }
  const ir::OpSchema& to_copy = ir::get_op("aten::_to_copy");
  ir::Node* first_call = nullptr;
  for (ir::Node* node : graph.nodes()) {
    if (!node->is_placeholder()) {
      first_call = node;
      break;
    }
  }
  std::vector<ir::Node*> casts;
  for (ir::Node* node : graph.placeholders()) {
    if (!has_reduced(node->meta().val)) continue;
    if (program.constant_for_placeholder(node->name()) != nullptr) {
      widen_specs(node->meta().val);
      continue;
    }
    // A user input: cast where it enters; its users read the cast.
    ir::Node* cast = insert_call(graph, to_copy, {node, DType::Float}, first_call, node);
    replace_all_uses(program, node, cast);
    graph.set_arg(cast, 0, node);
    casts.push_back(cast);
  }

  // Calls: dtype arguments, then meta.val from the shape function (in order: the producers'
  // specs are already Float).
  for (ir::Node* node : graph.nodes()) {
    if (!node->is_call()) continue;
    if (std::find(casts.begin(), casts.end(), node) != casts.end()) continue;
    for (size_t i = 0; i < node->args().size(); ++i) {
      const ir::Argument& a = node->args()[i];
      if (a.is_dtype() && reduced(a.as_dtype())) graph.set_arg(node, i, DType::Float);
    }
    const ir::OpSchema* op = node->op();
    if (memory::is_getitem(*node)) {
      const auto [producer, index] = memory::resolve_value(node);
      node->meta().val = {producer->meta().val.at(static_cast<size_t>(index))};
    } else if (op != nullptr && op->shape_fn != nullptr) {
      node->meta().val = op->shape_fn(*op, node->args());
    } else {
      widen_specs(node->meta().val);
    }
  }

  // Outputs back to their dtypes.
  bool recast = false;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!reduced(output_dtypes[i])) continue;
    ir::Node* out = graph.outputs()[i];
    ir::Node* cast = insert_call(graph, to_copy, {out, output_dtypes[i]}, nullptr, out);
    for (ir::OutputSpec& spec : program.signature().outputs) {
      if (spec.name == out->name()) spec.name = cast->name();
    }
    outputs[i] = cast;
    recast = true;
  }
  if (recast) graph.set_output(outputs);
  return {true};
}

}  // namespace ptec::passes
