#pragma once

// ONNX's checker (Debian's libonnx) knows the operator schemas up to the opset of its release. A
// model of a newer opset (or IR version) is checked against NewerOpsetRegistry: where the
// operator's schema at the model's opset is one libonnx has (Conv is Conv-11 at opset 21),
// libonnx's own schema checks the node; where it is newer (ReduceMean-18 takes its axes as an
// input) or unknown to libonnx (GroupNormalization), a permissive schema (any inputs, outputs and
// attributes) leaves the node to the importer, which checks what it maps. Checking such a node
// against libonnx's older schema would reject a valid model.

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

namespace ptec::onnx_import {

/// The newest default-domain opset libonnx has schemas for (17 for ONNX 1.12).
int libonnx_newest_opset();

/// Whether the model needs check_newer_model instead of onnx::checker::check_model: its default
/// opset or IR version is newer than libonnx's.
bool newer_than_libonnx(const onnx::ModelProto& model);

/// The registry described above (process-wide; thread-safe).
const onnx::ISchemaRegistry& newer_opset_registry();

/// onnx::checker's graph and local-function checks, against newer_opset_registry() with the IR
/// version capped at libonnx's. Throws what the checker throws.
void check_newer_model(const onnx::ModelProto& model);

}  // namespace ptec::onnx_import
