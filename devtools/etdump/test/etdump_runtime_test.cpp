// ETDumpGen attached to ptec's runtime: programs built with the GraphBuilder and exported with
// the export API (one all-portable, one with the nested-program test delegate) run under the
// tracer; the ETDump is serialized, parsed back and checked against the program's instruction
// list, and its intermediate outputs against the values the model computes.

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "devtools/etdump/etdump.h"
#include "devtools/etdump/etdump_gen.h"
#include "program/edge_program_manager.h"
#include "program/to_edge.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"
#include "schema/program_generated.h"
#include "tests/delegate/nested_backend.h"
#include "tests/delegate/test_models.h"

namespace ptec::devtools {
namespace {

using runtime::EventTracerDebugLogLevel;

const std::vector<float> kX = {1.0f, 2.0f, -3.0f, 0.5f, -1.0f, 2.0f};
const float kW[6] = {0.5f, -1.0f, 2.0f, 1.0f, -0.5f, 3.0f};

// The values two_mul_program computes: a = x * w, r = relu(a), c = r * r, d = c + x.
std::map<std::string, std::vector<float>> reference_values() {
  std::map<std::string, std::vector<float>> v;
  for (int i = 0; i < 6; ++i) {
    const float a = kX[i] * kW[i];
    const float r = a > 0 ? a : 0;
    v["a"].push_back(a);
    v["r"].push_back(r);
    v["c"].push_back(r * r);
    v["d"].push_back(r * r + kX[i]);
  }
  return v;
}

// One instruction of the program as the .pte lists it.
struct Instr {
  bool is_delegate = false;
  std::string op;  // "mul.out" etc. for kernels (namespace dropped)
};

std::vector<Instr> instructions_of(const std::vector<uint8_t>& pte) {
  const auto* program = executorch_flatbuffer::GetProgram(pte.data());
  const auto* plan = program->execution_plan()->Get(0);
  std::vector<Instr> out;
  for (const auto* instr : *plan->chains()->Get(0)->instructions()) {
    Instr i;
    if (const auto* call = instr->instr_args_as_KernelCall()) {
      const auto* op =
          plan->operators()->Get(static_cast<flatbuffers::uoffset_t>(call->op_index()));
      std::string name = op->name()->str();
      name = name.substr(name.rfind("::") + 2);
      i.op = name + "." + op->overload()->str();
    } else if (instr->instr_args_as_DelegateCall() != nullptr) {
      i.is_delegate = true;
    } else {
      continue;  // moves / frees are not reported
    }
    out.push_back(i);
  }
  return out;
}

std::vector<float> floats_at(const ETDumpTensor& t, std::span<const uint8_t> buffer) {
  EXPECT_EQ(t.dtype, DType::Float);
  const auto bytes = tensor_data(t, buffer);
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// Runs forward `iterations` times under an ETDumpGen and returns the parsed dump.
struct Recorded {
  ETDump dump;
  std::vector<uint8_t> debug_buffer;
  std::vector<float> output;
};

Recorded record(const std::vector<uint8_t>& pte, int iterations, EventTracerDebugLogLevel level) {
  std::unique_ptr<uint8_t[]> aligned(new (std::align_val_t(64)) uint8_t[pte.size()]);
  std::memcpy(aligned.get(), pte.data(), pte.size());
  Recorded r;
  {
    ETDumpGen gen;
    gen.set_event_tracer_debug_level(level);
    runtime::Module module(aligned.get(), pte.size(), &gen);
    auto input = runtime::OwnedTensor::from(DType::Float, {2, 3}, kX);
    for (int it = 0; it < iterations; ++it) {
      auto out = module.execute("forward", {input.evalue()});
      EXPECT_TRUE(out.ok());
      if (!out.ok()) break;
      const runtime::Tensor& t = (*out)[0].to_tensor();
      r.output.assign(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
    }
    r.dump = ETDump::parse(gen.get_etdump_data());
    r.debug_buffer.assign(gen.debug_buffer().begin(), gen.debug_buffer().end());
  }
  ::operator delete[](aligned.release(), std::align_val_t(64));
  return r;
}

class ETDumpRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override { (void)test::register_nested_backend(); }
};

TEST_F(ETDumpRuntimeTest, KernelEventsPerInstructionAndBlocksPerRun) {
  const auto edge = program::to_edge(test::two_mul_program(), program::ToEdgeOptions{});
  const std::vector<uint8_t> pte = edge.to_executorch().buffer();
  const std::vector<Instr> instrs = instructions_of(pte);
  ASSERT_EQ(instrs.size(), 4u);
  const Recorded r = record(pte, 3, EventTracerDebugLogLevel::NoLogging);
  EXPECT_EQ(r.output, reference_values()["d"]);
  EXPECT_TRUE(r.debug_buffer.empty());

  ASSERT_EQ(r.dump.run_data.size(), 4u);  // one load block, one block per execute
  const RunData& load = r.dump.run_data[0];
  EXPECT_EQ(load.name, "Default");
  EXPECT_EQ(load.method_name, "forward");
  std::vector<std::string> load_events;
  bool allocations = false;
  for (const ETDumpEvent& e : load.events) {
    if (e.profile() != nullptr) load_events.push_back(e.profile()->name);
    if (e.allocation() != nullptr) {
      allocations = true;
      ASSERT_LT(static_cast<size_t>(e.allocation()->allocator_id), load.allocators.size());
      EXPECT_EQ(load.allocators[static_cast<size_t>(e.allocation()->allocator_id)],
                "method_allocator");
      EXPECT_GT(e.allocation()->allocation_size, 0u);
    }
  }
  EXPECT_TRUE(allocations) << "the method allocator's allocations are recorded";
  EXPECT_EQ(load_events, std::vector<std::string>({"Method::init", "Program::load_method"}));

  for (size_t b = 1; b < r.dump.run_data.size(); ++b) {
    const RunData& run = r.dump.run_data[b];
    EXPECT_EQ(run.name, "Execute");
    EXPECT_EQ(run.method_name, "forward");
    std::vector<const ProfileEvent*> profile;
    for (const ETDumpEvent& e : run.events) {
      if (e.profile() != nullptr) profile.push_back(e.profile());
    }
    // Per instruction: native_call_<op> (ends first), then OPERATOR_CALL; then Method::execute.
    ASSERT_EQ(profile.size(), 2 * instrs.size() + 1);
    for (size_t i = 0; i < instrs.size(); ++i) {
      const ProfileEvent* call = profile[2 * i];
      const ProfileEvent* op = profile[2 * i + 1];
      EXPECT_EQ(call->name, "native_call_" + instrs[i].op);
      EXPECT_EQ(call->instruction_id, static_cast<int32_t>(i));
      EXPECT_EQ(call->chain_index, 0);
      EXPECT_EQ(op->name, "OPERATOR_CALL");
      EXPECT_EQ(op->instruction_id, static_cast<int32_t>(i));
      EXPECT_LE(op->start_time, call->start_time);
      EXPECT_LE(call->start_time, call->end_time);
      EXPECT_GE(op->end_time, call->end_time);
    }
    EXPECT_EQ(profile.back()->name, "Method::execute");
    EXPECT_EQ(profile.back()->chain_index, -1);
  }
}

TEST_F(ETDumpRuntimeTest, IntermediateOutputsEqualTheModelsValues) {
  const auto edge = program::to_edge(test::two_mul_program(), program::ToEdgeOptions{});
  const std::vector<uint8_t> pte = edge.to_executorch().buffer();
  const std::vector<Instr> instrs = instructions_of(pte);
  const Recorded r = record(pte, 1, EventTracerDebugLogLevel::IntermediateOutputs);
  ASSERT_EQ(r.dump.run_data.size(), 2u);
  auto ref = reference_values();
  // The kernels run in the graph's order: mul (a), relu (r), mul (c), add (d).
  const std::vector<std::string> order = {"a", "r", "c", "d"};
  std::vector<const DebugEvent*> debug;
  for (const ETDumpEvent& e : r.dump.run_data[1].events) {
    if (e.debug() != nullptr) debug.push_back(e.debug());
  }
  ASSERT_EQ(debug.size(), instrs.size() + 1);  // every kernel's output, then the program output
  for (size_t i = 0; i < instrs.size(); ++i) {
    EXPECT_EQ(debug[i]->instruction_id, static_cast<int32_t>(i));
    EXPECT_FALSE(debug[i]->debug_entry.output);
    ASSERT_EQ(debug[i]->debug_entry.kind, ETDumpValue::Kind::Tensor);
    EXPECT_EQ(debug[i]->debug_entry.tensor.sizes, std::vector<int64_t>({2, 3}));
    EXPECT_EQ(floats_at(debug[i]->debug_entry.tensor, r.debug_buffer), ref[order[i]])
        << "instruction " << i << " (" << instrs[i].op << ")";
  }
  EXPECT_TRUE(debug.back()->debug_entry.output);
  EXPECT_EQ(floats_at(debug.back()->debug_entry.tensor, r.debug_buffer), r.output);
}

TEST_F(ETDumpRuntimeTest, DelegateCallsAndTheDelegatesOwnEvents) {
  const auto edge = program::to_edge(test::two_mul_program(), program::ToEdgeOptions{});
  const auto lowered = edge.to_backend(program::PartitionerList{
      std::make_shared<test::OpSetPartitioner>(std::set<std::string>{"aten::mul.Tensor"})});
  const std::vector<uint8_t> pte = lowered.to_executorch().buffer();
  const std::vector<Instr> instrs = instructions_of(pte);
  const Recorded r = record(pte, 2, EventTracerDebugLogLevel::IntermediateOutputs);
  EXPECT_EQ(r.output, reference_values()["d"]);
  ASSERT_EQ(r.dump.run_data.size(), 3u);
  auto ref = reference_values();
  const RunData& run = r.dump.run_data[2];
  size_t delegate_calls = 0;
  std::vector<int32_t> delegate_instructions;
  for (const ETDumpEvent& e : run.events) {
    const ProfileEvent* p = e.profile();
    if (p == nullptr || p->instruction_id < 0) continue;
    const Instr& instr = instrs.at(static_cast<size_t>(p->instruction_id));
    if (p->name == "DELEGATE_CALL") {
      EXPECT_TRUE(instr.is_delegate);
      ++delegate_calls;
    } else if (p->is_delegate_event()) {
      EXPECT_TRUE(instr.is_delegate);
      EXPECT_EQ(p->delegate_debug_id_int, 0);
      delegate_instructions.push_back(p->instruction_id);
    } else {
      EXPECT_FALSE(instr.is_delegate) << p->name;
    }
  }
  EXPECT_EQ(delegate_calls, 2u);
  ASSERT_EQ(delegate_instructions.size(), 2u);
  EXPECT_NE(delegate_instructions[0], delegate_instructions[1]);
  // The delegates' outputs (a = x * w and c = r * r) were logged under their debug id.
  std::vector<std::vector<float>> delegate_outputs;
  for (const ETDumpEvent& e : run.events) {
    const DebugEvent* d = e.debug();
    if (d == nullptr || d->delegate_debug_id_int != 0) continue;
    EXPECT_TRUE(instrs.at(static_cast<size_t>(d->instruction_id)).is_delegate);
    delegate_outputs.push_back(floats_at(d->debug_entry.tensor, r.debug_buffer));
  }
  EXPECT_EQ(delegate_outputs, std::vector<std::vector<float>>({ref["a"], ref["c"]}));
}

}  // namespace
}  // namespace ptec::devtools
