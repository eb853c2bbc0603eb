#include "devtools/etdump/etdump_gen.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"

namespace ptec::devtools {

using runtime::AllocatorID;
using runtime::ChainID;
using runtime::DelegateDebugIdType;
using runtime::EValue;
using runtime::EventTracerEntry;
using runtime::InstructionID;
using runtime::LoggedEValueType;
using runtime::Tensor;

namespace {

uint64_t steady_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// The layout stores delegate ids as int32; larger ids are clamped to -1 ("unset") rather than
// wrapped into a different id.
int32_t delegate_id_int(int64_t id) {
  return id >= 0 && id <= std::numeric_limits<int32_t>::max() ? static_cast<int32_t>(id) : -1;
}

}  // namespace

ETDumpGen::ETDumpGen(Clock clock) : clock_(clock == nullptr ? &steady_ns : clock) {}

uint64_t ETDumpGen::now() const { return clock_(); }

void ETDumpGen::clear() {
  dump_ = ETDump{};
  allocators_.clear();
  pending_.clear();
  next_event_id_ = 0;
  debug_buffer_.clear();
  dropped_tensors_ = 0;
}

RunData& ETDumpGen::current_block() {
  // Events before the first block (e.g. allocations while a caller sets up) go to "Default".
  if (dump_.run_data.empty()) create_event_block("Default");
  return dump_.run_data.back();
}

void ETDumpGen::create_event_block(const char* name, const char* method_name) {
  RunData block;
  block.name = name == nullptr ? "" : name;
  block.method_name = method_name == nullptr ? "" : method_name;
  block.bundled_input_index = bundled_input_index();
  // Allocator ids are global: every block lists all allocators registered so far.
  block.allocators = allocators_;
  dump_.run_data.push_back(std::move(block));
}

int64_t ETDumpGen::add_pending(const char* name) {
  const int64_t id = next_event_id_++;
  pending_.push_back(Pending{id, name == nullptr ? "" : name});
  return id;
}

std::string ETDumpGen::take_pending_name(int64_t event_id) {
  // Events nest, so the match is almost always the last one.
  for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
    if (it->event_id == event_id) {
      std::string name = std::move(it->name);
      pending_.erase(std::next(it).base());
      return name;
    }
  }
  return "";
}

EventTracerEntry ETDumpGen::start_profiling(const char* name, ChainID chain_id,
                                            InstructionID instruction_id) {
  EventTracerEntry entry;
  entry.event_id = add_pending(name);
  entry.chain_id = chain_id;
  entry.instruction_id = instruction_id;
  entry.start_time = now();
  return entry;
}

void ETDumpGen::end_profiling(EventTracerEntry entry) {
  const uint64_t end = now();
  ProfileEvent ev;
  ev.name = take_pending_name(entry.event_id);
  ev.chain_index = entry.chain_id;
  ev.instruction_id = entry.instruction_id;
  ev.start_time = entry.start_time;
  ev.end_time = end;
  current_block().events.push_back(ETDumpEvent{std::move(ev)});
}

EventTracerEntry ETDumpGen::start_profiling_delegate(const char* name, int64_t delegate_debug_id) {
  EventTracerEntry entry;
  entry.event_id = add_pending(name);
  entry.chain_id = current_chain_id();
  entry.instruction_id = current_instruction_id();
  entry.delegate_debug_id_type =
      name != nullptr ? DelegateDebugIdType::Str : DelegateDebugIdType::Int;
  entry.delegate_debug_id = delegate_debug_id;
  entry.start_time = now();
  return entry;
}

void ETDumpGen::end_profiling_delegate(EventTracerEntry entry, const void* metadata,
                                       size_t metadata_len) {
  const uint64_t end = now();
  std::string name = take_pending_name(entry.event_id);
  const bool by_name = entry.delegate_debug_id_type == DelegateDebugIdType::Str;
  ProfileEvent ev;
  ev.chain_index = entry.chain_id;
  ev.instruction_id = entry.instruction_id;
  if (by_name) {
    ev.delegate_debug_id_str = name;
    ev.name = std::move(name);
  } else {
    ev.delegate_debug_id_int = delegate_id_int(entry.delegate_debug_id);
  }
  if (metadata != nullptr && metadata_len > 0) {
    const auto* p = static_cast<const uint8_t*>(metadata);
    ev.delegate_debug_metadata.assign(p, p + metadata_len);
  }
  ev.start_time = entry.start_time;
  ev.end_time = end;
  current_block().events.push_back(ETDumpEvent{std::move(ev)});
}

void ETDumpGen::log_profiling_delegate(const char* name, int64_t delegate_debug_id,
                                       uint64_t start_time, uint64_t end_time, const void* metadata,
                                       size_t metadata_len) {
  EventTracerEntry entry;
  entry.event_id = add_pending(name);
  entry.chain_id = current_chain_id();
  entry.instruction_id = current_instruction_id();
  entry.delegate_debug_id_type =
      name != nullptr ? DelegateDebugIdType::Str : DelegateDebugIdType::Int;
  entry.delegate_debug_id = delegate_debug_id;
  entry.start_time = start_time;
  end_profiling_delegate(entry, metadata, metadata_len);
  // end_profiling_delegate stamped the current time; the delegate measured its own.
  auto& ev = std::get<ProfileEvent>(dump_.run_data.back().events.back().event);
  ev.end_time = end_time;
}

AllocatorID ETDumpGen::track_allocator(const char* name) {
  allocators_.push_back(name == nullptr ? "" : name);
  if (!dump_.run_data.empty()) dump_.run_data.back().allocators.push_back(allocators_.back());
  return static_cast<AllocatorID>(allocators_.size() - 1);
}

void ETDumpGen::track_allocation(AllocatorID id, size_t size) {
  current_block().events.push_back(
      ETDumpEvent{AllocationEvent{static_cast<int32_t>(id), static_cast<uint64_t>(size)}});
}

ETDumpTensor ETDumpGen::save_tensor(const Tensor& tensor, Error& status) {
  ETDumpTensor out;
  out.dtype = tensor.dtype();
  for (auto s : tensor.sizes()) out.sizes.push_back(s);
  for (auto s : tensor.strides()) out.strides.push_back(s);
  const size_t nbytes = tensor.nbytes();
  if (nbytes > 0 && tensor.const_data_ptr() == nullptr) return out;  // no data: offset -1
  const size_t offset =
      (debug_buffer_.size() + kDebugBufferAlignment - 1) & ~(kDebugBufferAlignment - 1);
  if (offset > debug_buffer_limit_ || nbytes > debug_buffer_limit_ - offset) {
    ++dropped_tensors_;
    status = Error::OutOfResources;
    return out;
  }
  debug_buffer_.resize(offset + nbytes);
  if (nbytes > 0) std::memcpy(debug_buffer_.data() + offset, tensor.const_data_ptr(), nbytes);
  out.offset = static_cast<int64_t>(offset);
  return out;
}

void ETDumpGen::add_debug_event(DebugEvent event) {
  current_block().events.push_back(ETDumpEvent{std::move(event)});
}

Error ETDumpGen::log_evalue(const EValue& value, LoggedEValueType type, ChainID chain_id,
                            InstructionID instruction_id) {
  const bool wanted = type == LoggedEValueType::ProgramOutput ? logs_program_outputs()
                                                              : logs_intermediate_outputs();
  if (!wanted) return Error::Ok;
  Error status = Error::Ok;
  DebugEvent ev;
  ev.chain_index = chain_id < 0 ? 0 : static_cast<uint64_t>(chain_id);
  ev.instruction_id = instruction_id;
  ETDumpValue& v = ev.debug_entry;
  v.output = type == LoggedEValueType::ProgramOutput;
  if (value.is_tensor()) {
    v.kind = ETDumpValue::Kind::Tensor;
    v.tensor = save_tensor(value.to_tensor(), status);
  } else if (value.is_tensor_list()) {
    v.kind = ETDumpValue::Kind::TensorList;
    for (const Tensor& t : value.to_tensor_list()) v.tensors.push_back(save_tensor(t, status));
  } else if (value.is_int()) {
    v.kind = ETDumpValue::Kind::Int;
    v.int_value = value.to_int();
  } else if (value.is_bool()) {
    v.kind = ETDumpValue::Kind::Bool;
    v.bool_value = value.to_bool();
  } else if (value.is_double()) {
    v.kind = ETDumpValue::Kind::Double;
    v.double_value = value.to_double();
  } else {
    return Error::Ok;  // lists of scalars, strings, None: the layout has no place for them
  }
  add_debug_event(std::move(ev));
  return status;
}

Error ETDumpGen::log_intermediate_output_delegate(const char* name, int64_t delegate_debug_id,
                                                  const Tensor& output) {
  return log_delegate_output(name, delegate_debug_id, Span<const Tensor>(&output, 1), false);
}

Error ETDumpGen::log_intermediate_output_delegate(const char* name, int64_t delegate_debug_id,
                                                  Span<const Tensor> outputs) {
  return log_delegate_output(name, delegate_debug_id, outputs, true);
}

Error ETDumpGen::log_delegate_output(const char* name, int64_t delegate_debug_id,
                                     Span<const Tensor> outputs, bool as_list) {
  if (!logs_intermediate_outputs()) return Error::Ok;
  Error status = Error::Ok;
  DebugEvent ev;
  const ChainID chain = current_chain_id();
  ev.chain_index = chain < 0 ? 0 : static_cast<uint64_t>(chain);
  ev.instruction_id = current_instruction_id();
  if (name != nullptr) {
    ev.delegate_debug_id_str = name;
    ev.name = name;
  } else {
    ev.delegate_debug_id_int = delegate_id_int(delegate_debug_id);
  }
  ETDumpValue& v = ev.debug_entry;
  if (!as_list && outputs.size() == 1) {
    v.kind = ETDumpValue::Kind::Tensor;
    v.tensor = save_tensor(outputs[0], status);
  } else {
    v.kind = ETDumpValue::Kind::TensorList;
    for (const Tensor& t : outputs) v.tensors.push_back(save_tensor(t, status));
  }
  add_debug_event(std::move(ev));
  return status;
}

}  // namespace ptec::devtools
