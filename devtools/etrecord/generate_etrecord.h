#pragma once

#include <string>

#include "devtools/etrecord/etrecord.h"
#include "program/edge_program_manager.h"
#include "program/executorch_program_manager.h"

namespace ptec::devtools {

/// The record that generate_etrecord writes: the Edge manager's record when it was exported with
/// generate_etrecord (ATEN programs, Edge programs before partitioning and after the transform
/// passes), otherwise the Edge manager's programs as the Edge programs; `exported_program`, when
/// given, as the ATEN program of "forward" (a structure snapshot: payloads shared); the executorch
/// maps of `executorch`. For managers exported with the flag this is the same record as
/// `executorch.get_etrecord()`.
ETRecord make_etrecord(const program::EdgeProgramManager& edge,
                       const program::ExecutorchProgramManager& executorch,
                       const ir::ExportedProgram* exported_program = nullptr);

/// ExecuTorch's standalone generate_etrecord: make_etrecord(...).save(path, options). Errors: those
/// of ETRecord::save.
void generate_etrecord(const std::string& path, const program::EdgeProgramManager& edge,
                       const program::ExecutorchProgramManager& executorch,
                       const ir::ExportedProgram* exported_program = nullptr,
                       const ETRecordSaveOptions& options = {});

}  // namespace ptec::devtools
