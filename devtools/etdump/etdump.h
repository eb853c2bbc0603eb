#pragma once

// ETDump (FORMAT.md §6): what the runtime's event tracer recorded, as plain C++ values. The same
// model is what ETDumpGen fills and serializes and what ETDump::parse / ETDump::load read back
// (ptec's files and the upstream runtime's). Host-side code: errors throw ptec::Exception.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "core/dtype.h"

namespace ptec::devtools {

/// A tensor logged in a debug event. Its bytes live in the separate debug buffer at `offset`
/// (-1 when they were not saved, e.g. the tensor had no data or the buffer was full).
struct ETDumpTensor {
  DType dtype = DType::Float;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = -1;

  size_t numel() const;
  /// numel * element size (the bytes at `offset`).
  size_t nbytes() const;
  bool operator==(const ETDumpTensor&) const = default;
};

/// A logged value (ETDump Value): `kind` says which member holds it. Float and Double values
/// are both in `double_value`.
struct ETDumpValue {
  enum class Kind : uint8_t { Null, Int, Bool, Float, Double, Tensor, TensorList, String };
  Kind kind = Kind::Null;
  int64_t int_value = 0;
  bool bool_value = false;
  double double_value = 0;
  std::string string_value;
  ETDumpTensor tensor;
  std::vector<ETDumpTensor> tensors;
  /// True for a program output.
  bool output = false;
  bool operator==(const ETDumpValue&) const = default;
};

/// A timed span (times in the recording tracer's clock; ptec's ETDumpGen uses nanoseconds).
struct ProfileEvent {
  std::string name;
  int32_t chain_index = 0;
  int32_t instruction_id = -1;
  int32_t delegate_debug_id_int = -1;
  std::string delegate_debug_id_str;
  std::vector<uint8_t> delegate_debug_metadata;
  uint64_t start_time = 0;
  uint64_t end_time = 0;

  /// True for a delegate's own event (it has an int or a string debug id).
  bool is_delegate_event() const {
    return delegate_debug_id_int != -1 || !delegate_debug_id_str.empty();
  }
  bool operator==(const ProfileEvent&) const = default;
};

struct AllocationEvent {
  /// Index into the block's `allocators`.
  int32_t allocator_id = 0;
  uint64_t allocation_size = 0;
  bool operator==(const AllocationEvent&) const = default;
};

/// A value logged by instruction (chain_index, instruction_id) or by a delegate.
struct DebugEvent {
  uint64_t chain_index = 0;
  int32_t instruction_id = -1;
  ETDumpValue debug_entry;
  int32_t delegate_debug_id_int = -1;
  std::string delegate_debug_id_str;
  std::string name;
  bool operator==(const DebugEvent&) const = default;
};

/// Exactly one kind of event.
struct ETDumpEvent {
  std::variant<ProfileEvent, AllocationEvent, DebugEvent> event;

  const ProfileEvent* profile() const { return std::get_if<ProfileEvent>(&event); }
  const AllocationEvent* allocation() const { return std::get_if<AllocationEvent>(&event); }
  const DebugEvent* debug() const { return std::get_if<DebugEvent>(&event); }
  bool operator==(const ETDumpEvent&) const = default;
};

/// One block of events: "Default" (a method load) or "Execute" (one Method::execute).
struct RunData {
  std::string name;
  /// The method the block belongs to (ptec's extension of the schema, the last field of
  /// RunData; empty in files written by the upstream runtime).
  std::string method_name;
  int32_t bundled_input_index = -1;
  /// Allocator names; AllocationEvent::allocator_id indexes this list.
  std::vector<std::string> allocators;
  std::vector<ETDumpEvent> events;
  bool operator==(const RunData&) const = default;
};

struct ETDump {
  uint32_t version = 0;
  std::vector<RunData> run_data;

  /// Reads a size-prefixed "ED00" flatbuffer (a plain one is accepted too). The whole buffer is
  /// checked by the flatbuffers verifier first: a truncated or malformed file throws
  /// ptec::Exception(InvalidProgram) naming `source`, never crashes.
  static ETDump parse(std::span<const uint8_t> data, const std::string& source = "etdump");
  /// Reads and parses a file. Errors (missing, unreadable, malformed) name the path.
  static ETDump load(const std::string& path);

  /// The size-prefixed flatbuffer (identifier "ED00") of this dump.
  std::vector<uint8_t> serialize() const;

  bool operator==(const ETDump&) const = default;
};

/// The bytes of `tensor` in `debug_buffer`. Throws ptec::Exception(InvalidArgument) when the
/// tensor has no saved data or its range lies outside the buffer.
std::span<const uint8_t> tensor_data(const ETDumpTensor& tensor,
                                     std::span<const uint8_t> debug_buffer);

/// Reads a whole file (e.g. a debug buffer written by `ptec run --debug-buffer`).
std::vector<uint8_t> read_binary_file(const std::string& path);

}  // namespace ptec::devtools
