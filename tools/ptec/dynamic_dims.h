#pragma once

// Dynamic dims on the command line and in the program: `--dynamic INPUT:AXIS=[SYMBOL:]MIN..MAX[:M]`
// parsing, and the record of each method's dynamic input dims that `export` stores in the .pte
// as the constant method `ptec_dynamic_dims` (a string, one line per dim) so that `run` can
// check the lower bounds and multiples and name inputs, and `info` can show the ranges. The runtime
// itself checks the upper bounds (the DYNAMIC_BOUND input's serialized sizes).

#include <string>
#include <vector>

#include "frontends/onnx/onnx_importer.h"
#include "ir/exported_program.h"

namespace ptec::cli {

/// Name of the constant method holding the dynamic-dim records.
inline constexpr const char* kDynamicDimsMethod = "ptec_dynamic_dims";

/// One dynamic dim of a method's user input.
struct DynamicDimRecord {
  std::string method;
  size_t input_index = 0;
  std::string input;
  size_t axis = 0;
  std::string symbol;
  int64_t min = 0;
  int64_t max = 0;
  int64_t multiple = 1;  // every size is a multiple of it
};

/// Parses "INPUT:AXIS=[SYMBOL:]MIN..MAX[:MULTIPLE]" (e.g. "ids:1=seq:1..512" or
/// "images:2=h:64..640:32"); throws InvalidArgument naming `text`.
onnx_import::DynamicDim parse_dynamic_dim(const std::string& text);

/// Parses "SYMBOL=VALUE" (--dim: a symbolic dim's size by its name in the model) into
/// options.symbol_values and "INPUT=D0xD1x..." (--input-shape, also "D0,D1,...") into
/// options.input_shapes; throw InvalidArgument naming `text`.
void parse_dim_value(const std::string& text, onnx_import::OnnxImportOptions& options);
void parse_input_shape(const std::string& text, onnx_import::OnnxImportOptions& options);

/// The import options of the command line's --dynamic, --dim and --input-shape (each
/// repeatable).
onnx_import::OnnxImportOptions import_options(const std::vector<std::string>& dynamic,
                                              const std::vector<std::string>& dims,
                                              const std::vector<std::string>& input_shapes);

/// Imports method `name` of a multi-method export from the ONNX model at `path` (NotFound when
/// it does not exist): the command line's --dynamic, --dim and --input-shape apply to
/// "forward". Reports its dims (report_import_dims) and appends its dynamic-dim records.
ir::ExportedProgram import_method(const std::string& name, const std::string& path,
                                  const std::vector<std::string>& dynamic,
                                  const std::vector<std::string>& dims,
                                  const std::vector<std::string>& input_shapes,
                                  std::vector<DynamicDimRecord>& records);

/// Prints the import's dynamic and specialized dims to stderr ("ptec: dynamic: ...", "ptec:
/// specialized: ..."; stdout stays for the JSON summary), and where a symbolic dim took the
/// default size 1, how to choose another.
void report_import_dims(const ir::ExportedProgram& program);

/// The records of `program`'s user inputs with symbolic dims (names from meta.source).
std::vector<DynamicDimRecord> dynamic_dim_records(const std::string& method,
                                                  const ir::ExportedProgram& program);

/// Encodes records as text (tab-separated lines) and back; decode throws InvalidProgram.
std::string encode_dynamic_dims(const std::vector<DynamicDimRecord>& records);
std::vector<DynamicDimRecord> decode_dynamic_dims(const std::string& text);

}  // namespace ptec::cli
