#pragma once

// Export of engine-bearing programs (DESIGN.md §7): ptec::engine::export and ptec::engine::save.
//
// C++ reserves the word `export`, so DESIGN.md's `ptec::engine::export(source, options)` is
// export_engine_program(source, options) here; `ptec::engine::save` keeps its name.

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "emit/constant_value.h"
#include "ir/exported_program.h"
#include "partition/delegation_spec.h"
#include "partition/partitioner.h"
#include "program/edge_compile_config.h"
#include "program/edge_program_manager.h"
#include "program/executorch_backend_config.h"

namespace ptec::engine {

/// Compile specs of the engine delegates: one list for every method, or a per-method map.
using CompileSpecList = std::vector<partition::CompileSpec>;
using MethodCompileSpecs = std::map<std::string, CompileSpecList>;

/// Methods of an engine-bearing program: method name → the caller's program (not owned; each
/// must outlive the call). The same program object may not appear under two names.
using EngineSources = std::map<std::string, const ir::ExportedProgram*>;

/// Options of export_engine_program. `partitioners`, `compile_specs` and `transform_passes` are
/// each one list for every method or a per-method map; a per-method map gives the methods it
/// does not name nothing (and copies nothing for them), and an empty map gives no method
/// anything.
struct EngineExportOptions {
  /// Partitioners that run after the engine partitioner (which claims every engine call) and
  /// claim what they can of the rest; what no one claims runs on portable/optimized kernels.
  /// Each is told the method name.
  std::variant<program::PartitionerList, program::MethodPartitioners> partitioners;
  /// Compile specs of the engine delegates (BackendDelegate.compile_specs). A "method_name"
  /// spec must name the method it is given for.
  std::variant<CompileSpecList, MethodCompileSpecs> compile_specs;
  /// Passes run on the Edge program of a method before partitioning.
  std::variant<program::PassList, program::MethodPasses> transform_passes;
  /// name → value of the constant methods; identifiers that are not method names.
  std::map<std::string, emit::ConstantValue> constant_methods;
  /// The to_edge config. Unset: default_engine_compile_config() (no IR validity check, the
  /// engine op is not a core ATen op). Set: used exactly as given.
  std::optional<program::EdgeCompileConfig> compile_config;
  /// Record an ETRecord as to_edge_transform_and_lower does: per method, the ATEN program after
  /// the engines became buffers, the Edge program before partitioning and, for methods that
  /// transform passes ran on, the Edge program after them.
  bool generate_etrecord = false;
};

/// The to_edge config used when EngineExportOptions::compile_config is unset: the default
/// EdgeCompileConfig with check_ir_validity off.
program::EdgeCompileConfig default_engine_compile_config();

/// ptec::engine::export: turns an engine-bearing program (method "forward") or several methods
/// into a standard EdgeProgramManager in which every `ptec::execute_engine` call is an
/// `executorch_call_delegate` of a PtecEngineBackend delegate whose processed bytes are the
/// engine blob.
///
/// 1. Validates everything before changing anything: at least one method; method names are
///    identifiers; no program object under two names; every program at stage ATEN; every
///    engine call's engine a CUSTOM_OBJ of type "ptec.engine" with a payload or a live object;
///    at least one method was engine-compiled (has engines or a compile provenance step;
///    methods without engines are allowed); constant-method names; the methods named by
///    per-method maps; no null partitioner or pass; no engine compile spec "method_name" that
///    names another method. Each a ptec::Exception naming what is wrong.
/// 2. One method at a time (sorted by name): stages a structure copy of the method (graph,
///    signature and tables as new containers, node names kept; payloads and engines shared);
///    rewrites each engine call's engine into a uint8 buffer holding the engine blob (an engine
///    shared by several calls, in one method or several, is serialized once; a buffer name is
///    used by no module attribute, state_dict or constants entry of the method, and existing
///    entries are left as they are) and drops the staged copy's engine objects; to_edge;
///    transform passes; the engine partitioner, then the user's partitioners. A method with
///    several engine calls logs how many (Info). The staged copy, the serialized blobs only
///    this method used and everything but the lowered program are released before the next
///    method starts.
/// The caller's programs are never changed, also when a step fails (the error names the
/// method and what failed).
program::EdgeProgramManager export_engine_program(const EngineSources& methods,
                                                  const EngineExportOptions& options = {});
/// Methods by value (each its own program).
program::EdgeProgramManager export_engine_program(
    const std::map<std::string, ir::ExportedProgram>& methods,
    const EngineExportOptions& options = {});
/// One program, as method "forward".
program::EdgeProgramManager export_engine_program(const ir::ExportedProgram& program,
                                                  const EngineExportOptions& options = {});

/// Options of save: those of export_engine_program plus the backend config of to_executorch.
struct EngineSaveOptions : EngineExportOptions {
  program::ExecutorchBackendConfig backend_config;
};

/// What save wrote.
struct SavedEngineProgram {
  std::string pte;
  /// The .pte's external data (same stem, ".ptd"); empty when there was none.
  std::string ptd;
  /// "<stem>.etrecord" beside the .pte with generate_etrecord; empty otherwise.
  std::string etrecord;
};

/// ptec::engine::save: export_engine_program(source, options).to_executorch(backend_config),
/// then writes the .pte, the .ptd beside it only when the program has external data, and,
/// with generate_etrecord, "<stem>.etrecord" beside it. Every file is written atomically (a
/// temporary file renamed over the target); when any write fails, the files this call wrote
/// are removed again. Errors: those of export_engine_program and to_executorch; NotFound when
/// the output directory does not exist; AccessFailed naming the path on I/O failure.
SavedEngineProgram save(const EngineSources& methods, const std::string& pte_path,
                        const EngineSaveOptions& options = {});
SavedEngineProgram save(const ir::ExportedProgram& program, const std::string& pte_path,
                        const EngineSaveOptions& options = {});

}  // namespace ptec::engine
