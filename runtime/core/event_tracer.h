#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.h"
#include "core/span.h"

namespace ptec::runtime {

class EValue;
class Tensor;

/// Chain index of an event; -1 for events outside any chain (e.g. method load).
using ChainID = int32_t;
/// Instruction index within its chain; -1 when the event is not an instruction.
using InstructionID = int32_t;
/// An allocator registered with track_allocator().
using AllocatorID = uint32_t;

constexpr ChainID kUnsetChainId = -1;
constexpr InstructionID kUnsetInstructionId = -1;
/// The delegate debug id of a delegate event identified by name instead.
constexpr int64_t kUnsetDelegateDebugId = -1;

/// How a delegate event is identified: not a delegate event, by an integer debug id, or by a
/// string name.
enum class DelegateDebugIdType : uint8_t { None, Int, Str };

/// Returned by start_profiling() / start_profiling_delegate() and handed back to the matching
/// end call.
struct EventTracerEntry {
  int64_t event_id = -1;
  ChainID chain_id = kUnsetChainId;
  InstructionID instruction_id = kUnsetInstructionId;
  DelegateDebugIdType delegate_debug_id_type = DelegateDebugIdType::None;
  int64_t delegate_debug_id = kUnsetDelegateDebugId;
  uint64_t start_time = 0;
};

/// Why a value is logged. Serialized (ETDump Value.output): never renumber.
enum class LoggedEValueType : uint8_t { IntermediateOutput = 0, ProgramOutput = 1 };

/// Which values the runtime hands to log_evalue(); each level includes the ones above it.
enum class EventTracerDebugLogLevel : uint8_t {
  /// No values are logged (the default).
  NoLogging = 0,
  /// The method's outputs after each execute().
  ProgramOutputs = 1,
  /// Also the output of every kernel call (and what delegates log).
  IntermediateOutputs = 2,
};

/// Receives the runtime's profiling and debugging events (the ETDump writer in devtools/etdump
/// implements it). Every hook has a no-op default so a tracer overrides only what it records.
/// Strings passed to the hooks are only valid during the call: a tracer copies what it keeps.
/// The runtime calls a tracer only through a non-null pointer, so a Method without one pays a
/// null check per instruction and nothing else.
///
/// Events emitted by Program / Method (FORMAT.md §6):
///   - Program::load_method opens block "Default" and records "Program::load_method" around
///     "Method::init" (chain -1);
///   - Method::execute opens block "Execute" (one per call) and records "Method::execute"
///     (chain -1) around the instructions;
///   - per kernel call "OPERATOR_CALL" around "native_call_<op>.<overload>" (the operator name
///     without its namespace, as the upstream runtime names it), both with the chain index and
///     the instruction index;
///   - per delegate call "DELEGATE_CALL"; while the delegate runs, current_chain_id() and
///     current_instruction_id() name the call, so events the delegate logs through its
///     BackendExecutionContext's tracer are attributed to it;
///   - with debug level IntermediateOutputs, the last argument of each kernel call (its out
///     tensor, or the tensor list of a multi-output op) after the call; with ProgramOutputs or
///     more, the method's outputs at the end of execute().
class EventTracer {
 public:
  virtual ~EventTracer() = default;

  /// Starts a new block of events, e.g. "Default" or "Execute". `method_name` names the method
  /// the block belongs to (may be null).
  virtual void create_event_block(const char* name, const char* method_name = nullptr) {
    (void)name;
    (void)method_name;
  }

  /// Starts a timed event. end_profiling() must get the returned entry.
  virtual EventTracerEntry start_profiling(const char* name, ChainID chain_id = kUnsetChainId,
                                           InstructionID instruction_id = kUnsetInstructionId) {
    (void)name;
    EventTracerEntry entry;
    entry.chain_id = chain_id;
    entry.instruction_id = instruction_id;
    return entry;
  }
  virtual void end_profiling(EventTracerEntry entry) { (void)entry; }

  /// Starts a delegate's own event. Delegates that identify their events by name pass the name
  /// and kUnsetDelegateDebugId; those that use integer ids pass nullptr and the id. The event
  /// belongs to the current chain / instruction (the DelegateCall being executed).
  virtual EventTracerEntry start_profiling_delegate(const char* name, int64_t delegate_debug_id) {
    (void)name;
    EventTracerEntry entry;
    entry.delegate_debug_id_type =
        name != nullptr ? DelegateDebugIdType::Str : DelegateDebugIdType::Int;
    entry.delegate_debug_id = delegate_debug_id;
    entry.chain_id = current_chain_id_;
    entry.instruction_id = current_instruction_id_;
    return entry;
  }
  /// Ends a delegate event; `metadata` (opaque bytes, copied) is stored with it.
  virtual void end_profiling_delegate(EventTracerEntry entry, const void* metadata = nullptr,
                                      size_t metadata_len = 0) {
    (void)entry;
    (void)metadata;
    (void)metadata_len;
  }
  /// Records a delegate event whose times the delegate measured itself (e.g. read back from an
  /// accelerator after the whole graph ran). Times are in the tracer's clock units.
  virtual void log_profiling_delegate(const char* name, int64_t delegate_debug_id,
                                      uint64_t start_time, uint64_t end_time,
                                      const void* metadata = nullptr, size_t metadata_len = 0) {
    (void)name;
    (void)delegate_debug_id;
    (void)start_time;
    (void)end_time;
    (void)metadata;
    (void)metadata_len;
  }

  /// Registers an allocator whose allocations will be tracked; returns its id.
  virtual AllocatorID track_allocator(const char* name) {
    (void)name;
    return 0;
  }
  /// One allocation of `size` bytes by allocator `id`.
  virtual void track_allocation(AllocatorID id, size_t size) {
    (void)id;
    (void)size;
  }

  /// A value produced by instruction (chain_id, instruction_id), or a program output. The
  /// runtime calls it only as the debug level asks; the value is only valid during the call.
  virtual Error log_evalue(const EValue& value, LoggedEValueType type,
                           ChainID chain_id = kUnsetChainId,
                           InstructionID instruction_id = kUnsetInstructionId) {
    (void)value;
    (void)type;
    (void)chain_id;
    (void)instruction_id;
    return Error::Ok;
  }

  /// A delegate's intermediate output, identified like start_profiling_delegate(). Delegates
  /// should check logs_intermediate_outputs() first.
  virtual Error log_intermediate_output_delegate(const char* name, int64_t delegate_debug_id,
                                                 const Tensor& output) {
    (void)name;
    (void)delegate_debug_id;
    (void)output;
    return Error::Ok;
  }
  virtual Error log_intermediate_output_delegate(const char* name, int64_t delegate_debug_id,
                                                 Span<const Tensor> outputs) {
    (void)name;
    (void)delegate_debug_id;
    (void)outputs;
    return Error::Ok;
  }

  /// Which values the runtime logs (default: none).
  void set_event_tracer_debug_level(EventTracerDebugLogLevel level) { debug_level_ = level; }
  EventTracerDebugLogLevel event_tracer_debug_level() const { return debug_level_; }
  bool logs_program_outputs() const {
    return debug_level_ >= EventTracerDebugLogLevel::ProgramOutputs;
  }
  bool logs_intermediate_outputs() const {
    return debug_level_ >= EventTracerDebugLogLevel::IntermediateOutputs;
  }

  /// The index of the bundled input the next runs use (-1: none), recorded in their blocks.
  void set_bundled_input_index(int32_t index) { bundled_input_index_ = index; }
  int32_t bundled_input_index() const { return bundled_input_index_; }

  /// The instruction being executed, set by the executor around a DelegateCall so delegate
  /// events can be attributed to it; kUnset* otherwise.
  void set_current_instruction(ChainID chain_id, InstructionID instruction_id) {
    current_chain_id_ = chain_id;
    current_instruction_id_ = instruction_id;
  }
  ChainID current_chain_id() const { return current_chain_id_; }
  InstructionID current_instruction_id() const { return current_instruction_id_; }

 protected:
  EventTracer() = default;
  EventTracer(const EventTracer&) = default;
  EventTracer& operator=(const EventTracer&) = default;

 private:
  EventTracerDebugLogLevel debug_level_ = EventTracerDebugLogLevel::NoLogging;
  int32_t bundled_input_index_ = -1;
  ChainID current_chain_id_ = kUnsetChainId;
  InstructionID current_instruction_id_ = kUnsetInstructionId;
};

/// Starts an event in its constructor and ends it in its destructor; does nothing when the
/// tracer is null.
class EventTracerProfileScope final {
 public:
  EventTracerProfileScope(EventTracer* tracer, const char* name, ChainID chain_id = kUnsetChainId,
                          InstructionID instruction_id = kUnsetInstructionId)
      : tracer_(tracer) {
    if (tracer_ != nullptr) entry_ = tracer_->start_profiling(name, chain_id, instruction_id);
  }
  ~EventTracerProfileScope() {
    if (tracer_ != nullptr) tracer_->end_profiling(entry_);
  }
  EventTracerProfileScope(const EventTracerProfileScope&) = delete;
  EventTracerProfileScope& operator=(const EventTracerProfileScope&) = delete;

 private:
  EventTracer* tracer_;
  EventTracerEntry entry_;
};

}  // namespace ptec::runtime
