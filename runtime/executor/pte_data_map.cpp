#include "runtime/executor/pte_data_map.h"

#include <cstring>
#include <string_view>

#include "core/log.h"
#include "schema/program_generated.h"

namespace ptec::runtime {

namespace fb = executorch_flatbuffer;

namespace internal {

Result<FreeableBuffer> load_program_segment(const DataLoader* loader, const fb::Program* program,
                                            uint64_t segment_base_offset,
                                            uint64_t segment_data_size, size_t index,
                                            DataLoader::SegmentInfo::Type type,
                                            const char* descriptor) {
  const auto* segments = program->segments();
  PTEC_CHECK_OR_RETURN_ERROR(segments != nullptr && index < segments->size(), InvalidProgram,
                             "segment %zu does not exist (the program has %u)", index,
                             segments == nullptr ? 0u : segments->size());
  PTEC_CHECK_OR_RETURN_ERROR(segment_base_offset != 0, InvalidProgram,
                             "segment %zu is used but the file has no extended header (eh00) "
                             "giving the segment base offset",
                             index);
  const fb::DataSegment* segment = segments->Get(static_cast<flatbuffers::uoffset_t>(index));
  PTEC_CHECK_OR_RETURN_ERROR(segment != nullptr, InvalidProgram, "segment %zu is null", index);
  const uint64_t offset = segment->offset();
  const uint64_t size = segment->size();
  PTEC_CHECK_OR_RETURN_ERROR(
      offset <= segment_data_size && size <= segment_data_size - offset, InvalidProgram,
      "segment %zu [%llu, +%llu) is outside the %llu bytes of segment data", index,
      static_cast<unsigned long long>(offset), static_cast<unsigned long long>(size),
      static_cast<unsigned long long>(segment_data_size));
  DataLoader::SegmentInfo info;
  info.type = type;
  info.segment_index = index;
  info.descriptor = descriptor;
  // segment_base_offset + segment_data_size was checked against the file size at load.
  return loader->load(static_cast<size_t>(segment_base_offset + offset), static_cast<size_t>(size),
                      info);
}

}  // namespace internal

namespace {

std::string_view view(const flatbuffers::String* s) {
  return s == nullptr ? std::string_view() : std::string_view(s->c_str(), s->size());
}

}  // namespace

size_t PteDataMap::num_entries() const {
  return program_ == nullptr || program_->named_data() == nullptr ? 0
                                                                  : program_->named_data()->size();
}

Result<size_t> PteDataMap::find(std::string_view key) const {
  const size_t n = num_entries();
  for (size_t i = 0; i < n; ++i) {
    const fb::NamedData* entry =
        program_->named_data()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (entry != nullptr && view(entry->key()) == key && entry->key() != nullptr) return i;
  }
  return Error::NotFound;
}

Result<TensorLayout> PteDataMap::get_tensor_layout(std::string_view key) const {
  PTEC_TRY_ASSIGN(const size_t index, find(key));
  (void)index;
  // The .pte's named_data has no layouts (FORMAT.md §5).
  return Error::NotImplemented;
}

Result<FreeableBuffer> PteDataMap::get_data(std::string_view key) const {
  PTEC_TRY_ASSIGN(const size_t index, find(key));
  const fb::NamedData* entry =
      program_->named_data()->Get(static_cast<flatbuffers::uoffset_t>(index));
  return internal::load_program_segment(
      loader_, program_, segment_base_offset_, segment_data_size_, entry->segment_index(),
      DataLoader::SegmentInfo::Type::External, entry->key()->c_str());
}

Error PteDataMap::load_data_into(std::string_view key, void* buffer, size_t size) const {
  PTEC_TRY_ASSIGN(FreeableBuffer data, get_data(key));
  PTEC_CHECK_OR_RETURN_ERROR(size == data.size(), InvalidArgument,
                             "named data '%.*s' has %zu bytes, %zu requested",
                             static_cast<int>(key.size()), key.data(), data.size(), size);
  if (size > 0) std::memcpy(buffer, data.data(), size);
  return Error::Ok;
}

Result<uint32_t> PteDataMap::get_num_keys() const { return static_cast<uint32_t>(num_entries()); }

Result<const char*> PteDataMap::get_key(uint32_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(index < num_entries(), InvalidArgument, "key index %u out of range",
                             index);
  const fb::NamedData* entry = program_->named_data()->Get(index);
  PTEC_CHECK_OR_RETURN_ERROR(entry != nullptr && entry->key() != nullptr, InvalidProgram,
                             "named_data entry %u has no key", index);
  return entry->key()->c_str();
}

Result<TensorLayout> MergedDataMap::get_tensor_layout(std::string_view key) const {
  if (first_ != nullptr) {
    Result<TensorLayout> r = first_->get_tensor_layout(key);
    if (r.error() != Error::NotFound) return r;
  }
  if (second_ != nullptr) return second_->get_tensor_layout(key);
  return Error::NotFound;
}

Result<FreeableBuffer> MergedDataMap::get_data(std::string_view key) const {
  if (first_ != nullptr) {
    Result<FreeableBuffer> r = first_->get_data(key);
    if (r.error() != Error::NotFound) return r;
  }
  if (second_ != nullptr) return second_->get_data(key);
  return Error::NotFound;
}

Error MergedDataMap::load_data_into(std::string_view key, void* buffer, size_t size) const {
  if (first_ != nullptr) {
    const Error err = first_->load_data_into(key, buffer, size);
    if (err != Error::NotFound) return err;
  }
  if (second_ != nullptr) return second_->load_data_into(key, buffer, size);
  return Error::NotFound;
}

Result<uint32_t> MergedDataMap::get_num_keys() const {
  uint32_t n = 0;
  for (const NamedDataMap* map : {first_, second_}) {
    if (map == nullptr) continue;
    PTEC_TRY_ASSIGN(const uint32_t k, map->get_num_keys());
    n += k;
  }
  return n;
}

Result<const char*> MergedDataMap::get_key(uint32_t index) const {
  for (const NamedDataMap* map : {first_, second_}) {
    if (map == nullptr) continue;
    PTEC_TRY_ASSIGN(const uint32_t k, map->get_num_keys());
    if (index < k) return map->get_key(index);
    index -= k;
  }
  PTEC_LOG(Error, "key index out of range");
  return Error::InvalidArgument;
}

}  // namespace ptec::runtime
