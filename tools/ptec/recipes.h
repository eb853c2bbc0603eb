#pragma once

// The export recipes `ptec export --recipe` offers (until the recipe registry takes over): what
// each lowers to. "cpu_fp32" (the default): PtecCpuBackend for what it runs, the optimized and
// portable kernels for the rest. "portable": everything on the portable kernels.

#include <string>
#include <vector>

#include "program/edge_program_manager.h"

namespace ptec::cli {

/// Recipe names, default first.
const std::vector<std::string>& recipe_names();

/// The partitioners of `recipe` (registering the backends they lower to); throws
/// InvalidArgument listing the recipes for an unknown name.
program::PartitionerList recipe_partitioners(const std::string& recipe);

}  // namespace ptec::cli
