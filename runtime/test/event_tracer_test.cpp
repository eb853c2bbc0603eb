// The runtime's EventTracer hooks: per-instruction kernel and delegate events with their chain
// and instruction ids, a delegate's own events through its BackendExecutionContext, the debug
// levels for logged values, and allocation tracking.

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels/portable/register.h"
#include "runtime/backend/interface.h"
#include "runtime/executor/program.h"
#include "runtime/extension/owned_tensor.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/test/test_util.h"

namespace ptec::runtime {
namespace {

using testing::AlignedBytes;
using testing::int_json;
using testing::tensor_json;
using testing::TestMemory;

// Records every hook as a string, and the values it is given.
class RecordingTracer final : public EventTracer {
 public:
  struct Logged {
    LoggedEValueType type;
    ChainID chain;
    InstructionID instruction;
    std::vector<float> values;
  };

  void create_event_block(const char* name, const char* method_name) override {
    events.push_back(std::string("block:") + name + "(" + (method_name ? method_name : "") + ")");
  }
  EventTracerEntry start_profiling(const char* name, ChainID chain_id,
                                   InstructionID instruction_id) override {
    events.push_back(std::string(name) + "@" + std::to_string(chain_id) + ":" +
                     std::to_string(instruction_id));
    ++open;
    return EventTracer::start_profiling(name, chain_id, instruction_id);
  }
  void end_profiling(EventTracerEntry) override { --open; }
  EventTracerEntry start_profiling_delegate(const char* name, int64_t id) override {
    EventTracerEntry e = EventTracer::start_profiling_delegate(name, id);
    events.push_back(std::string("delegate:") + (name ? name : std::to_string(id)) + "@" +
                     std::to_string(e.chain_id) + ":" + std::to_string(e.instruction_id));
    ++open;
    return e;
  }
  void end_profiling_delegate(EventTracerEntry, const void* metadata, size_t len) override {
    --open;
    if (metadata != nullptr) metadata_seen.assign(static_cast<const char*>(metadata), len);
  }
  AllocatorID track_allocator(const char* name) override {
    allocators.emplace_back(name);
    return static_cast<AllocatorID>(allocators.size() + 9);  // ids are the tracer's choice
  }
  void track_allocation(AllocatorID id, size_t size) override {
    allocations.emplace_back(id, size);
  }
  Error log_evalue(const EValue& value, LoggedEValueType type, ChainID chain,
                   InstructionID instruction) override {
    Logged l{type, chain, instruction, {}};
    if (value.is_tensor()) l.values = tensor_values<float>(value.to_tensor());
    logged.push_back(l);
    return Error::Ok;
  }
  Error log_intermediate_output_delegate(const char* name, int64_t id,
                                         const Tensor& output) override {
    Logged l{LoggedEValueType::IntermediateOutput, current_chain_id(), current_instruction_id(),
             tensor_values<float>(output)};
    (void)name;
    delegate_logged.push_back({id, l});
    return Error::Ok;
  }

  std::vector<std::string> events;
  int open = 0;
  std::string metadata_seen;
  std::vector<std::string> allocators;
  std::vector<std::pair<AllocatorID, size_t>> allocations;
  std::vector<Logged> logged;
  std::vector<std::pair<int64_t, Logged>> delegate_logged;
};

// out = in + 1. Logs its own events through the context's tracer: integer id 7 (with metadata)
// and a named event, and its input as an intermediate output under id 7.
class EventLoggingBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext&, FreeableBuffer*,
                               Span<const CompileSpec>) const override {
    return static_cast<DelegateHandle*>(nullptr);
  }
  Error execute(BackendExecutionContext& context, DelegateHandle*,
                Span<EValue*> args) const override {
    EventTracer* tracer = context.event_tracer();
    EventTracerEntry outer;
    if (tracer != nullptr) outer = tracer->start_profiling_delegate(nullptr, 7);
    const Tensor& x = args[0]->to_tensor();
    Tensor& y = args[1]->to_tensor();
    for (size_t i = 0; i < x.numel(); ++i) {
      y.mutable_data_ptr<float>()[i] = x.const_data_ptr<float>()[i] + 1.0f;
    }
    if (tracer != nullptr) {
      EventTracerEntry named = tracer->start_profiling_delegate("add_one", kUnsetDelegateDebugId);
      tracer->end_profiling_delegate(named);
      if (tracer->logs_intermediate_outputs()) {
        (void)tracer->log_intermediate_output_delegate(nullptr, 7, x);
      }
      tracer->end_profiling_delegate(outer, "meta", 4);
    }
    return Error::Ok;
  }
};

EventLoggingBackend g_backend;

// x[2] -> y = x + x (add.out) -> z = y * x (mul.out) -> w = delegate(z) = z + 1.
std::string program_json() {
  return R"({"execution_plan": [{"name": "forward", "values": [)" +
         tensor_json("FLOAT", {2}, 1, 0) + ", " + tensor_json("FLOAT", {2}, 1, 16) + ", " +
         int_json(1) + ", " + tensor_json("FLOAT", {2}, 1, 32) + ", " +
         tensor_json("FLOAT", {2}, 1, 48) + R"(], "inputs": [0], "outputs": [4],
      "chains": [{"instructions": [
        {"instr_args_type": "KernelCall", "instr_args": {"op_index": 0, "args": [0, 0, 2, 1, 1]}},
        {"instr_args_type": "KernelCall", "instr_args": {"op_index": 1, "args": [1, 0, 3, 3]}},
        {"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": 0, "args": [3, 4]}}
      ]}],
      "operators": [{"name": "aten::add", "overload": "out"}, {"name": "aten::mul", "overload": "out"}],
      "delegates": [{"id": "PtecEventTestBackend", "processed": {"location": "INLINE", "index": 0},
                     "compile_specs": []}],
      "non_const_buffer_sizes": [0, 64]}],
    "backend_delegate_data": [{"data": [1]}],
    "constant_segment": {"offsets": [0]}})";
}

class EventTracerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(kernels::register_portable_kernels(), Error::Ok);
    ASSERT_EQ(register_backend({"PtecEventTestBackend", &g_backend}), Error::Ok);
  }
  void SetUp() override {
    bytes_ = AlignedBytes(testing::pte_from_json(program_json()));
    loader_ = std::make_unique<BufferDataLoader>(bytes_.data(), bytes_.size());
    Result<Program> program = Program::load(loader_.get());
    ASSERT_TRUE(program.ok());
    program_ = std::make_unique<Program>(std::move(program.get()));
    memory_ = std::make_unique<TestMemory>(program_->method_meta("forward").get());
  }

  // Loads "forward" with `tracer` and runs it once on x = [1, 2].
  Result<Method> run(EventTracer* tracer) {
    Result<Method> method = program_->load_method("forward", memory_->manager(), tracer);
    if (!method.ok()) return method;
    OwnedTensor x = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
    if (Error e = method->set_input(x.evalue(), 0); e != Error::Ok) return e;
    if (Error e = method->execute(); e != Error::Ok) return e;
    return method;
  }

  AlignedBytes bytes_{std::vector<uint8_t>{}};
  std::unique_ptr<BufferDataLoader> loader_;
  std::unique_ptr<Program> program_;
  std::unique_ptr<TestMemory> memory_;
};

TEST_F(EventTracerTest, EveryInstructionAndDelegateEventInOrder) {
  RecordingTracer tracer;
  Result<Method> method = run(&tracer);
  ASSERT_TRUE(method.ok());
  EXPECT_EQ(tracer.events,
            std::vector<std::string>(
                {"block:Default(forward)", "Program::load_method@-1:-1", "Method::init@-1:-1",
                 "block:Execute(forward)", "Method::execute@-1:-1",
                 // Kernels: OPERATOR_CALL around native_call_<op>.<overload>, namespace dropped.
                 "OPERATOR_CALL@0:0", "native_call_add.out@0:0", "OPERATOR_CALL@0:1",
                 "native_call_mul.out@0:1",
                 // The delegate call, and the delegate's own events attributed to it.
                 "DELEGATE_CALL@0:2", "delegate:7@0:2", "delegate:add_one@0:2"}));
  EXPECT_EQ(tracer.open, 0) << "every started event was ended";
  EXPECT_EQ(tracer.metadata_seen, "meta");
  // Outside a delegate call there is no current instruction.
  EXPECT_EQ(tracer.current_chain_id(), kUnsetChainId);
  EXPECT_EQ(tracer.current_instruction_id(), kUnsetInstructionId);
  EXPECT_EQ(tensor_values<float>(method->get_output(0)->to_tensor()),
            std::vector<float>({3, 9}));  // (x + x) * x + 1
}

TEST_F(EventTracerTest, EachExecuteOpensABlock) {
  RecordingTracer tracer;
  Result<Method> method = run(&tracer);
  ASSERT_TRUE(method.ok());
  ASSERT_EQ(method->execute(), Error::Ok);
  ASSERT_EQ(method->execute(), Error::Ok);
  size_t blocks = 0;
  for (const std::string& e : tracer.events) blocks += e == "block:Execute(forward)";
  EXPECT_EQ(blocks, 3u);
}

TEST_F(EventTracerTest, NoValuesAreLoggedByDefault) {
  RecordingTracer tracer;
  ASSERT_TRUE(run(&tracer).ok());
  EXPECT_TRUE(tracer.logged.empty());
  EXPECT_TRUE(tracer.delegate_logged.empty());
}

TEST_F(EventTracerTest, ProgramOutputsLevelLogsOnlyOutputs) {
  RecordingTracer tracer;
  tracer.set_event_tracer_debug_level(EventTracerDebugLogLevel::ProgramOutputs);
  ASSERT_TRUE(run(&tracer).ok());
  ASSERT_EQ(tracer.logged.size(), 1u);
  EXPECT_EQ(tracer.logged[0].type, LoggedEValueType::ProgramOutput);
  EXPECT_EQ(tracer.logged[0].values, std::vector<float>({3, 9}));
  EXPECT_TRUE(tracer.delegate_logged.empty());
}

TEST_F(EventTracerTest, IntermediateOutputsLevelLogsEveryKernelOutput) {
  RecordingTracer tracer;
  tracer.set_event_tracer_debug_level(EventTracerDebugLogLevel::IntermediateOutputs);
  ASSERT_TRUE(run(&tracer).ok());
  ASSERT_EQ(tracer.logged.size(), 3u);
  EXPECT_EQ(tracer.logged[0].type, LoggedEValueType::IntermediateOutput);
  EXPECT_EQ(tracer.logged[0].chain, 0);
  EXPECT_EQ(tracer.logged[0].instruction, 0);
  EXPECT_EQ(tracer.logged[0].values, std::vector<float>({2, 4}));  // x + x
  EXPECT_EQ(tracer.logged[1].instruction, 1);
  EXPECT_EQ(tracer.logged[1].values, std::vector<float>({2, 8}));  // y * x
  EXPECT_EQ(tracer.logged[2].type, LoggedEValueType::ProgramOutput);
  EXPECT_EQ(tracer.logged[2].values, std::vector<float>({3, 9}));
  // The delegate logged its input under its own id, attributed to instruction 2.
  ASSERT_EQ(tracer.delegate_logged.size(), 1u);
  EXPECT_EQ(tracer.delegate_logged[0].first, 7);
  EXPECT_EQ(tracer.delegate_logged[0].second.instruction, 2);
  EXPECT_EQ(tracer.delegate_logged[0].second.values, std::vector<float>({2, 8}));
}

TEST_F(EventTracerTest, AllocatorReportsAllocationsWhileProfiled) {
  std::vector<uint8_t> pool(256);
  MemoryAllocator allocator(pool.data(), pool.size());
  RecordingTracer tracer;
  ASSERT_NE(allocator.allocate(8), nullptr);  // not profiled yet
  allocator.enable_profiling(&tracer, "method_allocator");
  EXPECT_EQ(allocator.profiling_tracer(), &tracer);
  ASSERT_NE(allocator.allocate(24, 16), nullptr);
  ASSERT_NE(allocator.allocate(3, 1), nullptr);
  EXPECT_EQ(allocator.allocate(1000), nullptr);  // failures are not allocations
  allocator.enable_profiling(nullptr, nullptr);
  ASSERT_NE(allocator.allocate(8), nullptr);
  EXPECT_EQ(tracer.allocators, std::vector<std::string>({"method_allocator"}));
  EXPECT_EQ(tracer.allocations, (std::vector<std::pair<AllocatorID, size_t>>({{10, 24}, {10, 3}})));
}

TEST_F(EventTracerTest, MethodLoadThroughAProfiledAllocatorIsTracked) {
  RecordingTracer tracer;
  memory_->manager()->method_allocator->enable_profiling(&tracer, "method_allocator");
  ASSERT_TRUE(run(nullptr).ok());
  memory_->manager()->method_allocator->enable_profiling(nullptr, nullptr);
  ASSERT_FALSE(tracer.allocations.empty());
  size_t total = 0;
  for (const auto& a : tracer.allocations) total += a.second;
  EXPECT_LE(total, memory_->manager()->method_allocator->used());
  EXPECT_TRUE(tracer.events.empty()) << "the method itself has no tracer";
}

}  // namespace
}  // namespace ptec::runtime
