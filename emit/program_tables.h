#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/buffer.h"
#include "ir/tensor_spec.h"

namespace ptec::emit {

/// Delegate blobs of a program, each stored once: identical bytes (hash, then a full compare)
/// share one entry, across methods. Payloads are referenced, never copied.
class DelegateBlobTable {
 public:
  /// Index of `blob`'s bytes in blobs(), adding them when new.
  uint32_t add(const ir::BufferPtr& blob);
  const std::vector<ir::BufferPtr>& blobs() const { return blobs_; }

 private:
  std::vector<ir::BufferPtr> blobs_;
  std::unordered_multimap<size_t, uint32_t> by_hash_;
};

/// Tables shared by every method of one program: delegate blobs, external tensors (.ptd) and
/// delegates' named data.
struct ProgramTables {
  DelegateBlobTable delegate_blobs;
  /// Fully qualified name → tensor, for EmitConfig::external_constants. Two methods may name
  /// the same tensor only with identical layout and bytes.
  std::map<std::string, ir::TensorData> external_tensors;
  /// Key → blob (Program.named_data); a key may only be given one content.
  std::map<std::string, ir::BufferPtr> named_data;

  /// Adds an external tensor of method `method` and returns its key: `fqn`, or, when another
  /// method already stored other data (or another layout) under `fqn`, "<method>/<fqn>".
  /// Identical tensors under one key are stored once.
  std::string add_external(const std::string& method, const std::string& fqn,
                           const ir::TensorData& data);
  /// Adds named data; throws InvalidProgram when `key` already holds other bytes.
  void add_named_data(const std::string& key, const ir::BufferPtr& blob);
};

/// True when both buffers hold the same bytes.
bool same_bytes(const ir::BufferPtr& a, const ir::BufferPtr& b);

}  // namespace ptec::emit
