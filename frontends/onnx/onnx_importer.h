#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "ir/exported_program.h"

namespace ptec::onnx_import {

/// One dynamic dimension of a user input: `axis` of ONNX input `input` becomes a symbol with the
/// inclusive range [min, max]. Several entries with the same `symbol` share one symbol (their
/// ranges must agree); an empty `symbol` names it "<input>_<axis>". A `multiple` above 1 says
/// every size is a multiple of it (min and max must be): an image side that a network downsamples
/// by 32 and upsamples again, so that its skip connections' sizes agree (ir::Symbol::multiple).
struct DynamicDim {
  std::string input;
  int64_t axis = 0;
  std::string symbol;
  int64_t min = 1;
  int64_t max = 1;
  int64_t multiple = 1;
};

/// Options of import_onnx.
struct OnnxImportOptions {
  /// Dims that stay symbolic (`SymInt`s with ranges): tensors that depend on them are planned at
  /// the upper bound and emitted as DYNAMIC_BOUND; shape arithmetic on them (Shape, Gather,
  /// Concat, Unsqueeze, Reshape, Slice chains) becomes aten::sym_size.int nodes. A listed dim must
  /// be symbolic or unknown in the model, or fixed to a value inside the range.
  std::vector<DynamicDim> dynamic_dims;
  /// Sizes of user inputs by ONNX input name. A listed input's symbolic or unknown dims take these
  /// values; a static dim must match. Symbolic dims in neither input_shapes nor symbol_values are
  /// specialized to 1. Every
  /// specialized dim is recorded in the program's provenance ("specialize" steps) and in the
  /// input placeholder's meta.extra["onnx_shape"] (the declared shape, symbols by name), so that
  /// a later step can turn them into SymInts instead.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  /// Values of symbolic dims by name (the model's dim_param, e.g. "batch" or "seq"), for every
  /// input dim that carries the name and is not given by input_shapes or dynamic_dims. Each name
  /// must occur among the inputs' dims.
  std::map<std::string, int64_t> symbol_values;
  /// Directory that external-data locations are relative to; empty means the model's directory.
  std::string external_data_dir;
  /// Compare every imported value's spec with ONNX shape inference and fail on a difference
  /// (catches mapping bugs; off only to import models whose ONNX shape inference is wrong).
  bool check_inferred_shapes = true;
};

/// Imports the ONNX model at `path` as an ATEN-stage program.
///
/// The file is memory-mapped read-only and parsed from the map; onnx::checker and ONNX shape
/// inference run on it. Graph inputs that are not initializers become USER_INPUT placeholders;
/// initializers used as tensors become PARAMETER placeholders with `state_dict` entries keyed by
/// the initializer name (their raw_data bytes are moved, not copied, into the Buffer); Constant
/// outputs and values computed at import time (Shape/Gather/Concat chains and the like) become
/// CONSTANT_TENSOR placeholders with `constants` entries. Every node's meta.source is the ONNX
/// node name ("<op_type>_<index>" when unnamed) and meta.val comes from the op's shape function.
///
/// Throws ptec::Exception only, with a one-line message that starts with the file name:
/// AccessFailed (cannot read), InvalidProgram (not ONNX, truncated, checker failure),
/// NotSupported (one error listing every unsupported op type, opset and node names; arithmetic on
/// dynamic dims the importer cannot express), InvalidArgument (bad attributes or inputs, naming
/// node and op; bad options).
ir::ExportedProgram import_onnx(const std::string& path, const OnnxImportOptions& options = {});

/// Imports a serialized ModelProto held in `bytes` (e.g. a mapped file). `display_name` names the
/// model in errors and provenance; external data is looked up in options.external_data_dir
/// (the current directory when empty).
ir::ExportedProgram import_onnx_bytes(const ir::BufferPtr& bytes, const std::string& display_name,
                                      const OnnxImportOptions& options = {});

/// One row of the importer's op table, for `ptec info`-style listings and tests.
struct SupportedOp {
  std::string op_type;
  int min_opset;
  int max_opset;
};
/// The ONNX ops (default domain) the importer maps, in table order.
std::vector<SupportedOp> supported_ops();

}  // namespace ptec::onnx_import
