#pragma once

#include <algorithm>
#include <cstdint>
#include <ostream>

#include "ir/exception.h"

namespace ptec::emit {

/// The byte sink the .pte and .ptd writers stream into when the target is a std::ostream: every
/// failed write throws AccessFailed naming `what` (e.g. ".pte").
struct OstreamSink {
  std::ostream& os;
  const char* what;

  void write(const void* data, size_t size) {
    os.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    PTEC_ENFORCE(os.good(), AccessFailed, "cannot write the {}: the output stream failed", what);
  }
  void zeros(uint64_t count) {
    static const char kZeros[4096] = {};
    while (count > 0) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(count, sizeof(kZeros)));
      write(kZeros, n);
      count -= n;
    }
  }
  /// Flushes and checks the stream once everything is written.
  void finish() {
    os.flush();
    PTEC_ENFORCE(os.good(), AccessFailed, "cannot write the {}: the output stream failed", what);
  }
};

}  // namespace ptec::emit
