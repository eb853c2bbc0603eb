#pragma once

// ptec::export_model — ExecuTorch's `executorch.export` in C++ (C++ reserves `export`): one call
// from a model (an ONNX file, a builder or imported ExportedProgram at any stage, or a method →
// model map) and a recipe to an ExecuTorch program, with the intermediate results, timings and a
// runner kept in an ExportSession (DESIGN.md §9).
//
// Default pipelines, by the stage the model is in:
//   ATEN     [QUANTIZE (when the recipe has quantizers)] TO_EDGE_TRANSFORM_AND_LOWER TO_EXECUTORCH
//   EDGE     [EDGE_TRANSFORM (when the recipe has passes)] TO_BACKEND TO_EXECUTORCH
//   LOWERED  TO_EXECUTORCH (the program is not lowered again)
// A recipe's pipeline_stages replaces the default; it must fit the model's stage. Each stage
// runs the implementation from ExportOptions::stages, else from ExportRecipe::stages, else the
// built-in one (ENGINE_COMPILE has none: the engine recipes bring it, see
// backends/engine/aot/engine_recipe_provider.h).

#include <chrono>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "emit/constant_value.h"
#include "export/export_stage.h"
#include "export/recipe.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/exported_program.h"

namespace ptec {

namespace runtime {
class Module;
}

/// One method's model: an ONNX file path or a program (ATEN, EDGE or LOWERED).
using MethodModel = std::variant<std::string, ir::ExportedProgram>;
/// A model: one method's model (method "forward") or a method → model map.
using Model = std::variant<std::string, ir::ExportedProgram, std::map<std::string, MethodModel>>;

/// Example input sets: a list for a single model ("forward"), or a list per method.
struct ExampleInputs {
  ExampleInputs() = default;
  /* implicit */ ExampleInputs(std::vector<InputSet> sets) {
    by_method.emplace("forward", std::move(sets));
  }
  /* implicit */ ExampleInputs(std::map<std::string, std::vector<InputSet>> sets)
      : by_method(std::move(sets)) {}
  std::map<std::string, std::vector<InputSet>> by_method;
};

/// Options of export_model.
struct ExportOptions {
  /// Names the export in errors and the files written to artifact_dir.
  std::string name = "model";
  /// Dynamic dims of the ONNX models, by method ("forward" for a single model).
  std::map<std::string, std::vector<onnx_import::DynamicDim>> dynamic_shapes;
  std::map<std::string, emit::ConstantValue> constant_methods;
  /// Calibration input sets by method; a method without any calibrates on its example inputs.
  std::map<std::string, std::vector<InputSet>> calibration_inputs;
  /// When set, the .pte (and .ptd, and with generate_etrecord the .etrecord) are written there
  /// as <name>.pte / <name>.etrecord after TO_EXECUTORCH.
  std::string artifact_dir;
  bool generate_etrecord = false;
  /// Stages that replace the recipe's or the built-in stage of the same type.
  std::vector<std::shared_ptr<const ExportStage>> stages;
};

/// Time a stage took.
struct StageTiming {
  std::string stage;  ///< "IMPORT" or a StageType name
  double ms = 0;
};

/// What the backends took in one method.
struct DelegationInfo {
  /// backend id → number of delegates.
  std::map<std::string, size_t> delegates;
  /// backend id → number of ops the delegates replaced.
  std::map<std::string, size_t> delegated_ops;
  /// Ops left to the kernels.
  size_t non_delegated_ops = 0;
};

/// The results of one export (ExecuTorch's ExportSession). Not copyable.
class ExportSession {
 public:
  /// Nothing runs until run().
  ExportSession(Model model, ExampleInputs example_inputs, ExportRecipe recipe,
                ExportOptions options = {});
  ~ExportSession();
  ExportSession(ExportSession&&) noexcept;
  ExportSession& operator=(ExportSession&&) noexcept;

  /// Imports the model and runs the pipeline. Everything from an earlier run is dropped first,
  /// so after a failure the getters show only what this run produced. Errors: InvalidArgument /
  /// InvalidState for a pipeline that does not fit the model (naming the stage and the program
  /// stage), for methods at different stages, for example or calibration inputs of unknown
  /// methods; a stage's error prefixed with "<name>: stage <STAGE>: ".
  void run();

  /// The pipeline of the last run (resolved from the recipe and the model's stage).
  const std::vector<StageType>& pipeline() const { return pipeline_; }
  /// The ATEN program of `method` (after the last stage that kept it at ATEN — QUANTIZE,
  /// ENGINE_COMPILE — when one ran). InvalidState naming IMPORT when
  /// the model was not imported, or saying the model started past ATEN.
  const ir::ExportedProgram& get_exported_program(const std::string& method = "forward") const;
  /// InvalidState naming TO_EDGE / TO_EDGE_TRANSFORM_AND_LOWER before one ran.
  const program::EdgeProgramManager& get_edge_program_manager() const;
  /// InvalidState naming TO_EXECUTORCH before it ran.
  const program::ExecutorchProgramManager& get_executorch_program_manager() const;
  /// The .pte bytes. InvalidState naming TO_EXECUTORCH before it ran.
  std::vector<uint8_t> get_pte_buffer() const;
  /// The record (generate_etrecord). InvalidState naming TO_EXECUTORCH or the flag.
  const devtools::ETRecord& get_etrecord() const;
  /// Writes the .pte to `path` (".pte" appended when missing) and, when the program has
  /// external data, the .ptd of the same stem beside it. Returns the .pte path.
  std::string save_pte_file(const std::string& path) const;
  /// Runs `method` with ptec's runtime (optimized and portable kernels, PtecCpuBackend) on
  /// `inputs`, by default the method's first example input set. Returns the outputs (tensor
  /// outputs only). Errors: InvalidState naming TO_EXECUTORCH before it ran; InvalidArgument
  /// without inputs; the runtime's errors naming the method.
  std::vector<ir::TensorData> run_method(const std::string& method = "forward",
                                         const std::optional<InputSet>& inputs = std::nullopt);
  /// Timings of the last run: IMPORT (when a file was imported), then each stage that ran.
  const std::vector<StageTiming>& stage_timings() const { return timings_; }
  /// Per method: delegates and ops per backend. InvalidState before an Edge manager exists.
  std::map<std::string, DelegationInfo> delegation_info() const;
  /// Prints delegation_info() as a table (stdout by default).
  void print_delegation_info(std::ostream& out) const;
  void print_delegation_info() const;

 private:
  void clear();
  std::string missing(const char* what, const std::string& stages) const;

  Model model_;
  ExampleInputs example_inputs_;
  ExportRecipe recipe_;
  ExportOptions options_;

  // Results of the last run.
  std::vector<StageType> pipeline_;
  std::map<std::string, std::vector<InputSet>> resolved_inputs_;
  std::map<std::string, ir::ExportedProgram> aten_;
  std::optional<ir::Stage> start_stage_;
  std::optional<program::EdgeProgramManager> edge_;
  std::optional<program::ExecutorchProgramManager> executorch_;
  std::vector<StageTiming> timings_;
  std::string failed_stage_;
  // run_method's runtime (made on first use).
  struct Runner;
  std::unique_ptr<Runner> runner_;
};

/// Runs the export at once: ExportSession(model, example_inputs, recipe, options).run().
ExportSession export_model(Model model, ExampleInputs example_inputs, ExportRecipe recipe,
                           ExportOptions options = {});

}  // namespace ptec
