#pragma once

#include <string>
#include <vector>

namespace ptec {

/// The stages of an export pipeline (ExportSession).
enum class StageType {
  Quantize,                 ///< ATEN → quantized ATEN (the recipe's quantizers)
  EngineCompile,            ///< ATEN → engine-bearing ATEN (DESIGN.md §7); no built-in
                            ///< implementation: a recipe (the engine provider's) brings it
  ToEdgeTransformAndLower,  ///< ATEN → EDGE/LOWERED in one call
  ToEdge,                   ///< ATEN → EDGE
  EdgeTransform,            ///< EDGE → EDGE (the recipe's edge_transform_passes)
  ToBackend,                ///< EDGE → LOWERED (the recipe's partitioners)
  ToExecutorch,             ///< EDGE/LOWERED → EXECUTORCH (memory planning, emit)
};

/// "QUANTIZE", "ENGINE_COMPILE", "TO_EDGE_TRANSFORM_AND_LOWER", "TO_EDGE", "EDGE_TRANSFORM",
/// "TO_BACKEND", "TO_EXECUTORCH".
const char* to_string(StageType stage);

/// Every stage type, in declaration order.
const std::vector<StageType>& all_stage_types();

}  // namespace ptec
