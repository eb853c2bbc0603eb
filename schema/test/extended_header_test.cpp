#include "schema/extended_header.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "schema/flat_tensor_generated.h"
#include "schema/program_generated.h"

namespace ptec::schema {
namespace {

namespace fs = std::filesystem;
namespace et = executorch_flatbuffer;

const fs::path kFixtures = fs::path(PTEC_SOURCE_DIR) / ".." / "shared" / "fixtures";

std::vector<uint8_t> read_fixture(const fs::path& rel) {
  std::ifstream in(kFixtures / rel, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

#define SKIP_WITHOUT_FIXTURES()                               \
  if (!fs::exists(kFixtures))                                 \
  GTEST_SKIP() << "fixtures not found at " << kFixtures       \
               << " (expected the shared/ folder beside the " \
                  "repository)"

TEST(ExtendedHeaderTest, ParsesAddModelFixture) {
  SKIP_WITHOUT_FIXTURES();
  const std::vector<uint8_t> file = read_fixture("executorch/AddModel.pte");
  ASSERT_EQ(file.size(), 1156u);
  Result<ExtendedHeader> h = ExtendedHeader::parse(file.data(), ExtendedHeader::kNumHeadBytes);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->program_size, 1040u);
  EXPECT_EQ(h->segment_base_offset, 1152u);
  EXPECT_EQ(h->segment_data_size, 4u);
  EXPECT_EQ(h->segment_base_offset, aligned_size(h->program_size, 128));
}

TEST(ExtendedHeaderTest, PlainFlatbufferHasNoHeader) {
  SKIP_WITHOUT_FIXTURES();
  const std::vector<uint8_t> file = read_fixture("executorch/add.pte");
  EXPECT_EQ(ExtendedHeader::parse(file.data(), file.size()).error(), Error::NotFound);
  EXPECT_TRUE(et::ProgramBufferHasIdentifier(file.data()));
  flatbuffers::Verifier verifier(file.data(), file.size());
  ASSERT_TRUE(et::VerifyProgramBuffer(verifier));
  const et::Program* program = et::GetProgram(file.data());
  ASSERT_EQ(program->execution_plan()->size(), 1u);
  EXPECT_STREQ(program->execution_plan()->Get(0)->name()->c_str(), "forward");
  const auto* op = program->execution_plan()->Get(0)->operators()->Get(0);
  EXPECT_STREQ(op->name()->c_str(), "aten::add");
  EXPECT_STREQ(op->overload()->c_str(), "out");
}

TEST(ExtendedHeaderTest, WriteParseRoundTrip) {
  ExtendedHeader h;
  h.program_size = 0x1122334455667788ull;
  h.segment_base_offset = 1152;
  h.segment_data_size = 4;
  uint8_t bytes[8 + ExtendedHeader::kExpectedLength] = {};
  h.write(bytes + kHeaderOffset);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(bytes) + 8, 4), "eh00");
  EXPECT_EQ(bytes[12], 32);  // length, little-endian
  EXPECT_EQ(bytes[16], 0x88);
  Result<ExtendedHeader> back = ExtendedHeader::parse(bytes, sizeof(bytes));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->program_size, h.program_size);
  EXPECT_EQ(back->segment_base_offset, 1152u);
  EXPECT_EQ(back->segment_data_size, 4u);
}

TEST(ExtendedHeaderTest, RejectsShortLengthAndTruncation) {
  ExtendedHeader h;
  uint8_t bytes[8 + ExtendedHeader::kExpectedLength] = {};
  h.write(bytes + kHeaderOffset);
  bytes[12] = 20;  // length below the minimum of 24
  EXPECT_EQ(ExtendedHeader::parse(bytes, sizeof(bytes)).error(), Error::InvalidProgram);
  bytes[12] = 32;
  EXPECT_EQ(ExtendedHeader::parse(bytes, 8 + 20).error(), Error::InvalidProgram);
  EXPECT_EQ(ExtendedHeader::parse(bytes, 10).error(), Error::NotFound);
  EXPECT_EQ(ExtendedHeader::parse(nullptr, 0).error(), Error::NotFound);
  // A 24-byte header carries no segment_data_size.
  bytes[12] = 24;
  Result<ExtendedHeader> short_header = ExtendedHeader::parse(bytes, 8 + 24);
  ASSERT_TRUE(short_header.ok());
  EXPECT_EQ(short_header->segment_data_size, 0u);
}

TEST(FlatTensorHeaderTest, ParsesHandmadePtd) {
  SKIP_WITHOUT_FIXTURES();
  const std::vector<uint8_t> file = read_fixture("handmade/handmade.ptd");
  Result<FlatTensorHeader> h = FlatTensorHeader::parse(file.data(), file.size());
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->flatbuffer_offset, FlatTensorHeader::kPaddedLength);
  EXPECT_EQ(h->segment_base_offset % 128, 0u);
  EXPECT_EQ(h->segment_base_offset + h->segment_data_size, file.size());
  EXPECT_TRUE(flat_tensor_flatbuffer::FlatTensorBufferHasIdentifier(file.data()));
  flatbuffers::Verifier verifier(file.data(), h->flatbuffer_offset + h->flatbuffer_size);
  ASSERT_TRUE(flat_tensor_flatbuffer::VerifyFlatTensorBuffer(verifier));
  const auto* ft = flat_tensor_flatbuffer::GetFlatTensor(file.data());
  ASSERT_EQ(ft->named_data()->size(), 1u);
  EXPECT_STREQ(ft->named_data()->Get(0)->key()->c_str(), "linear.weight");
  EXPECT_EQ(ft->named_data()->Get(0)->tensor_layout()->scalar_type(), et::ScalarType::FLOAT);
}

TEST(FlatTensorHeaderTest, WriteParseRoundTripAndErrors) {
  FlatTensorHeader h;
  h.flatbuffer_offset = 48;
  h.flatbuffer_size = 200;
  h.segment_base_offset = 256;
  h.segment_data_size = 24;
  uint8_t bytes[8 + FlatTensorHeader::kExpectedLength] = {};
  h.write(bytes + kHeaderOffset);
  Result<FlatTensorHeader> back = FlatTensorHeader::parse(bytes, sizeof(bytes));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->flatbuffer_size, 200u);
  EXPECT_EQ(back->segment_data_size, 24u);
  EXPECT_EQ(FlatTensorHeader::parse(bytes, sizeof(bytes) - 1).error(), Error::InvalidExternalData);
  bytes[12] = 32;
  EXPECT_EQ(FlatTensorHeader::parse(bytes, sizeof(bytes)).error(), Error::InvalidExternalData);
}

TEST(SchemaTest, UnionOrderMatchesFormat) {
  // FORMAT.md §2: the union type byte is index + 1, NONE = 0.
  EXPECT_EQ(static_cast<int>(et::KernelTypes::Null), 1);
  EXPECT_EQ(static_cast<int>(et::KernelTypes::Tensor), 5);
  EXPECT_EQ(static_cast<int>(et::KernelTypes::OptionalTensorList), 11);
  EXPECT_EQ(static_cast<int>(et::InstructionArguments::KernelCall), 1);
  EXPECT_EQ(static_cast<int>(et::InstructionArguments::FreeCall), 5);
  EXPECT_EQ(static_cast<int>(et::ScalarType::UINT64), 29);
}

TEST(SchemaTest, BuilderForceAlignsBufferStorage) {
  flatbuffers::FlatBufferBuilder fbb;
  const uint8_t bytes[3] = {1, 2, 3};
  fbb.ForceVectorAlignment(3, 1, 16);
  auto storage = fbb.CreateVector(bytes, 3);
  auto buffer = et::CreateBuffer(fbb, storage);
  auto buffers = fbb.CreateVector(&buffer, 1);
  et::ProgramBuilder pb(fbb);
  pb.add_constant_buffer(buffers);
  fbb.Finish(pb.Finish(), et::ProgramIdentifier());
  const et::Program* p = et::GetProgram(fbb.GetBufferPointer());
  const uint8_t* data = p->constant_buffer()->Get(0)->storage()->data();
  EXPECT_EQ((data - fbb.GetBufferPointer()) % 16, 0);
}

}  // namespace
}  // namespace ptec::schema
