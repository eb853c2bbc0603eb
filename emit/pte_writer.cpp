#include "emit/pte_writer.h"
#include "emit/ostream_sink.h"

#include <cstring>

#include "emit/atomic_file.h"
#include "emit/program_serializer.h"
#include "emit/stream_payload.h"
#include "ir/exception.h"
#include "schema/extended_header.h"

namespace ptec::emit {

namespace {

uint32_t read_u32_le(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

void write_u32_le(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

/// Streams the layout through `sink` (write(data, size) and zeros(count)).
template <typename Sink>
void stream(const EmittedProgram& program, const PteLayout& layout, Sink& sink) {
  sink.write(layout.head.data(), layout.head.size());
  if (layout.segment_data_size == 0) return;
  uint64_t position = layout.program_size;
  for (const Segment& segment : program.segments) {
    for (const SegmentPiece& piece : segment.pieces) {
      const uint64_t at = layout.segment_base_offset + segment.offset + piece.offset;
      PTEC_ENFORCE(at >= position, Internal, "pte writer: segment pieces overlap at offset {}", at);
      sink.zeros(at - position);
      stream_payload(sink, *piece.data);
      position = at + piece.data->size();
    }
    const uint64_t end = layout.segment_base_offset + segment.offset + segment.size;
    PTEC_ENFORCE(end >= position, Internal, "pte writer: a segment is larger than its size");
    sink.zeros(end - position);
    position = end;
  }
  PTEC_ENFORCE(position == layout.file_size(), Internal,
               "pte writer: wrote {} bytes where the layout says {}", position, layout.file_size());
}

}  // namespace

PteLayout layout_pte(const EmittedProgram& program) {
  PTEC_ENFORCE(program.program != nullptr, InvalidArgument, "pte writer: no program to write");
  PTEC_ENFORCE(program.segments.size() == program.program->segments.size(), Internal,
               "pte writer: {} segment payloads for {} segments", program.segments.size(),
               program.program->segments.size());
  for (size_t i = 0; i < program.segments.size(); ++i) {
    const Segment& s = program.segments[i];
    const auto& entry = *program.program->segments[i];
    PTEC_ENFORCE(s.offset == entry.offset && s.size == entry.size, Internal,
                 "pte writer: segment {} is {{{}, {}}} in the program but {{{}, {}}} in the data",
                 i, entry.offset, entry.size, s.offset, s.size);
    for (const SegmentPiece& piece : s.pieces) {
      PTEC_ENFORCE(piece.data != nullptr && piece.offset + piece.data->size() <= s.size, Internal,
                   "pte writer: a piece of segment {} lies outside it", i);
    }
  }
  const uint64_t alignment = program.segment_alignment;
  PTEC_ENFORCE(alignment > 0 && (alignment & (alignment - 1)) == 0, InvalidArgument,
               "pte writer: segment_alignment must be a power of two, got {}", alignment);

  const flatbuffers::DetachedBuffer fb = serialize_program(*program.program);
  PTEC_ENFORCE(fb.size() >= 8, Internal, "pte writer: flatbuffer of {} bytes", fb.size());
  PteLayout layout;
  layout.segment_data_size = program.segment_data_size();
  if (layout.segment_data_size == 0) {
    // A plain flatbuffer (like add.pte): no extended header.
    layout.head.assign(fb.data(), fb.data() + fb.size());
    layout.program_size = layout.head.size();
    return layout;
  }
  // Insert the eh00 header after the identifier (FORMAT.md §1.1). The padded length (32) is a
  // multiple of every force_align in the schema (16), so the flatbuffer's alignment holds.
  constexpr size_t kPadded = schema::ExtendedHeader::kPaddedLength;
  layout.program_size = fb.size() + kPadded;
  layout.segment_base_offset = schema::aligned_size(layout.program_size, alignment);
  layout.head.resize(layout.program_size);
  uint8_t* out = layout.head.data();
  write_u32_le(out, read_u32_le(fb.data()) + static_cast<uint32_t>(kPadded));
  std::memcpy(out + 4, fb.data() + 4, 4);
  schema::ExtendedHeader header;
  header.program_size = layout.program_size;
  header.segment_base_offset = layout.segment_base_offset;
  header.segment_data_size = layout.segment_data_size;
  std::memset(out + schema::kHeaderOffset, 0, kPadded);
  header.write(out + schema::kHeaderOffset);
  std::memcpy(out + schema::kHeaderOffset + kPadded, fb.data() + 8, fb.size() - 8);
  return layout;
}

void write_pte(const EmittedProgram& program, std::ostream& out) {
  const PteLayout layout = layout_pte(program);
  OstreamSink sink{out, ".pte"};
  stream(program, layout, sink);
  sink.finish();
}

void write_pte(const EmittedProgram& program, const std::string& path) {
  const PteLayout layout = layout_pte(program);
  AtomicFileWriter file(path);
  struct FileSink {
    AtomicFileWriter& f;
    void write(const void* data, size_t size) { f.write(data, size); }
    void zeros(uint64_t count) { f.write_zeros(count); }
  } sink{file};
  stream(program, layout, sink);
  file.commit();
}

std::vector<uint8_t> pte_bytes(const EmittedProgram& program) {
  const PteLayout layout = layout_pte(program);
  struct VectorSink {
    std::vector<uint8_t>& v;
    void write(const void* data, size_t size) {
      const auto* p = static_cast<const uint8_t*>(data);
      v.insert(v.end(), p, p + size);
    }
    void zeros(uint64_t count) { v.insert(v.end(), count, 0); }
  };
  std::vector<uint8_t> bytes;
  bytes.reserve(layout.file_size());
  VectorSink sink{bytes};
  stream(program, layout, sink);
  return bytes;
}

}  // namespace ptec::emit
