#pragma once

// Post-training quantization of ATEN-stage programs (DESIGN.md §8), PT2E's flow:
//
//   PreparedProgram p = prepare(program, quantizer);   // fold batch norms, annotate, observers
//   calibrate(p, calibration_inputs);                  // run the program, observers see values
//   ir::ExportedProgram q = convert(p);                // quantized_decomposed patterns
//
// convert emits what ExecuTorch's convert_pt2e emits (and PtecCpuBackend fuses):
//  - static activations: x → quantize_per_tensor(x, scale, zero_point, qmin, qmax, dtype) →
//    one dequantize_per_tensor per user (scale and zero point as numbers);
//  - dynamic activations: choose_qparams.tensor(x) → quantize_per_tensor.tensor →
//    dequantize_per_tensor.tensor, on the edge into the op, parameters computed each run;
//  - int8 weights: stored as int8 PARAMETERs (with Double scales and Long zero points) and a
//    dequantize_per_channel (per-tensor: dequantize_per_tensor) per use;
//  - int4 per-group weights: stored as int8 [N, K] holding values in [-8, 7] with Double scales
//    [N * K / group_size]; each use is view_copy [N * K / g, g] → dequantize_per_channel(axis 0,
//    -8, 7) → view_copy [N, K] (→ permute_copy for a [K, N] weight): the per-group dequantize
//    written with the per-channel op, so the portable kernels run it as is.
// Biases stay float. The result is an ATEN program; it runs end to end on the portable kernels.

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "quant/observer.h"
#include "quant/quantizer.h"

namespace ptec::quant {

/// One observed set of quantization parameters: the values sharing them and their observer.
struct ObserverGroup {
  QuantizationSpec spec;
  std::vector<std::string> values;  // node names (user-input placeholders included)
  std::unique_ptr<Observer> observer;
};

/// A constant stored quantized: its placeholder, spec and observer (fed at prepare).
struct WeightQuantization {
  std::string placeholder;
  QuantizationSpec spec;
  std::unique_ptr<Observer> observer;
};

/// A program annotated and with observers, ready for calibration.
struct PreparedProgram {
  /// The program calibration runs (a copy of the input with batch norms folded).
  ir::ExportedProgram program;
  std::string quantizer;
  Annotations annotations;
  std::vector<ObserverGroup> groups;
  /// Value name → index into groups.
  std::map<std::string, size_t> group_of;
  /// Key "<placeholder>|<spec>" → weight.
  std::map<std::string, WeightQuantization> weights;
  /// Calibration runs so far.
  size_t calibration_runs = 0;
};

/// Folds batch norms into convolutions (passes/batch_norm_folding) on a copy of `program`,
/// annotates it with `quantizer` and creates the observers; weight observers see their constants
/// at once. Errors: InvalidArgument when the program is not at stage ATEN, naming the stage;
/// InvalidArgument naming the node when an annotation refers to an argument that is not an
/// activation or a constant.
PreparedProgram prepare(const ir::ExportedProgram& program, const Quantizer& quantizer);

struct CalibrationOptions {
  /// Use at most this many input sets (0: all).
  size_t max_samples = 0;
  /// A progress bar on stderr — only when stderr is a terminal.
  bool show_progress = true;
};

/// Runs the prepared program on each input set (on the portable kernels, via the reference
/// runner) and feeds every observed value to its observer. At least one set is required
/// (InvalidArgument otherwise), also when nothing is observed (dynamic quantization): a run
/// checks that the program runs.
void calibrate(PreparedProgram& prepared, const std::vector<std::vector<ir::TensorData>>& inputs,
               const CalibrationOptions& options = {});

/// The quantized ATEN program. InvalidState when calibration never ran or an observer saw no
/// data (naming the value).
ir::ExportedProgram convert(const PreparedProgram& prepared);

/// prepare → calibrate → convert.
ir::ExportedProgram quantize(const ir::ExportedProgram& program, const Quantizer& quantizer,
                             const std::vector<std::vector<ir::TensorData>>& calibration_inputs,
                             const CalibrationOptions& options = {});

/// Signal-to-quantization-noise ratio 10 log10(sum x^2 / sum (x - y)^2) in dB between a
/// reference `x` and `y` (Float tensors of the same size; +inf when they are equal).
double sqnr_db(const ir::TensorData& reference, const ir::TensorData& value);

}  // namespace ptec::quant
