// DataLoader implementations: ranges, alignment, errors.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>

#include <unistd.h>
#include <string>
#include <vector>

#include "runtime/loader/buffer_data_loader.h"
#include "runtime/loader/file_data_loader.h"
#include "runtime/loader/mmap_data_loader.h"
#include "runtime/test/test_util.h"

namespace ptec::runtime {
namespace {

using testing::LogCapture;

class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (testing::fs::temp_directory_path() /
             ("ptec_loader_test_" + std::to_string(::getpid()) + ".bin"))
                .string();
    std::ofstream out(path_, std::ios::binary);
    for (int i = 0; i < 300; ++i) out.put(static_cast<char>(i & 0xff));
  }
  void TearDown() override { std::remove(path_.c_str()); }

  // The checks every loader must pass.
  static void check(const DataLoader& loader) {
    EXPECT_EQ(loader.size().get(), 300u);
    DataLoader::SegmentInfo info;
    Result<FreeableBuffer> b = loader.load(100, 50, info);
    ASSERT_TRUE(b.ok());
    ASSERT_EQ(b->size(), 50u);
    EXPECT_EQ(static_cast<const uint8_t*>(b->data())[0], 100);
    EXPECT_EQ(static_cast<const uint8_t*>(b->data())[49], 149);
    EXPECT_TRUE(loader.load(0, 300, info).ok());
    EXPECT_TRUE(loader.load(300, 0, info).ok());
    LogCapture log;
    EXPECT_EQ(loader.load(251, 50, info).error(), Error::InvalidArgument);
    EXPECT_EQ(loader.load(301, 0, info).error(), Error::InvalidArgument);
    EXPECT_EQ(loader.load(SIZE_MAX, 2, info).error(), Error::InvalidArgument);
    EXPECT_EQ(loader.load(2, SIZE_MAX, info).error(), Error::InvalidArgument);
    EXPECT_TRUE(log.contains("outside")) << log.all();
    uint8_t into[4] = {};
    EXPECT_EQ(loader.load_into(10, 4, info, into), Error::Ok);
    EXPECT_EQ(into[3], 13);
    EXPECT_NE(loader.load_into(299, 4, info, into), Error::Ok);
  }

  std::string path_;
};

TEST_F(LoaderTest, FileDataLoader) {
  Result<FileDataLoader> loader = FileDataLoader::from(path_.c_str(), 64);
  ASSERT_TRUE(loader.ok());
  check(loader.get());
  Result<FreeableBuffer> b = loader->load(3, 10, {});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % 64, 0u);
  // Moving the loader keeps it usable.
  FileDataLoader moved(std::move(loader.get()));
  EXPECT_TRUE(moved.load(0, 10, {}).ok());
}

TEST_F(LoaderTest, MmapDataLoader) {
  Result<MmapDataLoader> loader = MmapDataLoader::from(path_.c_str());
  ASSERT_TRUE(loader.ok());
  check(loader.get());
}

TEST_F(LoaderTest, BufferDataLoader) {
  std::vector<uint8_t> bytes(300);
  for (int i = 0; i < 300; ++i) bytes[i] = static_cast<uint8_t>(i & 0xff);
  BufferDataLoader loader(bytes.data(), bytes.size());
  check(loader);
}

TEST_F(LoaderTest, MissingFilesAndBadAlignment) {
  LogCapture log;
  EXPECT_EQ(FileDataLoader::from("/nonexistent/ptec.pte").error(), Error::AccessFailed);
  EXPECT_TRUE(log.contains("cannot open '/nonexistent/ptec.pte'")) << log.all();
  EXPECT_EQ(MmapDataLoader::from("/nonexistent/ptec.pte").error(), Error::AccessFailed);
  EXPECT_EQ(FileDataLoader::from(path_.c_str(), 3).error(), Error::InvalidArgument);
  EXPECT_EQ(FileDataLoader::from("/").error(), Error::AccessFailed);
}

TEST(FreeableBufferTest, FreesOnceAndMoves) {
  int frees = 0;
  auto fn = [](void* ctx, void*, size_t) { ++*static_cast<int*>(ctx); };
  static const char kData[] = "abc";
  {
    FreeableBuffer a(kData, 3, fn, &frees);
    FreeableBuffer b(std::move(a));
    EXPECT_EQ(a.data(), nullptr);
    EXPECT_EQ(b.size(), 3u);
    b.free();
    b.free();
    EXPECT_EQ(frees, 1);
    FreeableBuffer c(kData, 3, fn, &frees);
  }
  EXPECT_EQ(frees, 2);
}

}  // namespace
}  // namespace ptec::runtime
