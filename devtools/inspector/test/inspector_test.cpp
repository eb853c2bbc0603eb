// The Inspector on a synthetic ETDump joined with an ETRecord built in memory: events joined
// across run blocks with their statistics, op types and source (ONNX) node names through
// debug_handle_map for kernels and delegate_map for delegate nodes, the delegate's backend,
// every method, totals per op type, the mapped fraction, JSON / TSV output and errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

#include "devtools/inspector/inspector.h"
#include "ir/exception.h"
#include "tests/delegate/test_models.h"

namespace ptec::devtools {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// two_mul_program with ONNX-style source names on its calls; `handles` gets name → handle.
ProgramPtr program_with_sources(std::map<std::string, int64_t>& handles) {
  ir::ExportedProgram p = test::two_mul_program();
  for (ir::Node* node : p.graph().nodes()) {
    if (node->is_call()) node->meta().source = "/" + node->name() + "/Op";
    handles[node->name()] = node->debug_handle();
  }
  return snapshot(p);
}

// forward: instruction 0 = kernel mul (a), 1 = delegate "TestBackend" over r and c (its nodes 0
// and 1), 2 = kernel add (d). second: instruction 0 = kernel add (d).
ETRecord make_record() {
  std::map<std::string, int64_t> h;
  ETRecord record;
  record.set_edge_program("forward", program_with_sources(h));
  record.set_edge_program("second", program_with_sources(h));
  std::map<std::string, MethodDebugHandleMap> dhm = {
      {"forward", {{0, {h["a"]}}, {1, {h["r"], h["c"]}}, {2, {h["d"]}}}},
      {"second", {{0, {h["d"]}}}}};
  std::map<std::string, MethodDelegateMap> dm = {
      {"forward", {{1, DelegateCallInfo{"TestBackend", {{0, {h["r"]}}, {1, {h["c"]}}}}}}},
      {"second", {}}};
  std::map<std::string, MethodNumOutsMap> outs = {{"forward", {{1, 1}}}, {"second", {}}};
  record.set_executorch_maps(dhm, dm, outs);
  return record;
}

ETDumpEvent profile(const std::string& name, int32_t instruction, uint64_t duration_ns,
                    int32_t delegate_id = -1) {
  ProfileEvent ev;
  ev.name = name;
  ev.instruction_id = instruction;
  ev.delegate_debug_id_int = delegate_id;
  ev.start_time = 1000;
  ev.end_time = 1000 + duration_ns;
  return ETDumpEvent{ev};
}

constexpr uint64_t kMs = 1000000;

// One "Default" block and `runs` "Execute" blocks of forward (run r: the mul kernel takes r+1
// ms, delegate node 1 takes 10*(r+1) ms), then one "Execute" block of second.
ETDump make_dump(int runs, int32_t extra_instruction = -1) {
  ETDump dump;
  RunData load;
  load.name = "Default";
  load.method_name = "forward";
  load.events.push_back(profile("Method::init", -1, 5 * kMs));
  dump.run_data.push_back(load);
  for (int r = 0; r < runs; ++r) {
    RunData run;
    run.name = "Execute";
    run.method_name = "forward";
    const uint64_t k = static_cast<uint64_t>(r + 1);
    run.events.push_back(profile("Method::execute", -1, 100 * kMs));
    run.events.push_back(profile("OPERATOR_CALL", 0, k * kMs));
    run.events.push_back(profile("native_call_mul.Tensor", 0, k * kMs));
    run.events.push_back(profile("DELEGATE_CALL", 1, 30 * k * kMs));
    run.events.push_back(profile("", 1, 2 * kMs, 0));
    run.events.push_back(profile("", 1, 10 * k * kMs, 1));
    run.events.push_back(profile("OPERATOR_CALL", 2, 3 * kMs));
    run.events.push_back(profile("native_call_add.Tensor", 2, 3 * kMs));
    if (extra_instruction >= 0)
      run.events.push_back(profile("native_call_mystery.out", extra_instruction, kMs));
    dump.run_data.push_back(run);
  }
  RunData second;
  second.name = "Execute";
  second.method_name = "second";
  second.events.push_back(profile("native_call_add.Tensor", 0, 7 * kMs));
  dump.run_data.push_back(second);
  return dump;
}

const InspectorEvent& find_event(const EventBlock& block, const std::string& name,
                                 int32_t delegate_id = -1) {
  for (const InspectorEvent& ev : block.events)
    if (ev.name == name && ev.delegate_debug_id == delegate_id) return ev;
  throw std::runtime_error("no event " + name);
}

TEST(InspectorStats, PercentilesInterpolateLinearly) {
  const PerfStats s = compute_stats({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.p10, 1.4);
  EXPECT_DOUBLE_EQ(s.p50, 3.0);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(s.avg, 3.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 5.0);
  EXPECT_EQ(compute_stats({}), PerfStats{});
  EXPECT_DOUBLE_EQ(compute_stats({7}).p90, 7.0);
}

TEST(Inspector, JoinsRunBlocksPerMethodWithSamplesAndStats) {
  const Inspector inspector(make_record(), make_dump(5));
  const auto& blocks = inspector.event_blocks();
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].method, "forward");
  EXPECT_EQ(blocks[0].name, "Default");
  EXPECT_EQ(blocks[0].runs, 1u);
  EXPECT_EQ(blocks[1].method, "forward");
  EXPECT_EQ(blocks[1].name, "Execute");
  EXPECT_EQ(blocks[1].runs, 5u);
  EXPECT_EQ(blocks[2].method, "second");
  EXPECT_EQ(blocks[2].runs, 1u);
  EXPECT_THAT(inspector.methods(), ElementsAre("forward", "second"));

  // OPERATOR_CALL duplicates the kernel's own event: not listed.
  for (const InspectorEvent& ev : blocks[1].events) EXPECT_NE(ev.name, "OPERATOR_CALL");
  ASSERT_EQ(blocks[1].events.size(), 6u);

  const InspectorEvent& mul = find_event(blocks[1], "native_call_mul.Tensor");
  EXPECT_EQ(mul.kind, EventKind::Kernel);
  EXPECT_THAT(mul.samples, ElementsAre(1, 2, 3, 4, 5));
  EXPECT_DOUBLE_EQ(mul.stats.p10, 1.4);
  EXPECT_DOUBLE_EQ(mul.stats.p50, 3.0);
  EXPECT_DOUBLE_EQ(mul.stats.p90, 4.6);
  EXPECT_DOUBLE_EQ(mul.stats.avg, 3.0);
  EXPECT_DOUBLE_EQ(mul.stats.min, 1.0);
  EXPECT_DOUBLE_EQ(mul.stats.max, 5.0);
}

TEST(Inspector, MapsKernelAndDelegateEventsToOpTypesSourcesAndBackend) {
  const Inspector inspector(make_record(), make_dump(5));
  const EventBlock& fwd = inspector.event_blocks()[1];

  const InspectorEvent& mul = find_event(fwd, "native_call_mul.Tensor");
  EXPECT_THAT(mul.op_types, ElementsAre("aten::mul.Tensor"));
  EXPECT_THAT(mul.source_locations, ElementsAre("/a/Op"));
  EXPECT_EQ(mul.delegate_backend, "");

  const InspectorEvent& call = find_event(fwd, "DELEGATE_CALL");
  EXPECT_EQ(call.kind, EventKind::DelegateCall);
  EXPECT_EQ(call.delegate_backend, "TestBackend");
  EXPECT_THAT(call.op_types, ElementsAre("aten::relu", "aten::mul.Tensor"));
  EXPECT_THAT(call.source_locations, ElementsAre("/r/Op", "/c/Op"));

  const InspectorEvent& node0 = find_event(fwd, "", 0);
  EXPECT_EQ(node0.kind, EventKind::Delegate);
  EXPECT_EQ(node0.delegate_backend, "TestBackend");
  EXPECT_THAT(node0.op_types, ElementsAre("aten::relu"));
  EXPECT_THAT(node0.source_locations, ElementsAre("/r/Op"));
  const InspectorEvent& node1 = find_event(fwd, "", 1);
  EXPECT_THAT(node1.op_types, ElementsAre("aten::mul.Tensor"));
  EXPECT_THAT(node1.source_locations, ElementsAre("/c/Op"));
  EXPECT_THAT(node1.samples, ElementsAre(10, 20, 30, 40, 50));

  // Every method: second's kernel maps through second's own maps.
  const InspectorEvent& add2 = find_event(inspector.event_blocks()[2], "native_call_add.Tensor");
  EXPECT_THAT(add2.op_types, ElementsAre("aten::add.Tensor"));
  EXPECT_THAT(add2.source_locations, ElementsAre("/d/Op"));

  // Load events are not runtime events and map to nothing.
  const InspectorEvent& init = find_event(inspector.event_blocks()[0], "Method::init");
  EXPECT_EQ(init.kind, EventKind::Other);
  EXPECT_TRUE(init.op_types.empty());
}

TEST(Inspector, TotalsPerOperatorTypeCountLeafEventsOnce) {
  const Inspector inspector(make_record(), make_dump(5));
  std::map<std::string, OperatorTotal> fwd;
  for (const OperatorTotal& t : inspector.operator_totals())
    if (t.method == "forward") fwd[t.op_type] = t;
  ASSERT_EQ(fwd.size(), 3u);  // mul, relu, add: the DELEGATE_CALL is not counted again
  EXPECT_EQ(fwd["aten::mul.Tensor"].events, 2u);
  EXPECT_DOUBLE_EQ(fwd["aten::mul.Tensor"].avg_ms_per_run, 3.0 + 30.0);
  EXPECT_DOUBLE_EQ(fwd["aten::mul.Tensor"].total_ms, 15.0 + 150.0);
  EXPECT_DOUBLE_EQ(fwd["aten::relu"].avg_ms_per_run, 2.0);
  EXPECT_DOUBLE_EQ(fwd["aten::add.Tensor"].avg_ms_per_run, 3.0);
  // Largest first.
  EXPECT_EQ(inspector.operator_totals().front().op_type, "aten::mul.Tensor");
}

TEST(Inspector, CoverageCountsRuntimeEventsMappedToOpTypesAndSources) {
  const Inspector full(make_record(), make_dump(3));
  MappingCoverage c = full.coverage();
  EXPECT_EQ(c.runtime_events, 6u);  // forward: 2 kernels, the call, 2 nodes; second: 1 kernel
  EXPECT_EQ(c.with_op_type, 6u);
  EXPECT_EQ(c.with_source, 6u);
  EXPECT_DOUBLE_EQ(c.op_type_fraction(), 1.0);

  // An instruction the record does not know stays unmapped and lowers the fraction.
  const Inspector partial(make_record(), make_dump(3, /*extra_instruction=*/9));
  c = partial.coverage();
  EXPECT_EQ(c.runtime_events, 7u);
  EXPECT_EQ(c.with_op_type, 6u);
  EXPECT_EQ(c.with_source, 6u);
  EXPECT_NEAR(c.source_fraction(), 6.0 / 7.0, 1e-12);
  bool unmapped_total = false;
  for (const OperatorTotal& t : partial.operator_totals())
    unmapped_total |= t.op_type == "<unmapped>";
  EXPECT_TRUE(unmapped_total);
}

TEST(Inspector, JsonAndTsvCarryEveryEvent) {
  const Inspector inspector(make_record(), make_dump(5));
  const nlohmann::json j = inspector.to_json();
  EXPECT_EQ(j["methods"], nlohmann::json({"forward", "second"}));
  ASSERT_EQ(j["event_blocks"].size(), 3u);
  const nlohmann::json& fwd = j["event_blocks"][1];
  EXPECT_EQ(fwd["method"], "forward");
  EXPECT_EQ(fwd["runs"], 5);
  bool saw_node = false;
  for (const auto& e : fwd["events"]) {
    if (e.value("delegate_debug_id", -1) != 1) continue;
    saw_node = true;
    EXPECT_EQ(e["delegate_backend"], "TestBackend");
    EXPECT_EQ(e["op_types"], nlohmann::json({"aten::mul.Tensor"}));
    EXPECT_EQ(e["source_locations"], nlohmann::json({"/c/Op"}));
    EXPECT_EQ(e["raw_ms"], nlohmann::json({10.0, 20.0, 30.0, 40.0, 50.0}));
    EXPECT_DOUBLE_EQ(e["p50_ms"].get<double>(), 30.0);
  }
  EXPECT_TRUE(saw_node);
  EXPECT_EQ(j["coverage"]["runtime_events"], 6);
  EXPECT_DOUBLE_EQ(j["coverage"]["source_fraction"].get<double>(), 1.0);
  EXPECT_FALSE(j["operator_totals"].empty());

  const std::string tsv = inspector.to_tsv();
  size_t lines = 0;
  for (char ch : tsv) lines += ch == '\n';
  EXPECT_EQ(lines, 1u + 1u + 6u + 1u);  // header, Default, forward Execute, second Execute
  EXPECT_THAT(tsv, HasSubstr("method\tblock\tevent\tkind"));
  EXPECT_THAT(tsv, HasSubstr("forward\tExecute\tnative_call_mul.Tensor\tkernel\t0\t0\t\t\t"));
  EXPECT_THAT(tsv, HasSubstr("aten::mul.Tensor\t/c/Op\t5\t"));
  EXPECT_THAT(inspector.to_text(), HasSubstr("mapped: 6/6 runtime events"));
}

ETDumpEvent logged_tensor(int32_t instruction, int64_t offset, std::vector<int64_t> sizes,
                          int32_t delegate_id = -1) {
  DebugEvent dbg;
  dbg.instruction_id = instruction;
  dbg.delegate_debug_id_int = delegate_id;
  dbg.debug_entry.kind = ETDumpValue::Kind::Tensor;
  dbg.debug_entry.tensor.dtype = DType::Float;
  dbg.debug_entry.tensor.sizes = std::move(sizes);
  dbg.debug_entry.tensor.offset = offset;
  return ETDumpEvent{dbg};
}

TEST(Inspector, AttachesLoggedOutputsWithTheirStatistics) {
  // Buffer: run 0 logs {1, -3, NaN} at offset 0 for the mul kernel and {4} at 12 for delegate
  // node 1; run 1 logs the kernel again at 16 (ignored: the first run's output is kept).
  const float values[5] = {1.0f, -3.0f, std::nanf(""), 4.0f, 100.0f};
  std::vector<uint8_t> buffer(sizeof(values));
  std::memcpy(buffer.data(), values, sizeof(values));
  ETDump dump = make_dump(2);
  dump.run_data[1].events.push_back(logged_tensor(0, 0, {3}));
  dump.run_data[1].events.push_back(logged_tensor(1, 12, {1}, /*delegate_id=*/1));
  dump.run_data[2].events.push_back(logged_tensor(0, 16, {1}));
  const Inspector inspector(make_record(), dump, buffer);
  const EventBlock& fwd = inspector.event_blocks()[1];

  const InspectorEvent& mul = find_event(fwd, "native_call_mul.Tensor");
  ASSERT_EQ(mul.outputs.size(), 1u);
  EXPECT_TRUE(mul.outputs[0].has_stats);
  EXPECT_EQ(mul.outputs[0].tensor.sizes, std::vector<int64_t>{3});
  EXPECT_DOUBLE_EQ(mul.outputs[0].min, -3.0);
  EXPECT_DOUBLE_EQ(mul.outputs[0].max, 1.0);
  EXPECT_DOUBLE_EQ(mul.outputs[0].mean, -1.0);
  EXPECT_EQ(mul.outputs[0].non_finite, 1u);

  const InspectorEvent& node1 = find_event(fwd, "", 1);
  ASSERT_EQ(node1.outputs.size(), 1u);
  EXPECT_DOUBLE_EQ(node1.outputs[0].mean, 4.0);
  EXPECT_TRUE(find_event(fwd, "", 0).outputs.empty());
  EXPECT_TRUE(find_event(fwd, "native_call_add.Tensor").outputs.empty());

  const nlohmann::json j = inspector.to_json();
  bool saw = false;
  for (const auto& e : j["event_blocks"][1]["events"]) {
    if (e["name"] != "native_call_mul.Tensor") continue;
    saw = true;
    EXPECT_EQ(e["outputs"][0]["dtype"], "f32");
    EXPECT_DOUBLE_EQ(e["outputs"][0]["min"].get<double>(), -3.0);
  }
  EXPECT_TRUE(saw);

  // Without the buffer: the tensor's description, no statistics.
  const Inspector no_buffer(make_record(), dump);
  const InspectorEvent& mul2 = find_event(no_buffer.event_blocks()[1], "native_call_mul.Tensor");
  ASSERT_EQ(mul2.outputs.size(), 1u);
  EXPECT_FALSE(mul2.outputs[0].has_stats);
}

std::vector<uint8_t> float_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(float));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// A run logging mul's output (node a) at 0 and add's output (node d) at 8, two floats each.
Inspector logged_run(const std::vector<float>& a, const std::vector<float>& d) {
  ETDump dump = make_dump(1);
  dump.run_data[1].events.push_back(logged_tensor(0, 0, {2}));
  dump.run_data[1].events.push_back(logged_tensor(2, 8, {2}));
  std::vector<float> buffer = a;
  buffer.insert(buffer.end(), d.begin(), d.end());
  return Inspector(make_record(), dump, float_bytes(buffer));
}

TEST(InspectorNumericGap, PointsAtThePerturbedNodeFirst) {
  const Inspector reference = logged_run({1, 2}, {3, 4});
  const Inspector run = logged_run({1, 2.1f}, {3, 14});  // add's output is far off
  const std::vector<NumericGap> mse = numeric_gap(run, reference, GapMetric::MSE);
  ASSERT_EQ(mse.size(), 2u);
  EXPECT_EQ(mse[0].source, "/d/Op");
  EXPECT_EQ(mse[0].op, "aten::add.Tensor");
  EXPECT_EQ(mse[0].event, "native_call_add.Tensor");
  EXPECT_EQ(mse[0].numel, 2u);
  EXPECT_DOUBLE_EQ(mse[0].value, 50.0);
  EXPECT_EQ(mse[1].source, "/a/Op");
  EXPECT_NEAR(mse[1].value, 0.005, 1e-6);

  const std::vector<NumericGap> l1 = numeric_gap(run, reference, GapMetric::L1);
  EXPECT_EQ(l1[0].source, "/d/Op");
  EXPECT_DOUBLE_EQ(l1[0].value, 5.0);

  const std::vector<NumericGap> snr = numeric_gap(run, reference, GapMetric::SNR);
  EXPECT_EQ(snr[0].source, "/d/Op");  // the smallest SNR first
  EXPECT_NEAR(snr[0].value, 10 * std::log10(25.0 / 100.0), 1e-9);

  // Equal outputs: no gap, infinite SNR.
  const auto same = numeric_gap(reference, reference, GapMetric::SNR);
  ASSERT_EQ(same.size(), 2u);
  EXPECT_TRUE(std::isinf(same[0].value));
  EXPECT_DOUBLE_EQ(numeric_gap(reference, reference, GapMetric::MSE)[0].value, 0.0);
}

TEST(InspectorNumericGap, MetricNames) {
  EXPECT_EQ(parse_gap_metric("mse"), GapMetric::MSE);
  EXPECT_EQ(parse_gap_metric("l1"), GapMetric::L1);
  EXPECT_EQ(parse_gap_metric("snr"), GapMetric::SNR);
  try {
    parse_gap_metric("rmse");
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("'rmse' (mse, l1 or snr)"));
  }
}

TEST(Inspector, RefusesMethodsTheRecordDoesNotKnowAndRecordsWithoutMaps) {
  ETDump dump = make_dump(1);
  dump.run_data.back().method_name = "gamma";
  try {
    const Inspector inspector(make_record(), dump);
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("method 'gamma'"));
    EXPECT_THAT(e.what(), HasSubstr("forward, second"));
  }
  std::map<std::string, int64_t> h;
  ETRecord no_maps;
  no_maps.set_edge_program("forward", program_with_sources(h));
  try {
    const Inspector inspector(no_maps, make_dump(1));
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("no instruction maps"));
  }
}

TEST(Inspector, UnnamedRunBlocksBelongToTheOnlyMethod) {
  std::map<std::string, int64_t> h;
  ETRecord record;
  record.set_edge_program("main", program_with_sources(h));
  record.set_executorch_maps({{"main", {{0, {h["d"]}}}}}, {{"main", {}}}, {{"main", {}}});
  ETDump dump;
  RunData run;
  run.name = "Execute";
  run.events.push_back(profile("native_call_add.Tensor", 0, kMs));
  dump.run_data.push_back(run);
  const Inspector inspector(record, dump);
  ASSERT_EQ(inspector.event_blocks().size(), 1u);
  EXPECT_EQ(inspector.event_blocks()[0].method, "main");
  EXPECT_THAT(inspector.event_blocks()[0].events[0].source_locations, ElementsAre("/d/Op"));
}

}  // namespace
}  // namespace ptec::devtools
