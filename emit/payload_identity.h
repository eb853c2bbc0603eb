#pragma once

#include <cstddef>

#include "ir/buffer.h"

namespace ptec::emit {

/// A hash of a payload for bucketing equal payloads (weights, delegate blobs): its size and its
/// first and last 4 KiB. Reading only the ends keeps a large memory-mapped payload (an engine of
/// hundreds of MiB) from becoming resident just to be hashed; same_payload confirms a match.
size_t payload_fingerprint(const ir::Buffer& payload);

/// True when both payloads hold the same bytes. Compares 16 MiB at a time and releases the
/// compared pages of mapped payloads (ir::Buffer::release_pages).
bool same_payload(const ir::Buffer& a, const ir::Buffer& b);

}  // namespace ptec::emit
