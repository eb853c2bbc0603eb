#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.h"

namespace ptec::runtime {

class EValue;

/// Chain index of an event; -1 for events outside any chain (e.g. method load).
using ChainID = int32_t;
/// Instruction index within its chain; -1 when the event is not an instruction.
using InstructionID = int32_t;

/// Returned by start_profiling() and handed back to end_profiling().
struct EventTracerEntry {
  int64_t event_id = -1;
  ChainID chain_id = -1;
  InstructionID instruction_id = -1;
  int64_t delegate_debug_id = -1;
  uint64_t start_time = 0;
};

/// Why a value is logged.
enum class LoggedEValueType : uint8_t { IntermediateOutput = 0, ProgramOutput = 1 };

/// Receives the runtime's profiling and debugging events (ETDump writers implement it). Every
/// hook has a no-op default so a tracer overrides only what it records. `name` strings passed
/// to the hooks live at least as long as the Method that emits them.
///
/// Events emitted by Program / Method (FORMAT.md §6): blocks "Default" (load) and "Execute"
/// (each Method::execute); "Program::load_method" and "Method::init" with chain -1;
/// per instruction "OPERATOR_CALL" around "native_call_<name>.<overload>" for kernels and
/// "DELEGATE_CALL" for delegates.
class EventTracer {
 public:
  virtual ~EventTracer() = default;

  /// Starts a new block of events, e.g. "Execute".
  virtual void create_event_block(const char* name) { (void)name; }
  virtual EventTracerEntry start_profiling(const char* name, ChainID chain_id = -1,
                                           InstructionID instruction_id = -1) {
    (void)name;
    EventTracerEntry entry;
    entry.chain_id = chain_id;
    entry.instruction_id = instruction_id;
    return entry;
  }
  virtual void end_profiling(EventTracerEntry entry) { (void)entry; }

  /// Delegates report their own events through the context's tracer.
  virtual EventTracerEntry start_profiling_delegate(const char* name, int64_t delegate_debug_id) {
    (void)name;
    EventTracerEntry entry;
    entry.delegate_debug_id = delegate_debug_id;
    return entry;
  }
  virtual void end_profiling_delegate(EventTracerEntry entry, const void* metadata = nullptr,
                                      size_t metadata_len = 0) {
    (void)entry;
    (void)metadata;
    (void)metadata_len;
  }

  /// True when the tracer wants log_evalue() for every kernel's output (costly).
  virtual bool wants_intermediate_outputs() const { return false; }
  /// A value produced at (chain_id, instruction_id), or a program output.
  virtual Error log_evalue(const EValue& value, LoggedEValueType type, ChainID chain_id = -1,
                           InstructionID instruction_id = -1) {
    (void)value;
    (void)type;
    (void)chain_id;
    (void)instruction_id;
    return Error::Ok;
  }
};

}  // namespace ptec::runtime
