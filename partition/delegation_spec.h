#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::partition {

/// Compile spec key whose value (the UTF-8 bytes of a method name) says which method a
/// partitioner produced the spec for. `to_backend` rejects a spec whose "method_name" differs
/// from the method being partitioned (DESIGN.md §4).
inline constexpr const char* kMethodNameCompileSpec = "method_name";

/// One backend option (ExecuTorch's CompileSpec): a key and opaque bytes.
struct CompileSpec {
  std::string key;
  std::vector<uint8_t> value;

  /// A spec whose value is the bytes of `text` (no terminating NUL).
  static CompileSpec from_string(std::string key, const std::string& text) {
    return {std::move(key), std::vector<uint8_t>(text.begin(), text.end())};
  }
  bool operator==(const CompileSpec&) const = default;
};

/// Where a partition goes: the backend id (as registered with partition::register_backend and,
/// on the runtime side, runtime::register_backend) and its compile specs.
struct DelegationSpec {
  std::string backend_id;
  std::vector<CompileSpec> compile_specs;
  bool operator==(const DelegationSpec&) const = default;
};

}  // namespace ptec::partition
