#include "backends/cpu/runtime/huge_pages.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ptec::backends::cpu {

ByteRange huge_page_range(const void* p, size_t bytes) {
  const auto start = reinterpret_cast<uintptr_t>(p);
  if (bytes < kHugePageBytes || start > UINTPTR_MAX - bytes) return {};
  const uintptr_t begin = (start + kHugePageBytes - 1) & ~(uintptr_t{kHugePageBytes} - 1);
  const uintptr_t end = (start + bytes) & ~(uintptr_t{kHugePageBytes} - 1);
  if (begin >= end) return {};
  return {begin, end};
}

bool advise_huge_pages(void* p, size_t bytes) {
  const ByteRange r = huge_page_range(p, bytes);
  if (r.begin == r.end) return false;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  return madvise(reinterpret_cast<void*>(r.begin), r.end - r.begin, MADV_HUGEPAGE) == 0;
#else
  return false;
#endif
}

}  // namespace ptec::backends::cpu
