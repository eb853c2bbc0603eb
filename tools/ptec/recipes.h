#pragma once

// The export recipes `ptec export --recipe` offers, from the recipe registry (export/): what each
// lowers to. "cpu_fp32" (the default): PtecCpuBackend for what it runs, the optimized and
// portable kernels for the rest. "portable": everything on the portable kernels.
// "x86_64-cpu-fp32": the target recipe combining the two.

#include <string>
#include <vector>

#include "program/edge_program_manager.h"

namespace ptec::cli {

/// The recipe names that can be created now (types and targets), default first.
const std::vector<std::string>& recipe_names();

/// The partitioners of `recipe` (registering the backends they lower to); throws the registry's
/// error listing the recipes for an unknown name, NotSupported for a quantizing recipe.
program::PartitionerList recipe_partitioners(const std::string& recipe);

}  // namespace ptec::cli
