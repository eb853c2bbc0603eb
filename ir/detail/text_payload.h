#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/buffer.h"

namespace ptec::ir::detail {

/// A zero-filled stand-in for a payload the text format names but the parser was not given. It
/// remembers the content hash the text printed, so that printing the parsed program gives the
/// same text again.
class UnloadedPayload final : public Buffer {
 public:
  UnloadedPayload(size_t size, std::string hash) : bytes_(size, 0), hash_(std::move(hash)) {
    bind(bytes_.data(), bytes_.size(), false);
  }
  const std::string& hash() const { return hash_; }

 private:
  std::vector<uint8_t> bytes_;
  std::string hash_;
};

}  // namespace ptec::ir::detail
