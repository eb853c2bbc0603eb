#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "partition/delegation_spec.h"

namespace ptec::partition {

/// What a partitioner is told about the program it partitions.
struct PartitionContext {
  /// The method being partitioned ("forward", "prefill", ...). One partitioner instance may
  /// serve several methods; it must use this name, never remember one.
  std::string method_name = "forward";
};

/// The result of Partitioner::partition: which nodes go to which backend.
struct PartitionResult {
  /// node name → partition tag. Tags may also be set on the nodes' meta().delegation_tag; both
  /// sources are read (a node tagged twice must carry the same tag).
  std::map<std::string, std::string> node_tags;
  /// tag → backend and compile specs. Every tag used must be listed here.
  std::map<std::string, DelegationSpec> partition_tags;
};

/// Chooses the nodes a backend takes over (ExecuTorch's Partitioner). A partitioner must not
/// change the program it is given (to_backend checks this). Nodes with one tag that are not
/// connected become several delegates with the same spec.
class Partitioner {
 public:
  virtual ~Partitioner() = default;
  /// Name used in provenance records and errors.
  virtual std::string name() const = 0;
  /// Tags the nodes of `program` (an EDGE or LOWERED program) for `context.method_name`.
  /// May throw ptec::Exception.
  virtual PartitionResult partition(const ir::ExportedProgram& program,
                                    const PartitionContext& context) const = 0;
  /// Qualified op names ("aten::linear") that to_edge_transform_and_lower must not decompose
  /// because this partitioner claims them whole. Default: none.
  virtual std::vector<std::string> ops_to_not_decompose(const ir::ExportedProgram& program) const {
    (void)program;
    return {};
  }
};

}  // namespace ptec::partition
