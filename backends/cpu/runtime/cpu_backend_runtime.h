#pragma once

// The runtime half of PtecCpuBackend: init() verifies the blob (backends/cpu/schema), binds each
// constant through the program's named data, packs convolution and linear weights once for the
// active GEMM microkernel and reserves every intermediate tensor and the largest scratch buffer
// from the method allocator; execute() runs the nodes in order on kernels/optimized, reporting
// one profiling event per node to the event tracer when one is attached. No exceptions, no heap.

#include "runtime/backend/interface.h"

namespace ptec::backends::cpu {

class CpuBackendRuntime final : public runtime::BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<runtime::DelegateHandle*> init(
      runtime::BackendInitContext& context, runtime::FreeableBuffer* processed,
      Span<const runtime::CompileSpec> compile_specs) const override;
  Error execute(runtime::BackendExecutionContext& context, runtime::DelegateHandle* handle,
                Span<runtime::EValue*> args) const override;
  void destroy(runtime::DelegateHandle* handle) const override;
};

/// Registers the runtime half under "PtecCpuBackend" (once; later calls return the first
/// result).
Error register_cpu_backend_runtime();

}  // namespace ptec::backends::cpu
