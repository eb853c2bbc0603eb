// Program archives (ir/program_archive.h): a program with weights, constants, example inputs
// and a live custom object (serialized once although two entries share it) round-trips with an
// equal printed form and equal payload bytes; payloads come back memory-mapped; damaged and
// foreign files are clear errors.

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ir/buffer.h"
#include "ir/exception.h"
#include "ir/exported_program.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/program_archive.h"

namespace ptec::ir {
namespace {

constexpr const char* kProgram = R"IR(program uuid=0000000000000000000000000000beef stage=ATEN
  input USER_INPUT input
  input PARAMETER p_w target="w"
  input CONSTANT_TENSOR c_k target="k"
  input CUSTOM_OBJ engine target="engine"
  output USER_OUTPUT sum_1
graph:
  %input : f32[2, 3] = placeholder() #1
  %p_w : f32[2, 3] = placeholder() #2
  %c_k : f32[2, 3] = placeholder() #3
  %engine = placeholder() #4
  %add : f32[2, 3] = aten::add.Tensor(%input, %p_w) #11
  %mul : f32[2, 3] = aten::mul.Tensor(%add, %c_k) #12
  %sum_1 : f32[2] = aten::sum.dim_IntList(%mul, [1]) #13
  return (%sum_1) #14
)IR";

std::atomic<int> g_serialized{0};

// A live object whose bytes are made on demand (and counted).
class Blob final : public OpaqueObject {
 public:
  explicit Blob(BufferPtr bytes) : bytes_(std::move(bytes)) {}
  BufferPtr serialize() const override {
    ++g_serialized;
    return bytes_;
  }

 private:
  BufferPtr bytes_;
};

BufferPtr bytes(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
  return Buffer::from_vector(std::move(v));
}

class ProgramArchiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "program_archive_test_" + std::to_string(::getpid()) + ".ptep";
    register_custom_object_loader(
        "test.blob",
        [](const std::string&, const CustomObject& o) -> std::shared_ptr<const OpaqueObject> {
          return std::make_shared<Blob>(o.payload);
        });
  }
  void TearDown() override {
    if (std::getenv("PTEC_KEEP_ARCHIVE") == nullptr) std::remove(path_.c_str());
  }

  static ExportedProgram sample() {
    ExportedProgram p = parse(kProgram);
    p.state_dict()["w"] =
        TensorData{TensorSpec(DType::Float, std::vector<int64_t>{2, 3}), bytes(24, 1)};
    p.constants()["k"] =
        TensorData{TensorSpec(DType::Float, std::vector<int64_t>{2, 3}), bytes(24, 2)};
    auto blob = std::make_shared<Blob>(bytes(1000, 3));
    p.custom_objects()["engine"] = CustomObject{"test.blob", nullptr, {{"device", "cpu"}}, blob};
    // A second entry sharing the live object, and a plain payload object.
    p.custom_objects()["engine_alias"] = CustomObject{"test.blob", nullptr, {}, blob};
    p.custom_objects()["plain"] = CustomObject{"test.plain", bytes(5, 4), {}, nullptr};
    p.example_inputs().push_back(
        TensorData{TensorSpec(DType::Float, std::vector<int64_t>{2, 3}), bytes(24, 5)});
    return p;
  }

  std::string path_;
};

std::vector<uint8_t> contents(const Buffer& b) { return {b.data(), b.data() + b.size()}; }

TEST_F(ProgramArchiveTest, RoundTripKeepsPrintedFormPayloadsAndLiveObjects) {
  const ExportedProgram original = sample();
  g_serialized = 0;
  save_program(original, path_);
  EXPECT_EQ(g_serialized.load(), 1) << "a live object shared by two entries is serialized once";
  const ExportedProgram loaded = load_program(path_);
  EXPECT_EQ(print(loaded), print(original));
  EXPECT_EQ(loaded.uuid(), original.uuid());
  EXPECT_EQ(contents(*loaded.state_dict().at("w").data),
            contents(*original.state_dict().at("w").data));
  EXPECT_EQ(contents(*loaded.constants().at("k").data),
            contents(*original.constants().at("k").data));
  EXPECT_EQ(contents(*loaded.example_inputs()[0].data),
            contents(*original.example_inputs()[0].data));
  EXPECT_EQ(contents(*loaded.custom_objects().at("plain").payload), contents(*bytes(5, 4)));
  // Live objects come back live (no payload), through the loader, with the same bytes.
  const CustomObject& engine = loaded.custom_objects().at("engine");
  EXPECT_EQ(engine.payload, nullptr);
  ASSERT_NE(engine.object, nullptr);
  EXPECT_EQ(contents(*engine.object->serialize()), contents(*bytes(1000, 3)));
  EXPECT_EQ(engine.metadata.at("device"), "cpu");
  ASSERT_NE(loaded.custom_objects().at("engine_alias").object, nullptr);
  // Payloads are views into the mapped archive, aligned.
  for (const BufferPtr& b : {loaded.state_dict().at("w").data, loaded.constants().at("k").data,
                             engine.object->serialize()}) {
    EXPECT_TRUE(b->is_mapped());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % 64, 0u);
  }
  // Saving the loaded program again gives the same program.
  save_program(loaded, path_);
  EXPECT_EQ(print(load_program(path_)), print(original));
}

TEST_F(ProgramArchiveTest, LiveObjectWithoutLoaderIsAnError) {
  ExportedProgram p = sample();
  p.custom_objects()["other"] =
      CustomObject{"test.unregistered", nullptr, {}, std::make_shared<Blob>(bytes(3, 9))};
  save_program(p, path_);
  try {
    load_program(path_);
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidProgram);
    EXPECT_NE(std::string(e.what()).find("'test.unregistered' needs a loader"), std::string::npos)
        << e.what();
  }
}

TEST_F(ProgramArchiveTest, ForeignDamagedAndMissingFilesAreErrors) {
  {
    std::ofstream out(path_, std::ios::binary);
    out << "not a zip at all";
  }
  try {
    load_program(path_);
    FAIL();
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("not a program archive"), std::string::npos);
  }
  EXPECT_THROW(load_program(path_ + ".missing"), Exception);
  // Every truncation of a valid archive fails cleanly (no crash, no out-of-bounds read).
  save_program(sample(), path_);
  std::vector<char> full;
  {
    std::ifstream in(path_, std::ios::binary);
    full.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (size_t n = 1; n < full.size(); n += std::max<size_t>(1, full.size() / 97)) {
    {
      std::ofstream out(path_, std::ios::binary | std::ios::trunc);
      out.write(full.data(), static_cast<std::streamsize>(n));
    }
    EXPECT_THROW(load_program(path_), Exception) << n << " of " << full.size() << " bytes";
  }
}

TEST_F(ProgramArchiveTest, WriteFailureIsAnError) {
  EXPECT_THROW(save_program(sample(), "/nonexistent-dir/x.ptep"), Exception);
}

}  // namespace
}  // namespace ptec::ir
