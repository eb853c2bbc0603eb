#pragma once

#include <cstdarg>

namespace ptec {

enum class LogLevel { Debug = 0, Info = 1, Error = 2 };

/// Receives every log line (already formatted, no trailing newline).
using LogSink = void (*)(LogLevel level, const char* message, void* user);

/// Installs a sink; nullptr restores the default (stderr for Error, nothing otherwise unless
/// the environment variable PTEC_LOG_LEVEL=debug|info is set). Returns the previous sink.
/// Not thread-safe with respect to concurrent logging; set it once at start-up or in tests.
void set_log_sink(LogSink sink, void* user);

/// printf-style logging. No heap: messages longer than 512 bytes are truncated.
void log(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

namespace internal {
/// Prints the message and aborts. Only for broken internal invariants, never for bad input.
[[noreturn]] void abort_with(const char* message);
}  // namespace internal

}  // namespace ptec

#define PTEC_LOG(level, ...) ::ptec::log(::ptec::LogLevel::level, __VA_ARGS__)
