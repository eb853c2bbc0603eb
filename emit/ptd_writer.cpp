#include "emit/ptd_writer.h"
#include "emit/ostream_sink.h"

#include <cstring>
#include <sstream>

#include "emit/atomic_file.h"
#include "emit/program_tables.h"
#include "emit/stream_payload.h"
#include "ir/exception.h"
#include "schema/extended_header.h"
#include "schema/flat_tensor_generated.h"

namespace ptec::emit {
namespace {

namespace ft = flat_tensor_flatbuffer;

struct PtdLayout {
  std::vector<uint8_t> head;  // flatbuffer with the FH01 header inserted
  uint64_t segment_base_offset = 0;
  std::vector<std::pair<uint64_t, ir::BufferPtr>> pieces;  // offset from the base, payload
  uint64_t segment_data_size = 0;
};

PtdLayout layout_ptd(const std::map<std::string, ir::TensorData>& tensors,
                     uint64_t segment_alignment, uint64_t tensor_alignment) {
  PTEC_ENFORCE(segment_alignment > 0 && (segment_alignment & (segment_alignment - 1)) == 0 &&
                   tensor_alignment > 0 && (tensor_alignment & (tensor_alignment - 1)) == 0,
               InvalidArgument, "ptd writer: alignments must be powers of two");
  PtdLayout layout;
  ft::FlatTensorT root;
  root.version = 0;
  DelegateBlobTable contents;  // identical bytes share one segment
  for (const auto& [key, tensor] : tensors) {
    tensor.check("ptd writer: tensor '" + key + "'");
    const uint32_t segment = contents.add(tensor.data);
    if (segment == root.segments.size()) {
      const uint64_t offset =
          layout.pieces.empty() ? 0
                                : schema::aligned_size(layout.segment_data_size, tensor_alignment);
      auto entry = std::make_unique<ft::DataSegmentT>();
      entry->offset = offset;
      entry->size = tensor.data->size();
      root.segments.push_back(std::move(entry));
      layout.pieces.emplace_back(offset, tensor.data);
      layout.segment_data_size = offset + tensor.data->size();
    }
    auto named = std::make_unique<ft::NamedDataT>();
    named->key = key;
    named->segment_index = segment;
    named->tensor_layout = std::make_unique<ft::TensorLayoutT>();
    named->tensor_layout->scalar_type =
        static_cast<executorch_flatbuffer::ScalarType>(static_cast<int8_t>(tensor.spec.dtype));
    for (int64_t s : tensor.spec.upper_bound_sizes()) {
      named->tensor_layout->sizes.push_back(static_cast<int32_t>(s));
    }
    named->tensor_layout->dim_order = tensor.spec.effective_dim_order();
    root.named_data.push_back(std::move(named));
  }
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(ft::FlatTensor::Pack(builder, &root), ft::FlatTensorIdentifier());
  const uint8_t* fb = builder.GetBufferPointer();
  const size_t fb_size = builder.GetSize();
  constexpr size_t kPadded = schema::FlatTensorHeader::kPaddedLength;
  layout.head.assign(fb_size + kPadded, 0);
  uint32_t root_offset = 0;
  std::memcpy(&root_offset, fb, 4);  // little-endian hosts only (as the runtime)
  root_offset += static_cast<uint32_t>(kPadded);
  std::memcpy(layout.head.data(), &root_offset, 4);
  std::memcpy(layout.head.data() + 4, fb + 4, 4);
  schema::FlatTensorHeader header;
  header.flatbuffer_offset = kPadded;
  header.flatbuffer_size = fb_size;
  layout.segment_base_offset = schema::aligned_size(kPadded + fb_size, segment_alignment);
  header.segment_base_offset = layout.segment_base_offset;
  header.segment_data_size = layout.segment_data_size;
  header.write(layout.head.data() + schema::kHeaderOffset);
  std::memcpy(layout.head.data() + schema::kHeaderOffset + kPadded, fb + 8, fb_size - 8);
  return layout;
}

template <typename Sink>
void stream(const PtdLayout& layout, Sink& sink) {
  sink.write(layout.head.data(), layout.head.size());
  uint64_t position = layout.head.size();
  for (const auto& [offset, data] : layout.pieces) {
    const uint64_t at = layout.segment_base_offset + offset;
    sink.zeros(at - position);
    stream_payload(sink, *data);
    position = at + data->size();
  }
  if (layout.pieces.empty()) sink.zeros(layout.segment_base_offset - position);
}

}  // namespace

void write_ptd(const std::map<std::string, ir::TensorData>& tensors, std::ostream& out,
               uint64_t segment_alignment, uint64_t tensor_alignment) {
  const PtdLayout layout = layout_ptd(tensors, segment_alignment, tensor_alignment);
  OstreamSink sink{out, ".ptd"};
  stream(layout, sink);
  sink.finish();
}

void write_ptd(const std::map<std::string, ir::TensorData>& tensors, const std::string& path,
               uint64_t segment_alignment, uint64_t tensor_alignment) {
  const PtdLayout layout = layout_ptd(tensors, segment_alignment, tensor_alignment);
  AtomicFileWriter file(path);
  struct FileSink {
    AtomicFileWriter& f;
    void write(const void* data, size_t size) { f.write(data, size); }
    void zeros(uint64_t count) { f.write_zeros(count); }
  } sink{file};
  stream(layout, sink);
  file.commit();
}

std::vector<uint8_t> ptd_bytes(const std::map<std::string, ir::TensorData>& tensors,
                               uint64_t segment_alignment, uint64_t tensor_alignment) {
  std::ostringstream out;
  write_ptd(tensors, out, segment_alignment, tensor_alignment);
  const std::string s = out.str();
  return std::vector<uint8_t>(s.begin(), s.end());
}

}  // namespace ptec::emit
