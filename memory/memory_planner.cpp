#include "memory/memory_planner.h"

#include <fmt/format.h>

#include "ir/exception.h"
#include "ir/exported_program.h"
#include "memory/greedy_planner.h"
#include "memory/lifetime.h"
#include "memory/naive_planner.h"
#include "memory/verify_plan.h"

namespace ptec::memory {

std::unique_ptr<MemoryPlanner> make_planner(const std::string& name) {
  if (name == "greedy") return std::make_unique<GreedyPlanner>();
  if (name == "naive") return std::make_unique<NaivePlanner>();
  raise(Error::InvalidArgument, "unknown memory planner '{}' (expected 'greedy' or 'naive')", name);
}

MemoryPlan plan_memory(const ir::ExportedProgram& program, const MemoryPlanner& planner,
                       const PlannerOptions& options) {
  MemoryPlan plan = planner.plan(compute_lifetimes(program, options), options.alignment);
  const std::vector<std::string> problems = verify_plan(plan);
  if (!problems.empty()) {
    raise(Error::Internal, "memory planner '{}' produced an invalid plan:\n  {}", planner.name(),
          fmt::join(problems, "\n  "));
  }
  return plan;
}

}  // namespace ptec::memory
