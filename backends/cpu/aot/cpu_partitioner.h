#pragma once

// The CPU backend's partitioner: claims every node the backend runs (backends/cpu/aot/cpu_ops.h)
// and groups them into the largest subgraphs that stay convex (no path leaves a group and comes
// back), so activations stay inside the backend between ops. The constants a group alone uses
// (weights, biases) go with it, so the backend can pack them once at init.

#include "partition/partitioner.h"

namespace ptec::backends::cpu {

class CpuPartitioner final : public partition::Partitioner {
 public:
  std::string name() const override { return "CpuPartitioner"; }
  partition::PartitionResult partition(const ir::ExportedProgram& program,
                                       const partition::PartitionContext& context) const override;
};

}  // namespace ptec::backends::cpu
