// `ptec run --etdump FILE [--debug-buffer FILE] [--iterations N]` end to end: programs exported
// with the export API (one method, and two methods), run by the CLI, and the files it writes
// read back with devtools/etdump's reader.

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "devtools/etdump/etdump.h"
#include "program/edge_program_manager.h"
#include "program/to_edge.h"
#include "tests/delegate/test_models.h"

namespace ptec::test {
namespace {

namespace fs = std::filesystem;
using devtools::DebugEvent;
using devtools::ETDump;
using devtools::ProfileEvent;
using devtools::RunData;

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::path(PTEC_BINARY_DIR) / "tests" / "delegate" / "out" / "etdump" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

CliResult ptec(const std::string& args) {
  const std::string command = std::string(PTEC_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  CliResult r;
  if (pipe == nullptr) return r;
  char chunk[4096];
  size_t n = 0;
  while ((n = fread(chunk, 1, sizeof(chunk), pipe)) > 0) r.output.append(chunk, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// two_mul_program on the CLI's default input (ones): a = w, r = relu(w), c = r * r, d = c + 1.
std::map<std::string, std::vector<float>> values_on_ones(float scale) {
  const float w[6] = {0.5f, -1.0f, 2.0f, 1.0f, -0.5f, 3.0f};
  std::map<std::string, std::vector<float>> v;
  for (float wi : w) {
    const float a = wi * scale;
    const float r = a > 0 ? a : 0;
    v["a"].push_back(a);
    v["r"].push_back(r);
    v["c"].push_back(r * r);
    v["d"].push_back(r * r + 1.0f);
  }
  return v;
}

std::vector<float> floats(const devtools::ETDumpTensor& t, const std::vector<uint8_t>& buffer) {
  const auto bytes = devtools::tensor_data(t, buffer);
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// Checks one Execute block of two_mul_program: per kernel instruction native_call_<op> and
// OPERATOR_CALL, and (when `debug`) each kernel's output equal to the model's value.
void check_execute_block(const RunData& run, const std::string& method, bool debug, float scale,
                         const std::vector<uint8_t>& buffer) {
  EXPECT_EQ(run.name, "Execute");
  EXPECT_EQ(run.method_name, method);
  const std::vector<std::string> ops = {"native_call_mul.out", "native_call_relu.out",
                                        "native_call_mul.out", "native_call_add.out"};
  const std::vector<std::string> names = {"a", "r", "c", "d"};
  std::vector<const ProfileEvent*> calls;
  std::vector<const DebugEvent*> logged;
  for (const auto& e : run.events) {
    if (e.profile() != nullptr && e.profile()->name.rfind("native_call_", 0) == 0) {
      calls.push_back(e.profile());
    }
    if (e.debug() != nullptr) logged.push_back(e.debug());
  }
  ASSERT_EQ(calls.size(), ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(calls[i]->name, ops[i]);
    EXPECT_EQ(calls[i]->instruction_id, static_cast<int32_t>(i));
  }
  if (!debug) {
    EXPECT_TRUE(logged.empty());
    return;
  }
  auto ref = values_on_ones(scale);
  ASSERT_EQ(logged.size(), ops.size() + 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(logged[i]->instruction_id, static_cast<int32_t>(i));
    EXPECT_EQ(floats(logged[i]->debug_entry.tensor, buffer), ref[names[i]]) << ops[i];
  }
  EXPECT_TRUE(logged.back()->debug_entry.output);
  EXPECT_EQ(floats(logged.back()->debug_entry.tensor, buffer), ref["d"]);
}

TEST(CliETDumpTest, RunWritesOneBlockPerIterationAndTheDebugBuffer) {
  const fs::path dir = temp_dir("one_method");
  program::to_edge(two_mul_program(), program::ToEdgeOptions{})
      .to_executorch()
      .write_to_file((dir / "m.pte").string());
  const CliResult r = ptec(fmt::format("run {} --etdump {} --debug-buffer {} --iterations 3 --json",
                                       (dir / "m.pte").string(), (dir / "m.etdp").string(),
                                       (dir / "m.bin").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["etdump"]["path"], (dir / "m.etdp").string());
  EXPECT_EQ(j["etdump"]["blocks"], 4);

  const ETDump dump = ETDump::load((dir / "m.etdp").string());
  const std::vector<uint8_t> buffer = devtools::read_binary_file((dir / "m.bin").string());
  EXPECT_EQ(j["etdump"]["debug_buffer_bytes"], buffer.size());
  ASSERT_EQ(dump.run_data.size(), 4u);  // load + one block per iteration
  EXPECT_EQ(dump.run_data[0].name, "Default");
  EXPECT_EQ(dump.run_data[0].method_name, "forward");
  for (size_t b = 1; b < 4; ++b) {
    SCOPED_TRACE("block " + std::to_string(b));
    check_execute_block(dump.run_data[b], "forward", true, 1.0f, buffer);
  }
  // Written atomically: nothing but the three files is left in the directory.
  size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 3u);
}

TEST(CliETDumpTest, ProfilingOnlyWithoutDebugBufferAndAnyMethod) {
  const fs::path dir = temp_dir("two_methods");
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("alpha", two_mul_program(1.0f));
  programs.emplace("beta", two_mul_program(2.0f));
  program::to_edge(programs, program::ToEdgeOptions{})
      .to_executorch()
      .write_to_file((dir / "m.pte").string());
  CliResult r = ptec(fmt::format("run {} --method beta --etdump {}", (dir / "m.pte").string(),
                                 (dir / "beta.etdp").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("etdump: " + (dir / "beta.etdp").string() + " (2 blocks"),
            std::string::npos)
      << r.output;
  ETDump dump = ETDump::load((dir / "beta.etdp").string());
  ASSERT_EQ(dump.run_data.size(), 2u);
  EXPECT_EQ(dump.run_data[0].method_name, "beta");
  check_execute_block(dump.run_data[1], "beta", false, 2.0f, {});

  r = ptec(fmt::format("run {} --method beta --etdump {} --debug-buffer {}",
                       (dir / "m.pte").string(), (dir / "beta.etdp").string(),
                       (dir / "beta.bin").string()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  dump = ETDump::load((dir / "beta.etdp").string());
  ASSERT_EQ(dump.run_data.size(), 2u);
  check_execute_block(dump.run_data[1], "beta", true, 2.0f,
                      devtools::read_binary_file((dir / "beta.bin").string()));
}

TEST(CliETDumpTest, Errors) {
  const fs::path dir = temp_dir("errors");
  program::to_edge(two_mul_program(), program::ToEdgeOptions{})
      .to_executorch()
      .write_to_file((dir / "m.pte").string());
  CliResult r =
      ptec(fmt::format("run {} --debug-buffer {}", (dir / "m.pte").string(), (dir / "b").string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("needs --etdump"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "b"));
  r = ptec(fmt::format("run {} --etdump {}", (dir / "m.pte").string(),
                       (dir / "missing" / "x.etdp").string()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find((dir / "missing" / "x.etdp").string()), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ptec::test
