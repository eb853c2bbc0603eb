#include "emit/constant_segment.h"

#include <cstring>
#include <functional>

#include "emit/payload_identity.h"
#include "ir/exception.h"
#include "memory/memory_plan.h"

namespace ptec::emit {

ConstantSegmentBuilder::ConstantSegmentBuilder(uint64_t alignment) : alignment_(alignment) {
  PTEC_ENFORCE(alignment > 0 && (alignment & (alignment - 1)) == 0, InvalidArgument,
               "constant_tensor_alignment must be a power of two, got {}", alignment);
}

uint32_t ConstantSegmentBuilder::add(const ir::BufferPtr& data) {
  PTEC_ENFORCE(data != nullptr, InvalidArgument, "a constant has no data");
  // An empty constant has no bytes to place: it refers to the placeholder, as upstream's emitter
  // does, so that a program whose constants are all empty has no constant segment.
  if (data->size() == 0) return 0;
  const size_t hash = payload_fingerprint(*data);
  auto [begin, end] = by_hash_.equal_range(hash);
  for (auto it = begin; it != end; ++it) {
    const ir::BufferPtr& existing = pieces_[it->second - 1].data;
    if (existing == data || same_payload(*existing, *data)) return it->second;
  }
  const uint64_t offset = pieces_.empty() ? 0 : memory::align_up(size_, alignment_);
  pieces_.push_back({data, offset});
  offsets_.push_back(offset);
  size_ = offset + data->size();
  const auto index = static_cast<uint32_t>(offsets_.size() - 1);
  by_hash_.emplace(hash, index);
  return index;
}

}  // namespace ptec::emit
