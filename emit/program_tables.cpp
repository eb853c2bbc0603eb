#include "emit/program_tables.h"

#include <cstring>
#include <functional>
#include <string_view>

#include "emit/payload_identity.h"
#include "ir/exception.h"

namespace ptec::emit {

bool same_bytes(const ir::BufferPtr& a, const ir::BufferPtr& b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  return same_payload(*a, *b);
}

uint32_t DelegateBlobTable::add(const ir::BufferPtr& blob) {
  PTEC_ENFORCE(blob != nullptr, InvalidArgument, "a delegate has no processed bytes");
  const size_t hash = payload_fingerprint(*blob);
  auto [begin, end] = by_hash_.equal_range(hash);
  for (auto it = begin; it != end; ++it) {
    if (same_bytes(blobs_[it->second], blob)) return it->second;
  }
  const auto index = static_cast<uint32_t>(blobs_.size());
  blobs_.push_back(blob);
  by_hash_.emplace(hash, index);
  return index;
}

std::string ProgramTables::add_external(const std::string& method, const std::string& fqn,
                                        const ir::TensorData& data) {
  for (const std::string& key : {fqn, method + "/" + fqn}) {
    auto [it, inserted] = external_tensors.emplace(key, data);
    if (inserted) return key;
    if (it->second.spec == data.spec && same_bytes(it->second.data, data.data)) return key;
  }
  raise(Error::InvalidProgram, "emit: method '{}': external tensor '{}' is given two values",
        method, fqn);
}

void ProgramTables::add_named_data(const std::string& key, const ir::BufferPtr& blob) {
  auto [it, inserted] = named_data.emplace(key, blob);
  PTEC_ENFORCE(inserted || same_bytes(it->second, blob), InvalidProgram,
               "emit: named data '{}' is given two different blobs", key);
}

}  // namespace ptec::emit
