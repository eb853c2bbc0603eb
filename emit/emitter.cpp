#include "emit/emitter.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "emit/constant_segment.h"
#include "emit/method_emitter.h"
#include "emit/payload_identity.h"
#include "emit/program_tables.h"
#include "ir/exception.h"
#include "schema/extended_header.h"

namespace ptec::emit {

namespace fb = executorch_flatbuffer;

namespace {

bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

void check_power_of_two(uint64_t value, const char* what) {
  PTEC_ENFORCE(value > 0 && (value & (value - 1)) == 0, InvalidArgument,
               "emit: {} must be a power of two, got {}", what, value);
}

}  // namespace

EmittedProgram emit_program(const std::map<std::string, ir::ExportedProgram>& methods,
                            const EmitConfig& config,
                            const std::map<std::string, ConstantValue>& constant_methods) {
  PTEC_ENFORCE(!methods.empty() || !constant_methods.empty(), InvalidArgument,
               "emit: there are no methods to emit");
  check_power_of_two(config.alignment, "alignment");
  check_power_of_two(config.segment_alignment, "segment_alignment");
  check_power_of_two(config.constant_tensor_alignment, "constant_tensor_alignment");
  for (const auto& [name, program] : methods) {
    PTEC_ENFORCE(is_identifier(name), InvalidArgument,
                 "emit: method name '{}' is not a valid identifier", name);
    PTEC_ENFORCE(program.stage() != ir::Stage::Aten, InvalidState,
                 "emit: method '{}' is at stage {}; run to_edge before emitting", name,
                 ir::to_string(program.stage()));
  }
  for (const auto& [name, value] : constant_methods) {
    PTEC_ENFORCE(is_identifier(name), InvalidArgument,
                 "emit: constant method name '{}' is not a valid identifier", name);
    PTEC_ENFORCE(methods.count(name) == 0, InvalidArgument,
                 "emit: constant method '{}' has the name of a method", name);
  }

  EmittedProgram out;
  out.program = std::make_unique<fb::ProgramT>();
  out.segment_alignment = config.segment_alignment;
  ConstantSegmentBuilder constants(config.constant_tensor_alignment);
  ProgramTables tables;

  for (const auto& [name, program] : methods) {
    EmittedMethod record;
    MethodEmitter emitter(name, program, config, constants, &tables);
    out.program->execution_plan.push_back(emitter.emit(record));
    out.methods.push_back(std::move(record));
  }
  for (const auto& [name, value] : constant_methods) {
    out.program->execution_plan.push_back(emit_constant_method(name, value, constants));
    EmittedMethod record;
    record.name = name;
    record.is_constant_method = true;
    record.memory_plan.buffer_sizes = {0};
    out.methods.push_back(std::move(record));
  }

  // Segment 0 is the constant segment, present even when empty (FORMAT.md §2: add.pte has
  // segments=[{0,0}] and constant_segment={0,[0]}).
  Segment segment;
  segment.offset = 0;
  segment.size = constants.size();
  segment.pieces = constants.pieces();
  auto data_segment = std::make_unique<fb::DataSegmentT>();
  data_segment->offset = segment.offset;
  data_segment->size = segment.size;
  out.program->segments.push_back(std::move(data_segment));
  out.segments.push_back(std::move(segment));
  // Then the delegate blobs (FORMAT.md §1 segment order), each stored once, as segments 1..N or
  // inline; then the delegates' named data.
  auto append_segment = [&](const ir::BufferPtr& data) {
    const uint64_t end = out.segment_data_size();
    Segment s;
    s.offset = out.segments.size() == 1 && out.segments[0].size == 0
                   ? 0
                   : schema::aligned_size(end, config.segment_alignment);
    s.size = data->size();
    s.pieces.push_back({data, 0});
    auto entry = std::make_unique<fb::DataSegmentT>();
    entry->offset = s.offset;
    entry->size = s.size;
    out.program->segments.push_back(std::move(entry));
    out.segments.push_back(std::move(s));
    return static_cast<uint32_t>(out.segments.size() - 1);
  };
  for (const ir::BufferPtr& blob : tables.delegate_blobs.blobs()) {
    if (config.extract_delegate_segments) {
      append_segment(blob);
    } else {
      auto inline_data = std::make_unique<fb::BackendDelegateInlineDataT>();
      inline_data->data.assign(blob->data(), blob->data() + blob->size());
      out.program->backend_delegate_data.push_back(std::move(inline_data));
    }
  }
  std::unordered_map<size_t, std::vector<std::pair<ir::BufferPtr, uint32_t>>> named_segments;
  for (const auto& [key, blob] : tables.named_data) {
    if (config.external_constants) {
      // Backends' named data (e.g. weights a delegate packs at init) goes to the .ptd with the
      // tensors, so that the .pte holds no weights; the runtime serves both through one map.
      const ir::TensorSpec bytes(DType::Byte,
                                 std::vector<int64_t>{static_cast<int64_t>(blob->size())});
      PTEC_ENFORCE(tables.external_tensors.emplace(key, ir::TensorData{bytes, blob}).second,
                   InvalidProgram, "named data key '{}' is also a tensor's name", key);
      continue;
    }
    auto named = std::make_unique<fb::NamedDataT>();
    named->key = key;
    // Keys with the same bytes (one weight under two names) share a segment.
    auto& same_size = named_segments[payload_fingerprint(*blob)];
    const auto shared = std::find_if(same_size.begin(), same_size.end(), [&](const auto& seen) {
      return same_payload(*seen.first, *blob);
    });
    if (shared != same_size.end()) {
      named->segment_index = shared->second;
    } else {
      named->segment_index = append_segment(blob);
      same_size.emplace_back(blob, named->segment_index);
    }
    out.program->named_data.push_back(std::move(named));
  }
  out.external_tensors = std::move(tables.external_tensors);

  out.program->constant_segment = std::make_unique<fb::SubsegmentOffsetsT>();
  out.program->constant_segment->segment_index = 0;
  out.program->constant_segment->offsets = constants.offsets();
  out.program->version = 0;
  return out;
}

}  // namespace ptec::emit
