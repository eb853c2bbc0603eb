#include "passes/decompose.h"

#include <vector>

#include "ir/exception.h"
#include "ir/exported_program.h"
#include "ir/op_schema.h"
#include "memory/lifetime.h"
#include "passes/rewrite_utils.h"

namespace ptec::passes {

namespace {

ir::Node* tensor_arg(ir::Node* node, size_t index) {
  const ir::Argument& a = node->arg(index);
  PTEC_ENFORCE(a.is_node(), InvalidArgument,
               "decompose: node %{} ({}): argument {} is not a tensor", node->name(),
               node->target(), index);
  return a.as_node();
}

void finish(ir::ExportedProgram& program, ir::Node* node, ir::Node* result) {
  replace_all_uses(program, node, result);
  program.graph().erase(node);
}

// linear(input, weight, bias?) = input @ weight^T (+ bias)
void decompose_linear(ir::ExportedProgram& program, ir::Node* node) {
  ir::Graph& g = program.graph();
  ir::Node* input = tensor_arg(node, 0);
  ir::Node* weight = tensor_arg(node, 1);
  const ir::Argument bias = node->args().size() > 2 ? node->arg(2) : ir::Argument();
  const ir::TensorSpec& in_spec = input->spec();
  PTEC_ENFORCE(in_spec.rank() >= 1, InvalidArgument,
               "decompose: node %{} (aten::linear): input must have rank >= 1", node->name());
  ir::Node* wt = insert_call(g, ir::get_op("aten::permute_copy"),
                             {weight, std::vector<int64_t>{1, 0}}, node, node);
  ir::Node* x = input;
  const bool reshape = in_spec.rank() != 2;
  const int64_t n = weight->spec().upper_bound_sizes()[0];
  if (reshape) {
    PTEC_ENFORCE(in_spec.is_static(), NotSupported,
                 "decompose: node %{} (aten::linear): a rank-{} input with symbolic dimensions",
                 node->name(), in_spec.rank());
    const std::vector<int64_t> sizes = in_spec.upper_bound_sizes();
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < sizes.size(); ++i) rows *= sizes[i];
    x = insert_call(g, ir::get_op("aten::view_copy"),
                    {input, std::vector<int64_t>{rows, sizes.back()}}, node, node);
  }
  ir::Node* y = bias.is_node()
                    ? insert_call(g, ir::get_op("aten::addmm"), {bias.as_node(), x, wt}, node, node)
                    : insert_call(g, ir::get_op("aten::mm"), {x, wt}, node, node);
  if (reshape) {
    std::vector<int64_t> sizes = in_spec.upper_bound_sizes();
    sizes.back() = n;
    y = insert_call(g, ir::get_op("aten::view_copy"), {y, sizes}, node, node);
  }
  finish(program, node, y);
}

// hardswish(x) = x * clamp(x + 3, 0, 6) / 6
void decompose_hardswish(ir::ExportedProgram& program, ir::Node* node) {
  ir::Graph& g = program.graph();
  ir::Node* x = tensor_arg(node, 0);
  ir::Node* shifted = insert_call(g, ir::get_op("aten::add.Scalar"), {x, 3.0}, node, node);
  ir::Node* clamped = insert_call(g, ir::get_op("aten::clamp"), {shifted, 0.0, 6.0}, node, node);
  ir::Node* product = insert_call(g, ir::get_op("aten::mul.Tensor"), {x, clamped}, node, node);
  finish(program, node, insert_call(g, ir::get_op("aten::div.Scalar"), {product, 6.0}, node, node));
}

// hardsigmoid(x) = clamp(x + 3, 0, 6) / 6
void decompose_hardsigmoid(ir::ExportedProgram& program, ir::Node* node) {
  ir::Graph& g = program.graph();
  ir::Node* x = tensor_arg(node, 0);
  ir::Node* shifted = insert_call(g, ir::get_op("aten::add.Scalar"), {x, 3.0}, node, node);
  ir::Node* clamped = insert_call(g, ir::get_op("aten::clamp"), {shifted, 0.0, 6.0}, node, node);
  finish(program, node, insert_call(g, ir::get_op("aten::div.Scalar"), {clamped, 6.0}, node, node));
}

// relu6(x) = hardtanh(x, 0, 6)
void decompose_relu6(ir::ExportedProgram& program, ir::Node* node) {
  ir::Graph& g = program.graph();
  finish(program, node,
         insert_call(g, ir::get_op("aten::hardtanh"), {tensor_arg(node, 0), 0.0, 6.0}, node, node));
}

bool is_allowed_without_out_variant(const ir::Node& node) {
  const ir::OpSchema& op = *node.op();
  if (memory::is_getitem(node)) return true;
  if (op.ns.empty() && op.name == "executorch_call_delegate") return true;
  return !op.returns_tensors();  // prim ops: sym_size, executorch_prim::*
}

}  // namespace

const std::map<std::string, Decomposition>& decomposition_table() {
  static const std::map<std::string, Decomposition> table = {
      {"aten::linear", decompose_linear},
      {"aten::hardswish", decompose_hardswish},
      {"aten::hardsigmoid", decompose_hardsigmoid},
      {"aten::relu6", decompose_relu6},
  };
  return table;
}

PassResult Decompose::run(ir::ExportedProgram& program) {
  const auto& table = decomposition_table();
  bool modified = false;
  // Decompositions may produce ops that decompose further: repeat until nothing changes.
  for (int round = 0; round < 16; ++round) {
    std::vector<ir::Node*> todo;
    for (ir::Node* node : program.graph().nodes()) {
      if (node->is_call() && node->op() != nullptr && table.count(node->target()) != 0 &&
          preserve_ops_.count(node->target()) == 0) {
        todo.push_back(node);
      }
    }
    if (todo.empty()) break;
    for (ir::Node* node : todo) {
      const std::string target = node->target();
      const std::string name = node->name();
      try {
        table.at(target)(program, node);
      } catch (const Exception& e) {
        throw Exception(e.code(),
                        std::string(e.what()).find(name) != std::string::npos
                            ? std::string(e.what())
                            : "decompose: node %" + name + " (" + target + "): " + e.what());
      }
    }
    modified = true;
  }
  for (const ir::Node* node : program.graph().nodes()) {
    if (!node->is_call() || node->op() == nullptr) continue;
    if (!node->op()->out_overload.empty() || preserve_ops_.count(node->target()) != 0) continue;
    if (is_allowed_without_out_variant(*node)) continue;
    raise(Error::InvalidProgram,
          "decompose: node %{} calls {}, which is not a core ATen op: it has no out variant and "
          "no decomposition (add a decomposition, or preserve it for a backend)",
          node->name(), node->target());
  }
  return {modified};
}

}  // namespace ptec::passes
