#pragma once

// The runtime half of PtecEngineBackend (DESIGN.md §7): init() parses the engine blob
// (backends/engine/engine_blob.h; a malformed blob is InvalidProgram, never a crash) and
// recreates the kernels of every plan of a "cpu" engine (cpu_engine_format.h) through the CPU
// backend's runtime, from the recorded choices and the engine's own weights, without re-tuning.
// execute() checks each input against its binding's profile (dtype, rank, every dim within
// [min, max], dims of one symbol equal), naming the binding when it refuses, and runs the plan
// built for the input sizes. No exceptions, no heap: memory comes from the method allocator.

#include "runtime/backend/interface.h"

namespace ptec::engine {

class EngineBackendRuntime final : public runtime::BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<runtime::DelegateHandle*> init(
      runtime::BackendInitContext& context, runtime::FreeableBuffer* processed,
      Span<const runtime::CompileSpec> compile_specs) const override;
  Error execute(runtime::BackendExecutionContext& context, runtime::DelegateHandle* handle,
                Span<runtime::EValue*> args) const override;
  void destroy(runtime::DelegateHandle* handle) const override;
};

/// Registers the runtime under kBackendId ("PtecEngineBackend") once; later calls return the
/// first result.
Error register_engine_backend_runtime();

}  // namespace ptec::engine
