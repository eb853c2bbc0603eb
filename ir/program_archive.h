#pragma once

// Program archives (".ptep"): an ExportedProgram saved as a zip — "program.json" in ptec's
// JSON graph format (ir/graph_json.h), "archive.json" (format, version, which custom objects
// are live), and one stored (uncompressed) entry per payload under "payloads/", each payload
// shared by several tables stored once. A custom object that holds only a live object (e.g. a
// compiled engine) is serialized once and stored as an opaque payload; loading gives it back
// as a live object through the loader registered for its type, again without a payload.
//
// Loading memory-maps the archive: each stored payload whose data starts at a 64-byte boundary
// (the writer pads entries so that all of them do) is a view into the mapping; others are read
// once into memory. Nothing is copied twice.

#include <functional>
#include <memory>
#include <string>

#include "ir/exported_program.h"

namespace ptec::ir {

/// Rebuilds a live object from a custom object's payload (e.g. an engine from its blob).
using CustomObjectLoader = std::function<std::shared_ptr<const OpaqueObject>(
    const std::string& name, const CustomObject&)>;

/// Registers the loader for custom objects of `type` (replaces an earlier one).
void register_custom_object_loader(const std::string& type, CustomObjectLoader loader);

/// Writes `program` to `path` atomically (temp file + rename). Throws ptec::Exception
/// (AccessFailed naming the file) on I/O failure.
void save_program(const ExportedProgram& program, const std::string& path);

/// Reads what save_program wrote. Throws ptec::Exception: AccessFailed when the file cannot be
/// read; InvalidArgument "<path>: not a program archive (...)" for another file; InvalidProgram
/// for a damaged archive, a payload that does not match its record, or a live custom object
/// whose type has no loader registered.
ExportedProgram load_program(const std::string& path);

}  // namespace ptec::ir
