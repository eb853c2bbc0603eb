#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/log.h"

namespace ptec::cli {

/// Collects the runtime's error log lines while alive, so that a failing runtime call can be
/// reported as one message that says what went wrong (the runtime returns codes and logs details).
class RuntimeErrorCapture {
 public:
  RuntimeErrorCapture() { set_log_sink(&RuntimeErrorCapture::sink, this); }
  ~RuntimeErrorCapture() { set_log_sink(nullptr, nullptr); }
  RuntimeErrorCapture(const RuntimeErrorCapture&) = delete;
  RuntimeErrorCapture& operator=(const RuntimeErrorCapture&) = delete;

  /// Throws ptec::Exception(`error`) with "`what`: <error name>: <logged lines>" unless Ok.
  void check(Error error, const std::string& what);
  void clear() { lines_.clear(); }

 private:
  static void sink(LogLevel level, const char* message, void* user);
  std::vector<std::string> lines_;
};

}  // namespace ptec::cli
