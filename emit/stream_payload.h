#pragma once

#include <algorithm>
#include <cstddef>

#include "ir/buffer.h"

namespace ptec::emit {

/// Writes `payload` through `sink` (write(data, size)). A memory-mapped payload goes out in 16 MiB
/// pieces whose pages are released once written, so writing a payload larger than memory, or an
/// engine of hundreds of MiB, keeps only one piece resident.
template <typename Sink>
void stream_payload(Sink& sink, const ir::Buffer& payload) {
  if (!payload.is_mapped()) {
    sink.write(payload.data(), payload.size());
    return;
  }
  for (size_t offset = 0; offset < payload.size(); offset += ir::Buffer::kReleasePiece) {
    const size_t n = std::min(ir::Buffer::kReleasePiece, payload.size() - offset);
    sink.write(payload.data() + offset, n);
    payload.release_pages(offset, n);
  }
}

}  // namespace ptec::emit
