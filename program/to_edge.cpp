#include "program/to_edge.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "ir/exception.h"
#include "ir/op_schema.h"
#include "memory/lifetime.h"
#include "passes/batch_norm_folding.h"
#include "passes/dead_code_elimination.h"
#include "passes/decompose.h"
#include "passes/group_norm_fusion.h"
#include "passes/half_to_float.h"
#include "passes/infer_view_size.h"
#include "passes/pad_folding.h"
#include "passes/pass_manager.h"

namespace ptec::program {

void check_ir_validity(const ir::ExportedProgram& program, const EdgeCompileConfig& config) {
  const std::set<std::string> preserved(config.preserve_ops.begin(), config.preserve_ops.end());
  for (const ir::Node* node : program.graph().nodes()) {
    if (!node->is_call()) continue;
    const ir::OpSchema* op = node->op();
    PTEC_ENFORCE(op != nullptr, InvalidProgram, "to_edge: node %{} calls {} with no op schema",
                 node->name(), node->target());
    if (!op->out_overload.empty() || preserved.count(node->target()) != 0) continue;
    if (memory::is_getitem(*node)) continue;
    if (op->ns.empty() && op->name == "executorch_call_delegate") continue;
    if (!op->returns_tensors()) continue;  // prim ops
    raise(Error::InvalidProgram,
          "to_edge: node %{} calls {}, which is not a core ATen op with an out variant; "
          "decompose it or add it to EdgeCompileConfig::preserve_ops",
          node->name(), node->target());
  }
}

ir::ExportedProgram to_edge(const ir::ExportedProgram& aten, const EdgeCompileConfig& config) {
  PTEC_ENFORCE(aten.stage() == ir::Stage::Aten, InvalidState,
               "to_edge: the program is at stage {}; to_edge takes a program at stage {}",
               ir::to_string(aten.stage()), ir::to_string(ir::Stage::Aten));
  ir::ExportedProgram edge(aten);  // structure only; payloads are shared

  passes::PassManager manager;
  if (config.compute_half_in_float) manager.add(std::make_unique<passes::HalfToFloat>());
  manager.add(std::make_unique<passes::Decompose>(
      std::set<std::string>(config.preserve_ops.begin(), config.preserve_ops.end())));
  manager.add(std::make_unique<passes::BatchNormFolding>());
  manager.add(std::make_unique<passes::PadFolding>());
  manager.add(std::make_unique<passes::GroupNormFusion>());
  manager.add(std::make_unique<passes::InferViewSize>());
  manager.add(std::make_unique<passes::DeadCodeElimination>());
  manager.run(edge);

  if (config.check_ir_validity) check_ir_validity(edge, config);
  edge.set_stage(ir::Stage::Edge);
  edge.provenance().push_back(
      {"to_edge", fmt::format("check_ir_validity={}, preserve_ops=[{}], skip_dim_order={}, "
                              "compute_half_in_float={}",
                              config.check_ir_validity, fmt::join(config.preserve_ops, ", "),
                              config.skip_dim_order, config.compute_half_in_float)});
  return edge;
}

}  // namespace ptec::program
