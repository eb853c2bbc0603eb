#pragma once

#include <string>

#include "ir/exported_program.h"

namespace ptec::ir {

/// Prints `program` in ptec's readable text format (used by tests and `ptec info --graph`):
///
///   program uuid=0123... stage=ATEN
///     provenance "import" "onnx: model.onnx"
///     symbol batch [1, 8]
///     input USER_INPUT x
///     input PARAMETER p_conv_weight target="conv.weight"
///     output USER_OUTPUT relu
///     state_dict "conv.weight" f32[8, 3, 3, 3] bytes=864 hash=9c1f0e2d3a4b5c6d
///   graph:
///     %x : f32[batch, 3, 32, 32] = placeholder() #1
///     %conv : f32[batch, 8, 30, 30] = aten::convolution(%x, %p_conv_weight, None, [1, 1],
///         [0, 0], [1, 1], False, [0, 0], 1) #3 source="/conv/Conv"
///     return (%relu) #9
///
/// Payloads are not printed, only their size and content hash (payload_hash). Floats print in
/// their shortest exact form (always with a '.', an exponent, inf or nan), so
/// print(parse(print(p))) == print(p). Works on invalid programs too (for debugging).
std::string print(const ExportedProgram& program);

/// The graph section alone ("%x : f32[2] = placeholder() #1" lines).
std::string print(const Graph& graph);

/// One node's line, without indentation or newline.
std::string print(const Node& node);

/// The content hash the printer shows for a payload: FNV-1a 64 of the bytes, 16 hex digits.
std::string payload_hash(const Buffer& buffer);

}  // namespace ptec::ir
