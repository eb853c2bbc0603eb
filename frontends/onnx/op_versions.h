#pragma once

// Which schema of an ONNX operator a model's opset selects. A model names one opset per domain;
// each operator keeps the schema of the newest opset at or below it that (re)defined the
// operator, so a Conv in an opset-21 model is Conv-11, the same as in an opset-13 model. The
// importer's table (op_registry.h) lists the schema versions it implements; this one lists
// every schema version of the default domain's operators up to the newest opset ptec knows.

#include <cstdint>
#include <string_view>

namespace ptec::onnx_import {

/// The newest default-domain opset whose operator schemas this table knows.
inline constexpr int kNewestOpset = 25;

/// The opset that defined the schema `op_type` (default domain) has in a model of opset `opset`:
/// the newest version of the operator at or below it. -1 when the operator is unknown, did not
/// exist yet at `opset`, or `opset` is newer than kNewestOpset.
int schema_version(std::string_view op_type, int64_t opset);

}  // namespace ptec::onnx_import
