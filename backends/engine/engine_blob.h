#pragma once

// The engine blob: what an engine delegate's processed bytes (and a saved engine's payload) are.
// DESIGN.md §7. Little-endian throughout:
//
//   offset  size  field
//        0     4  magic "PEN1" (a format old readers cannot understand gets a new magic)
//        4     4  metadata offset (>= 32)
//        8     4  metadata size
//       12     4  reserved (written as zero)
//       16     8  engine offset (a multiple of 16)
//       24     8  engine size
//       32     .  compact JSON metadata, zero padding, engine bytes
//
// The metadata is one JSON object:
//
//   {"io_bindings": [{"name": "x", "direction": "input", "dtype": "f32",
//                     "shape": [{"min": 1, "max": 8, "symbol": "batch"}, {"min": 3, "max": 3}]},
//                    ...],
//    "device": "cpu", "target_isa": "avx2_fma", "builder_version": "ptec-engine 1",
//    "precision": "fp32", "threads": 0, "choices": {"conv1": "im2col_gemm", ...}}
//
// Bindings list the inputs, then the outputs, in call order; a dim with a "symbol" is shared with
// every other dim of that symbol. The engine bytes are the device's own format.
//
// parse_engine_blob and parse_engine_bindings are runtime code: no exceptions, no heap.
// EngineMetadata / write_engine_blob / read_engine_metadata are the compiler's side (they may
// allocate and throw) and live in the ptec_engine_blob_writer library.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "core/result.h"

namespace ptec::engine {

inline constexpr char kEngineBlobMagic[4] = {'P', 'E', 'N', '1'};
inline constexpr size_t kEngineHeaderSize = 32;
inline constexpr size_t kEngineAlignment = 16;
/// Most dims a binding may have.
inline constexpr size_t kEngineMaxRank = 8;

/// The sections of a blob that parse_engine_blob accepted (pointers into the blob).
struct EngineBlobView {
  const char* metadata = nullptr;
  size_t metadata_size = 0;
  const uint8_t* engine = nullptr;
  size_t engine_size = 0;
  /// Number of io_bindings entries.
  size_t num_bindings = 0;
};

/// Checks the header, the section bounds and the metadata (a JSON object with well-formed
/// io_bindings). Every failure is Error::InvalidProgram with a log line that says which check
/// failed: shorter than the header, unknown magic, metadata offset below 32, engine offset not
/// a multiple of 16, metadata or engine past the end, overlapping sections, metadata that is not
/// a JSON object, missing or malformed io_bindings.
Result<EngineBlobView> parse_engine_blob(const void* data, size_t size);

/// One dim of a binding's profile.
struct EngineDimView {
  int64_t min = 0;
  int64_t max = 0;
  const char* symbol = nullptr;  // raw JSON string contents; nullptr when the dim is not shared
  size_t symbol_size = 0;
};

/// One io_bindings entry (strings point into the metadata and are raw JSON string contents).
struct EngineBindingView {
  const char* name = nullptr;
  size_t name_size = 0;
  bool input = true;
  DType dtype = DType::Float;
  size_t rank = 0;
  EngineDimView dims[kEngineMaxRank];
};

/// Fills `out[0, view.num_bindings)` (`capacity` entries available) from the metadata.
/// InvalidProgram on malformed bindings, OutOfResources when capacity is too small.
Error parse_engine_bindings(const EngineBlobView& view, EngineBindingView* out, size_t capacity);

// ---- Compiler side (ptec_engine_blob_writer) ----

struct EngineDim {
  int64_t min = 0;
  int64_t max = 0;
  /// Name of the symbol the dim is (dims of one symbol are equal); empty for a fixed dim.
  std::string symbol;
  bool operator==(const EngineDim&) const = default;
};

struct EngineBinding {
  std::string name;
  bool input = true;
  DType dtype = DType::Float;
  std::vector<EngineDim> shape;
  bool operator==(const EngineBinding&) const = default;
};

/// What an engine says about itself, readable without its engine bytes.
struct EngineMetadata {
  std::vector<EngineBinding> io_bindings;  // inputs, then outputs, in call order
  std::string device = "cpu";
  std::string target_isa;
  std::string builder_version;
  std::string precision = "fp32";
  int64_t threads = 0;
  /// Implementation choices by node (e.g. "conv1" → "im2col_gemm").
  std::map<std::string, std::string> choices;
  bool operator==(const EngineMetadata&) const = default;
};

/// The metadata as compact JSON (the blob's metadata section).
std::string engine_metadata_json(const EngineMetadata& meta);
/// Header, metadata, zero padding to 16 bytes, engine bytes.
std::vector<uint8_t> write_engine_blob(const EngineMetadata& meta, const uint8_t* engine,
                                       size_t engine_size);
/// The metadata of a blob; throws ptec::Exception(InvalidProgram) naming the failed check.
EngineMetadata read_engine_metadata(const uint8_t* blob, size_t size);

}  // namespace ptec::engine
