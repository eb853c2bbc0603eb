#pragma once

// Transparent huge pages for the packed weights the CPU backend streams from memory on every run.
// A deep layer's weights (ResNet-18's 512-channel 3x3 convolutions: 9.4 MB each) are read once
// per run, a 4 KiB page every few hundred cycles of the GEMM; with 4 KiB pages their TLB misses
// stall it (measured: a 7x7x512 convolution with weights cold in the caches 2.53 -> 2.12 ms on
// 2 MiB pages). Linux backs a range with huge pages on first touch once it is advised to
// (madvise MADV_HUGEPAGE, which the common "madvise" THP setting requires).

#include <cstddef>
#include <cstdint>

namespace ptec::backends::cpu {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

/// [begin, end) in bytes of address space; empty when begin == end.
struct ByteRange {
  uintptr_t begin = 0, end = 0;
};

/// The whole huge pages (kHugePageBytes-aligned) inside [p, p + bytes), or an empty range.
ByteRange huge_page_range(const void* p, size_t bytes);

/// Advises the kernel to back the whole huge pages inside [p, p + bytes) with transparent huge
/// pages. Only advice: the memory and its contents stay as they are, and where huge pages are
/// unsupported, disabled or refused nothing happens. Returns whether the advice was taken.
bool advise_huge_pages(void* p, size_t bytes);

}  // namespace ptec::backends::cpu
