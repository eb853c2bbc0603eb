#pragma once

// The recipe providers and target recipes the registry starts with (recipe_registry.h).

#include <memory>
#include <vector>

#include "export/recipe_registry.h"

namespace ptec {

/// "portable": every op on the kernels (no partitioners). Recipe type "portable".
/// "cpu": PtecCpuBackend. Recipe types "cpu_fp32" (available) and the quantized types
/// "cpu_int8_dynamic_per_channel", "cpu_int8_static_per_channel", "cpu_int8_static_per_tensor",
/// "cpu_int4_weight_per_group" (declared; creating one is NotSupported until quantization
/// lands).
std::vector<std::shared_ptr<const BackendRecipeProvider>> builtin_recipe_providers();

/// "x86_64-cpu-fp32": cpu_fp32 combined with portable (PtecCpuBackend first, the kernels for
/// the rest).
std::vector<TargetRecipeInfo> builtin_target_recipes();

}  // namespace ptec
