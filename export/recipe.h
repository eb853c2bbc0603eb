#pragma once

// Export recipes (DESIGN.md §9): what a good program for a target needs — quantizers,
// partitioners, Edge passes and configs — as one value a user picks by name instead of
// assembling it. ExportRecipe::combine builds whole-platform recipes out of backend recipes.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "export/export_stage_type.h"
#include "ir/exported_program.h"
#include "program/edge_compile_config.h"
#include "program/edge_program_manager.h"
#include "program/executorch_backend_config.h"

namespace ptec {

class ExportStage;

/// One set of inputs of a method (one tensor per user input).
using InputSet = std::vector<ir::TensorData>;

/// How calibration runs (QuantizationRecipe).
struct CalibrationSettings {
  /// Use at most this many calibration input sets (0: all of them). At least one always runs.
  size_t max_samples = 0;
  /// Show a progress bar when stderr is a terminal.
  bool show_progress = true;

  bool operator==(const CalibrationSettings&) const = default;
};

/// A post-training quantizer (DESIGN.md §8) as the QUANTIZE stage sees it: it takes an ATEN
/// program and calibration inputs and returns the quantized ATEN program (annotate, prepare,
/// calibrate, convert inside). quant/ plugs its quantizers in through this interface.
class Quantizer {
 public:
  virtual ~Quantizer() = default;
  /// Name used in provenance records and errors.
  virtual std::string name() const = 0;
  /// Returns the quantized form of `program` (stage ATEN; `program` itself is not changed).
  /// `calibration` holds at least one input set. Throws ptec::Exception on failure.
  virtual ir::ExportedProgram quantize(const ir::ExportedProgram& program,
                                       const std::vector<InputSet>& calibration,
                                       const CalibrationSettings& settings) const = 0;
};

/// The quantization part of a recipe: quantizers applied in order, and how they calibrate.
struct QuantizationRecipe {
  std::vector<std::shared_ptr<const Quantizer>> quantizers;
  CalibrationSettings calibration;

  /// True when there is nothing to quantize with.
  bool empty() const { return quantizers.empty(); }
};

/// The lowering part of a recipe: partitioners in priority order, Edge passes run before
/// partitioning, and the to_edge config.
struct LoweringRecipe {
  program::PartitionerList partitioners;
  program::PassList edge_transform_passes;
  program::EdgeCompileConfig edge_compile_config;
};

/// Everything export needs to know about the target (ExecuTorch's ExportRecipe).
struct ExportRecipe {
  std::string name;
  QuantizationRecipe quantization;
  LoweringRecipe lowering;
  program::ExecutorchBackendConfig backend_config;
  /// The stages to run, in order; empty: the default pipeline for the model's stage
  /// (ExportSession).
  std::vector<StageType> pipeline_stages;
  /// Stage implementations the recipe brings (export/export_stage.h), at most one per stage
  /// type: each replaces the built-in stage of its type for this recipe, or supplies a stage
  /// that has no built-in implementation (ENGINE_COMPILE). This is how a backend whose export
  /// export/ cannot link (backends/engine) plugs into ExportSession: its provider puts its
  /// stages here and ExportSession stays generic. ExportOptions::stages override these.
  std::vector<std::shared_ptr<const ExportStage>> stages;

  /// Merges `recipes` in order into one recipe called `name`: quantizers, partitioners and
  /// transform passes are concatenated (earlier recipes first: their partitioners have
  /// priority), preserve_ops are united, stage implementations are united by type, and every
  /// other setting is taken from the recipes that set it (a value other than the default). One
  /// recipe is returned as is (its name kept).
  ///
  /// Errors: InvalidArgument for an empty list; InvalidArgument naming the field (e.g.
  /// "backend_config.alignment", "quantization.calibration", "pipeline_stages",
  /// "stages[ENGINE_COMPILE]") and both recipes when two recipes set one field to different
  /// values (for stages: two different implementations of one stage type); InvalidArgument for
  /// a null stage or a recipe with two implementations of one stage type.
  static ExportRecipe combine(const std::vector<ExportRecipe>& recipes, const std::string& name);
};

}  // namespace ptec
