#pragma once

// Importer entry point below the file layer: used by import_onnx/import_onnx_bytes and by tests
// that build a ModelProto in memory (e.g. to check that initializer bytes are not copied).

#include <string>

#include <onnx/onnx_pb.h>

#include "frontends/onnx/onnx_importer.h"
#include "ir/buffer.h"

namespace ptec::onnx_import {

/// Specializes input dims, runs onnx::checker and ONNX shape inference on `model`, then imports
/// it. `model` is consumed: initializer raw_data strings are moved into the program's Buffers.
/// `display_name` names the model in errors and provenance.
ir::ExportedProgram import_model(onnx::ModelProto& model, const std::string& display_name,
                                 const OnnxImportOptions& options);

/// Parses a serialized ModelProto; distinguishes an empty file, a truncated file and a file that
/// is not ONNX. Throws InvalidProgram with a one-line message starting with `display_name`.
/// A memory-mapped `bytes` (a model file) is read a piece at a time and the pieces already
/// parsed are released, so the file's pages and the parsed copy of its weights are not resident
/// together.
void parse_model(const ir::Buffer& bytes, const std::string& display_name, onnx::ModelProto& model);

}  // namespace ptec::onnx_import
