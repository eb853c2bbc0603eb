#pragma once

// ptec::engine::compile (DESIGN.md §7): builds engines for the regions of a program the
// engine's device runs and returns an engine-bearing program.
//
// For target "cpu" the regions are what the CPU backend's partitioner claims; each becomes one
// engine made of the CPU backend's kernels: a plan (the backend's delegate description, static
// sizes) per shape point of the region's profile, with the weights the plans share. With
// `autotune`, the builder times each node of the largest plan on this machine at every
// candidate thread count (the setting, halves of it, 1) and records the fastest per node;
// the choices go into every plan and into the metadata. The runtime (backends/engine/runtime)
// recreates the kernels from the plans without re-tuning.
//
// Dynamic dims: every symbol of the program's user inputs gets a profile [min, max] (the
// symbol's range, or narrower through `input_profiles`). Plans are built at the profile's
// points: the listed ones, or by default every value when the range has at most 4 values and
// otherwise min, max and the powers of two between (for a symbol declared a multiple of m, only
// multiples of m: every listed point must be one). The plans of a region whose inputs carry
// only counts of a symbol (an upsampled map's h/2) are specialized at the symbol's points too.
// The runtime accepts any size within the profile (per binding, and shared symbols equal) and
// runs the plan built for it; a size within the profile for which no plan was built is refused
// with a message naming the sizes.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/exported_program.h"

namespace ptec::engine {

/// The profile of one symbolic dim.
struct EngineDimProfile {
  int64_t min = 0;
  int64_t max = 0;
  /// Sizes to build plans for (within [min, max]); empty: the default points (see above).
  std::vector<int64_t> points;
};

struct EngineCompileOptions {
  /// The device: "cpu" (a "gpu" engine needs a GPU build of the engine builder).
  std::string target = "cpu";
  /// "fp32" (the only precision the cpu engine builds).
  std::string precision = "fp32";
  /// Time candidate implementations on this machine and keep the fastest per node.
  bool autotune = true;
  /// Threads the engine is tuned for (0: the current thread setting).
  int threads = 0;
  /// Profiles by symbol name (a symbol of the program's user inputs).
  std::map<std::string, EngineDimProfile> input_profiles;
  /// Timed runs per candidate (after one warm-up run).
  int autotune_iterations = 10;
  /// Most plans one engine may hold (shape points of the profile).
  size_t max_plans = 16;
  /// The method name recorded in the partition step.
  std::string method_name = "forward";
};

/// Compiles `program` (stage ATEN or EDGE; not changed) into an ATEN-stage program whose
/// engine regions are `ptec::execute_engine([inputs...], engine_N)` calls followed by one
/// getitem per output, where `engine_N` is a CUSTOM_OBJ placeholder whose custom object
/// (type kEngineObjectType) holds the live Engine (backends/engine/aot/engine.h). Node names
/// outside the regions are kept. A program with nothing the engine runs has no engine calls.
///
/// Throws ptec::Exception: NotSupported for another target or precision; InvalidArgument for a
/// profile of an unknown symbol, a profile outside the symbol's range, a point outside its
/// profile, or more plans than `max_plans`; what the CPU backend reports for a node it cannot
/// build at some point of the profile.
ir::ExportedProgram compile(const ir::ExportedProgram& program,
                            const EngineCompileOptions& options = {});

/// Copy of `program` with every symbol named in `values` replaced by its value and every
/// call's output specs recomputed (what the builder lowers at each shape point). Throws
/// InvalidArgument when a value is outside its symbol's range or a call cannot be specialized.
ir::ExportedProgram specialize(const ir::ExportedProgram& program,
                               const std::map<std::string, int64_t>& values);

/// The number of `ptec::execute_engine` calls in `program`.
size_t count_engine_calls(const ir::ExportedProgram& program);

}  // namespace ptec::engine
