#include "passes/group_norm_fusion.h"

#include <cstring>
#include <map>
#include <vector>

#include "ir/exported_program.h"
#include "ir/op_schema.h"
#include "memory/lifetime.h"
#include "passes/rewrite_utils.h"

namespace ptec::passes {
namespace {

/// The only reader of `node`, when it has exactly one and is not a program output.
ir::Node* only_user(const ir::ExportedProgram& program, const ir::Node* node) {
  if (node->users().size() != 1 || is_program_output(program, node)) return nullptr;
  return node->users()[0];
}

/// The data of `node` where it is a placeholder of a static fp32 constant, else null.
const ir::TensorData* float_constant(const ir::ExportedProgram& program, const ir::Node* node) {
  if (node == nullptr) return nullptr;
  const ir::TensorData* data = program.constant_for_placeholder(node->name());
  if (data == nullptr || data->spec.dtype != DType::Float || !data->spec.is_static())
    return nullptr;
  return data;
}

/// True when `a` is absent or a constant whose values all equal `value`.
bool absent_or_all(const ir::ExportedProgram& program, const ir::Argument& a, float value) {
  if (a.is_none()) return true;
  const ir::TensorData* data = float_constant(program, a.is_node() ? a.as_node() : nullptr);
  if (data == nullptr) return false;
  const size_t n = data->data->size() / sizeof(float);
  for (size_t i = 0; i < n; ++i) {
    float v;
    std::memcpy(&v, data->data->data() + i * sizeof(float), sizeof(float));
    if (v != value) return false;
  }
  return true;
}

/// A constant that holds one value per channel of x (its dim 1) and broadcasts along the others:
/// right-aligned with x's sizes, C at dim 1 and 1 elsewhere.
bool per_channel(const ir::ExportedProgram& program, const ir::Node* constant,
                 const std::vector<int64_t>& x) {
  const ir::TensorData* data = float_constant(program, constant);
  if (data == nullptr) return false;
  const std::vector<int64_t> sizes = data->spec.upper_bound_sizes();
  if (sizes.size() > x.size() || sizes.size() + 1 < x.size()) return false;
  const size_t offset = x.size() - sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] != (i + offset == 1 ? x[1] : 1)) return false;
  }
  return true;
}

/// The operand of binary `op` (a mul.Tensor, or an add.Tensor of alpha 1) that is not `from`,
/// when it is a per-channel constant of x.
ir::Node* affine_operand(const ir::ExportedProgram& program, const ir::Node* op,
                         const ir::Node* from, const std::vector<int64_t>& x) {
  if (op->args().size() < 2 || !op->arg(0).is_node() || !op->arg(1).is_node()) return nullptr;
  if (op->is_op("aten::add.Tensor")) {
    const ir::Argument alpha = op->args().size() > 2 ? op->arg(2) : ir::Argument(int64_t{1});
    if (!(alpha.is_int() && alpha.as_int() == 1) &&
        !(alpha.is_double() && alpha.as_double() == 1)) {
      return nullptr;
    }
  } else if (!op->is_op("aten::mul.Tensor")) {
    return nullptr;
  }
  ir::Node* a = op->arg(0).as_node();
  ir::Node* b = op->arg(1).as_node();
  ir::Node* other = a == from ? b : b == from ? a : nullptr;
  if (other == nullptr || other == from || op->spec().upper_bound_sizes() != x ||
      !per_channel(program, other, x)) {
    return nullptr;
  }
  return other;
}

/// A [C] parameter sharing `constant`'s bytes (one per constant: `made` remembers them).
ir::Node* flat_parameter(ir::ExportedProgram& program, ir::Node* constant, int64_t channels,
                         std::map<const ir::Node*, ir::Node*>& made) {
  if (auto it = made.find(constant); it != made.end()) return it->second;
  const ir::TensorData* data = program.constant_for_placeholder(constant->name());
  ir::TensorData flat{ir::TensorSpec(DType::Float, std::vector<int64_t>{channels}), data->data};
  ir::Node* flat_node =
      add_parameter(program, constant->name() + "_per_channel", std::move(flat), constant);
  made[constant] = flat_node;
  return flat_node;
}

bool fuse(ir::ExportedProgram& program, ir::Node* norm,
          std::map<const ir::Node*, ir::Node*>& made) {
  if (norm->args().size() < 8 || !norm->arg(0).is_node()) return false;
  ir::Node* v = norm->arg(0).as_node();
  if (!v->is_op("aten::view_copy") || v->users().size() != 1 || is_program_output(program, v) ||
      !v->arg(0).is_node()) {
    return false;
  }
  ir::Node* x = v->arg(0).as_node();
  if (x->meta().val.size() != 1 || !x->spec().is_static() || x->spec().dtype != DType::Float ||
      x->spec().rank() < 3) {
    return false;
  }
  const std::vector<int64_t> sizes = x->spec().upper_bound_sizes();
  const int64_t n = sizes[0], c = sizes[1];
  int64_t inner = 1;
  for (size_t i = 2; i < sizes.size(); ++i) inner *= sizes[i];
  for (size_t i = 3; i <= 6; ++i) {
    if (!norm->arg(i).is_int()) return false;
  }
  const int64_t groups = norm->arg(6).as_int();
  if (groups <= 0 || c % groups != 0 || norm->arg(3).as_int() != n ||
      norm->arg(4).as_int() != groups || norm->arg(5).as_int() != c / groups * inner ||
      v->spec().upper_bound_sizes() != std::vector<int64_t>{n, groups, c / groups * inner} ||
      !absent_or_all(program, norm->arg(1), 1.0f) || !absent_or_all(program, norm->arg(2), 0.0f)) {
    return false;
  }
  // Only the normalized values are used, through one getitem that the second view alone reads.
  ir::Node* values = nullptr;
  for (ir::Node* item : norm->users()) {
    if (!memory::is_getitem(*item)) return false;
    if (memory::resolve_value(item).second == 0) {
      if (values != nullptr) return false;
      values = item;
    } else if (!item->users().empty()) {
      return false;
    }
  }
  if (values == nullptr) return false;
  ir::Node* u = only_user(program, values);
  if (u == nullptr || !u->is_op("aten::view_copy") || u->spec().upper_bound_sizes() != sizes) {
    return false;
  }
  // The affine: mul by gamma, then add beta (each where it is there).
  ir::Node* tail = u;
  std::vector<ir::Node*> chain{u};  // u, then the mul and the add taken
  ir::Node* gamma = nullptr;
  ir::Node* beta = nullptr;
  ir::Node* next = only_user(program, tail);
  if (next != nullptr && next->is_op("aten::mul.Tensor")) {
    gamma = affine_operand(program, next, tail, sizes);
    if (gamma != nullptr) chain.push_back(tail = next);
  }
  next = only_user(program, tail);
  if (next != nullptr && next->is_op("aten::add.Tensor")) {
    beta = affine_operand(program, next, tail, sizes);
    if (beta != nullptr) chain.push_back(tail = next);
  }

  ir::ArgumentList args = norm->args();
  args[0] = x;
  args[1] =
      gamma != nullptr ? ir::Argument(flat_parameter(program, gamma, c, made)) : ir::Argument();
  args[2] = beta != nullptr ? ir::Argument(flat_parameter(program, beta, c, made)) : ir::Argument();
  args[4] = c;
  args[5] = inner;
  ir::Graph& graph = program.graph();
  graph.set_args(norm, args);
  const ir::TensorSpec stats(DType::Float, std::vector<int64_t>{n, groups});
  norm->meta().val = {x->spec(), stats, stats};
  for (ir::Node* item : norm->users()) {
    item->meta().val = {norm->meta().val[static_cast<size_t>(memory::resolve_value(item).second)]};
  }
  replace_all_uses(program, tail, values);
  // The affine ops and the views, now unread, last first.
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) graph.erase(*it);
  graph.erase(v);
  return true;
}

}  // namespace

PassResult GroupNormFusion::run(ir::ExportedProgram& program) {
  std::vector<ir::Node*> candidates;
  for (ir::Node* node : program.graph().nodes()) {
    if (node->is_op("aten::native_group_norm")) candidates.push_back(node);
  }
  bool modified = false;
  std::map<const ir::Node*, ir::Node*> made;  // constant -> its [C] view
  for (ir::Node* norm : candidates) modified |= fuse(program, norm, made);
  if (modified) remove_unused_constants(program);
  return {modified};
}

}  // namespace ptec::passes
