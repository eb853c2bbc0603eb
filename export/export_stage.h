#pragma once

// The stages of ExportSession's pipeline. Each stage declares whether it may start a pipeline,
// which program stages it can start from, and which stages may come right before it (an empty
// list means "may only start", never "anything"). A recipe replaces a built-in stage, or supplies
// one that has no built-in implementation (ENGINE_COMPILE), in ExportRecipe::stages; users
// replace either by passing a stage of the same type in ExportOptions::stages.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "export/export_stage_type.h"
#include "export/recipe.h"
#include "ir/exported_program.h"
#include "program/edge_program_manager.h"
#include "program/executorch_program_manager.h"

namespace ptec {

struct ExportOptions;

/// What flows between stages: the ATEN programs until an Edge manager exists, then the Edge
/// manager, then the ExecuTorch manager.
struct PipelineArtifact {
  std::map<std::string, ir::ExportedProgram> aten;
  std::optional<program::EdgeProgramManager> edge;
  std::optional<program::ExecutorchProgramManager> executorch;
};

/// What a stage may read besides its input.
struct StageContext {
  const ExportRecipe& recipe;
  const ExportOptions& options;
  /// Example input sets by method (the caller's, or the program's own).
  const std::map<std::string, std::vector<InputSet>>& example_inputs;
};

/// One stage of the pipeline.
class ExportStage {
 public:
  virtual ~ExportStage() = default;
  virtual StageType type() const = 0;
  /// May this stage be the first one?
  virtual bool can_start() const = 0;
  /// The program stages a pipeline starting with this stage may receive.
  virtual std::vector<ir::Stage> start_program_stages() const = 0;
  /// The stages that may run right before this one (empty: may only start).
  virtual std::vector<StageType> valid_predecessors() const = 0;
  /// Runs the stage on `input` and returns the new artifact (`input` is not changed). Throws
  /// ptec::Exception (InvalidState when `input` lacks what the stage needs).
  virtual PipelineArtifact run(const PipelineArtifact& input,
                               const StageContext& context) const = 0;
};

/// The built-in stage of `type`. InvalidArgument for ENGINE_COMPILE, which has none (the
/// message says where one comes from).
std::shared_ptr<const ExportStage> builtin_stage(StageType type);

}  // namespace ptec
