#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "ir/exported_program.h"

namespace ptec::ir {

/// ptec's JSON graph format: an ExportedProgram as one JSON document (used by the ETRecord and
/// by program archives). It holds everything the text format (ir/printer.h) prints: UUID,
/// stage, provenance, symbols (range constraints and local ones), signature, the graph (nodes in
/// order with kind, target = op schema name, arguments incl. lists, scalars, dtypes and symbolic
/// values, output specs incl. symbolic dims and dim orders, debug handle, source node name,
/// delegation tag and extra meta) and the payload tables (state_dict, constants, custom objects,
/// example inputs) as *references*: name, dtype, shape, byte size, content hash
/// (payload_hash) and a key. The payload bytes themselves are stored only through a
/// PayloadWriter, so the storage is pluggable (zip entries, files, nothing).
///
///   {"format": "ptec.exported_program", "version": 1, "uuid": "...", "stage": "EDGE",
///    "provenance": [{"stage": ..., "detail": ...}],
///    "symbols": [{"name": "seq", "min": 1, "max": 512, "range_constraint": "seq"},
///                {"name": "h", "min": 32, "max": 256, "multiple": 8},
///                {"name": "h/2", "min": 16, "max": 128, "of": "h", "scale": 1, "offset": 0,
///                 "divisor": 2},
///                {"name": "seq_x4", "min": 4, "max": 2048, "roots": ["seq"], "factor": 4}],
///    (a derived symbol, a window count "of" another or a product of "roots", comes after the
///    symbols it is a function of; "data_dependent": true marks a count only the data decides)
///    "signature": {"inputs": [{"kind": "PARAMETER", "name": "p_w", "target": "w"}],
///                  "outputs": [...]},
///    "state_dict": [{"name": "w", "spec": {...}, "payload": {"key": "state_dict/w",
///                    "nbytes": 48, "hash": "..."}}],
///    "constants": [...], "custom_objects": [...], "example_inputs": [...],
///    "graph": {"nodes": [{"name": "conv", "kind": "call_function",
///                         "target": "aten::convolution", "args": [{"node": "x"}, ...],
///                         "val": [{"dtype": "f32", "shape": [1, "seq"]}],
///                         "debug_handle": 7, "source": "/conv/Conv"}]}}
///
/// Argument encoding: None → null, int → number, bool → true/false, float → {"float": x}
/// ("nan", "inf", "-inf" as strings), string → {"str": s}, dtype → {"dtype": "f32"}, node →
/// {"node": name}, list → array. Text that is not valid UTF-8 (e.g. binary compile specs in a
/// custom object's metadata) is stored as {"hex": "..."}.

/// Stores the bytes of one payload. `key` is the reference the JSON would use by default
/// ("state_dict/<name>", "constants/<name>", "custom_objects/<name>", "example_inputs/<i>");
/// returns the key the bytes were stored under (which the JSON records; e.g. a content-addressed
/// key so that payloads shared by several programs are stored once). Throws on failure.
using PayloadWriter = std::function<std::string(const std::string& key, const Buffer& payload)>;

/// Returns the payload stored under `key` (`nbytes` and `hash` are what the JSON recorded), or
/// nullptr when it is not available. Throws on failure.
using PayloadReader =
    std::function<BufferPtr(const std::string& key, size_t nbytes, const std::string& hash)>;

/// The program as JSON text (compact). Without `write_payload`, no payload bytes are stored:
/// the references keep the default keys.
std::string to_json(const ExportedProgram& program, const PayloadWriter& write_payload = {});

/// Parses what to_json wrote. Payloads come from `read_payload`, checked against the recorded
/// size and hash; a payload that is not available (no reader, or the reader returned nullptr)
/// becomes a zero-filled stand-in of the recorded size that prints with the recorded hash, so
/// print(from_json(to_json(p))) == print(p) either way. The UUID is kept. The result is not
/// verified.
///
/// Throws ptec::Exception(InvalidArgument) "graph json: <where>: <problem>" for malformed JSON,
/// a wrong format or version, an unknown op, node or symbol, or a payload that does not match.
ExportedProgram program_from_json(std::string_view json, const PayloadReader& read_payload = {});

}  // namespace ptec::ir
