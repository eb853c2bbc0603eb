#include "runtime/executor/flatbuffer_data_map.h"

#include <utility>

#include "core/log.h"
#include "schema/flat_tensor_generated.h"

namespace ptec::runtime {

namespace ft = flat_tensor_flatbuffer;
using flatbuffers::uoffset_t;

FlatTensorDataMap::FlatTensorDataMap(DataLoader* loader, FreeableBuffer data,
                                     const ft::FlatTensor* flat_tensor,
                                     const schema::FlatTensorHeader& header)
    : loader_(loader), data_(std::move(data)), flat_tensor_(flat_tensor), header_(header) {}

Result<FlatTensorDataMap> FlatTensorDataMap::load(DataLoader* loader) {
  PTEC_CHECK_OR_RETURN_ERROR(loader != nullptr, InvalidArgument, "FlatTensorDataMap: null loader");
  PTEC_TRY_ASSIGN(const size_t file_size, loader->size());
  constexpr size_t kHeadBytes = schema::kHeaderOffset + schema::FlatTensorHeader::kExpectedLength;
  PTEC_CHECK_OR_RETURN_ERROR(file_size >= kHeadBytes, InvalidExternalData,
                             "data file is %zu bytes, too small for a .ptd", file_size);
  DataLoader::SegmentInfo info;
  info.type = DataLoader::SegmentInfo::Type::External;
  schema::FlatTensorHeader header;
  {
    PTEC_TRY_ASSIGN(FreeableBuffer head, loader->load(0, kHeadBytes, info));
    PTEC_CHECK_OR_RETURN_ERROR(head.data() != nullptr && head.size() == kHeadBytes,
                               InvalidExternalData, "could not read the data file's head");
    PTEC_CHECK_OR_RETURN_ERROR(ft::FlatTensorBufferHasIdentifier(head.data()), InvalidExternalData,
                               "not a FlatTensor data file (identifier is not 'FT01')");
    Result<schema::FlatTensorHeader> parsed =
        schema::FlatTensorHeader::parse(head.data(), kHeadBytes);
    if (!parsed.ok()) {
      PTEC_LOG(Error, "data file has no valid FH01 header");
      return Error::InvalidExternalData;
    }
    header = parsed.get();
  }
  const uint64_t fb_end = header.flatbuffer_offset + header.flatbuffer_size;
  PTEC_CHECK_OR_RETURN_ERROR(
      header.flatbuffer_offset >= kHeadBytes && header.flatbuffer_size <= file_size &&
          fb_end <= file_size && fb_end < FLATBUFFERS_MAX_BUFFER_SIZE,
      InvalidExternalData,
      "FH01 header: flatbuffer [%llu, +%llu) does not fit the %zu-byte file (truncated?)",
      static_cast<unsigned long long>(header.flatbuffer_offset),
      static_cast<unsigned long long>(header.flatbuffer_size), file_size);
  PTEC_CHECK_OR_RETURN_ERROR(
      header.segment_base_offset <= file_size &&
          header.segment_data_size <= file_size - header.segment_base_offset,
      InvalidExternalData,
      "FH01 header: segments [%llu, +%llu) do not fit the %zu-byte file (truncated?)",
      static_cast<unsigned long long>(header.segment_base_offset),
      static_cast<unsigned long long>(header.segment_data_size), file_size);

  PTEC_TRY_ASSIGN(FreeableBuffer data, loader->load(0, static_cast<size_t>(fb_end), info));
  const uint8_t* bytes = static_cast<const uint8_t*>(data.data());
  PTEC_CHECK_OR_RETURN_ERROR(bytes != nullptr && data.size() == fb_end, InvalidExternalData,
                             "could not read the data file's flatbuffer");
  PTEC_CHECK_OR_RETURN_ERROR(reinterpret_cast<uintptr_t>(bytes) % alignof(std::max_align_t) == 0,
                             InvalidArgument, "data file buffer is not aligned");
  flatbuffers::Verifier verifier(bytes, static_cast<size_t>(fb_end));
  PTEC_CHECK_OR_RETURN_ERROR(ft::VerifyFlatTensorBuffer(verifier), InvalidExternalData,
                             "data file flatbuffer failed verification (malformed or truncated)");
  const ft::FlatTensor* flat_tensor = ft::GetFlatTensor(bytes);
  PTEC_CHECK_OR_RETURN_ERROR(flat_tensor->named_data() != nullptr, InvalidExternalData,
                             "data file has no named_data table");
  PTEC_LOG(Info, "PTD data map created with %u keys", flat_tensor->named_data()->size());
  return FlatTensorDataMap(loader, std::move(data), flat_tensor, header);
}

Result<const ft::NamedData*> FlatTensorDataMap::find(std::string_view key) const {
  for (const ft::NamedData* entry : *flat_tensor_->named_data()) {
    if (entry != nullptr && entry->key() != nullptr &&
        std::string_view(entry->key()->c_str(), entry->key()->size()) == key) {
      return entry;
    }
  }
  return Error::NotFound;
}

Error FlatTensorDataMap::segment_range(const ft::NamedData* entry, size_t* offset,
                                       size_t* size) const {
  const auto* segments = flat_tensor_->segments();
  const uint32_t index = entry->segment_index();
  PTEC_CHECK_OR_RETURN_ERROR(segments != nullptr && index < segments->size(), InvalidExternalData,
                             "data file entry '%s': segment %u does not exist",
                             entry->key()->c_str(), index);
  const ft::DataSegment* segment = segments->Get(index);
  PTEC_CHECK_OR_RETURN_ERROR(segment != nullptr, InvalidExternalData, "segment %u is null", index);
  const uint64_t total = header_.segment_data_size;
  PTEC_CHECK_OR_RETURN_ERROR(
      segment->offset() <= total && segment->size() <= total - segment->offset(),
      InvalidExternalData, "data file entry '%s': segment %u is outside the segment data",
      entry->key()->c_str(), index);
  *offset = static_cast<size_t>(header_.segment_base_offset + segment->offset());
  *size = static_cast<size_t>(segment->size());
  return Error::Ok;
}

Result<TensorLayout> FlatTensorDataMap::get_tensor_layout(std::string_view key) const {
  PTEC_TRY_ASSIGN(const ft::NamedData* entry, find(key));
  const ft::TensorLayout* layout = entry->tensor_layout();
  PTEC_CHECK_OR_RETURN_ERROR(
      layout != nullptr && layout->sizes() != nullptr && layout->dim_order() != nullptr,
      InvalidExternalData, "data file entry '%s' has no tensor layout", entry->key()->c_str());
  Result<TensorLayout> result = TensorLayout::create(
      static_cast<DType>(layout->scalar_type()),
      Span<const int32_t>(layout->sizes()->data(), layout->sizes()->size()),
      Span<const uint8_t>(layout->dim_order()->data(), layout->dim_order()->size()));
  if (!result.ok()) {
    PTEC_LOG(Error, "data file entry '%s' has an invalid tensor layout", entry->key()->c_str());
    return Error::InvalidExternalData;
  }
  return result;
}

Result<FreeableBuffer> FlatTensorDataMap::get_data(std::string_view key) const {
  PTEC_TRY_ASSIGN(const ft::NamedData* entry, find(key));
  size_t offset = 0;
  size_t size = 0;
  PTEC_TRY(segment_range(entry, &offset, &size));
  DataLoader::SegmentInfo info;
  info.type = DataLoader::SegmentInfo::Type::External;
  info.segment_index = entry->segment_index();
  info.descriptor = entry->key()->c_str();
  return loader_->load(offset, size, info);
}

Error FlatTensorDataMap::load_data_into(std::string_view key, void* buffer, size_t size) const {
  PTEC_TRY_ASSIGN(const ft::NamedData* entry, find(key));
  size_t offset = 0;
  size_t stored = 0;
  PTEC_TRY(segment_range(entry, &offset, &stored));
  if (entry->tensor_layout() != nullptr) {
    PTEC_TRY_ASSIGN(const TensorLayout layout, get_tensor_layout(key));
    PTEC_CHECK_OR_RETURN_ERROR(size <= layout.nbytes(), InvalidArgument,
                               "'%s': %zu bytes requested, the layout holds %zu",
                               entry->key()->c_str(), size, layout.nbytes());
  }
  PTEC_CHECK_OR_RETURN_ERROR(size <= stored, InvalidExternalData,
                             "'%s': %zu bytes requested, the file stores %zu",
                             entry->key()->c_str(), size, stored);
  DataLoader::SegmentInfo info;
  info.type = DataLoader::SegmentInfo::Type::External;
  info.segment_index = entry->segment_index();
  info.descriptor = entry->key()->c_str();
  return loader_->load_into(offset, size, info, buffer);
}

Result<uint32_t> FlatTensorDataMap::get_num_keys() const {
  return flat_tensor_->named_data()->size();
}

Result<const char*> FlatTensorDataMap::get_key(uint32_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(index < flat_tensor_->named_data()->size(), InvalidArgument,
                             "key index %u out of range", index);
  const ft::NamedData* entry = flat_tensor_->named_data()->Get(index);
  PTEC_CHECK_OR_RETURN_ERROR(entry != nullptr && entry->key() != nullptr, InvalidExternalData,
                             "named_data entry %u has no key", index);
  return entry->key()->c_str();
}

}  // namespace ptec::runtime
