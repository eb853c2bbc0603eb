#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "ir/buffer.h"

namespace ptec::ir::detail {

/// A zero-filled stand-in for a payload the text format names but the parser was not given. It
/// remembers the content hash the text printed, so that printing the parsed program gives the
/// same text again.
///
/// The zeros come from calloc, which maps large blocks straight from the kernel's zero pages:
/// stand-ins for the weights of a big model (e.g. an ETRecord loaded without payloads) cost no
/// memory until they are read.
class UnloadedPayload final : public Buffer {
 public:
  UnloadedPayload(size_t size, std::string hash)
      : bytes_(static_cast<uint8_t*>(std::calloc(size == 0 ? 1 : size, 1))),
        hash_(std::move(hash)) {
    if (bytes_ == nullptr) throw std::bad_alloc();
    bind(bytes_.get(), size, false);
  }
  const std::string& hash() const { return hash_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> bytes_;
  std::string hash_;
};

}  // namespace ptec::ir::detail
