#pragma once

#include <cstdint>
#include <vector>

#include "runtime/core/memory_allocator.h"

namespace ptec::runtime {

/// A temp allocator (Module uses it): scratch memory that kernels and delegates ask for while they
/// run, forgotten after each instruction (Method resets it). It bump-allocates from one block and
/// keeps that block across resets, so a method that runs many times allocates nothing after its
/// first run: when an instruction needed more than the block held, overflow blocks serve it and the
/// next reset replaces the block by one as large as that instruction's whole need.
class ReusableArenaAllocator final : public MemoryAllocator {
 public:
  ReusableArenaAllocator() : MemoryAllocator(nullptr, 0) {}
  ~ReusableArenaAllocator() override;
  ReusableArenaAllocator(const ReusableArenaAllocator&) = delete;
  ReusableArenaAllocator& operator=(const ReusableArenaAllocator&) = delete;

  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override;
  void reset() override;

 private:
  static constexpr size_t kBlockAlign = 4096;
  void* block_ = nullptr;
  size_t capacity_ = 0;
  size_t used_ = 0;
  size_t wanted_ = 0;
  std::vector<void*> overflow_;
};

}  // namespace ptec::runtime
