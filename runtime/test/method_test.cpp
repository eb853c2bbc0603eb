// Loading and executing the upstream fixtures and the hand-built files (FORMAT.md §8,
// fixtures/handmade/README.md) with the portable kernels.

#include "runtime/executor/method.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/portable/register.h"
#include "runtime/executor/flatbuffer_data_map.h"
#include "runtime/executor/program.h"
#include "runtime/extension/owned_tensor.h"
#include "runtime/loader/file_data_loader.h"
#include "runtime/test/test_util.h"

namespace ptec::runtime {
namespace {

using testing::FixtureProgram;
using testing::LogCapture;
using testing::TestMemory;

class MethodFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PTEC_SKIP_WITHOUT_FIXTURES();
    ASSERT_EQ(kernels::register_portable_kernels(), Error::Ok);
  }
};

// Loads `method`, sets every tensor input to ones, executes; returns the method.
struct RunResult {
  std::unique_ptr<TestMemory> memory;
  std::vector<OwnedTensor> inputs;
  std::unique_ptr<Method> method;
  Error load_error = Error::Ok;
  Error execute_error = Error::Ok;
};

RunResult run_with_ones(const Program& program, const char* name,
                        const NamedDataMap* data = nullptr) {
  RunResult r;
  Result<MethodMeta> meta = program.method_meta(name);
  if (!meta.ok()) {
    r.load_error = meta.error();
    return r;
  }
  r.memory = std::make_unique<TestMemory>(meta.get());
  Result<Method> method = program.load_method(name, r.memory->manager(), nullptr, data);
  if (!method.ok()) {
    r.load_error = method.error();
    return r;
  }
  r.method = std::make_unique<Method>(std::move(method.get()));
  for (size_t i = 0; i < meta->num_inputs(); ++i) {
    Result<TensorInfo> info = meta->input_tensor_meta(i);
    if (!info.ok()) continue;
    r.inputs.push_back(
        OwnedTensor::full(info->scalar_type(),
                          std::vector<int32_t>(info->sizes().begin(), info->sizes().end()), 1.0));
  }
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    r.execute_error = r.method->set_input(r.inputs[i].evalue(), i);
    if (r.execute_error != Error::Ok) return r;
  }
  r.execute_error = r.method->execute();
  return r;
}

std::vector<float> float_output(const Method& method, size_t i) {
  Result<EValue> v = method.get_output(i);
  if (!v.ok() || !v->is_tensor()) return {};
  return tensor_values<float>(v->to_tensor());
}

TEST_F(MethodFixtureTest, AddRunsOnOnes) {
  FixtureProgram program("executorch/add.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  RunResult r = run_with_ones(*program.get(), "forward");
  ASSERT_EQ(r.load_error, Error::Ok);
  ASSERT_EQ(r.execute_error, Error::Ok);
  EXPECT_EQ(r.method->inputs_size(), 2u);
  ASSERT_EQ(r.method->outputs_size(), 1u);
  EXPECT_EQ(float_output(*r.method, 0), std::vector<float>({2.0f}));
}

TEST_F(MethodFixtureTest, AddModelAddsItsConstant) {
  FixtureProgram program("executorch/AddModel.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  RunResult r = run_with_ones(*program.get(), "forward");
  ASSERT_EQ(r.load_error, Error::Ok);
  ASSERT_EQ(r.execute_error, Error::Ok);
  EXPECT_EQ(float_output(*r.method, 0), std::vector<float>({2.0f, 2.0f, 2.0f}));
}

TEST_F(MethodFixtureTest, KeywordSpottingNamesEveryMissingCortexMOperator) {
  FixtureProgram program("executorch/KeywordSpotting.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  LogCapture log;
  RunResult r = run_with_ones(*program.get(), "forward");
  EXPECT_EQ(r.load_error, Error::OperatorMissing);
  for (const char* op :
       {"cortex_m::quantize_per_tensor.out", "cortex_m::quantized_depthwise_conv2d.out",
        "cortex_m::quantized_conv2d.out", "cortex_m::pad.out", "cortex_m::quantized_avg_pool2d.out",
        "cortex_m::quantized_linear.out", "cortex_m::dequantize_per_tensor.out"}) {
    size_t count = 0;
    for (const auto& line : log.lines()) {
      if (line == std::string("Missing operator: ") + op) ++count;
    }
    EXPECT_EQ(count, 1u) << op << "\n" << log.all();
  }
}

TEST_F(MethodFixtureTest, QnnConstantMethodsReturnTheirValues) {
  FixtureProgram program("executorch/stories260k_hybrid_llama_qnn.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  EXPECT_EQ(program->num_methods(), 29u);

  RunResult vocab = run_with_ones(*program.get(), "get_vocab_size");
  ASSERT_EQ(vocab.load_error, Error::Ok);
  ASSERT_EQ(vocab.execute_error, Error::Ok);
  ASSERT_EQ(vocab.method->outputs_size(), 1u);
  ASSERT_TRUE(vocab.method->get_output(0)->is_int());
  EXPECT_EQ(vocab.method->get_output(0)->to_int(), 512);

  RunResult attr = run_with_ones(*program.get(), "get_kv_output_0_quant_attr");
  ASSERT_EQ(attr.load_error, Error::Ok);
  ASSERT_EQ(attr.execute_error, Error::Ok);
  ASSERT_EQ(attr.method->outputs_size(), 5u);
  ASSERT_TRUE(attr.method->get_output(0)->is_double());
  EXPECT_NEAR(attr.method->get_output(0)->to_double(), 0.0120779, 1e-7);
  EXPECT_EQ(attr.method->get_output(1)->to_int(), 128);
  EXPECT_EQ(attr.method->get_output(2)->to_int(), 0);
  EXPECT_EQ(attr.method->get_output(3)->to_int(), 255);
  ASSERT_TRUE(attr.method->get_output(4)->is_string());
  EXPECT_EQ(attr.method->get_output(4)->to_string(), "torch.uint8");

  // Every other constant method loads and runs too.
  for (size_t i = 0; i < program->num_methods(); ++i) {
    const std::string name = program->get_method_name(i).get();
    if (name.rfind("get_", 0) != 0) continue;
    RunResult r = run_with_ones(*program.get(), name.c_str());
    EXPECT_EQ(r.load_error, Error::Ok) << name;
    EXPECT_EQ(r.execute_error, Error::Ok) << name;
  }
}

TEST_F(MethodFixtureTest, QnnDelegateMethodsNeedTheBackend) {
  FixtureProgram program("executorch/stories260k_hybrid_llama_qnn.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  for (const char* name : {"kv_forward", "prefill_forward"}) {
    LogCapture log;
    RunResult r = run_with_ones(*program.get(), name);
    EXPECT_EQ(r.load_error, Error::NotFound) << name;
    EXPECT_TRUE(log.contains("Backend QnnBackend is not registered.")) << log.all();
    Result<MethodMeta> meta = program->method_meta(name);
    ASSERT_TRUE(meta.ok());
    EXPECT_TRUE(meta->uses_backend("QnnBackend"));
  }
}

TEST_F(MethodFixtureTest, HandmadeWithPtdComputesTheReadmeOutputs) {
  Result<FileDataLoader> data_loader =
      FileDataLoader::from((testing::fixtures_dir() / "handmade/handmade.ptd").c_str());
  ASSERT_TRUE(data_loader.ok());
  Result<FlatTensorDataMap> data = FlatTensorDataMap::load(&data_loader.get());
  ASSERT_TRUE(data.ok());
  FixtureProgram program("handmade/handmade.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->num_memory_planned_buffers(), 2u);
  EXPECT_EQ(meta->memory_planned_buffer_size(0).get(), 128);
  EXPECT_EQ(meta->memory_planned_buffer_size(1).get(), 16);

  RunResult r = run_with_ones(*program.get(), "forward", &data.get());
  ASSERT_EQ(r.load_error, Error::Ok);
  ASSERT_EQ(r.execute_error, Error::Ok);
  ASSERT_EQ(r.method->outputs_size(), 3u);
  EXPECT_EQ(float_output(*r.method, 0), std::vector<float>({17, 29, 41}));
  EXPECT_EQ(float_output(*r.method, 1), std::vector<float>({4, 7}));
  Result<EValue> indices = r.method->get_output(2);
  ASSERT_TRUE(indices.ok() && indices->is_tensor());
  EXPECT_EQ(indices->to_tensor().dtype(), DType::Long);
  EXPECT_EQ(tensor_values<int64_t>(indices->to_tensor()), std::vector<int64_t>({2, 2}));
}

TEST_F(MethodFixtureTest, HandmadeWithoutPtdNamesTheMissingKey) {
  FixtureProgram program("handmade/handmade.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  LogCapture log;
  RunResult r = run_with_ones(*program.get(), "forward");
  EXPECT_EQ(r.load_error, Error::NotFound);
  EXPECT_TRUE(log.contains("'linear.weight'")) << log.all();
}

TEST_F(MethodFixtureTest, HandmadeOkRuns) {
  FixtureProgram program("handmade/ok.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  RunResult r = run_with_ones(*program.get(), "forward");
  ASSERT_EQ(r.load_error, Error::Ok);
  ASSERT_EQ(r.execute_error, Error::Ok);
  EXPECT_EQ(float_output(*r.method, 0), std::vector<float>({2, 2}));
}

TEST_F(MethodFixtureTest, HandmadeNoReturnSlotLoadsButFailsToExecute) {
  FixtureProgram program("handmade/no_return_slot.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  LogCapture log;
  RunResult r = run_with_ones(*program.get(), "forward");
  ASSERT_EQ(r.load_error, Error::Ok);
  EXPECT_EQ(r.execute_error, Error::InvalidProgram);
  EXPECT_TRUE(log.contains("kernel aten::add.out failed: InvalidProgram")) << log.all();
}

TEST_F(MethodFixtureTest, HandmadeDelegatesNameTheUnregisteredBackend) {
  for (const char* file : {"handmade/deleg_inline.pte", "handmade/deleg_segment.pte"}) {
    FixtureProgram program(file);
    ASSERT_EQ(program.error(), Error::Ok) << file;
    LogCapture log;
    RunResult r = run_with_ones(*program.get(), "forward");
    EXPECT_EQ(r.load_error, Error::NotFound) << file;
    EXPECT_TRUE(log.contains("Backend BackendWithCompilerDemo is not registered.")) << log.all();
  }
}

TEST_F(MethodFixtureTest, InputChecks) {
  FixtureProgram program("executorch/AddModel.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  TestMemory memory(meta.get());
  Result<Method> method = program->load_method("forward", memory.manager());
  ASSERT_TRUE(method.ok());
  LogCapture log;
  // Not set yet: planned inputs run on whatever the arena holds, so execution is allowed; but
  // a wrong index, dtype or shape is refused.
  OwnedTensor wrong_dtype = OwnedTensor::full(DType::Double, {3}, 1.0);
  EXPECT_EQ(method->set_input(wrong_dtype.evalue(), 0), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("dtype f64 does not match the program's f32")) << log.all();
  OwnedTensor wrong_shape = OwnedTensor::full(DType::Float, {4}, 1.0);
  EXPECT_EQ(method->set_input(wrong_shape.evalue(), 0), Error::InvalidArgument);
  OwnedTensor wrong_rank = OwnedTensor::full(DType::Float, {3, 1}, 1.0);
  EXPECT_EQ(method->set_input(wrong_rank.evalue(), 0), Error::InvalidArgument);
  OwnedTensor good = OwnedTensor::full(DType::Float, {3}, 5.0);
  EXPECT_EQ(method->set_input(good.evalue(), 1), Error::InvalidArgument);
  EXPECT_EQ(method->set_input(EValue(int64_t{3}), 0), Error::InvalidArgument);
  EXPECT_EQ(method->set_input(good.evalue(), 0), Error::Ok);
  // The planned input holds a copy: changing the caller's tensor afterwards has no effect.
  good.tensor().mutable_data_ptr<float>()[0] = 100.0f;
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(float_output(method.get(), 0), std::vector<float>({6, 6, 6}));
  EXPECT_EQ(method->get_output(1).error(), Error::InvalidArgument);

  // set_input_pointer shares the caller's buffer.
  alignas(16) float shared[3] = {1, 2, 3};
  EXPECT_EQ(method->set_input_pointer(0, shared, 8), Error::InvalidArgument);
  ASSERT_EQ(method->set_input_pointer(0, shared, sizeof(shared)), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(float_output(method.get(), 0), std::vector<float>({2, 3, 4}));
}

TEST_F(MethodFixtureTest, PlannedMemoryTooSmallIsAnError) {
  FixtureProgram program("executorch/add.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  std::vector<uint8_t> pool(1 << 16);
  MemoryAllocator method_allocator(pool.data(), pool.size());
  std::vector<uint8_t> arena(32);  // the output sits at [32, 36)
  Span<uint8_t> spans[] = {Span<uint8_t>(arena)};
  HierarchicalAllocator planned{Span<Span<uint8_t>>(spans)};
  MemoryManager mm{&method_allocator, &planned, nullptr};
  LogCapture log;
  EXPECT_EQ(program->load_method("forward", &mm).error(), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("outside memory_id 1's 32 bytes")) << log.all();

  // No planned memory at all.
  MemoryManager no_planned{&method_allocator, nullptr, nullptr};
  EXPECT_EQ(program->load_method("forward", &no_planned).error(), Error::InvalidArgument);
  // A method allocator that is too small.
  MemoryAllocator tiny(pool.data(), 64);
  std::vector<uint8_t> big(48);
  Span<uint8_t> big_spans[] = {Span<uint8_t>(big)};
  HierarchicalAllocator big_planned{Span<Span<uint8_t>>(big_spans)};
  MemoryManager small{&tiny, &big_planned, nullptr};
  EXPECT_EQ(program->load_method("forward", &small).error(), Error::MemoryAllocationFailed);
}

// Records event names and logged outputs.
class RecordingTracer final : public EventTracer {
 public:
  void create_event_block(const char* name, const char* method_name) override {
    events.push_back(std::string("block:") + name + "(" + method_name + ")");
  }
  EventTracerEntry start_profiling(const char* name, ChainID chain_id,
                                   InstructionID instruction_id) override {
    events.push_back(std::string(name) + "@" + std::to_string(chain_id) + ":" +
                     std::to_string(instruction_id));
    return EventTracer::start_profiling(name, chain_id, instruction_id);
  }
  Error log_evalue(const EValue& value, LoggedEValueType type, ChainID, InstructionID) override {
    if (type == LoggedEValueType::ProgramOutput && value.is_tensor()) ++outputs;
    return Error::Ok;
  }
  std::vector<std::string> events;
  int outputs = 0;
};

TEST_F(MethodFixtureTest, EventTracerSeesLoadAndEveryInstruction) {
  FixtureProgram program("executorch/add.pte");
  ASSERT_EQ(program.error(), Error::Ok);
  TestMemory memory(program->method_meta("forward").get());
  RecordingTracer tracer;
  tracer.set_event_tracer_debug_level(EventTracerDebugLogLevel::ProgramOutputs);
  Result<Method> method = program->load_method("forward", memory.manager(), &tracer);
  ASSERT_TRUE(method.ok());
  OwnedTensor x = OwnedTensor::full(DType::Float, {1}, 1.0);
  ASSERT_EQ(method->set_input(x.evalue(), 0), Error::Ok);
  ASSERT_EQ(method->set_input(x.evalue(), 1), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  EXPECT_EQ(tracer.events,
            std::vector<std::string>({"block:Default(forward)", "Program::load_method@-1:-1",
                                      "Method::init@-1:-1", "block:Execute(forward)",
                                      "Method::execute@-1:-1", "OPERATOR_CALL@0:0",
                                      "native_call_add.out@0:0"}));
  EXPECT_EQ(tracer.outputs, 1);
}

}  // namespace
}  // namespace ptec::runtime
