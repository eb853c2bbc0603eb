#pragma once

// A test backend that proves the delegate framework end to end (DESIGN.md §5):
// - ahead of time, NestedProgramBackend::preprocess emits the partition's subgraph as a nested
//   ptec program (.pte bytes) — in the processed blob, or, with compile spec
//   "blob_in_named_data", in the delegate's named data (the blob then holds only the key);
// - at run time, NestedProgramRuntime loads that program with ptec's runtime and runs it on the
//   portable kernels. A compile spec "method_name" must equal the method being initialized.
// OpSetPartitioner tags every connected group of calls to a chosen set of ops.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "partition/backend.h"
#include "partition/partitioner.h"
#include "runtime/backend/interface.h"

namespace ptec::test {

inline constexpr const char* kNestedBackendId = "PtecNestedBackend";

/// The ahead-of-time half.
class NestedProgramBackend final : public partition::Backend {
 public:
  std::string id() const override { return kNestedBackendId; }
  partition::PreprocessResult preprocess(
      const ir::ExportedProgram& subgraph,
      const std::vector<partition::CompileSpec>& compile_specs) const override;
};

/// The runtime half. Counters are for tests.
class NestedProgramRuntime final : public runtime::BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<runtime::DelegateHandle*> init(
      runtime::BackendInitContext& context, runtime::FreeableBuffer* processed,
      Span<const runtime::CompileSpec> compile_specs) const override;
  Error execute(runtime::BackendExecutionContext& context, runtime::DelegateHandle* handle,
                Span<runtime::EValue*> args) const override;
  void destroy(runtime::DelegateHandle* handle) const override;

  mutable int inits = 0;
  mutable int executes = 0;
  /// Method names init() was called for, in order.
  mutable std::vector<std::string> init_methods;
};

/// Registers both halves once (ahead-of-time registry and runtime registry) and the portable
/// kernels. Returns the runtime half (for its counters).
NestedProgramRuntime& register_nested_backend();

/// Tags each connected group of calls whose target is in `ops` (getitems of tagged nodes
/// follow their producer) with its own tag, delegated to PtecNestedBackend. With
/// `name_method`, each spec carries compile spec "method_name" = the method being partitioned
/// (as it is told); `fixed_method_name` instead always writes that name (a misnamed
/// partitioner). `keep_ops` is returned by ops_to_not_decompose. `tag_parameters` also tags
/// the parameters used only by a group.
class OpSetPartitioner final : public partition::Partitioner {
 public:
  explicit OpSetPartitioner(std::set<std::string> ops) : ops_(std::move(ops)) {}

  std::string name() const override { return "op_set_partitioner"; }
  partition::PartitionResult partition(const ir::ExportedProgram& program,
                                       const partition::PartitionContext& context) const override;
  std::vector<std::string> ops_to_not_decompose(const ir::ExportedProgram&) const override {
    return keep_ops;
  }

  bool name_method = true;
  std::string fixed_method_name;
  std::vector<std::string> keep_ops;
  bool tag_parameters = false;
  bool blob_in_named_data = false;
  /// Method names partition() was called with.
  mutable std::vector<std::string> seen_methods;

 private:
  std::set<std::string> ops_;
};

}  // namespace ptec::test
