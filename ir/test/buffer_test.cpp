#include "ir/buffer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

namespace ptec::ir {
namespace {

// Resident file-backed (shared) pages of this process, in bytes (/proc/self/statm, field 3).
size_t resident_file_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t size = 0, resident = 0, shared = 0;
  statm >> size >> resident >> shared;
  return shared * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

class MappedFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("ptec_buffer_test_" + std::to_string(::getpid()) + ".bin"))
                .string();
    std::vector<uint8_t> bytes(kSize);
    std::iota(bytes.begin(), bytes.end(), uint8_t{0});
    std::ofstream(path_, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(kSize));
  }
  void TearDown() override { std::remove(path_.c_str()); }

  static constexpr size_t kSize = size_t{64} << 20;
  std::string path_;
};

uint64_t sum(const Buffer& b, size_t offset, size_t size) {
  uint64_t s = 0;
  for (size_t i = offset; i < offset + size; ++i) s += b.data()[i];
  return s;
}

TEST_F(MappedFile, ReleasedPagesLeaveResidencyAndReadBackUnchanged) {
  BufferPtr mapped = Buffer::map_file(path_);
  ASSERT_TRUE(mapped->is_mapped());
  const size_t before = resident_file_bytes();
  const uint64_t expected = sum(*mapped, 0, kSize);  // touches every page
  const size_t touched = resident_file_bytes();
  EXPECT_GE(touched, before + kSize * 3 / 4);
  mapped->release_pages(0, kSize);
  EXPECT_LE(resident_file_bytes(), touched - kSize * 3 / 4);
  EXPECT_EQ(sum(*mapped, 0, kSize), expected);  // the pages come back from the file
  // A view releases only whole pages inside its own range; the rest of the file reads the same.
  BufferPtr view = Buffer::slice(mapped, 100, kSize / 2);
  EXPECT_TRUE(view->is_mapped());
  view->release_pages(0, view->size());
  view->release_pages(view->size(), 1);  // out of range: nothing
  EXPECT_EQ(sum(*mapped, 0, kSize), expected);
}

TEST(Buffer, ReleasingPagesOfAHeapBufferKeepsItsBytes) {
  std::vector<uint8_t> bytes(1 << 20);
  std::iota(bytes.begin(), bytes.end(), uint8_t{7});
  BufferPtr heap = Buffer::copy_of(bytes.data(), bytes.size());
  EXPECT_FALSE(heap->is_mapped());
  heap->release_pages(0, heap->size());
  EXPECT_EQ(std::vector<uint8_t>(heap->data(), heap->data() + heap->size()), bytes);
}

}  // namespace
}  // namespace ptec::ir
