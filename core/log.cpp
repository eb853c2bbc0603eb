#include "core/log.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ptec {
namespace {

LogSink g_sink = nullptr;
void* g_user = nullptr;

LogLevel default_threshold() {
  const char* env = std::getenv("PTEC_LOG_LEVEL");
  if (env != nullptr && std::strcmp(env, "debug") == 0) return LogLevel::Debug;
  if (env != nullptr && std::strcmp(env, "info") == 0) return LogLevel::Info;
  return LogLevel::Error;
}

}  // namespace

void set_log_sink(LogSink sink, void* user) {
  g_sink = sink;
  g_user = user;
}

void log(LogLevel level, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  if (g_sink != nullptr) {
    g_sink(level, message, g_user);
    return;
  }
  static const LogLevel threshold = default_threshold();
  if (level >= threshold) std::fprintf(stderr, "ptec: %s\n", message);
}

namespace internal {
void abort_with(const char* message) {
  std::fprintf(stderr, "ptec: internal error: %s\n", message);
  std::abort();
}
}  // namespace internal

}  // namespace ptec
