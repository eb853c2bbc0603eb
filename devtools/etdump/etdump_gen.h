#pragma once

// ETDumpGen: the runtime EventTracer that records ETDump (FORMAT.md §6). Attach it to
// Program::load_method / Module; afterwards get_etdump_data() is the size-prefixed "ED00"
// flatbuffer and debug_buffer() holds the bytes of logged tensors (debug events refer to them by
// offset). Host-side: it keeps its records on the heap (the runtime it observes does not).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "devtools/etdump/etdump.h"
#include "runtime/core/event_tracer.h"

namespace ptec::devtools {

class ETDumpGen final : public runtime::EventTracer {
 public:
  /// Timestamps for profile events; the default is steady_clock in nanoseconds.
  using Clock = uint64_t (*)();
  /// Offsets of tensors in the debug buffer are multiples of this.
  static constexpr size_t kDebugBufferAlignment = 64;

  explicit ETDumpGen(Clock clock = nullptr);

  // ---- EventTracer ----
  void create_event_block(const char* name, const char* method_name = nullptr) override;
  runtime::EventTracerEntry start_profiling(
      const char* name, runtime::ChainID chain_id = runtime::kUnsetChainId,
      runtime::InstructionID instruction_id = runtime::kUnsetInstructionId) override;
  void end_profiling(runtime::EventTracerEntry entry) override;
  runtime::EventTracerEntry start_profiling_delegate(const char* name,
                                                     int64_t delegate_debug_id) override;
  void end_profiling_delegate(runtime::EventTracerEntry entry, const void* metadata = nullptr,
                              size_t metadata_len = 0) override;
  void log_profiling_delegate(const char* name, int64_t delegate_debug_id, uint64_t start_time,
                              uint64_t end_time, const void* metadata = nullptr,
                              size_t metadata_len = 0) override;
  runtime::AllocatorID track_allocator(const char* name) override;
  void track_allocation(runtime::AllocatorID id, size_t size) override;
  /// Records a debug event for a Tensor, TensorList, Int, Bool or Double value (other values
  /// are skipped) when the debug level asks for its type. Tensor bytes are appended to the
  /// debug buffer; when they would exceed the limit the tensor is recorded with offset -1 and
  /// OutOfResources is returned.
  Error log_evalue(const runtime::EValue& value, runtime::LoggedEValueType type,
                   runtime::ChainID chain_id = runtime::kUnsetChainId,
                   runtime::InstructionID instruction_id = runtime::kUnsetInstructionId) override;
  Error log_intermediate_output_delegate(const char* name, int64_t delegate_debug_id,
                                         const runtime::Tensor& output) override;
  Error log_intermediate_output_delegate(const char* name, int64_t delegate_debug_id,
                                         Span<const runtime::Tensor> outputs) override;

  // ---- Results ----
  /// Everything recorded so far.
  const ETDump& etdump() const { return dump_; }
  /// The size-prefixed "ED00" flatbuffer of etdump().
  std::vector<uint8_t> get_etdump_data() const { return dump_.serialize(); }
  /// Bytes of the logged tensors.
  std::span<const uint8_t> debug_buffer() const { return debug_buffer_; }
  /// Caps the debug buffer (default: no cap).
  void set_debug_buffer_limit(size_t bytes) { debug_buffer_limit_ = bytes; }
  /// Tensors whose bytes did not fit under the limit.
  size_t num_dropped_tensors() const { return dropped_tensors_; }
  /// Forgets every block, event, allocator and logged byte.
  void clear();

 private:
  struct Pending {
    int64_t event_id;
    std::string name;
  };

  uint64_t now() const;
  RunData& current_block();
  std::string take_pending_name(int64_t event_id);
  int64_t add_pending(const char* name);
  ETDumpTensor save_tensor(const runtime::Tensor& tensor, Error& status);
  void add_debug_event(DebugEvent event);
  Error log_delegate_output(const char* name, int64_t delegate_debug_id,
                            Span<const runtime::Tensor> outputs, bool as_list);

  Clock clock_;
  ETDump dump_;
  std::vector<std::string> allocators_;
  std::vector<Pending> pending_;
  int64_t next_event_id_ = 0;
  std::vector<uint8_t> debug_buffer_;
  size_t debug_buffer_limit_ = SIZE_MAX;
  size_t dropped_tensors_ = 0;
};

}  // namespace ptec::devtools
