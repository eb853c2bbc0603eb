#include "schema/extended_header.h"

#include <cstring>

namespace ptec::schema {
namespace {

uint32_t read_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

uint64_t read_u64(const uint8_t* p) {
  return static_cast<uint64_t>(read_u32(p)) | static_cast<uint64_t>(read_u32(p + 4)) << 32;
}

void write_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

void write_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Returns the header start when the magic is present, nullptr otherwise.
const uint8_t* find_header(const void* data, size_t size, const char (&magic)[4]) {
  if (data == nullptr || size < kHeaderOffset + 8) return nullptr;
  const uint8_t* header = static_cast<const uint8_t*>(data) + kHeaderOffset;
  return std::memcmp(header, magic, 4) == 0 ? header : nullptr;
}

}  // namespace

Result<ExtendedHeader> ExtendedHeader::parse(const void* data, size_t size) {
  const uint8_t* header = find_header(data, size, kMagic);
  if (header == nullptr) return Error::NotFound;
  const uint32_t length = read_u32(header + 4);
  PTEC_CHECK_OR_RETURN_ERROR(length >= kMinimumLength, InvalidProgram,
                             "extended header length %u is below the minimum of %u", length,
                             kMinimumLength);
  const size_t available = size - kHeaderOffset;
  const size_t needed = length >= kExpectedLength ? kExpectedLength : kMinimumLength;
  PTEC_CHECK_OR_RETURN_ERROR(available >= needed, InvalidProgram,
                             "extended header is truncated (%zu of %zu bytes)", available, needed);
  ExtendedHeader h;
  h.program_size = read_u64(header + 8);
  h.segment_base_offset = read_u64(header + 16);
  h.segment_data_size = length >= kExpectedLength ? read_u64(header + 24) : 0;
  return h;
}

void ExtendedHeader::write(uint8_t out[kExpectedLength]) const {
  std::memcpy(out, kMagic, 4);
  write_u32(out + 4, kExpectedLength);
  write_u64(out + 8, program_size);
  write_u64(out + 16, segment_base_offset);
  write_u64(out + 24, segment_data_size);
}

Result<FlatTensorHeader> FlatTensorHeader::parse(const void* data, size_t size) {
  const uint8_t* header = find_header(data, size, kMagic);
  if (header == nullptr) return Error::NotFound;
  const uint32_t length = read_u32(header + 4);
  PTEC_CHECK_OR_RETURN_ERROR(length >= kExpectedLength, InvalidExternalData,
                             "FH01 header length %u is below %u", length, kExpectedLength);
  PTEC_CHECK_OR_RETURN_ERROR(size - kHeaderOffset >= kExpectedLength, InvalidExternalData,
                             "FH01 header is truncated (%zu of %u bytes)", size - kHeaderOffset,
                             kExpectedLength);
  FlatTensorHeader h;
  h.flatbuffer_offset = read_u64(header + 8);
  h.flatbuffer_size = read_u64(header + 16);
  h.segment_base_offset = read_u64(header + 24);
  h.segment_data_size = read_u64(header + 32);
  return h;
}

void FlatTensorHeader::write(uint8_t out[kExpectedLength]) const {
  std::memcpy(out, kMagic, 4);
  write_u32(out + 4, kExpectedLength);
  write_u64(out + 8, flatbuffer_offset);
  write_u64(out + 16, flatbuffer_size);
  write_u64(out + 24, segment_base_offset);
  write_u64(out + 32, segment_data_size);
}

}  // namespace ptec::schema
