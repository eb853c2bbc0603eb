// FlatTensorDataMap (.ptd, FORMAT.md §5) and external tensors in a Method.

#include "runtime/executor/flatbuffer_data_map.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/portable/register.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/loader/file_data_loader.h"
#include "runtime/test/test_util.h"

namespace ptec::runtime {
namespace {

using testing::AlignedBytes;
using testing::FixtureProgram;
using testing::fixtures_dir;
using testing::LogCapture;
using testing::read_file;
using testing::TestMemory;

// A .ptd in the Python writer's layout: header padded to 48, segments at a 128-aligned base.
std::vector<uint8_t> ptd_from_json(const std::string& json, const std::vector<uint8_t>& segment) {
  const testing::fs::path schema_dir = testing::fs::path(PTEC_SOURCE_DIR) / "schema";
  std::ifstream in(schema_dir / "flat_tensor.fbs");
  const std::string schema((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  flatbuffers::Parser parser;
  const std::string include = schema_dir.string();
  const char* include_paths[] = {include.c_str(), nullptr};
  EXPECT_TRUE(parser.Parse(schema.c_str(), include_paths, "flat_tensor.fbs")) << parser.error_;
  EXPECT_TRUE(parser.Parse(json.c_str())) << parser.error_;
  const uint8_t* fb = parser.builder_.GetBufferPointer();
  const size_t fb_size = parser.builder_.GetSize();
  constexpr size_t kPadded = schema::FlatTensorHeader::kPaddedLength;
  std::vector<uint8_t> out;
  uint32_t root = 0;
  std::memcpy(&root, fb, 4);
  root += kPadded;
  out.resize(4);
  std::memcpy(out.data(), &root, 4);
  out.insert(out.end(), fb + 4, fb + 8);
  out.resize(8 + kPadded);
  out.insert(out.end(), fb + 8, fb + fb_size);
  schema::FlatTensorHeader header;
  header.flatbuffer_offset = kPadded;
  header.flatbuffer_size = fb_size;
  header.segment_base_offset = schema::aligned_size(out.size(), 128);
  header.segment_data_size = segment.size();
  header.write(out.data() + schema::kHeaderOffset);
  out.resize(header.segment_base_offset);
  out.insert(out.end(), segment.begin(), segment.end());
  return out;
}

std::string weight_ptd_json(const std::string& sizes) {
  return R"({"version": 0, "segments": [{"offset": 0, "size": 24}],
    "named_data": [{"key": "linear.weight", "segment_index": 0,
                    "tensor_layout": {"scalar_type": "FLOAT", "sizes": )" +
         sizes + R"(, "dim_order": [0, 1]}}]})";
}

TEST(FlatTensorDataMapTest, ReadsTheHandmadePtd) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  Result<FileDataLoader> loader =
      FileDataLoader::from((fixtures_dir() / "handmade/handmade.ptd").c_str());
  ASSERT_TRUE(loader.ok());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader.get());
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(map->get_num_keys().get(), 1u);
  EXPECT_STREQ(map->get_key(0).get(), "linear.weight");
  EXPECT_EQ(map->get_key(1).error(), Error::InvalidArgument);
  Result<TensorLayout> layout = map->get_tensor_layout("linear.weight");
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->scalar_type(), DType::Float);
  ASSERT_EQ(layout->sizes().size(), 2u);
  EXPECT_EQ(layout->sizes()[0], 2);
  EXPECT_EQ(layout->sizes()[1], 3);
  EXPECT_EQ(layout->nbytes(), 24u);
  Result<FreeableBuffer> data = map->get_data("linear.weight");
  ASSERT_TRUE(data.ok());
  ASSERT_EQ(data->size(), 24u);
  std::vector<float> values(6);
  std::memcpy(values.data(), data->data(), 24);
  EXPECT_EQ(values, std::vector<float>({1, 2, 3, 4, 5, 6}));
  float into[6] = {};
  EXPECT_EQ(map->load_data_into("linear.weight", into, sizeof(into)), Error::Ok);
  EXPECT_EQ(into[5], 6.0f);
  EXPECT_EQ(map->load_data_into("linear.weight", into, 28), Error::InvalidArgument);
  EXPECT_EQ(map->get_data("bias").error(), Error::NotFound);
  EXPECT_EQ(map->get_tensor_layout("bias").error(), Error::NotFound);
}

TEST(FlatTensorDataMapTest, RejectsNonPtdAndTruncatedFiles) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  {
    std::vector<uint8_t> pte = read_file(fixtures_dir() / "executorch/add.pte");
    AlignedBytes bytes(pte);
    BufferDataLoader loader(bytes.data(), bytes.size());
    LogCapture log;
    EXPECT_EQ(FlatTensorDataMap::load(&loader).error(), Error::InvalidExternalData);
    EXPECT_TRUE(log.contains("identifier is not 'FT01'")) << log.all();
  }
  const std::vector<uint8_t> ptd = read_file(fixtures_dir() / "handmade/handmade.ptd");
  LogCapture quiet;
  for (size_t n = 0; n < ptd.size(); ++n) {
    AlignedBytes bytes(std::vector<uint8_t>(ptd.begin(), ptd.begin() + static_cast<ptrdiff_t>(n)));
    BufferDataLoader loader(bytes.data(), bytes.size());
    Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader);
    EXPECT_FALSE(map.ok()) << "prefix of " << n << " bytes loaded";
  }
}

TEST(FlatTensorDataMapTest, WrittenPtdRoundTrips) {
  AlignedBytes bytes(
      ptd_from_json(weight_ptd_json("[2, 3]"), testing::bytes_of<float>({1, 2, 3, 4, 5, 6})));
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader);
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(map->get_tensor_layout("linear.weight")->nbytes(), 24u);
}

TEST(FlatTensorDataMapTest, LayoutMismatchNamesTheKey) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  ASSERT_EQ(kernels::register_portable_kernels(), Error::Ok);
  AlignedBytes bytes(
      ptd_from_json(weight_ptd_json("[3, 2]"), testing::bytes_of<float>({1, 2, 3, 4, 5, 6})));
  BufferDataLoader data_loader(bytes.data(), bytes.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&data_loader);
  ASSERT_TRUE(map.ok());
  FixtureProgram program("handmade/handmade.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  TestMemory memory(meta.get());
  LogCapture log;
  EXPECT_EQ(program->load_method("forward", memory.manager(), nullptr, &map.get()).error(),
            Error::InvalidExternalData);
  EXPECT_TRUE(log.contains("external tensor 'linear.weight' has another layout")) << log.all();
}

TEST(FlatTensorDataMapTest, ShortDataIsRejected) {
  PTEC_SKIP_WITHOUT_FIXTURES();
  ASSERT_EQ(kernels::register_portable_kernels(), Error::Ok);
  std::string json = weight_ptd_json("[2, 3]");
  json.replace(json.find("\"size\": 24"), 10, "\"size\": 20");
  AlignedBytes bytes(ptd_from_json(json, testing::bytes_of<float>({1, 2, 3, 4, 5})));
  BufferDataLoader data_loader(bytes.data(), bytes.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&data_loader);
  ASSERT_TRUE(map.ok());
  FixtureProgram program("handmade/handmade.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  TestMemory memory(program->method_meta("forward").get());
  LogCapture log;
  EXPECT_EQ(program->load_method("forward", memory.manager(), nullptr, &map.get()).error(),
            Error::InvalidExternalData);
  EXPECT_TRUE(log.contains("'linear.weight' has 20 bytes, 24 needed")) << log.all();
}

TEST(FlatTensorDataMapTest, MutableExternalTensorIsCopiedIntoPlannedMemory) {
  AlignedBytes ptd(
      ptd_from_json(weight_ptd_json("[2, 3]"), testing::bytes_of<float>({1, 2, 3, 4, 5, 6})));
  BufferDataLoader data_loader(ptd.data(), ptd.size());
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&data_loader);
  ASSERT_TRUE(map.ok());
  AlignedBytes pte(testing::pte_from_json(
      R"({"execution_plan": [{"name": "forward", "values": [)" +
      testing::tensor_json("FLOAT", {2, 3}, 1, 0,
                           R"("extra_tensor_info": {"fully_qualified_name": "linear.weight",
                                                     "location": "EXTERNAL"})") +
      R"(], "inputs": [], "outputs": [0], "chains": [{"instructions": []}], "operators": [],
          "delegates": [], "non_const_buffer_sizes": [0, 32]}],
          "constant_segment": {"offsets": [0]}})"));
  BufferDataLoader loader(pte.data(), pte.size());
  Result<Program> program = Program::load(&loader);
  ASSERT_TRUE(program.ok());
  TestMemory memory(program->method_meta("forward").get());
  Result<Method> method = program->load_method("forward", memory.manager(), nullptr, &map.get());
  ASSERT_TRUE(method.ok());
  ASSERT_EQ(method->execute(), Error::Ok);
  const Tensor& t = method->get_output(0)->to_tensor();
  // The data lives in planned memory (a copy), not in the data file's buffer.
  EXPECT_NE(t.const_data_ptr(), map->get_data("linear.weight")->data());
  std::vector<float> values(6);
  std::memcpy(values.data(), t.const_data_ptr(), 24);
  EXPECT_EQ(values, std::vector<float>({1, 2, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace ptec::runtime
