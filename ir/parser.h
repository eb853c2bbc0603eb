#pragma once

#include <map>
#include <string>
#include <string_view>

#include "ir/exported_program.h"

namespace ptec::ir {

/// Payloads by name for parse(): state_dict, constants and custom objects by their names,
/// example inputs as "example_inputs[N]".
using PayloadMap = std::map<std::string, BufferPtr>;

/// Parses the text format written by print(const ExportedProgram&). Payloads come from
/// `payloads` (shared, not copied; their size and hash must match the text), or are zero-filled
/// buffers of the printed size when absent (which still print with the original hash). Call
/// arguments may be given by position or, for any argument, as `name=value`; omitted arguments
/// take their schema defaults. The result is not verified (tests parse broken programs on
/// purpose); call verify() on it.
///
/// Throws ptec::Exception(InvalidArgument) "line L, column C: <problem>" for malformed text, an
/// unknown op (listing close names), an unknown node or symbol, or a payload mismatch.
ExportedProgram parse(std::string_view text, const PayloadMap& payloads = {});

}  // namespace ptec::ir
