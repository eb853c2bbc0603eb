// huge_page_range: the whole 2 MiB pages inside a buffer; advise_huge_pages: the kernel records the
// advice on exactly those pages and the contents stay as they were.

#include "backends/cpu/runtime/huge_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace ptec::backends::cpu {
namespace {

constexpr uintptr_t kPage = kHugePageBytes;

const void* at(uintptr_t address) { return reinterpret_cast<const void*>(address); }

TEST(HugePageRange, IsTheWholePagesInside) {
  ByteRange r = huge_page_range(at(8 * kPage), 2 * kPage);  // aligned: both pages
  EXPECT_EQ(r.begin, 8 * kPage);
  EXPECT_EQ(r.end, 10 * kPage);
  r = huge_page_range(at(8 * kPage + 64), 3 * kPage);  // the partial first and last pages drop
  EXPECT_EQ(r.begin, 9 * kPage);
  EXPECT_EQ(r.end, 11 * kPage);
  r = huge_page_range(at(8 * kPage - 64), kPage + 1024);  // only the page in the middle
  EXPECT_EQ(r.begin, 8 * kPage);
  EXPECT_EQ(r.end, 9 * kPage);
}

TEST(HugePageRange, IsEmptyWhenNoWholePageFits) {
  for (const ByteRange r :
       {huge_page_range(at(8 * kPage), kPage - 1),
        huge_page_range(at(8 * kPage + 64), 2 * kPage - 128), huge_page_range(at(8 * kPage), 0),
        huge_page_range(at(UINTPTR_MAX - kPage), 4 * kPage)}) {
    EXPECT_EQ(r.begin, r.end);
  }
}

// The VmFlags line of the mapping that holds `address` in /proc/self/smaps.
std::string vm_flags(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') inside = lo <= address && address < hi;
    if (inside && line.rfind("VmFlags:", 0) == 0) return line + " ";
  }
  return "";
}

TEST(AdviseHugePages, MarksThePagesInsideAndKeepsTheContents) {
  const size_t bytes = 6 * kPage;
  void* map = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* words = static_cast<uint32_t*>(map);
  for (size_t i = 0; i < bytes / 4; i += 1024) words[i] = static_cast<uint32_t>(i * 2654435761u);
  // A buffer starting 64 bytes into the mapping: its whole pages start at the next boundary.
  auto* buffer = static_cast<unsigned char*>(map) + 64;
  const ByteRange r = huge_page_range(buffer, bytes - 64);
  ASSERT_LT(r.begin, r.end);
  if (!advise_huge_pages(buffer, bytes - 64)) {
    munmap(map, bytes);
    GTEST_SKIP() << "this kernel refuses MADV_HUGEPAGE (no transparent huge pages)";
  }
  EXPECT_NE(vm_flags(r.begin).find(" hg "), std::string::npos) << vm_flags(r.begin);
  if (r.begin > reinterpret_cast<uintptr_t>(map)) {  // the partial page before is not advised
    EXPECT_EQ(vm_flags(reinterpret_cast<uintptr_t>(map)).find(" hg "), std::string::npos);
  }
  for (size_t i = 0; i < bytes / 4; i += 1024) {
    ASSERT_EQ(words[i], static_cast<uint32_t>(i * 2654435761u)) << "word " << i;
  }
  munmap(map, bytes);
}

}  // namespace
}  // namespace ptec::backends::cpu
