#include "export/export_stage.h"

#include "export/export_session.h"
#include "ir/exception.h"
#include "program/to_edge_transform_and_lower.h"

namespace ptec {
namespace {

using ir::Stage;

const std::map<std::string, ir::ExportedProgram>& need_aten(const PipelineArtifact& in,
                                                            StageType stage) {
  PTEC_ENFORCE(!in.edge && !in.executorch && !in.aten.empty(), InvalidState,
               "stage {} needs ATEN programs, but the pipeline is past ATEN", to_string(stage));
  return in.aten;
}

const program::EdgeProgramManager& need_edge(const PipelineArtifact& in, StageType stage) {
  PTEC_ENFORCE(in.edge.has_value(), InvalidState,
               "stage {} needs an Edge program manager (run TO_EDGE or "
               "TO_EDGE_TRANSFORM_AND_LOWER first)",
               to_string(stage));
  return *in.edge;
}

class QuantizeStage final : public ExportStage {
 public:
  StageType type() const override { return StageType::Quantize; }
  bool can_start() const override { return true; }
  std::vector<Stage> start_program_stages() const override { return {Stage::Aten}; }
  std::vector<StageType> valid_predecessors() const override { return {}; }
  PipelineArtifact run(const PipelineArtifact& in, const StageContext& ctx) const override {
    PipelineArtifact out;
    const QuantizationRecipe& q = ctx.recipe.quantization;
    for (const auto& [method, program] : need_aten(in, type())) {
      if (q.empty()) {
        out.aten.emplace(method, program);
        continue;
      }
      // Calibration inputs, defaulting to the example inputs; at least one set always runs.
      std::vector<InputSet> calibration;
      if (auto it = ctx.options.calibration_inputs.find(method);
          it != ctx.options.calibration_inputs.end() && !it->second.empty()) {
        calibration = it->second;
      } else if (auto ex = ctx.example_inputs.find(method); ex != ctx.example_inputs.end()) {
        calibration = ex->second;
      }
      PTEC_ENFORCE(!calibration.empty(), InvalidArgument,
                   "method {}: quantization needs at least one calibration input set (give "
                   "calibration_inputs or example inputs)",
                   method);
      if (q.calibration.max_samples > 0 && calibration.size() > q.calibration.max_samples) {
        calibration.resize(q.calibration.max_samples);
      }
      ir::ExportedProgram current = program;
      for (const auto& quantizer : q.quantizers) {
        ir::ExportedProgram next = quantizer->quantize(current, calibration, q.calibration);
        PTEC_ENFORCE(next.stage() == Stage::Aten, InvalidState,
                     "method {}: quantizer {} returned a program at stage {} (expected ATEN)",
                     method, quantizer->name(), ir::to_string(next.stage()));
        current = std::move(next);
      }
      out.aten.emplace(method, std::move(current));
    }
    return out;
  }
};

class ToEdgeTransformAndLowerStage final : public ExportStage {
 public:
  StageType type() const override { return StageType::ToEdgeTransformAndLower; }
  bool can_start() const override { return true; }
  std::vector<Stage> start_program_stages() const override { return {Stage::Aten}; }
  std::vector<StageType> valid_predecessors() const override { return {StageType::Quantize}; }
  PipelineArtifact run(const PipelineArtifact& in, const StageContext& ctx) const override {
    program::TransformAndLowerOptions o;
    o.transform_passes = ctx.recipe.lowering.edge_transform_passes;
    o.partitioners = ctx.recipe.lowering.partitioners;
    o.constant_methods = ctx.options.constant_methods;
    o.compile_config = ctx.recipe.lowering.edge_compile_config;
    o.generate_etrecord = ctx.options.generate_etrecord;
    PipelineArtifact out;
    out.edge = program::to_edge_transform_and_lower(need_aten(in, type()), o);
    return out;
  }
};

class ToEdgeStage final : public ExportStage {
 public:
  StageType type() const override { return StageType::ToEdge; }
  bool can_start() const override { return true; }
  std::vector<Stage> start_program_stages() const override { return {Stage::Aten}; }
  std::vector<StageType> valid_predecessors() const override { return {StageType::Quantize}; }
  PipelineArtifact run(const PipelineArtifact& in, const StageContext& ctx) const override {
    program::ToEdgeOptions o;
    o.constant_methods = ctx.options.constant_methods;
    o.compile_config = ctx.recipe.lowering.edge_compile_config;
    o.generate_etrecord = ctx.options.generate_etrecord;
    PipelineArtifact out;
    out.edge = program::to_edge(need_aten(in, type()), o);
    return out;
  }
};

class EdgeTransformStage final : public ExportStage {
 public:
  StageType type() const override { return StageType::EdgeTransform; }
  bool can_start() const override { return true; }
  std::vector<Stage> start_program_stages() const override { return {Stage::Edge}; }
  std::vector<StageType> valid_predecessors() const override { return {StageType::ToEdge}; }
  PipelineArtifact run(const PipelineArtifact& in, const StageContext& ctx) const override {
    const program::EdgeProgramManager& edge = need_edge(in, type());
    PipelineArtifact out;
    const program::PassList& passes = ctx.recipe.lowering.edge_transform_passes;
    out.edge = passes.empty() ? edge : edge.transform(passes);
    return out;
  }
};

class ToBackendStage final : public ExportStage {
 public:
  StageType type() const override { return StageType::ToBackend; }
  bool can_start() const override { return true; }
  std::vector<Stage> start_program_stages() const override { return {Stage::Edge}; }
  std::vector<StageType> valid_predecessors() const override {
    return {StageType::ToEdge, StageType::EdgeTransform};
  }
  PipelineArtifact run(const PipelineArtifact& in, const StageContext& ctx) const override {
    const program::EdgeProgramManager& edge = need_edge(in, type());
    PipelineArtifact out;
    const program::PartitionerList& partitioners = ctx.recipe.lowering.partitioners;
    out.edge = partitioners.empty() ? edge : edge.to_backend(partitioners);
    return out;
  }
};

class ToExecutorchStage final : public ExportStage {
 public:
  StageType type() const override { return StageType::ToExecutorch; }
  bool can_start() const override { return true; }
  std::vector<Stage> start_program_stages() const override { return {Stage::Edge, Stage::Lowered}; }
  std::vector<StageType> valid_predecessors() const override {
    return {StageType::ToEdgeTransformAndLower, StageType::ToEdge, StageType::EdgeTransform,
            StageType::ToBackend};
  }
  PipelineArtifact run(const PipelineArtifact& in, const StageContext& ctx) const override {
    const program::EdgeProgramManager& edge = need_edge(in, type());
    PipelineArtifact out;
    out.edge = edge;
    out.executorch = edge.to_executorch(ctx.recipe.backend_config);
    return out;
  }
};

}  // namespace

std::shared_ptr<const ExportStage> builtin_stage(StageType type) {
  switch (type) {
    case StageType::Quantize: return std::make_shared<QuantizeStage>();
    case StageType::EngineCompile:
      raise(Error::InvalidArgument,
            "stage ENGINE_COMPILE needs an implementation: use a recipe of the engine recipe "
            "provider (e.g. engine_cpu_fp32; ptec::engine::register_engine_recipe_provider() "
            "registers it) or give one in ExportRecipe::stages or ExportOptions::stages");
    case StageType::ToEdgeTransformAndLower:
      return std::make_shared<ToEdgeTransformAndLowerStage>();
    case StageType::ToEdge: return std::make_shared<ToEdgeStage>();
    case StageType::EdgeTransform: return std::make_shared<EdgeTransformStage>();
    case StageType::ToBackend: return std::make_shared<ToBackendStage>();
    case StageType::ToExecutorch: return std::make_shared<ToExecutorchStage>();
  }
  raise(Error::InvalidArgument, "unknown stage type {}", static_cast<int>(type));
}

}  // namespace ptec
