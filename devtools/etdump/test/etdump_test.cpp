// ETDump: serialize -> parse round trips, the upstream fixture, malformed files (truncated and
// corrupted bytes never crash), and ETDumpGen's recording of each kind of event.

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "devtools/etdump/etdump.h"
#include "devtools/etdump/etdump_gen.h"
#include "ir/exception.h"
#include "runtime/core/evalue.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::devtools {
namespace {

namespace fs = std::filesystem;
using runtime::EValue;
using runtime::EventTracerDebugLogLevel;
using runtime::LoggedEValueType;
using runtime::OwnedTensor;

fs::path fixture(const std::string& name) {
  return fs::path(PTEC_SOURCE_DIR) / ".." / "shared" / "fixtures" / "executorch" / name;
}

#define SKIP_WITHOUT_FIXTURE(path)                                                         \
  do {                                                                                     \
    if (!fs::exists(path)) {                                                               \
      GTEST_SKIP() << "fixture " << (path) << " not found (the shared/ folder beside the " \
                   << "repository holds the upstream fixtures)";                           \
    }                                                                                      \
  } while (0)

std::string parse_error(const std::vector<uint8_t>& bytes) {
  try {
    (void)ETDump::parse(bytes, "test.etdp");
  } catch (const Exception& e) {
    return e.what();
  }
  return "";
}

ETDumpTensor tensor(DType dtype, std::vector<int64_t> sizes, int64_t offset) {
  ETDumpTensor t;
  t.dtype = dtype;
  t.sizes = std::move(sizes);
  t.strides.assign(t.sizes.size(), 1);
  t.offset = offset;
  return t;
}

// Every kind of event and value.
ETDump sample_dump() {
  ETDump dump;
  RunData load;
  load.name = "Default";
  load.method_name = "forward";
  load.allocators = {"method_allocator", "temp_allocator"};
  ProfileEvent init;
  init.name = "Method::init";
  init.chain_index = -1;
  init.start_time = 10;
  init.end_time = 20;
  load.events.push_back({init});
  load.events.push_back({AllocationEvent{1, 4096}});
  dump.run_data.push_back(load);

  RunData run;
  run.name = "Execute";
  run.method_name = "forward";
  run.bundled_input_index = 3;
  run.allocators = load.allocators;
  ProfileEvent op;
  op.name = "native_call_add.out";
  op.chain_index = 0;
  op.instruction_id = 4;
  op.start_time = 100;
  op.end_time = 250;
  run.events.push_back({op});
  ProfileEvent delegate;
  delegate.chain_index = 0;
  delegate.instruction_id = 5;
  delegate.delegate_debug_id_int = 12;
  delegate.delegate_debug_metadata = {1, 2, 3};
  delegate.start_time = 300;
  delegate.end_time = 301;
  run.events.push_back({delegate});
  ProfileEvent named;
  named.name = "conv";
  named.delegate_debug_id_str = "conv";
  run.events.push_back({named});
  DebugEvent d;
  d.chain_index = 0;
  d.instruction_id = 4;
  d.debug_entry.kind = ETDumpValue::Kind::Tensor;
  d.debug_entry.tensor = tensor(DType::Float, {2, 3}, 64);
  run.events.push_back({d});
  DebugEvent list = d;
  list.debug_entry.kind = ETDumpValue::Kind::TensorList;
  list.debug_entry.tensors = {tensor(DType::Long, {1}, 0), tensor(DType::Half, {4, 0}, -1)};
  list.debug_entry.tensor = {};
  list.delegate_debug_id_int = 2;
  list.name = "x";
  run.events.push_back({list});
  for (auto kind : {ETDumpValue::Kind::Null, ETDumpValue::Kind::Int, ETDumpValue::Kind::Bool,
                    ETDumpValue::Kind::Double}) {
    DebugEvent scalar;
    scalar.debug_entry.kind = kind;
    scalar.debug_entry.int_value = kind == ETDumpValue::Kind::Int ? -7 : 0;
    scalar.debug_entry.bool_value = kind == ETDumpValue::Kind::Bool;
    scalar.debug_entry.double_value = kind == ETDumpValue::Kind::Double ? 2.5 : 0;
    scalar.debug_entry.output = true;
    run.events.push_back({scalar});
  }
  dump.run_data.push_back(run);
  return dump;
}

TEST(ETDumpTest, SerializeThenParseGivesTheSameDump) {
  const ETDump dump = sample_dump();
  const std::vector<uint8_t> bytes = dump.serialize();
  // Size-prefixed: u32 size, root offset, then the identifier.
  ASSERT_GE(bytes.size(), 12u);
  uint32_t prefix = 0;
  std::memcpy(&prefix, bytes.data(), 4);
  EXPECT_EQ(prefix, bytes.size() - 4);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data()) + 8, 4), "ED00");
  const ETDump back = ETDump::parse(bytes);
  EXPECT_EQ(back, dump);
  ASSERT_EQ(back.run_data.size(), 2u);
  EXPECT_EQ(back.run_data[1].bundled_input_index, 3);
  const ProfileEvent* delegate = back.run_data[1].events[1].profile();
  ASSERT_NE(delegate, nullptr);
  EXPECT_TRUE(delegate->is_delegate_event());
  EXPECT_EQ(delegate->delegate_debug_metadata, std::vector<uint8_t>({1, 2, 3}));
  EXPECT_FALSE(back.run_data[1].events[0].profile()->is_delegate_event());
}

TEST(ETDumpTest, FloatValuesAndStringsInValues) {
  ETDump dump;
  RunData run;
  DebugEvent d;
  d.debug_entry.kind = ETDumpValue::Kind::Float;
  d.debug_entry.double_value = 0.5;
  run.events.push_back({d});
  dump.run_data.push_back(run);
  EXPECT_EQ(ETDump::parse(dump.serialize()), dump);
  dump.run_data[0].events[0] = {DebugEvent{}};
  std::get<DebugEvent>(dump.run_data[0].events[0].event).debug_entry.kind =
      ETDumpValue::Kind::String;
  try {
    (void)dump.serialize();
    FAIL() << "a string value has no place in the layout";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("cannot hold strings"), std::string::npos);
  }
}

TEST(ETDumpTest, ReadsTheUpstreamFixture) {
  const fs::path path = fixture("etdump.etdp");
  SKIP_WITHOUT_FIXTURE(path);
  const ETDump dump = ETDump::load(path.string());
  EXPECT_EQ(dump.version, 0u);
  ASSERT_EQ(dump.run_data.size(), 2u);
  const RunData& load = dump.run_data[0];
  EXPECT_EQ(load.name, "Default");
  EXPECT_EQ(load.method_name, "");  // the upstream layout has no method name
  ASSERT_EQ(load.events.size(), 2u);
  ASSERT_NE(load.events[0].profile(), nullptr);
  EXPECT_EQ(load.events[0].profile()->name, "Method::init");
  EXPECT_EQ(load.events[0].profile()->chain_index, -1);
  EXPECT_EQ(load.events[1].profile()->name, "Program::load_method");

  const RunData& run = dump.run_data[1];
  EXPECT_EQ(run.name, "Execute");
  EXPECT_EQ(run.bundled_input_index, -1);
  ASSERT_EQ(run.events.size(), 29u);  // 14 instructions x 2 + Method::execute
  const ProfileEvent* first = run.events[0].profile();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->name, "native_call_convolution.out");
  EXPECT_EQ(first->instruction_id, 0);
  EXPECT_EQ(first->chain_index, 0);
  EXPECT_EQ(first->start_time, 426786u);
  EXPECT_EQ(first->end_time, 971569u);
  for (size_t i = 0; i + 1 < run.events.size(); i += 2) {
    const ProfileEvent* call = run.events[i].profile();
    const ProfileEvent* op = run.events[i + 1].profile();
    ASSERT_NE(call, nullptr);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(call->name.rfind("native_call_", 0), 0u) << call->name;
    EXPECT_EQ(op->name, "OPERATOR_CALL");
    EXPECT_EQ(call->instruction_id, static_cast<int32_t>(i / 2));
    EXPECT_EQ(op->instruction_id, call->instruction_id);
    EXPECT_LE(op->start_time, call->start_time);
    EXPECT_GE(op->end_time, call->end_time);
  }
  EXPECT_EQ(run.events.back().profile()->name, "Method::execute");
  EXPECT_EQ(run.events[27].profile()->name, "OPERATOR_CALL");
  EXPECT_EQ(run.events[26].profile()->name, "native_call_addmm.out");

  // ptec writes what it reads: the fixture survives a round trip through the model.
  EXPECT_EQ(ETDump::parse(dump.serialize()), dump);
}

TEST(ETDumpTest, NotAnETDump) {
  EXPECT_NE(parse_error({1, 2, 3}).find("too short"), std::string::npos);
  std::vector<uint8_t> pte(64, 0);
  std::memcpy(pte.data() + 4, "ET12", 4);
  EXPECT_NE(parse_error(pte).find("not an etdump (identifier \"ED00\" missing)"), std::string::npos)
      << parse_error(pte);
  try {
    (void)ETDump::load("/nonexistent/dir/x.etdp");
    FAIL();
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x.etdp"), std::string::npos);
  }
}

// Every truncation and many corruptions of a valid file either parse or throw a clear error;
// none may crash (the sanitizer build checks that nothing is read out of bounds).
void fuzz_bytes(const std::vector<uint8_t>& valid) {
  for (size_t n = 0; n < valid.size(); ++n) {
    std::vector<uint8_t> cut(valid.begin(), valid.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(parse_error(cut).empty()) << "truncated to " << n << " bytes was accepted";
  }
  size_t rejected = 0;
  for (size_t i = 0; i < valid.size(); ++i) {
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
      std::vector<uint8_t> bad = valid;
      bad[i] ^= flip;
      const std::string error = parse_error(bad);
      if (!error.empty()) {
        ++rejected;
        EXPECT_NE(error.find("test.etdp"), std::string::npos) << error;
      }
    }
  }
  EXPECT_GT(rejected, 0u);
  // A size prefix that claims more than the file holds.
  std::vector<uint8_t> grown = valid;
  grown[0] = static_cast<uint8_t>(grown[0] + 1);
  EXPECT_NE(parse_error(grown).find("size prefix"), std::string::npos);
}

TEST(ETDumpTest, TruncatedAndCorruptedFilesNeverCrash) { fuzz_bytes(sample_dump().serialize()); }

TEST(ETDumpTest, TruncatedAndCorruptedFixtureNeverCrashes) {
  const fs::path path = fixture("etdump.etdp");
  SKIP_WITHOUT_FIXTURE(path);
  fuzz_bytes(read_binary_file(path.string()));
}

TEST(ETDumpTest, TensorDataIsBoundsChecked) {
  const std::vector<uint8_t> buffer(128, 7);
  const ETDumpTensor t = tensor(DType::Float, {2, 3}, 64);
  EXPECT_EQ(tensor_data(t, buffer).size(), 24u);
  EXPECT_EQ(tensor_data(t, buffer).data(), buffer.data() + 64);
  EXPECT_THROW((void)tensor_data(tensor(DType::Float, {2, 3}, 120), buffer), Exception);
  EXPECT_THROW((void)tensor_data(tensor(DType::Float, {2, 3}, -1), buffer), Exception);
  // Sizes that overflow size_t cannot wrap around into the buffer.
  EXPECT_THROW((void)tensor_data(tensor(DType::Double, {1LL << 40, 1LL << 40}, 0), buffer),
               Exception);
}

// ---- ETDumpGen ----

uint64_t g_ticks = 0;
uint64_t fake_clock() { return ++g_ticks; }

TEST(ETDumpGenTest, ProfileEventsCopyNamesAndNest) {
  g_ticks = 0;
  ETDumpGen gen(&fake_clock);
  gen.create_event_block("Execute", "forward");
  std::string name = "OPERATOR_CALL";
  auto outer = gen.start_profiling(name.c_str(), 0, 3);
  name = "native_call_add.out";
  auto inner = gen.start_profiling(name.c_str(), 0, 3);
  name = "overwritten";  // the tracer copied both names
  gen.end_profiling(inner);
  gen.end_profiling(outer);
  const ETDump& dump = gen.etdump();
  ASSERT_EQ(dump.run_data.size(), 1u);
  EXPECT_EQ(dump.run_data[0].name, "Execute");
  EXPECT_EQ(dump.run_data[0].method_name, "forward");
  ASSERT_EQ(dump.run_data[0].events.size(), 2u);
  const ProfileEvent* first = dump.run_data[0].events[0].profile();
  const ProfileEvent* second = dump.run_data[0].events[1].profile();
  EXPECT_EQ(first->name, "native_call_add.out");  // recorded when it ends, like upstream
  EXPECT_EQ(first->instruction_id, 3);
  EXPECT_EQ(first->start_time, 2u);
  EXPECT_EQ(first->end_time, 3u);
  EXPECT_EQ(second->name, "OPERATOR_CALL");
  EXPECT_EQ(second->start_time, 1u);
  EXPECT_EQ(second->end_time, 4u);
  EXPECT_EQ(ETDump::parse(gen.get_etdump_data()), dump);
}

TEST(ETDumpGenTest, DelegateEventsCarryTheirIdsAndTheCurrentInstruction) {
  ETDumpGen gen(&fake_clock);
  gen.create_event_block("Execute");
  gen.set_current_instruction(0, 5);
  auto by_int = gen.start_profiling_delegate(nullptr, 42);
  gen.end_profiling_delegate(by_int, "abc", 3);
  auto by_name = gen.start_profiling_delegate("fused_conv", runtime::kUnsetDelegateDebugId);
  gen.end_profiling_delegate(by_name);
  gen.log_profiling_delegate(nullptr, 9, 1000, 1500);
  gen.set_current_instruction(runtime::kUnsetChainId, runtime::kUnsetInstructionId);
  const auto& events = gen.etdump().run_data[0].events;
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].profile()->delegate_debug_id_int, 42);
  EXPECT_EQ(events[0].profile()->delegate_debug_id_str, "");
  EXPECT_EQ(events[0].profile()->instruction_id, 5);
  EXPECT_EQ(events[0].profile()->delegate_debug_metadata, std::vector<uint8_t>({'a', 'b', 'c'}));
  EXPECT_EQ(events[1].profile()->delegate_debug_id_int, -1);
  EXPECT_EQ(events[1].profile()->delegate_debug_id_str, "fused_conv");
  EXPECT_EQ(events[1].profile()->name, "fused_conv");
  EXPECT_EQ(events[2].profile()->delegate_debug_id_int, 9);
  EXPECT_EQ(events[2].profile()->start_time, 1000u);
  EXPECT_EQ(events[2].profile()->end_time, 1500u);
  EXPECT_EQ(events[2].profile()->instruction_id, 5);
}

TEST(ETDumpGenTest, AllocatorsAndAllocations) {
  ETDumpGen gen;
  const auto a = gen.track_allocator("method_allocator");  // before any block
  gen.track_allocation(a, 128);
  gen.create_event_block("Execute");
  const auto b = gen.track_allocator("temp_allocator");
  gen.track_allocation(b, 16);
  const ETDump& dump = gen.etdump();
  ASSERT_EQ(dump.run_data.size(), 2u);
  EXPECT_EQ(dump.run_data[0].name, "Default");  // opened implicitly
  EXPECT_EQ(dump.run_data[0].allocators, std::vector<std::string>({"method_allocator"}));
  EXPECT_EQ(dump.run_data[1].allocators,
            std::vector<std::string>({"method_allocator", "temp_allocator"}));
  ASSERT_NE(dump.run_data[1].events[0].allocation(), nullptr);
  EXPECT_EQ(*dump.run_data[1].events[0].allocation(), (AllocationEvent{1, 16}));
  EXPECT_EQ(*dump.run_data[0].events[0].allocation(), (AllocationEvent{0, 128}));
}

TEST(ETDumpGenTest, DebugLevelsDecideWhatIsLogged) {
  OwnedTensor t = OwnedTensor::from<float>(DType::Float, {2}, {1.5f, -2.0f});
  ETDumpGen gen;
  gen.create_event_block("Execute");
  // Default: nothing.
  EXPECT_EQ(gen.log_evalue(t.evalue(), LoggedEValueType::IntermediateOutput, 0, 1), Error::Ok);
  EXPECT_EQ(gen.log_evalue(t.evalue(), LoggedEValueType::ProgramOutput), Error::Ok);
  EXPECT_TRUE(gen.etdump().run_data[0].events.empty());
  gen.set_event_tracer_debug_level(EventTracerDebugLogLevel::ProgramOutputs);
  EXPECT_EQ(gen.log_evalue(t.evalue(), LoggedEValueType::IntermediateOutput, 0, 1), Error::Ok);
  EXPECT_EQ(gen.log_intermediate_output_delegate(nullptr, 3, t.tensor()), Error::Ok);
  EXPECT_TRUE(gen.etdump().run_data[0].events.empty());
  EXPECT_EQ(gen.log_evalue(t.evalue(), LoggedEValueType::ProgramOutput), Error::Ok);
  ASSERT_EQ(gen.etdump().run_data[0].events.size(), 1u);
  EXPECT_TRUE(gen.etdump().run_data[0].events[0].debug()->debug_entry.output);
  gen.set_event_tracer_debug_level(EventTracerDebugLogLevel::IntermediateOutputs);
  EXPECT_EQ(gen.log_evalue(t.evalue(), LoggedEValueType::IntermediateOutput, 0, 1), Error::Ok);
  EXPECT_EQ(gen.etdump().run_data[0].events.size(), 2u);
}

TEST(ETDumpGenTest, TensorsGoToTheAlignedDebugBuffer) {
  ETDumpGen gen;
  gen.set_event_tracer_debug_level(EventTracerDebugLogLevel::IntermediateOutputs);
  gen.create_event_block("Execute");
  OwnedTensor a = OwnedTensor::from<float>(DType::Float, {3}, {1, 2, 3});
  OwnedTensor b = OwnedTensor::from<int64_t>(DType::Long, {2, 1}, {7, -8});
  ASSERT_EQ(gen.log_evalue(a.evalue(), LoggedEValueType::IntermediateOutput, 0, 0), Error::Ok);
  ASSERT_EQ(gen.log_evalue(EValue(int64_t{5}), LoggedEValueType::IntermediateOutput, 0, 1),
            Error::Ok);
  gen.set_current_instruction(0, 2);
  runtime::Tensor list[] = {a.tensor(), b.tensor()};
  ASSERT_EQ(gen.log_intermediate_output_delegate("blk", -1, Span<const runtime::Tensor>(list, 2)),
            Error::Ok);
  gen.set_current_instruction(-1, -1);

  const ETDump dump = ETDump::parse(gen.get_etdump_data());
  const auto& events = dump.run_data[0].events;
  ASSERT_EQ(events.size(), 3u);
  const DebugEvent* first = events[0].debug();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->instruction_id, 0);
  EXPECT_EQ(first->debug_entry.kind, ETDumpValue::Kind::Tensor);
  EXPECT_EQ(first->debug_entry.tensor.sizes, std::vector<int64_t>({3}));
  EXPECT_EQ(first->debug_entry.tensor.strides, std::vector<int64_t>({1}));
  EXPECT_EQ(first->debug_entry.tensor.offset, 0);
  EXPECT_EQ(events[1].debug()->debug_entry.kind, ETDumpValue::Kind::Int);
  EXPECT_EQ(events[1].debug()->debug_entry.int_value, 5);
  const DebugEvent* third = events[2].debug();
  EXPECT_EQ(third->instruction_id, 2);
  EXPECT_EQ(third->delegate_debug_id_str, "blk");
  ASSERT_EQ(third->debug_entry.kind, ETDumpValue::Kind::TensorList);
  ASSERT_EQ(third->debug_entry.tensors.size(), 2u);
  EXPECT_EQ(third->debug_entry.tensors[0].offset, 64);
  EXPECT_EQ(third->debug_entry.tensors[1].offset, 128);
  EXPECT_EQ(third->debug_entry.tensors[1].dtype, DType::Long);

  const auto buffer = gen.debug_buffer();
  const auto f = tensor_data(first->debug_entry.tensor, buffer);
  std::vector<float> floats(3);
  std::memcpy(floats.data(), f.data(), f.size());
  EXPECT_EQ(floats, std::vector<float>({1, 2, 3}));
  const auto l = tensor_data(third->debug_entry.tensors[1], buffer);
  std::vector<int64_t> longs(2);
  std::memcpy(longs.data(), l.data(), l.size());
  EXPECT_EQ(longs, std::vector<int64_t>({7, -8}));
}

TEST(ETDumpGenTest, TensorListAndScalarValues) {
  ETDumpGen gen;
  gen.set_event_tracer_debug_level(EventTracerDebugLogLevel::IntermediateOutputs);
  OwnedTensor a = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
  OwnedTensor b = OwnedTensor::from<int32_t>(DType::Int, {3}, {4, 5, 6});
  EValue items[] = {a.evalue(), b.evalue()};
  EValue* wrapped[] = {&items[0], &items[1]};
  runtime::Tensor unboxed[2];
  const EValue list(runtime::BoxedEvalueList<runtime::Tensor>(wrapped, unboxed, 2));
  const auto kind = LoggedEValueType::IntermediateOutput;
  ASSERT_EQ(gen.log_evalue(list, kind, 0, 7), Error::Ok);
  ASSERT_EQ(gen.log_evalue(EValue(2.25), kind, 0, 8), Error::Ok);
  ASSERT_EQ(gen.log_evalue(EValue(true), kind, 0, 9), Error::Ok);
  ASSERT_EQ(gen.log_evalue(EValue(), kind, 0, 10), Error::Ok);  // None: nothing to store
  const ETDump dump = ETDump::parse(gen.get_etdump_data());
  const auto& events = dump.run_data.at(0).events;
  ASSERT_EQ(events.size(), 3u);
  const ETDumpValue& v = events[0].debug()->debug_entry;
  ASSERT_EQ(v.kind, ETDumpValue::Kind::TensorList);
  ASSERT_EQ(v.tensors.size(), 2u);
  EXPECT_EQ(v.tensors[1].dtype, DType::Int);
  const auto bytes = tensor_data(v.tensors[1], gen.debug_buffer());
  std::vector<int32_t> ints(3);
  std::memcpy(ints.data(), bytes.data(), bytes.size());
  EXPECT_EQ(ints, std::vector<int32_t>({4, 5, 6}));
  EXPECT_EQ(events[1].debug()->debug_entry.kind, ETDumpValue::Kind::Double);
  EXPECT_EQ(events[1].debug()->debug_entry.double_value, 2.25);
  EXPECT_EQ(events[2].debug()->debug_entry.kind, ETDumpValue::Kind::Bool);
  EXPECT_TRUE(events[2].debug()->debug_entry.bool_value);
  EXPECT_EQ(events[2].debug()->instruction_id, 9);
}

TEST(ETDumpGenTest, DebugBufferLimitDropsTensorsAndSaysSo) {
  ETDumpGen gen;
  gen.set_event_tracer_debug_level(EventTracerDebugLogLevel::IntermediateOutputs);
  gen.set_debug_buffer_limit(16);
  OwnedTensor small = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
  OwnedTensor big = OwnedTensor::full(DType::Float, {8}, 1.0);
  EXPECT_EQ(gen.log_evalue(small.evalue(), LoggedEValueType::IntermediateOutput, 0, 0), Error::Ok);
  EXPECT_EQ(gen.log_evalue(big.evalue(), LoggedEValueType::IntermediateOutput, 0, 1),
            Error::OutOfResources);
  EXPECT_EQ(gen.num_dropped_tensors(), 1u);
  const auto& events = gen.etdump().run_data[0].events;
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].debug()->debug_entry.tensor.offset, 0);
  EXPECT_EQ(events[1].debug()->debug_entry.tensor.offset, -1);  // recorded without data
  EXPECT_EQ(gen.debug_buffer().size(), 8u);
  gen.clear();
  EXPECT_TRUE(gen.etdump().run_data.empty());
  EXPECT_TRUE(gen.debug_buffer().empty());
}

}  // namespace
}  // namespace ptec::devtools
