// The engine blob format (backends/engine/engine_blob.h): round trip, and one test per rejection
// that checks the log line naming the failed check, so each test fails when its check is gone.

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backends/engine/engine_blob.h"
#include "core/log.h"
#include "ir/exception.h"

namespace ptec::engine {
namespace {

std::string g_log;

void capture(LogLevel, const char* message, void*) { g_log += std::string(message) + "\n"; }

class EngineBlobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_log.clear();
    set_log_sink(capture, nullptr);
  }
  void TearDown() override { set_log_sink(nullptr, nullptr); }

  // Expects InvalidProgram and a log line containing `why`.
  static void expect_rejected(const std::vector<uint8_t>& blob, const std::string& why) {
    g_log.clear();
    const Result<EngineBlobView> view = parse_engine_blob(blob.data(), blob.size());
    ASSERT_FALSE(view.ok()) << why;
    EXPECT_EQ(view.error(), Error::InvalidProgram);
    EXPECT_NE(g_log.find(why), std::string::npos) << "log: " << g_log;
  }
};

EngineMetadata sample_metadata() {
  EngineMetadata meta;
  meta.io_bindings.push_back({"x", true, DType::Float, {{1, 8, "batch"}, {3, 3, ""}}});
  meta.io_bindings.push_back({"y", false, DType::Float, {{1, 8, "batch"}, {10, 10, ""}}});
  meta.target_isa = "avx2_fma";
  meta.builder_version = "ptec-engine 1";
  meta.threads = 2;
  meta.choices = {{"conv1", "im2col_gemm"}, {"fc", "gemm"}};
  return meta;
}

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

// A blob assembled by hand: metadata `meta` at `meta_offset`, `engine_size` bytes at
// `engine_offset`, `total` bytes in all.
std::vector<uint8_t> raw_blob(const std::string& meta, uint32_t meta_offset, uint64_t engine_offset,
                              uint64_t engine_size, size_t total) {
  std::vector<uint8_t> b(total, 0);
  std::memcpy(b.data(), kEngineBlobMagic, 4);
  put_u32(b, 4, meta_offset);
  put_u32(b, 8, static_cast<uint32_t>(meta.size()));
  put_u64(b, 16, engine_offset);
  put_u64(b, 24, engine_size);
  if (meta_offset + meta.size() <= total) {
    std::memcpy(b.data() + meta_offset, meta.data(), meta.size());
  }
  return b;
}

const std::string kMeta = R"({"io_bindings":[{"name":"x","direction":"input","dtype":"f32",)"
                          R"("shape":[{"min":1,"max":2}]}]})";

TEST_F(EngineBlobTest, RoundTrip) {
  const std::vector<uint8_t> engine = {1, 2, 3, 4, 5, 6, 7};
  const std::vector<uint8_t> blob = write_engine_blob(sample_metadata(), engine.data(), 7);
  ASSERT_EQ(std::memcmp(blob.data(), "PEN1", 4), 0);
  const Result<EngineBlobView> view = parse_engine_blob(blob.data(), blob.size());
  ASSERT_TRUE(view.ok()) << g_log;
  EXPECT_EQ(view->num_bindings, 2u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(view->engine) % 16,
            reinterpret_cast<uintptr_t>(blob.data()) % 16);
  EXPECT_EQ(std::vector<uint8_t>(view->engine, view->engine + view->engine_size), engine);
  EXPECT_EQ(read_engine_metadata(blob.data(), blob.size()), sample_metadata());

  EngineBindingView bindings[2];
  ASSERT_EQ(parse_engine_bindings(*view, bindings, 2), Error::Ok);
  EXPECT_EQ(std::string(bindings[0].name, bindings[0].name_size), "x");
  EXPECT_TRUE(bindings[0].input);
  EXPECT_FALSE(bindings[1].input);
  ASSERT_EQ(bindings[1].rank, 2u);
  EXPECT_EQ(bindings[1].dims[0].min, 1);
  EXPECT_EQ(bindings[1].dims[0].max, 8);
  EXPECT_EQ(std::string(bindings[1].dims[0].symbol, bindings[1].dims[0].symbol_size), "batch");
  EXPECT_EQ(bindings[1].dims[1].symbol, nullptr);
  EXPECT_EQ(bindings[1].dims[1].min, 10);
  EXPECT_EQ(parse_engine_bindings(*view, bindings, 1), Error::OutOfResources);
}

TEST_F(EngineBlobTest, HandBuiltBlobIsAccepted) {
  // The baseline the rejection tests below change one field of.
  const Result<EngineBlobView> view =
      parse_engine_blob(raw_blob(kMeta, 32, 128, 16, 144).data(), 144);
  EXPECT_TRUE(view.ok()) << g_log;
}

TEST_F(EngineBlobTest, RejectsShorterThanHeader) {
  std::vector<uint8_t> blob = write_engine_blob(sample_metadata(), nullptr, 0);
  blob.resize(31);
  expect_rejected(blob, "shorter than the 32-byte header");
  blob.clear();
  expect_rejected(blob, "shorter than the 32-byte header");
}

TEST_F(EngineBlobTest, RejectsUnknownMagic) {
  std::vector<uint8_t> blob = raw_blob(kMeta, 32, 128, 16, 144);
  blob[3] = '2';  // a future format
  expect_rejected(blob, "unknown magic");
}

TEST_F(EngineBlobTest, RejectsMetadataOffsetInsideHeader) {
  // Metadata "starting" at 24 would read the engine size field as JSON.
  std::vector<uint8_t> blob = raw_blob(kMeta, 32, 128, 16, 144);
  put_u32(blob, 4, 24);
  expect_rejected(blob, "inside the 32-byte header");
}

TEST_F(EngineBlobTest, RejectsUnalignedEngine) {
  expect_rejected(raw_blob(kMeta, 32, 136, 8, 144), "is not a multiple of 16");
}

TEST_F(EngineBlobTest, RejectsMetadataPastEnd) {
  std::vector<uint8_t> blob = raw_blob(kMeta, 32, 128, 16, 144);
  put_u32(blob, 8, 200);
  expect_rejected(blob, "metadata [32, +200) past the end");
  put_u32(blob, 4, 0xFFFFFFF0u);  // offset + size would overflow 32 bits
  put_u32(blob, 8, 0x20);
  expect_rejected(blob, "past the end");
}

TEST_F(EngineBlobTest, RejectsEnginePastEnd) {
  expect_rejected(raw_blob(kMeta, 32, 128, 17, 144), "engine [128, +17) past the end");
  // A size that would wrap around when added to the offset.
  expect_rejected(raw_blob(kMeta, 32, 128, ~uint64_t{0} - 64, 144), "past the end");
}

TEST_F(EngineBlobTest, RejectsOverlappingSections) {
  // Metadata [32, 32 + |kMeta|) and an engine at 64 inside it.
  expect_rejected(raw_blob(kMeta, 32, 64, 16, 144), "overlap");
  // An engine over the header.
  expect_rejected(raw_blob(kMeta, 32, 0, 16, 144), "overlaps the header");
}

TEST_F(EngineBlobTest, RejectsMissingIoBindings) {
  expect_rejected(raw_blob(R"({"device":"cpu","io":[]})", 32, 128, 16, 144), "has no io_bindings");
  expect_rejected(raw_blob(R"([1, 2])", 32, 128, 16, 144), "not a JSON object");
  expect_rejected(raw_blob(R"({"io_bindings":[{"name":"x"}]})", 32, 128, 16, 144),
                  "io_bindings entry 0 is malformed");
  expect_rejected(raw_blob(R"({"io_bindings":[{"name":"x","direction":"input","dtype":"f32",)"
                           R"("shape":[{"min":3,"max":2}]}]})",
                           32, 128, 16, 144),
                  "io_bindings entry 0 is malformed");
  expect_rejected(raw_blob(R"({"io_bindings":[]} x)", 32, 128, 16, 144), "trailing bytes");
}

TEST_F(EngineBlobTest, ReadMetadataThrowsOnBadBlob) {
  std::vector<uint8_t> blob = write_engine_blob(sample_metadata(), nullptr, 0);
  blob[0] = 'X';
  EXPECT_THROW(read_engine_metadata(blob.data(), blob.size()), Exception);
}

TEST_F(EngineBlobTest, EveryTruncationAndByteFlipIsRejectedOrParsedSafely) {
  // Under ASan this is the memory-safety check: no prefix and no single-byte change of a valid
  // blob may read outside it.
  const std::vector<uint8_t> engine(40, 0xAB);
  const std::vector<uint8_t> blob = write_engine_blob(sample_metadata(), engine.data(), 40);
  for (size_t n = 0; n < blob.size(); ++n) {
    std::vector<uint8_t> prefix(blob.begin(), blob.begin() + static_cast<std::ptrdiff_t>(n));
    const Result<EngineBlobView> view = parse_engine_blob(prefix.data(), prefix.size());
    EXPECT_FALSE(view.ok()) << "prefix of " << n << " bytes accepted";
  }
  for (size_t at = 0; at < blob.size() - 40; ++at) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      std::vector<uint8_t> bad = blob;
      bad[at] ^= flip;
      const Result<EngineBlobView> view = parse_engine_blob(bad.data(), bad.size());
      if (view.ok()) {
        EngineBindingView bindings[4];
        (void)parse_engine_bindings(*view, bindings, 4);
      }
    }
  }
}

}  // namespace
}  // namespace ptec::engine
