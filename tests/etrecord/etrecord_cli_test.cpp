// `ptec export MODEL -o m.pte --etrecord m.etrecord` (single and multi-method): the record loads,
// its programs and maps cover every instruction with the ONNX node it came from, and a failed
// export leaves no record.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "devtools/etrecord/etrecord.h"
#include "ir/printer.h"

namespace ptec::devtools {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kModel = std::string(PTEC_SOURCE_DIR) + "/examples/models/example_cnn.onnx";

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::path(PTEC_BINARY_DIR) / "tests" / "etrecord" / "out" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Runs the CLI with `args`; returns the exit code and puts stdout+stderr in `output`.
int ptec(const std::string& args, std::string* output) {
  const fs::path log = fs::path(PTEC_BINARY_DIR) / "tests" / "etrecord" / "out" / "cli.log";
  const std::string command =
      std::string(PTEC_CLI_PATH) + " " + args + " > " + log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  if (output != nullptr) *output = text.str();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Every instruction of `method` maps to Edge nodes, and those nodes name their ONNX node.
void expect_every_instruction_mapped(const ETRecord& record, const std::string& method) {
  const MethodDebugHandleMap& map = record.debug_handle_map(method);
  ASSERT_FALSE(map.empty());
  size_t with_source = 0;
  for (const auto& [id, handles] : map) {
    const std::vector<RecordedNode> nodes = record.nodes_for_instruction(method, id);
    ASSERT_FALSE(nodes.empty()) << method << " instruction " << id;
    if (!nodes[0].source.empty()) ++with_source;
    EXPECT_THAT(nodes[0].op, HasSubstr("aten::"));
  }
  EXPECT_GE(with_source * 100, map.size() * 95) << method;
}

TEST(EtrecordCli, ExportWritesARecordThatMapsEveryInstructionToItsOnnxNode) {
  const fs::path dir = temp_dir("single");
  std::string out;
  ASSERT_EQ(ptec("export " + kModel + " --recipe portable -o " + (dir / "m.pte").string() +
                     " --etrecord " + (dir / "m.etrecord").string(),
                 &out),
            0)
      << out;
  EXPECT_THAT(out, HasSubstr("+ etrecord " + (dir / "m.etrecord").string()));
  ASSERT_TRUE(fs::exists(dir / "m.pte"));
  const ETRecord record = ETRecord::load((dir / "m.etrecord").string());
  EXPECT_TRUE(record.graphs_available());
  EXPECT_THAT(record.methods(), ElementsAre("forward"));
  ASSERT_NE(record.exported_program(), nullptr);
  EXPECT_EQ(record.exported_program()->stage(), ir::Stage::Aten);
  EXPECT_EQ(record.edge_program()->stage(), ir::Stage::Edge);
  // to_edge keeps the UUID: the record links the ATEN and Edge graphs.
  EXPECT_EQ(record.exported_program()->uuid(), record.edge_program()->uuid());
  EXPECT_TRUE(record.has_executorch_maps());
  EXPECT_TRUE(record.delegate_map("forward").empty());
  expect_every_instruction_mapped(record, "forward");
  // 100 instructions (README's example); the constant method of dynamic dims is not a method.
  EXPECT_EQ(record.debug_handle_map("forward").size(), 100u);

  // Without --etrecord no record is written.
  ASSERT_EQ(ptec("export " + kModel + " -o " + (dir / "plain.pte").string(), &out), 0) << out;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 3);

  // The default recipe (which may delegate): every instruction, delegate calls included, still
  // maps to the Edge program's nodes and their ONNX names.
  ASSERT_EQ(ptec("export " + kModel + " -o " + (dir / "d.pte").string() + " --etrecord " +
                     (dir / "d.etrecord").string(),
                 &out),
            0)
      << out;
  const ETRecord delegated = ETRecord::load((dir / "d.etrecord").string());
  expect_every_instruction_mapped(delegated, "forward");
  for (const auto& [id, call] : delegated.delegate_map("forward")) {
    EXPECT_FALSE(call.name.empty());
    EXPECT_GE(delegated.instruction_id_to_num_outs_map("forward").at(id), 1);
  }
}

TEST(EtrecordCli, MultiMethodExportRecordsEveryMethod) {
  const fs::path dir = temp_dir("multi");
  std::string out;
  ASSERT_EQ(ptec("export --method alpha=" + kModel + " --method beta=" + kModel +
                     " --constant answer=42 -o " + (dir / "mm.pte").string() + " --etrecord " +
                     (dir / "mm.etrecord").string() + " --json",
                 &out),
            0)
      << out;
  EXPECT_THAT(out, HasSubstr("\"etrecord\": \"" + (dir / "mm.etrecord").string() + "\""));
  const ETRecord record = ETRecord::load((dir / "mm.etrecord").string());
  EXPECT_THAT(record.methods(), ElementsAre("alpha", "beta"));
  EXPECT_EQ(record.aten_programs().size(), 2u);
  EXPECT_EQ(record.debug_handle_map().size(), 2u);  // not the constant method
  expect_every_instruction_mapped(record, "alpha");
  expect_every_instruction_mapped(record, "beta");
}

TEST(EtrecordCli, AFailedExportLeavesNoRecord) {
  const fs::path dir = temp_dir("failures");
  std::string out;
  // The .pte cannot be written (its path is a directory): the record saved before it is removed.
  fs::create_directories(dir / "taken.pte");
  EXPECT_EQ(ptec("export " + kModel + " -o " + (dir / "taken.pte").string() + " --etrecord " +
                     (dir / "m.etrecord").string(),
                 &out),
            1);
  EXPECT_THAT(out, HasSubstr("ptec: error: cannot write '" + (dir / "taken.pte").string()));
  EXPECT_FALSE(fs::exists(dir / "m.etrecord"));
  // The record's directory does not exist: nothing is written at all.
  EXPECT_EQ(ptec("export " + kModel + " -o " + (dir / "m.pte").string() + " --etrecord " +
                     (dir / "nodir" / "m.etrecord").string(),
                 &out),
            1);
  EXPECT_THAT(out, HasSubstr("m.etrecord: output directory " + (dir / "nodir").string() +
                             " does not exist"));
  EXPECT_FALSE(fs::exists(dir / "m.pte"));
  // An import failure: nothing is written.
  { std::ofstream(dir / "bad.onnx") << "not a model"; }
  EXPECT_EQ(ptec("export " + (dir / "bad.onnx").string() + " -o " + (dir / "b.pte").string() +
                     " --etrecord " + (dir / "b.etrecord").string(),
                 &out),
            1);
  EXPECT_FALSE(fs::exists(dir / "b.etrecord"));
  EXPECT_FALSE(fs::exists(dir / "b.pte"));
  // Only what the test made is left (no temporary files).
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(dir)) left.push_back(entry.path().filename());
  std::sort(left.begin(), left.end());
  EXPECT_THAT(left, ElementsAre("bad.onnx", "taken.pte"));
}

}  // namespace
}  // namespace ptec::devtools
