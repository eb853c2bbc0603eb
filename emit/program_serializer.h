#pragma once

#include <flatbuffers/flatbuffers.h>

#include "schema/program_generated.h"

namespace ptec::emit {

/// Serializes `program` as an `ET12` flatbuffer (no extended header). Unlike the generated
/// object-API Pack, every vector the runtime requires to be non-null is written even when empty
/// (ExecutionPlan.inputs/outputs/delegates, Tensor.sizes/dim_order of a scalar, Chain.inputs,
/// list items, ...), as exir does. The result is small: constants live in segments.
flatbuffers::DetachedBuffer serialize_program(const executorch_flatbuffer::ProgramT& program);

}  // namespace ptec::emit
