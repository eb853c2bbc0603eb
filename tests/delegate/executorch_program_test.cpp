// to_executorch and ExecutorchProgramManager: delegates in segments and inline, blob dedupe,
// the devtools maps, streaming writes, external constants (.ptd).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/log.h"
#ifdef PTEC_CLI_PATH
#include <nlohmann/json.hpp>
#endif
#include "emit/ptd_writer.h"
#include "ir/exception.h"
#include "program/edge_program_manager.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"
#include "schema/extended_header.h"
#include "schema/program_generated.h"
#include "tests/delegate/nested_backend.h"
#include "tests/delegate/test_models.h"

namespace ptec::test {
namespace {

namespace fs = std::filesystem;
namespace fb = executorch_flatbuffer;
using program::EdgeProgramManager;
using program::PartitionerList;
using ::testing::HasSubstr;

const std::vector<float> kX = {1.0f, 2.0f, -3.0f, 0.5f, -1.0f, 2.0f};

class LogLines {
 public:
  LogLines() { set_log_sink(&LogLines::sink, this); }
  ~LogLines() { set_log_sink(nullptr, nullptr); }
  std::string all() const { return text_; }

 private:
  static void sink(LogLevel, const char* message, void* user) {
    static_cast<LogLines*>(user)->text_ += std::string(message) + "\n";
  }
  std::string text_;
};

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::path(PTEC_BINARY_DIR) / "tests" / "delegate" / "out" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Runs `method` of the file at `path` (with `data_path`, "" for none).
Result<std::vector<float>> run_file(const std::string& path, const std::string& data_path,
                                    const std::string& method = "forward") {
  runtime::Module module(path, data_path);
  auto input = runtime::OwnedTensor::from(DType::Float, {2, 3}, kX);
  auto out = module.execute(method, {input.evalue()});
  if (!out.ok()) return out.error();
  const runtime::Tensor& t = (*out)[0].to_tensor();
  return std::vector<float>(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
}

const fb::Program* root(const std::vector<uint8_t>& bytes) { return fb::GetProgram(bytes.data()); }

EdgeProgramManager lowered_two_methods(bool blob_in_named_data = false) {
  register_nested_backend();
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("alpha", two_mul_program(1.0f));
  programs.emplace("beta", two_mul_program(2.0f));
  auto partitioner = std::make_shared<OpSetPartitioner>(std::set<std::string>{"aten::mul.Tensor"});
  partitioner->blob_in_named_data = blob_in_named_data;
  return program::to_edge(programs, program::ToEdgeOptions{})
      .to_backend(PartitionerList{partitioner});
}

TEST(ExecutorchProgramTest, DelegateBlobsInSegmentsAreStoredOnceAndRun) {
  const auto et = lowered_two_methods().to_executorch();
  EXPECT_EQ(et.methods(), (std::vector<std::string>{"alpha", "beta"}));
  const std::vector<uint8_t> bytes = et.buffer();
  const fb::Program* p = root(bytes);
  // 4 delegates (2 per method) but 2 distinct blobs: each partition is the same nested program
  // in both methods (the weight is a delegate input). Segment 0 holds the constants, then the
  // blobs.
  size_t delegates = 0;
  for (const fb::ExecutionPlan* plan : *p->execution_plan()) {
    for (const fb::BackendDelegate* d : *plan->delegates()) {
      ++delegates;
      EXPECT_EQ(d->id()->str(), kNestedBackendId);
      EXPECT_EQ(d->processed()->location(), fb::DataLocation::SEGMENT);
      EXPECT_GE(d->processed()->index(), 1u);
    }
  }
  EXPECT_EQ(delegates, 4u);
  EXPECT_EQ(p->segments()->size(), 1u + 2u);
  EXPECT_TRUE(p->backend_delegate_data() == nullptr || p->backend_delegate_data()->size() == 0);
  const auto header = schema::ExtendedHeader::parse(bytes.data(), bytes.size());
  ASSERT_TRUE(header.ok());
  for (const fb::DataSegment* s : *p->segments()) {
    EXPECT_EQ((header->segment_base_offset + s->offset()) % 128, 0u);
  }
  const fs::path dir = temp_dir("segments");
  et.write_to_file((dir / "m.pte").string());
  EXPECT_EQ(run_file((dir / "m.pte").string(), "", "alpha").get(), two_mul_reference(kX, 1.0f));
  EXPECT_EQ(run_file((dir / "m.pte").string(), "", "beta").get(), two_mul_reference(kX, 2.0f));
}

TEST(ExecutorchProgramTest, InlineDelegateBlobsRun) {
  program::ExecutorchBackendConfig config;
  config.extract_delegate_segments = false;
  const auto et = lowered_two_methods().to_executorch(config);
  const std::vector<uint8_t> bytes = et.buffer();
  const fb::Program* p = root(bytes);
  ASSERT_NE(p->backend_delegate_data(), nullptr);
  EXPECT_EQ(p->backend_delegate_data()->size(), 2u);
  for (const fb::ExecutionPlan* plan : *p->execution_plan()) {
    for (const fb::BackendDelegate* d : *plan->delegates()) {
      EXPECT_EQ(d->processed()->location(), fb::DataLocation::INLINE);
    }
  }
  const fs::path dir = temp_dir("inline");
  et.write_to_file((dir / "m.pte").string());
  EXPECT_EQ(run_file((dir / "m.pte").string(), "", "beta").get(), two_mul_reference(kX, 2.0f));
}

TEST(ExecutorchProgramTest, DelegateNamedDataReachesTheBackend) {
  const auto et = lowered_two_methods(/*blob_in_named_data=*/true).to_executorch();
  const std::vector<uint8_t> bytes = et.buffer();
  const fb::Program* p = root(bytes);
  ASSERT_NE(p->named_data(), nullptr);
  EXPECT_EQ(p->named_data()->size(), 2u);  // identical nested programs share a key
  const fs::path dir = temp_dir("named_data");
  et.write_to_file((dir / "m.pte").string());
  EXPECT_EQ(run_file((dir / "m.pte").string(), "", "alpha").get(), two_mul_reference(kX, 1.0f));
}

TEST(ExecutorchProgramTest, DevtoolsMapsDescribeDelegateCalls) {
  const EdgeProgramManager lowered = lowered_two_methods();
  const auto et = lowered.to_executorch();
  const auto delegates = et.delegate_map();
  ASSERT_EQ(delegates.at("alpha").size(), 2u);
  const auto& [id, call] = *delegates.at("alpha").begin();
  EXPECT_EQ(call.backend_id, kNestedBackendId);
  EXPECT_EQ(call.num_outputs, 1u);
  EXPECT_EQ(call.debug_handles.size(), 1u);
  EXPECT_EQ(et.instruction_id_to_num_outs_map().at("alpha").at(id), 1u);
  EXPECT_EQ(et.debug_handle_map().at("alpha").count(id), 1u);
  EXPECT_EQ(et.exported_program("alpha").provenance().back().stage, "to_executorch");
}

TEST(ExecutorchProgramTest, StreamWriteEqualsBufferAndFailedStreamIsAnError) {
  const auto et = lowered_two_methods().to_executorch();
  std::ostringstream out;
  et.write_to_file(out);
  const std::string s = out.str();
  EXPECT_EQ(std::vector<uint8_t>(s.begin(), s.end()), et.buffer());
  std::ofstream closed;
  EXPECT_THROW(et.write_to_file(closed), Exception);
  try {
    et.write_to_file("/nonexistent-dir/x.pte");
    FAIL();
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::AccessFailed);
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent-dir/x.pte"));
  }
}

TEST(ExecutorchProgramTest, MemoryPlanningPerMethod) {
  register_nested_backend();
  program::ExecutorchBackendConfig config;
  config.memory_planning_per_method["beta"] = emit::MemoryPlanning::Naive;
  const auto et =
      program::to_edge(std::map<std::string, ir::ExportedProgram>{{"alpha", two_mul_program()},
                                                                  {"beta", two_mul_program()}},
                       program::ToEdgeOptions{})
          .to_executorch(config);
  const auto& alpha = et.emitted().method("alpha").memory_plan;
  const auto& beta = et.emitted().method("beta").memory_plan;
  EXPECT_LT(alpha.buffer_sizes.at(1), beta.buffer_sizes.at(1));  // greedy reuses memory
}

TEST(ExecutorchProgramTest, ExternalConstantsGoToAPtdThatTheRuntimeLoads) {
  register_nested_backend();  // and the portable kernels
  const EdgeProgramManager edge = program::to_edge(two_mul_program(), program::ToEdgeOptions{});
  const fs::path dir = temp_dir("external");
  const auto single = edge.to_executorch();
  single.write_to_file((dir / "single.pte").string());
  EXPECT_FALSE(single.has_external_tensor_data());
  EXPECT_THROW((void)single.write_tensor_data_to_file(dir.string()), Exception);

  program::ExecutorchBackendConfig config;
  config.external_constants = true;
  const auto et = edge.to_executorch(config);
  et.write_to_file((dir / "model.pte").string());
  ASSERT_TRUE(fs::exists(dir / "model.ptd"));  // beside the .pte, same stem
  EXPECT_EQ(et.emitted().constant_bytes(), 0u);
  const std::vector<uint8_t> bytes = et.buffer();
  const fb::Program* p = root(bytes);
  EXPECT_EQ(p->constant_segment()->offsets()->size(), 1u);  // only the placeholder
  bool external = false;
  for (const fb::EValue* v : *p->execution_plan()->Get(0)->values()) {
    const fb::Tensor* t = v->val_as_Tensor();
    if (t == nullptr || t->extra_tensor_info() == nullptr) continue;
    EXPECT_EQ(t->extra_tensor_info()->location(), fb::TensorDataLocation::EXTERNAL);
    EXPECT_EQ(t->extra_tensor_info()->fully_qualified_name()->str(), "w");
    EXPECT_EQ(t->data_buffer_idx(), 0u);
    external = true;
  }
  EXPECT_TRUE(external);
  EXPECT_LT(fs::file_size(dir / "model.pte"), fs::file_size(dir / "single.pte"));

  const auto expected = two_mul_reference(kX);
  EXPECT_EQ(run_file((dir / "single.pte").string(), "").get(), expected);
  EXPECT_EQ(run_file((dir / "model.pte").string(), (dir / "model.ptd").string()).get(), expected);
  // write_tensor_data_to_file writes elsewhere on request.
  const fs::path other = temp_dir("external_other");
  EXPECT_EQ(et.write_tensor_data_to_file(other.string(), "weights"),
            (other / "weights.ptd").string());
  EXPECT_EQ(run_file((dir / "model.pte").string(), (other / "weights.ptd").string()).get(),
            expected);

  {  // Missing .ptd: the error names the key.
    LogLines log;
    auto r = run_file((dir / "model.pte").string(), "");
    EXPECT_FALSE(r.ok());
    EXPECT_THAT(log.all(), HasSubstr("'w'"));
  }
  {  // A .ptd whose tensor "w" has another layout.
    emit::write_ptd({{"w", float_tensor({3, 2}, std::vector<float>(6, 1.0f))}},
                    (dir / "wrong.ptd").string());
    LogLines log;
    auto r = run_file((dir / "model.pte").string(), (dir / "wrong.ptd").string());
    EXPECT_EQ(r.error(), Error::InvalidExternalData);
    EXPECT_THAT(log.all(), HasSubstr("external tensor 'w' has another layout"));
  }
  {  // A .ptd without the key.
    emit::write_ptd({{"v", float_tensor({2, 3}, std::vector<float>(6, 1.0f))}},
                    (dir / "nokey.ptd").string());
    LogLines log;
    auto r = run_file((dir / "model.pte").string(), (dir / "nokey.ptd").string());
    EXPECT_FALSE(r.ok());
    EXPECT_THAT(log.all(), HasSubstr("'w'"));
  }
}

#ifdef PTEC_CLI_PATH
/// `ptec info --json PATH`, parsed.
nlohmann::json ptec_info(const fs::path& path) {
  const std::string command = std::string(PTEC_CLI_PATH) + " info --json " + path.string();
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr);
  std::string out;
  char chunk[4096];
  size_t n = 0;
  while ((n = fread(chunk, 1, sizeof(chunk), pipe)) > 0) out.append(chunk, n);
  EXPECT_EQ(pclose(pipe), 0) << out;
  return nlohmann::json::parse(out);
}

TEST(ExecutorchProgramTest, PtecInfoReportsDelegatesWithBackendSizeAndLocation) {
  const EdgeProgramManager lowered = lowered_two_methods();
  const fs::path dir = temp_dir("info");
  lowered.to_executorch().write_to_file((dir / "segments.pte").string());
  program::ExecutorchBackendConfig config;
  config.extract_delegate_segments = false;
  lowered.to_executorch(config).write_to_file((dir / "inline.pte").string());
  for (const char* file : {"segments.pte", "inline.pte"}) {
    const nlohmann::json info = ptec_info(dir / file);
    ASSERT_EQ(info["methods"].size(), 2u);
    for (const auto& method : info["methods"]) {
      ASSERT_EQ(method["delegates"].size(), 2u) << file;
      EXPECT_EQ(method["delegate_calls"], 2);
      for (const auto& d : method["delegates"]) {
        EXPECT_EQ(d["backend_id"], kNestedBackendId);
        EXPECT_EQ(d["location"], std::string(file) == "inline.pte" ? "inline" : "segment");
        EXPECT_GT(d["size"].get<uint64_t>(), 100u);
      }
    }
    EXPECT_EQ(info["named_data"]["count"], 0);
  }
  // Blobs kept in the named data are counted there, with their bytes.
  lowered_two_methods(true).to_executorch().write_to_file((dir / "named.pte").string());
  const nlohmann::json named = ptec_info(dir / "named.pte");
  EXPECT_EQ(named["named_data"]["count"], 2);  // two distinct partitions, shared by the methods
  EXPECT_GT(named["named_data"]["bytes"].get<uint64_t>(), 200u);
}
#endif

}  // namespace
}  // namespace ptec::test
