#pragma once

// The recipe providers and target recipes the registry starts with (recipe_registry.h).

#include <memory>
#include <vector>

#include "export/recipe_registry.h"

namespace ptec::quant {
class Quantizer;
}

namespace ptec {

/// "portable": every op on the kernels (no partitioners). Recipe type "portable".
/// "cpu": PtecCpuBackend. Recipe types "cpu_fp32" and the quantized types (quant/'s
/// CpuQuantizer run by the QUANTIZE stage, then the CPU partitioner):
/// "cpu_int8_dynamic_per_channel", "cpu_int8_static_per_channel", "cpu_int8_static_per_tensor"
/// and "cpu_int4_weight_per_group" (kwarg group_size: a positive int, default 32).
std::vector<std::shared_ptr<const BackendRecipeProvider>> builtin_recipe_providers();

/// "x86_64-cpu-fp32": cpu_fp32 combined with portable (PtecCpuBackend first, the kernels for
/// the rest); "x86_64-cpu-int8": cpu_int8_static_per_channel combined with portable.
std::vector<TargetRecipeInfo> builtin_target_recipes();

/// The QUANTIZE stage's Quantizer for a quant/ quantizer: prepare → calibrate (on the
/// calibration inputs, CalibrationSettings applied) → convert. InvalidArgument for null.
std::shared_ptr<const Quantizer> make_ptq_quantizer(
    std::shared_ptr<const quant::Quantizer> quantizer);

}  // namespace ptec
