#pragma once

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "core/error.h"

namespace ptec {

/// The one exception type of ptec's compiler side (ir/, frontends/, passes/, program/, ...).
/// Carries an Error code and a located message (file, method, node, op). The runtime never throws.
class Exception : public std::runtime_error {
 public:
  Exception(Error code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Error code() const { return code_; }

 private:
  Error code_;
};

/// Throws ptec::Exception with a fmt-formatted message.
template <typename... Args>
[[noreturn]] void raise(Error code, fmt::format_string<Args...> format, Args&&... args) {
  throw Exception(code, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace ptec

/// Throws ptec::Exception(Error::code, message) unless `cond` holds.
#define PTEC_ENFORCE(cond, code, ...)                             \
  do {                                                            \
    if (!(cond)) ::ptec::raise(::ptec::Error::code, __VA_ARGS__); \
  } while (0)
