#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/exported_program.h"
#include "partition/delegation_spec.h"

namespace ptec::partition {

/// ir::CustomObject::type of a lowered module (the target of the get_attr that a
/// `executorch_call_delegate` node takes first).
inline constexpr const char* kLoweredModuleType = "ptec.lowered_module";
/// ir::CustomObject::type of a named-data blob of a lowered module; such an object is stored as
/// "<module>.named_data.<key>".
inline constexpr const char* kNamedDataType = "ptec.named_data";

/// A partition compiled by a backend: what the emitter turns into a BackendDelegate.
struct LoweredModule {
  std::string backend_id;
  /// The processed blob (shared, never copied).
  ir::BufferPtr processed;
  std::vector<CompileSpec> compile_specs;
  /// Named data for the runtime's NamedDataMap, by key (shared).
  std::map<std::string, ir::BufferPtr> named_data;
  /// Debug handles of the nodes the partition replaced.
  std::vector<int64_t> debug_handles;
  /// The backend's delegate debug id → debug handles (PreprocessResult::debug_handle_map; the
  /// ETRecord's delegate_map).
  std::map<int64_t, std::vector<int64_t>> delegate_debug_map;
};

/// Stores `module` in `program.custom_objects()` under `name` (plus one object per named-data
/// blob). Header-only so that the emitter can read lowered modules without linking partition/.
void store_lowered_module(ir::ExportedProgram& program, const std::string& name,
                          const LoweredModule& module);
/// Reads the lowered module `name`; throws NotFound / InvalidProgram.
LoweredModule load_lowered_module(const ir::ExportedProgram& program, const std::string& name);

}  // namespace ptec::partition

#include "partition/lowered_module_impl.h"
