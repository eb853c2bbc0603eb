#pragma once

// Names shared by the engine's ahead-of-time side (compile, export) and its runtime backend.

namespace ptec::engine {

/// The backend id under which engine delegates are registered and looked up at run time.
inline constexpr const char* kBackendId = "PtecEngineBackend";

/// ir::CustomObject::type of an engine held by an engine-bearing program. Its payload (or the
/// bytes its live object serializes to) is an engine blob (engine_blob.h).
inline constexpr const char* kEngineObjectType = "ptec.engine";

/// The operator that runs an engine: ptec::execute_engine(Tensor[] inputs, CustomObj engine).
inline constexpr const char* kExecuteEngineOp = "ptec::execute_engine";

}  // namespace ptec::engine
