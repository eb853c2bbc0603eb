#pragma once

#include <map>
#include <string>

#include "emit/constant_value.h"
#include "emit/emit_config.h"
#include "emit/emitted_program.h"
#include "ir/exported_program.h"

namespace ptec::emit {

/// Emits `edge_methods` (and `constant_methods`) and writes the .pte to `path` atomically:
/// emit_program + write_pte. Returns the emitted program (its debug-handle maps and memory plans
/// are what the ETRecord and `ptec info` need). Errors: those of emit_program and write_pte.
EmittedProgram export_pte(const std::map<std::string, ir::ExportedProgram>& edge_methods,
                          const EmitConfig& config, const std::string& path,
                          const std::map<std::string, ConstantValue>& constant_methods = {});

}  // namespace ptec::emit
