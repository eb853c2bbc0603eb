#include "tools/ptec/runtime_errors.h"

#include <cstdio>

#include "ir/exception.h"

namespace ptec::cli {

void RuntimeErrorCapture::sink(LogLevel level, const char* message, void* user) {
  auto* self = static_cast<RuntimeErrorCapture*>(user);
  if (level == LogLevel::Error) {
    self->lines_.emplace_back(message);
  } else if (level == LogLevel::Info) {
    std::fprintf(stderr, "ptec: %s\n", message);
  }
}

void RuntimeErrorCapture::check(Error error, const std::string& what) {
  if (error == Error::Ok) {
    lines_.clear();
    return;
  }
  std::string details;
  for (const std::string& line : lines_) details += (details.empty() ? "" : "; ") + line;
  lines_.clear();
  raise(error, "{}: {}{}{}", what, to_string(error), details.empty() ? "" : ": ", details);
}

}  // namespace ptec::cli
