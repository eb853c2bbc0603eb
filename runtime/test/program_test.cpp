// Program::load: headers, sizes, verification, constant segment, method metadata.

#include "runtime/executor/program.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/loader/buffer_data_loader.h"
#include "runtime/loader/file_data_loader.h"
#include "runtime/test/test_util.h"

namespace ptec::runtime {
namespace {

using testing::AlignedBytes;
using testing::fixtures_dir;
using testing::LogCapture;
using testing::read_file;

Result<Program> load_bytes(const AlignedBytes& bytes, BufferDataLoader& loader) {
  (void)bytes;
  return Program::load(&loader);
}

TEST(ProgramTest, LoadsAddFixtureWithoutHeader) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  Result<FileDataLoader> loader =
      FileDataLoader::from((fixtures_dir() / "executorch/add.pte").c_str());
  ASSERT_TRUE(loader.ok());
  Result<Program> program = Program::load(&loader.get());
  ASSERT_TRUE(program.ok());
  ASSERT_EQ(program->num_methods(), 1u);
  EXPECT_STREQ(program->get_method_name(0).get(), "forward");
  EXPECT_EQ(program->get_method_name(1).error(), Error::InvalidArgument);

  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->num_inputs(), 2u);
  EXPECT_EQ(meta->num_outputs(), 1u);
  EXPECT_EQ(meta->input_tag(0).get(), EValue::Tag::Tensor);
  Result<TensorInfo> in0 = meta->input_tensor_meta(0);
  ASSERT_TRUE(in0.ok());
  EXPECT_EQ(in0->scalar_type(), DType::Float);
  ASSERT_EQ(in0->sizes().size(), 1u);
  EXPECT_EQ(in0->sizes()[0], 1);
  EXPECT_EQ(in0->dim_order()[0], 0);
  EXPECT_EQ(in0->nbytes(), 4u);
  EXPECT_TRUE(in0->is_memory_planned());
  // non_const_buffer_sizes = [0, 48]: one planned buffer of 48 bytes.
  EXPECT_EQ(meta->num_memory_planned_buffers(), 1u);
  EXPECT_EQ(meta->memory_planned_buffer_size(0).get(), 48);
  EXPECT_EQ(meta->memory_planned_buffer_size(1).error(), Error::InvalidArgument);
  EXPECT_EQ(meta->input_tensor_meta(2).error(), Error::InvalidArgument);
  EXPECT_EQ(meta->num_instructions(), 1u);
  EXPECT_EQ(meta->num_backends(), 0u);
}

TEST(ProgramTest, LoadsAddModelWithExtendedHeaderAndConstantSegment) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  Result<FileDataLoader> loader =
      FileDataLoader::from((fixtures_dir() / "executorch/AddModel.pte").c_str());
  ASSERT_TRUE(loader.ok());
  Result<Program> program = Program::load(&loader.get());
  ASSERT_TRUE(program.ok());
  // The single constant 1.0f at the segment base (offset 1152).
  Result<const void*> constant = program->get_constant_data(1, 4);
  ASSERT_TRUE(constant.ok());
  float value = 0;
  std::memcpy(&value, constant.get(), 4);
  EXPECT_EQ(value, 1.0f);
  EXPECT_EQ(program->get_constant_data(1, 8).error(), Error::InvalidProgram);
  EXPECT_EQ(program->get_constant_data(2, 4).error(), Error::InvalidProgram);
}

TEST(ProgramTest, UnknownMethodIsNotFound) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  Result<FileDataLoader> loader =
      FileDataLoader::from((fixtures_dir() / "executorch/add.pte").c_str());
  ASSERT_TRUE(loader.ok());
  Result<Program> program = Program::load(&loader.get());
  ASSERT_TRUE(program.ok());
  LogCapture log;
  EXPECT_EQ(program->method_meta("backward").error(), Error::NotFound);
  EXPECT_TRUE(log.contains("method 'backward' not found")) << log.all();
}

TEST(ProgramTest, RejectsWrongIdentifier) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  std::vector<uint8_t> file = read_file(fixtures_dir() / "executorch/add.pte");
  file[4] = 'X';
  AlignedBytes bytes(file);
  BufferDataLoader loader(bytes.data(), bytes.size());
  LogCapture log;
  EXPECT_EQ(load_bytes(bytes, loader).error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("expected 'ET12'")) << log.all();
}

TEST(ProgramTest, RejectsTruncatedSegmentData) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  std::vector<uint8_t> file = read_file(fixtures_dir() / "executorch/AddModel.pte");
  file.resize(file.size() - 1);  // the header says 1152 + 4 bytes
  AlignedBytes bytes(file);
  BufferDataLoader loader(bytes.data(), bytes.size());
  LogCapture log;
  EXPECT_EQ(load_bytes(bytes, loader).error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("do not fit the 1155-byte file")) << log.all();
}

TEST(ProgramTest, RejectsFlatbufferThatFailsVerification) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  std::vector<uint8_t> file = read_file(fixtures_dir() / "executorch/add.pte");
  file[0] = 0xF0;  // root offset beyond the buffer... but still >= 8: the verifier catches it
  file[1] = 0x01;
  AlignedBytes bytes(file);
  BufferDataLoader loader(bytes.data(), bytes.size());
  LogCapture log;
  EXPECT_EQ(load_bytes(bytes, loader).error(), Error::InvalidProgram);
}

TEST(ProgramTest, RejectsTinyAndMisalignedBuffers) {
  const uint8_t tiny[4] = {0, 0, 0, 0};
  BufferDataLoader loader(tiny, sizeof(tiny));
  LogCapture log;
  EXPECT_EQ(Program::load(&loader).error(), Error::InvalidProgram);
  EXPECT_EQ(Program::load(nullptr).error(), Error::InvalidArgument);

  std::vector<uint8_t> file = testing::empty_pte();
  std::vector<uint8_t> shifted(file.size() + 1);
  std::memcpy(shifted.data() + 1, file.data(), file.size());
  AlignedBytes bytes(shifted);
  BufferDataLoader misaligned(bytes.data() + 1, file.size());
  EXPECT_EQ(Program::load(&misaligned).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("not aligned")) << log.all();
}

TEST(ProgramTest, DeprecatedConstantBufferPathIsRefused) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  Result<FileDataLoader> loader = FileDataLoader::from(
      (fixtures_dir() / "executorch/ModuleLinear-no-constant-segment.pte").c_str());
  ASSERT_TRUE(loader.ok());
  LogCapture log;
  EXPECT_EQ(Program::load(&loader.get()).error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("relies on the deprecated constant_buffer path")) << log.all();
  EXPECT_TRUE(log.contains("3 inline constant buffers")) << log.all();
}

TEST(ProgramTest, HandmadeNoConstantSegmentIsRejectedAtLoad) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  Result<FileDataLoader> loader =
      FileDataLoader::from((fixtures_dir() / "handmade/no_constant_segment.pte").c_str());
  ASSERT_TRUE(loader.ok());
  LogCapture log;
  EXPECT_EQ(Program::load(&loader.get()).error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("relies on the deprecated constant_buffer path")) << log.all();
}

TEST(ProgramTest, ConstantSegmentNeedsExtendedHeader) {
  // offsets [0, 0] use segment 0, but without segment data there is no header.
  AlignedBytes bytes(testing::pte_from_json(R"({
    "execution_plan": [], "segments": [{"offset": 0, "size": 4}],
    "constant_segment": {"segment_index": 0, "offsets": [0, 0]}})"));
  BufferDataLoader loader(bytes.data(), bytes.size());
  LogCapture log;
  EXPECT_EQ(Program::load(&loader).error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("no extended header")) << log.all();
}

TEST(ProgramTest, MethodMetaRequiresInputsOutputsAndBufferSizes) {
  AlignedBytes bytes(testing::pte_from_json(R"({
    "execution_plan": [
      {"name": "no_sizes", "values": [], "inputs": [], "outputs": [], "chains": [{"instructions": []}]},
      {"name": "no_inputs", "values": [], "outputs": [], "non_const_buffer_sizes": [0]}],
    "constant_segment": {"offsets": [0]}})"));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(&loader);
  ASSERT_TRUE(program.ok());
  EXPECT_EQ(program->num_methods(), 2u);
  LogCapture log;
  EXPECT_EQ(program->method_meta("no_sizes").error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("non_const_buffer_sizes")) << log.all();
  EXPECT_EQ(program->method_meta("no_inputs").error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("has no inputs or outputs list")) << log.all();
}

TEST(ProgramTest, MinimalVerificationStillChecksRoot) {
  std::vector<uint8_t> file = testing::empty_pte();
  file[0] = 4;  // root offset inside the identifier
  file[1] = file[2] = file[3] = 0;
  AlignedBytes bytes(file);
  BufferDataLoader loader(bytes.data(), bytes.size());
  LogCapture log;
  EXPECT_EQ(Program::load(&loader, Program::Verification::Minimal).error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("root offset 4")) << log.all();
}

}  // namespace
}  // namespace ptec::runtime
