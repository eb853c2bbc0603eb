#pragma once

#include <memory>
#include <string>
#include <vector>

#include "memory/memory_plan.h"

namespace ptec::ir {
class ExportedProgram;
}

namespace ptec::memory {

/// Places tensors with known lifetimes in planned buffers (TFLite Micro's MicroMemoryPlanner,
/// ExecuTorch's memory planning algorithms). Implementations: GreedyPlanner, NaivePlanner.
///
/// Layout of one method's planned memory (one arena, memory_id 1; offsets are multiples of
/// `alignment`; tensors whose lifetimes do not overlap may share bytes):
///
/// ```
///   non_const_buffer_sizes = [ 0 (reserved), arena ]
///
///   memory_id 1                                              offset →
///   0                16               32               48               64
///   +----------------+----------------+----------------+----------------+
///   | input x        | conv (t=1..2)  | add  (t=3..4)  | output (t=4..) |
///   |  live t=0..end | relu (t=2..3)  |   ← reuses the bytes of conv    |
///   +----------------+----------------+----------------+----------------+
///   |<-------------------------- arena size ------------------------->|
/// ```
/// Inputs and outputs live for the whole method, so nothing else ever shares their bytes.
class MemoryPlanner {
 public:
  virtual ~MemoryPlanner() = default;

  /// Short name: "greedy", "naive".
  virtual std::string name() const = 0;

  /// Places every tensor of `tensors` and returns the plan (tensors kept in the given order,
  /// allocations parallel to them, buffer sizes in `non_const_buffer_sizes` form, each a
  /// multiple of `alignment` as exir's are: add.pte's three 4-byte tensors need 48 bytes).
  /// `alignment` must be a power of two (InvalidArgument otherwise).
  virtual MemoryPlan plan(std::vector<TensorLifetime> tensors, uint64_t alignment) const = 0;
};

/// The planner named `name` ("greedy" or "naive"); throws InvalidArgument for another name.
std::unique_ptr<MemoryPlanner> make_planner(const std::string& name);

/// Plans one method: compute_lifetimes(program, options), planner.plan(...), then verify_plan.
/// Throws Internal when the planner produced an invalid plan (listing every problem).
MemoryPlan plan_memory(const ir::ExportedProgram& program, const MemoryPlanner& planner,
                       const PlannerOptions& options = {});

}  // namespace ptec::memory
