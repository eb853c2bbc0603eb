#include "runtime/executor/program.h"

#include <cstddef>
#include <cstring>
#include <utility>

#include "core/log.h"
#include "runtime/executor/method.h"
#include "schema/extended_header.h"
#include "schema/program_generated.h"

namespace ptec::runtime {

namespace fb = executorch_flatbuffer;

namespace {

// Flatbuffers' verifier refuses buffers of 2 GiB and more (FLATBUFFERS_MAX_BUFFER_SIZE).
constexpr size_t kMaxFlatbufferSize = FLATBUFFERS_MAX_BUFFER_SIZE - 1;

uint32_t read_le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// The flatbuffers verifier only checks 4-byte alignment of a vector's length prefix, so in a
// malformed file a vector of 8-byte elements can be misaligned: reading it would be undefined
// behaviour. Checks every such vector the runtime reads. An empty vector has nothing to read, and
// flatbuffers does not align one (its builder skips the padding for zero-length vectors: an empty
// int list, e.g. the size list of a view to a scalar, often lands 4 bytes off).
template <typename T>
bool aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || v->size() == 0 || reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) == 0;
}

bool eight_byte_vectors_aligned(const fb::Program* program) {
  if (program->constant_segment() != nullptr && !aligned(program->constant_segment()->offsets())) {
    return false;
  }
  if (program->mutable_data_segments() != nullptr) {
    for (const fb::SubsegmentOffsets* sub : *program->mutable_data_segments()) {
      if (sub != nullptr && !aligned(sub->offsets())) return false;
    }
  }
  if (program->execution_plan() == nullptr) return true;
  for (const fb::ExecutionPlan* plan : *program->execution_plan()) {
    if (plan == nullptr) continue;
    if (!aligned(plan->non_const_buffer_sizes())) return false;
    if (plan->values() == nullptr) continue;
    for (const fb::EValue* v : *plan->values()) {
      if (v == nullptr) continue;
      if (v->val_type() == fb::KernelTypes::IntList && v->val_as_IntList() != nullptr &&
          !aligned(v->val_as_IntList()->items())) {
        return false;
      }
      if (v->val_type() == fb::KernelTypes::DoubleList && v->val_as_DoubleList() != nullptr &&
          !aligned(v->val_as_DoubleList()->items())) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

Result<Program> Program::load(DataLoader* loader, Verification verification) {
  PTEC_CHECK_OR_RETURN_ERROR(loader != nullptr, InvalidArgument, "Program::load: null loader");
  PTEC_TRY_ASSIGN(const size_t file_size, loader->size());
  PTEC_CHECK_OR_RETURN_ERROR(file_size >= schema::kHeaderOffset, InvalidProgram,
                             "program file is %zu bytes, too small for a flatbuffer", file_size);

  DataLoader::SegmentInfo info;
  info.type = DataLoader::SegmentInfo::Type::Program;
  const size_t head_size = file_size < schema::ExtendedHeader::kNumHeadBytes
                               ? file_size
                               : schema::ExtendedHeader::kNumHeadBytes;
  uint64_t program_size = file_size;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
  {
    PTEC_TRY_ASSIGN(FreeableBuffer head, loader->load(0, head_size, info));
    const uint8_t* bytes = static_cast<const uint8_t*>(head.data());
    PTEC_CHECK_OR_RETURN_ERROR(head.size() == head_size && bytes != nullptr, InvalidProgram,
                               "could not read the program's head bytes");
    PTEC_CHECK_OR_RETURN_ERROR(
        fb::ProgramBufferHasIdentifier(bytes), InvalidProgram,
        "not an ExecuTorch program: file identifier is '%c%c%c%c', expected 'ET12'",
        bytes[4] >= 0x20 && bytes[4] < 0x7f ? bytes[4] : '?',
        bytes[5] >= 0x20 && bytes[5] < 0x7f ? bytes[5] : '?',
        bytes[6] >= 0x20 && bytes[6] < 0x7f ? bytes[6] : '?',
        bytes[7] >= 0x20 && bytes[7] < 0x7f ? bytes[7] : '?');
    Result<schema::ExtendedHeader> header = schema::ExtendedHeader::parse(bytes, head_size);
    if (header.ok()) {
      program_size = header->program_size;
      segment_base_offset = header->segment_base_offset;
      segment_data_size = header->segment_data_size;
      PTEC_CHECK_OR_RETURN_ERROR(
          program_size >= schema::kHeaderOffset + schema::ExtendedHeader::kMinimumLength &&
              program_size <= file_size,
          InvalidProgram,
          "extended header: program_size %llu does not fit the %zu-byte "
          "file (truncated?)",
          static_cast<unsigned long long>(program_size), file_size);
      if (segment_base_offset != 0) {
        PTEC_CHECK_OR_RETURN_ERROR(
            segment_base_offset >= program_size && segment_base_offset <= file_size &&
                segment_data_size <= file_size - segment_base_offset,
            InvalidProgram,
            "extended header: segments [%llu, +%llu) do not fit the %zu-byte file (truncated?)",
            static_cast<unsigned long long>(segment_base_offset),
            static_cast<unsigned long long>(segment_data_size), file_size);
      }
    } else if (header.error() != Error::NotFound) {
      return header.error();
    }
  }
  PTEC_CHECK_OR_RETURN_ERROR(program_size <= kMaxFlatbufferSize, InvalidProgram,
                             "program flatbuffer of %llu bytes exceeds the 2 GiB limit",
                             static_cast<unsigned long long>(program_size));

  PTEC_TRY_ASSIGN(FreeableBuffer data, loader->load(0, static_cast<size_t>(program_size), info));
  const uint8_t* bytes = static_cast<const uint8_t*>(data.data());
  PTEC_CHECK_OR_RETURN_ERROR(bytes != nullptr && data.size() == program_size, InvalidProgram,
                             "could not read the program flatbuffer");
  PTEC_CHECK_OR_RETURN_ERROR(reinterpret_cast<uintptr_t>(bytes) % alignof(std::max_align_t) == 0,
                             InvalidArgument, "program data at %p is not aligned to %zu bytes",
                             static_cast<const void*>(bytes), alignof(std::max_align_t));
  PTEC_CHECK_OR_RETURN_ERROR(fb::ProgramBufferHasIdentifier(bytes), InvalidProgram,
                             "not an ExecuTorch program (identifier is not 'ET12')");
  const uint32_t root = read_le32(bytes);
  PTEC_CHECK_OR_RETURN_ERROR(root >= schema::kHeaderOffset && root < program_size, InvalidProgram,
                             "root offset %u is outside the %llu-byte flatbuffer", root,
                             static_cast<unsigned long long>(program_size));
  if (verification == Verification::InternalConsistency) {
    flatbuffers::Verifier::Options options;
    // Each table takes at least 4 bytes, so this bound only stops pathological sharing.
    const size_t table_bound = static_cast<size_t>(program_size) / 4 + 1000;
    options.max_tables = table_bound > options.max_tables
                             ? static_cast<flatbuffers::uoffset_t>(table_bound)
                             : options.max_tables;
    flatbuffers::Verifier verifier(bytes, static_cast<size_t>(program_size), options);
    PTEC_CHECK_OR_RETURN_ERROR(fb::VerifyProgramBuffer(verifier), InvalidProgram,
                               "program flatbuffer failed verification (malformed or truncated "
                               "file)");
    PTEC_CHECK_OR_RETURN_ERROR(
        eight_byte_vectors_aligned(fb::GetProgram(bytes)), InvalidProgram,
        "program flatbuffer has a misaligned 8-byte vector (malformed file)");
  }
  const fb::Program* root_table = fb::GetProgram(bytes);

  Program program(loader, std::move(data), root_table, segment_base_offset, segment_data_size);
  PTEC_TRY(program.load_constant_segment());
  program.pte_data_map_ = PteDataMap(loader, root_table, segment_base_offset, segment_data_size);
  return program;
}

Error Program::load_constant_segment() {
  const fb::SubsegmentOffsets* constant_segment = program_->constant_segment();
  const bool has_offsets = constant_segment != nullptr && constant_segment->offsets() != nullptr &&
                           constant_segment->offsets()->size() > 0;
  if (!has_offsets) {
    const size_t n_buffers =
        program_->constant_buffer() == nullptr ? 0 : program_->constant_buffer()->size();
    PTEC_LOG(Error,
             "PTE file relies on the deprecated constant_buffer path (no constant_segment "
             "offsets; %zu inline constant buffers), which ptec's runtime does not support, like "
             "ExecuTorch's default build. Re-export it with a constant_segment.",
             n_buffers);
    return Error::InvalidProgram;
  }
  if (program_->constant_buffer() != nullptr && program_->constant_buffer()->size() > 0) {
    PTEC_LOG(Error, "program has both constant_segment offsets and a constant_buffer");
    return Error::InvalidProgram;
  }
  // Offset 0 is the placeholder for data_buffer_idx 0: with nothing else there is no data.
  if (constant_segment->offsets()->size() <= 1) return Error::Ok;
  Result<FreeableBuffer> segment = internal::load_program_segment(
      loader_, program_, segment_base_offset_, segment_data_size_,
      constant_segment->segment_index(), DataLoader::SegmentInfo::Type::Constant, nullptr);
  if (!segment.ok()) {
    PTEC_LOG(Error, "cannot load the constant segment (segment %u)",
             constant_segment->segment_index());
    return segment.error();
  }
  constant_segment_ = std::move(segment.get());
  return Error::Ok;
}

size_t Program::num_methods() const {
  return program_->execution_plan() == nullptr ? 0 : program_->execution_plan()->size();
}

Result<const char*> Program::get_method_name(size_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(index < num_methods(), InvalidArgument,
                             "method index %zu out of range (%zu methods)", index, num_methods());
  const fb::ExecutionPlan* plan =
      program_->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(index));
  PTEC_CHECK_OR_RETURN_ERROR(plan != nullptr && plan->name() != nullptr, InvalidProgram,
                             "execution plan %zu has no name", index);
  return plan->name()->c_str();
}

Result<size_t> Program::find_method(const char* method_name) const {
  PTEC_CHECK_OR_RETURN_ERROR(method_name != nullptr, InvalidArgument, "null method name");
  for (size_t i = 0; i < num_methods(); ++i) {
    const fb::ExecutionPlan* plan =
        program_->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (plan != nullptr && plan->name() != nullptr &&
        std::strcmp(plan->name()->c_str(), method_name) == 0) {
      return i;
    }
  }
  PTEC_LOG(Error, "method '%s' not found in the program", method_name);
  return Error::NotFound;
}

Result<MethodMeta> Program::method_meta(const char* method_name) const {
  PTEC_TRY_ASSIGN(const size_t index, find_method(method_name));
  const fb::ExecutionPlan* plan =
      program_->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(index));
  PTEC_CHECK_OR_RETURN_ERROR(plan->values() != nullptr, InvalidProgram,
                             "method '%s' has no values table", method_name);
  return MethodMeta::create(plan, plan->values()->size());
}

Result<Method> Program::load_method(const char* method_name, MemoryManager* memory_manager,
                                    EventTracer* event_tracer,
                                    const NamedDataMap* named_data_map) const {
  PTEC_TRY_ASSIGN(const size_t index, find_method(method_name));
  PTEC_CHECK_OR_RETURN_ERROR(
      memory_manager != nullptr && memory_manager->method_allocator != nullptr, InvalidArgument,
      "load_method('%s'): a MemoryManager with a method allocator is required", method_name);
  if (event_tracer != nullptr) event_tracer->create_event_block("Default", method_name);
  EventTracerEntry entry;
  if (event_tracer != nullptr) entry = event_tracer->start_profiling("Program::load_method");
  const fb::ExecutionPlan* plan =
      program_->execution_plan()->Get(static_cast<flatbuffers::uoffset_t>(index));
  Method method(memory_manager, event_tracer, plan);
  const Error err = method.init(*this, named_data_map);
  if (event_tracer != nullptr) event_tracer->end_profiling(entry);
  if (err != Error::Ok) {
    PTEC_LOG(Error, "loading method '%s' failed: %s", method_name, to_string(err));
    return err;
  }
  return method;
}

Result<const void*> Program::get_constant_data(size_t data_buffer_idx, size_t nbytes) const {
  const auto* offsets = program_->constant_segment()->offsets();  // non-null: checked at load
  PTEC_CHECK_OR_RETURN_ERROR(data_buffer_idx >= 1 && data_buffer_idx < offsets->size(),
                             InvalidProgram,
                             "constant data_buffer_idx %zu out of range (constant_segment has "
                             "%u offsets)",
                             data_buffer_idx, offsets->size());
  const uint64_t offset = offsets->Get(static_cast<flatbuffers::uoffset_t>(data_buffer_idx));
  const size_t size = constant_segment_.size();
  PTEC_CHECK_OR_RETURN_ERROR(offset <= size && nbytes <= size - offset, InvalidProgram,
                             "constant %zu [%llu, +%zu) is outside the %zu-byte constant segment",
                             data_buffer_idx, static_cast<unsigned long long>(offset), nbytes,
                             size);
  if (nbytes == 0 && constant_segment_.data() == nullptr) return static_cast<const void*>(nullptr);
  return static_cast<const void*>(static_cast<const uint8_t*>(constant_segment_.data()) + offset);
}

Error Program::load_mutable_data_into(size_t data_buffer_idx, void* buffer, size_t nbytes) const {
  const auto* segments = program_->mutable_data_segments();
  PTEC_CHECK_OR_RETURN_ERROR(segments != nullptr && segments->size() > 0, InvalidProgram,
                             "tensor has initial data (data_buffer_idx %zu) but the program has "
                             "no mutable_data_segments",
                             data_buffer_idx);
  const fb::SubsegmentOffsets* sub = segments->Get(0);
  PTEC_CHECK_OR_RETURN_ERROR(sub != nullptr && sub->offsets() != nullptr && data_buffer_idx >= 1 &&
                                 data_buffer_idx < sub->offsets()->size(),
                             InvalidProgram,
                             "mutable data_buffer_idx %zu is out of range of "
                             "mutable_data_segments[0].offsets",
                             data_buffer_idx);
  PTEC_TRY_ASSIGN(FreeableBuffer segment,
                  internal::load_program_segment(loader_, program_, segment_base_offset_,
                                                 segment_data_size_, sub->segment_index(),
                                                 DataLoader::SegmentInfo::Type::Mutable, nullptr));
  const uint64_t offset = sub->offsets()->Get(static_cast<flatbuffers::uoffset_t>(data_buffer_idx));
  PTEC_CHECK_OR_RETURN_ERROR(offset <= segment.size() && nbytes <= segment.size() - offset,
                             InvalidProgram,
                             "mutable tensor data [%llu, +%zu) is outside its %zu-byte segment",
                             static_cast<unsigned long long>(offset), nbytes, segment.size());
  if (nbytes > 0) {
    std::memcpy(buffer, static_cast<const uint8_t*>(segment.data()) + offset, nbytes);
  }
  return Error::Ok;
}

Result<FreeableBuffer> Program::load_segment(size_t index, DataLoader::SegmentInfo::Type type,
                                             const char* descriptor) const {
  return internal::load_program_segment(loader_, program_, segment_base_offset_, segment_data_size_,
                                        index, type, descriptor);
}

}  // namespace ptec::runtime
