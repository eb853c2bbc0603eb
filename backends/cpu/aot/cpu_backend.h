#pragma once

// The ahead-of-time half of PtecCpuBackend: lowers a partition (an EDGE subgraph whose nodes
// backends/cpu/aot/cpu_ops.h accepts) to the blob backends/cpu/schema/cpu_delegate.fbs
// describes. Convolutions and linear layers absorb a following residual add and activation when
// their output has no other use. Constants are not copied into the blob: each goes to the
// program's named data (the same Buffer, shared), keyed by a hash of its bytes, so identical
// weights of several methods are stored once.

#include "partition/backend.h"

namespace ptec::backends::cpu {

/// Blob format version written by preprocess and accepted by the runtime.
inline constexpr uint32_t kCpuBlobVersion = 11;

class CpuBackend final : public partition::Backend {
 public:
  std::string id() const override;
  partition::PreprocessResult preprocess(
      const ir::ExportedProgram& subgraph,
      const std::vector<partition::CompileSpec>& compile_specs) const override;
};

/// Registers CpuBackend with the ahead-of-time backend registry (once; later calls do nothing).
void register_cpu_backend_aot();

}  // namespace ptec::backends::cpu
