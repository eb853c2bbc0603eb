#include "export/recipe.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "export/export_stage.h"
#include "ir/exception.h"

namespace ptec {

const char* to_string(StageType stage) {
  switch (stage) {
    case StageType::Quantize: return "QUANTIZE";
    case StageType::EngineCompile: return "ENGINE_COMPILE";
    case StageType::ToEdgeTransformAndLower: return "TO_EDGE_TRANSFORM_AND_LOWER";
    case StageType::ToEdge: return "TO_EDGE";
    case StageType::EdgeTransform: return "EDGE_TRANSFORM";
    case StageType::ToBackend: return "TO_BACKEND";
    case StageType::ToExecutorch: return "TO_EXECUTORCH";
  }
  return "UNKNOWN";
}

const std::vector<StageType>& all_stage_types() {
  static const std::vector<StageType> types = {
      StageType::Quantize,    StageType::EngineCompile, StageType::ToEdgeTransformAndLower,
      StageType::ToEdge,      StageType::EdgeTransform, StageType::ToBackend,
      StageType::ToExecutorch};
  return types;
}

namespace {

const char* to_string(emit::MemoryPlanning planning) {
  return planning == emit::MemoryPlanning::Greedy ? "greedy" : "naive";
}
std::string describe(bool value) { return value ? "true" : "false"; }
std::string describe(uint64_t value) { return std::to_string(value); }
std::string describe(emit::MemoryPlanning value) { return to_string(value); }
std::string describe(const CalibrationSettings& c) {
  return fmt::format("{{max_samples={}, show_progress={}}}", c.max_samples, c.show_progress);
}
std::string describe(const std::vector<StageType>& stages) {
  std::vector<std::string> names;
  for (StageType s : stages) names.emplace_back(to_string(s));
  return fmt::format("[{}]", fmt::join(names, ", "));
}

// Merges one field: a recipe sets it when its value differs from the default; two recipes
// that set it to different values conflict.
class FieldMerger {
 public:
  explicit FieldMerger(std::string result_name) : result_name_(std::move(result_name)) {}

  template <typename T>
  void merge(const char* field, T& into, std::string& into_setter, const T& value,
             const T& default_value, const std::string& recipe) {
    if (value == default_value) return;
    if (!into_setter.empty() && !(into == value)) {
      raise(Error::InvalidArgument,
            "cannot combine recipes into '{}': field {} is {} in recipe '{}' but {} in recipe '{}'",
            result_name_, field, describe(into), into_setter, describe(value), recipe);
    }
    into = value;
    into_setter = recipe;
  }

 private:
  std::string result_name_;
};

}  // namespace

ExportRecipe ExportRecipe::combine(const std::vector<ExportRecipe>& recipes,
                                   const std::string& name) {
  PTEC_ENFORCE(!recipes.empty(), InvalidArgument,
               "cannot combine recipes into '{}': the list of recipes is empty", name);
  if (recipes.size() == 1) return recipes.front();

  ExportRecipe out;
  out.name = name;
  const ExportRecipe defaults;
  FieldMerger m(name);
  // Which recipe set each single-valued field (empty: none yet).
  std::map<std::string, std::string> setters;
  auto setter = [&](const char* field) -> std::string& { return setters[field]; };

  for (size_t i = 0; i < recipes.size(); ++i) {
    const ExportRecipe& r = recipes[i];
    const std::string who = r.name.empty() ? fmt::format("#{}", i) : r.name;

    // Quantization: quantizers in order; one calibration setting.
    out.quantization.quantizers.insert(out.quantization.quantizers.end(),
                                       r.quantization.quantizers.begin(),
                                       r.quantization.quantizers.end());
    m.merge("quantization.calibration", out.quantization.calibration,
            setter("quantization.calibration"), r.quantization.calibration,
            defaults.quantization.calibration, who);

    // Lowering: partitioners and passes in order (earlier recipes first), preserve_ops united.
    out.lowering.partitioners.insert(out.lowering.partitioners.end(),
                                     r.lowering.partitioners.begin(),
                                     r.lowering.partitioners.end());
    out.lowering.edge_transform_passes.insert(out.lowering.edge_transform_passes.end(),
                                              r.lowering.edge_transform_passes.begin(),
                                              r.lowering.edge_transform_passes.end());
    const program::EdgeCompileConfig& ec = r.lowering.edge_compile_config;
    const program::EdgeCompileConfig& dec = defaults.lowering.edge_compile_config;
    program::EdgeCompileConfig& oec = out.lowering.edge_compile_config;
    m.merge("lowering.edge_compile_config.check_ir_validity", oec.check_ir_validity,
            setter("check_ir_validity"), ec.check_ir_validity, dec.check_ir_validity, who);
    m.merge("lowering.edge_compile_config.skip_dim_order", oec.skip_dim_order,
            setter("skip_dim_order"), ec.skip_dim_order, dec.skip_dim_order, who);
    for (const std::string& op : ec.preserve_ops) {
      if (std::find(oec.preserve_ops.begin(), oec.preserve_ops.end(), op) ==
          oec.preserve_ops.end()) {
        oec.preserve_ops.push_back(op);
      }
    }

    // Backend config, field by field.
    const program::ExecutorchBackendConfig& bc = r.backend_config;
    const program::ExecutorchBackendConfig& dbc = defaults.backend_config;
    program::ExecutorchBackendConfig& obc = out.backend_config;
    m.merge("backend_config.memory_planning", obc.memory_planning, setter("memory_planning"),
            bc.memory_planning, dbc.memory_planning, who);
    for (const auto& [method, planning] : bc.memory_planning_per_method) {
      const std::string field = "backend_config.memory_planning_per_method[" + method + "]";
      auto [it, inserted] = obc.memory_planning_per_method.emplace(method, planning);
      std::string& s = setters[field];
      if (inserted) {
        s = who;
      } else if (it->second != planning) {
        raise(Error::InvalidArgument,
              "cannot combine recipes into '{}': field {} is {} in recipe '{}' but {} in recipe "
              "'{}'",
              name, field, to_string(it->second), s, to_string(planning), who);
      }
    }
    m.merge("backend_config.alignment", obc.alignment, setter("alignment"), bc.alignment,
            dbc.alignment, who);
    m.merge("backend_config.alloc_graph_input", obc.alloc_graph_input, setter("alloc_graph_input"),
            bc.alloc_graph_input, dbc.alloc_graph_input, who);
    m.merge("backend_config.alloc_graph_output", obc.alloc_graph_output,
            setter("alloc_graph_output"), bc.alloc_graph_output, dbc.alloc_graph_output, who);
    m.merge("backend_config.external_constants", obc.external_constants,
            setter("external_constants"), bc.external_constants, dbc.external_constants, who);
    m.merge("backend_config.segment_alignment", obc.segment_alignment, setter("segment_alignment"),
            bc.segment_alignment, dbc.segment_alignment, who);
    m.merge("backend_config.extract_delegate_segments", obc.extract_delegate_segments,
            setter("extract_delegate_segments"), bc.extract_delegate_segments,
            dbc.extract_delegate_segments, who);
    m.merge("backend_config.constant_tensor_alignment", obc.constant_tensor_alignment,
            setter("constant_tensor_alignment"), bc.constant_tensor_alignment,
            dbc.constant_tensor_alignment, who);

    m.merge("pipeline_stages", out.pipeline_stages, setter("pipeline_stages"), r.pipeline_stages,
            defaults.pipeline_stages, who);

    // Stage implementations: one per type; the same object from two recipes is no conflict.
    std::map<StageType, bool> own;
    for (const auto& stage : r.stages) {
      PTEC_ENFORCE(stage != nullptr, InvalidArgument,
                   "cannot combine recipes into '{}': recipe '{}' has a null stage", name, who);
      const StageType type = stage->type();
      const std::string field = fmt::format("stages[{}]", to_string(type));
      PTEC_ENFORCE(!own[type], InvalidArgument,
                   "cannot combine recipes into '{}': recipe '{}' has two implementations of "
                   "field {}",
                   name, who, field);
      own[type] = true;
      auto it = std::find_if(out.stages.begin(), out.stages.end(),
                             [&](const auto& s) { return s->type() == type; });
      if (it == out.stages.end()) {
        out.stages.push_back(stage);
        setters[field] = who;
      } else if (*it != stage) {
        raise(Error::InvalidArgument,
              "cannot combine recipes into '{}': field {} has one implementation in recipe '{}' "
              "and another in recipe '{}'",
              name, field, setters[field], who);
      }
    }
  }
  return out;
}

}  // namespace ptec
