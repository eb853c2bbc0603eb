#pragma once

#include "ir/exported_program.h"
#include "program/edge_compile_config.h"

namespace ptec::program {

/// Lowers an ATEN program to the Edge dialect (the minimal path; EdgeProgramManager comes later):
/// copies the program (structure only: payloads are shared), runs decompose (honouring
/// `config.preserve_ops`), batch-norm folding and dead-code elimination (verifying after each
/// pass in debug builds), checks IR validity when `config.check_ir_validity`, sets the stage to
/// EDGE and appends a provenance step {"to_edge", <config>}. `aten` is not changed.
///
/// Errors (ptec::Exception): InvalidState when `aten` is already at EDGE or later (the message
/// names both stages); InvalidProgram naming the node and op when a call is not a core ATen op
/// with an out variant and is not preserved; what the passes throw.
ir::ExportedProgram to_edge(const ir::ExportedProgram& aten, const EdgeCompileConfig& config = {});

/// The IR-validity check of to_edge on its own: every call is an op with an out variant, a prim
/// op, getitem, a delegate call, or in `config.preserve_ops`. Throws InvalidProgram naming the
/// first offending node and op.
void check_ir_validity(const ir::ExportedProgram& program, const EdgeCompileConfig& config = {});

}  // namespace ptec::program
