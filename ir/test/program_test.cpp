// ExportedProgram copy semantics and Buffer::map_file.

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/buffer.h"
#include "ir/exception.h"
#include "ir/exported_program.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace ptec::ir {
namespace {

using ::testing::ElementsAre;

constexpr const char* kProgram = R"IR(program uuid=0000000000000000000000000000beef stage=ATEN
  input USER_INPUT input
  input PARAMETER p_w target="w"
  input CUSTOM_OBJ engine target="engine"
  output USER_OUTPUT sum_1
graph:
  %input : f32[2, 3] = placeholder() #1
  %p_w : f32[2, 3] = placeholder() #2
  %engine = placeholder() #3
  %sum : f32[2] = aten::sum.dim_IntList(%input, [1]) #10
  %add : f32[2, 3] = aten::add.Tensor(%input, %p_w) #11
  %sum_1 : f32[2] = aten::sum.dim_IntList(%add, [1]) #12
  return (%sum_1) #13
)IR";

TEST(ExportedProgramCopy, SharesPayloadsKeepsNamesHandlesAndUuid) {
  ExportedProgram original = parse(kProgram);
  original.state_dict()["w"] = TensorData{TensorSpec(DType::Float, std::vector<int64_t>{2, 3}),
                                          Buffer::from_vector(std::vector<uint8_t>(24, 7))};
  original.constants()["c"] = TensorData{TensorSpec(DType::Long, std::vector<int64_t>{1}),
                                         Buffer::from_vector(std::vector<uint8_t>(8, 1))};
  struct Blob : OpaqueObject {
    BufferPtr serialize() const override { return Buffer::copy_of("blob", 4); }
  };
  original.custom_objects()["engine"] =
      CustomObject{"ptec.engine", Buffer::copy_of("blob", 4), {}, std::make_shared<Blob>()};
  original.example_inputs().push_back(
      TensorData{TensorSpec(DType::Float, std::vector<int64_t>{2, 3}),
                 Buffer::from_vector(std::vector<uint8_t>(24))});
  ASSERT_THAT(verify(original), ElementsAre());
  const std::string before = print(original);

  ExportedProgram copy = original;
  EXPECT_EQ(copy.uuid(), original.uuid());
  EXPECT_EQ(print(copy), before);
  // Payloads are shared, pointer-equal.
  EXPECT_EQ(copy.state_dict().at("w").data.get(), original.state_dict().at("w").data.get());
  EXPECT_EQ(copy.constants().at("c").data.get(), original.constants().at("c").data.get());
  EXPECT_EQ(copy.custom_objects().at("engine").payload.get(),
            original.custom_objects().at("engine").payload.get());
  EXPECT_EQ(copy.custom_objects().at("engine").object.get(),
            original.custom_objects().at("engine").object.get());
  EXPECT_EQ(copy.example_inputs()[0].data.get(), original.example_inputs()[0].data.get());
  // Names (including ones that clash with Python builtins and suffixed ones) and handles.
  std::vector<std::pair<std::string, int64_t>> names;
  for (const Node* n : copy.graph().nodes()) names.emplace_back(n->name(), n->debug_handle());
  EXPECT_THAT(names, ElementsAre(std::pair<std::string, int64_t>{"input", 1},
                                 std::pair<std::string, int64_t>{"p_w", 2},
                                 std::pair<std::string, int64_t>{"engine", 3},
                                 std::pair<std::string, int64_t>{"sum", 10},
                                 std::pair<std::string, int64_t>{"add", 11},
                                 std::pair<std::string, int64_t>{"sum_1", 12},
                                 std::pair<std::string, int64_t>{"output", 13}));
  // The copy's nodes are its own.
  EXPECT_NE(&copy.graph().get("add"), &original.graph().get("add"));
  EXPECT_EQ(copy.graph().get("add").arg(0).as_node(), &copy.graph().get("input"));

  // Mutating the copy leaves the original unchanged.
  Graph& g = copy.graph();
  Node* relu = g.add_call(get_op("aten::relu"), {&g.get("sum_1")}, "relu");
  relu->meta().val = g.get("sum_1").meta().val;
  g.set_output({relu});
  g.erase(&g.get("sum"));
  g.get("add").meta().source = "changed";
  copy.signature().outputs[0].name = "relu";
  copy.state_dict().erase("w");
  EXPECT_EQ(print(original), before);
  EXPECT_THAT(verify(original), ElementsAre());
  EXPECT_EQ(original.graph().get("sum_1").users().size(), 1u);

  // Assignment copies the same way.
  ExportedProgram assigned;
  assigned = original;
  EXPECT_EQ(print(assigned), before);
  EXPECT_EQ(assigned.state_dict().at("w").data.get(), original.state_dict().at("w").data.get());
}

// [begin, end) address ranges of /proc/self/maps lines whose path is `path`.
std::vector<std::pair<uintptr_t, uintptr_t>> mappings_of(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::vector<std::pair<uintptr_t, uintptr_t>> out;
  std::string line;
  while (std::getline(maps, line)) {
    if (line.size() < path.size() ||
        line.compare(line.size() - path.size(), path.size(), path) != 0) {
      continue;
    }
    std::istringstream in(line);
    std::string range;
    in >> range;
    const size_t dash = range.find('-');
    out.emplace_back(std::stoull(range.substr(0, dash), nullptr, 16),
                     std::stoull(range.substr(dash + 1), nullptr, 16));
  }
  return out;
}

TEST(BufferMapFile, DataPointsIntoTheFileMapping) {
  const std::string path = ::testing::TempDir() + "ptec_map_file_test.bin";
  std::string bytes(10000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  const BufferPtr buffer = Buffer::map_file(path);
  ASSERT_EQ(buffer->size(), bytes.size());
  EXPECT_TRUE(buffer->is_mapped());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(buffer->data()), buffer->size()), bytes);
  // The pointer lies in a mapping of the file itself, not in a heap copy.
  const auto address = reinterpret_cast<uintptr_t>(buffer->data());
  bool inside = false;
  for (const auto& [begin, end] : mappings_of(path)) {
    inside |= address >= begin && address + buffer->size() <= end;
  }
  EXPECT_TRUE(inside) << "buffer data is not inside a mapping of " << path;
  // A slice shares the mapping.
  const BufferPtr slice = Buffer::slice(buffer, 100, 50);
  EXPECT_TRUE(slice->is_mapped());
  EXPECT_EQ(slice->data(), buffer->data() + 100);
  // A heap buffer is not mapped.
  EXPECT_FALSE(Buffer::copy_of(bytes.data(), 10)->is_mapped());
  std::remove(path.c_str());
}

TEST(BufferMapFile, MissingFileIsAnAccessError) {
  try {
    Buffer::map_file("/nonexistent/ptec.bin");
    FAIL() << "no error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::AccessFailed);
    EXPECT_THAT(e.what(), ::testing::HasSubstr("/nonexistent/ptec.bin"));
  }
}

}  // namespace
}  // namespace ptec::ir
