#pragma once

#include <map>
#include <string>

#include "emit/constant_value.h"
#include "emit/emit_config.h"
#include "emit/emitted_program.h"
#include "ir/exported_program.h"

namespace ptec::emit {

/// Emits a program from EDGE (or LOWERED) methods: the methods in sorted name order, then the
/// constant methods (sorted too), one ExecutionPlan each (see MethodEmitter); a constant segment
/// shared by all methods (segment 0, always present: `constant_segment{0, [0, ...]}`), with
/// identical constants stored once. Memory is planned per method (EmitConfig::memory_planning,
/// memory_planning_per_method). Delegate calls (LOWERED methods) become DelegateCall
/// instructions and BackendDelegates; their blobs, stored once across methods, follow the
/// constant segment as segments (EmitConfig::extract_delegate_segments) or are inline, and their
/// named data follows as further segments (Program.named_data). With
/// EmitConfig::external_constants, constants are left out and listed in
/// EmittedProgram::external_tensors (see ptd_writer.h).
///
/// The result holds no copy of any constant: its segments reference the programs' Buffers, so
/// `methods` may be destroyed once the result has been written only if the Buffers are shared
/// elsewhere (they are reference counted; the result keeps them alive).
///
/// Errors (ptec::Exception): InvalidArgument for an empty map, an invalid method or constant
/// method name, a name used twice, or an alignment that is not a power of two; InvalidState
/// for a method still at stage ATEN; InvalidProgram / NotSupported naming the method, node and
/// op for anything that cannot be emitted.
EmittedProgram emit_program(const std::map<std::string, ir::ExportedProgram>& methods,
                            const EmitConfig& config = {},
                            const std::map<std::string, ConstantValue>& constant_methods = {});

}  // namespace ptec::emit
