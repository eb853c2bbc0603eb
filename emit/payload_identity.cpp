#include "emit/payload_identity.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string_view>

namespace ptec::emit {

size_t payload_fingerprint(const ir::Buffer& payload) {
  constexpr size_t kEdge = 4096;
  const size_t n = payload.size();
  const size_t edge = std::min(n, kEdge);
  const auto* bytes = reinterpret_cast<const char*>(payload.data());
  const size_t head = std::hash<std::string_view>{}(std::string_view(bytes, edge));
  const size_t tail = std::hash<std::string_view>{}(std::string_view(bytes + (n - edge), edge));
  size_t h = std::hash<size_t>{}(n);
  for (size_t part : {head, tail}) h ^= part + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

bool same_payload(const ir::Buffer& a, const ir::Buffer& b) {
  if (&a == &b || (a.data() == b.data() && a.size() == b.size())) return true;
  if (a.size() != b.size()) return false;
  for (size_t offset = 0; offset < a.size(); offset += ir::Buffer::kReleasePiece) {
    const size_t n = std::min(ir::Buffer::kReleasePiece, a.size() - offset);
    const bool equal = std::memcmp(a.data() + offset, b.data() + offset, n) == 0;
    a.release_pages(offset, n);
    b.release_pages(offset, n);
    if (!equal) return false;
  }
  return true;
}

}  // namespace ptec::emit
