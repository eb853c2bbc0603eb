// `ptec export --etrecord` → `ptec run --etdump --iterations 5` → `ptec inspect --json`: at
// least 95% of the runtime's events map to op types and ONNX node names, for the default
// (delegated) recipe on example_cnn, for a model with delegated and undelegated ops, and for a
// two-method program; --tsv writes one line per event; errors name the problem.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "devtools/etdump/etdump.h"
#include "frontends/onnx/test/model_builder.h"

namespace ptec::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

const std::string kCnn = std::string(PTEC_SOURCE_DIR) + "/examples/models/example_cnn.onnx";

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::path(PTEC_BINARY_DIR) / "tests" / "inspector" / "out" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Runs the CLI; returns the exit code, stdout in `out` and stderr in `err`.
int ptec(const std::string& args, std::string* out = nullptr, std::string* err = nullptr) {
  const fs::path dir = fs::path(PTEC_BINARY_DIR) / "tests" / "inspector" / "out";
  fs::create_directories(dir);
  // Per process: ctest runs the tests of this binary in parallel processes.
  const std::string stem = "cli." + std::to_string(::getpid());
  const fs::path out_log = dir / (stem + ".out");
  const fs::path err_log = dir / (stem + ".err");
  const std::string command = std::string(PTEC_CLI_PATH) + " " + args + " > " + out_log.string() +
                              " 2> " + err_log.string();
  const int status = std::system(command.c_str());
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  if (out != nullptr) *out = slurp(out_log);
  if (err != nullptr) *err = slurp(err_log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// Conv → Relu (delegated) → Sin (no PtecCpuBackend support: a portable kernel) → Mul by a
/// constant (delegated again), with named ONNX nodes.
std::string write_mixed_model(const fs::path& dir) {
  onnx_import::testing::ModelBuilder b;
  b.input("x", {1, 2, 5, 5});
  b.init_float("w", {3, 2, 3, 3}, std::vector<float>(54, 0.1f));
  b.init_float("bias", {3}, {0.0f, 0.5f, -0.5f});
  b.init_float("k", {1}, {2.0f});
  b.node("Conv", {"x", "w", "bias"}, {"c"}, "/block/conv");
  b.node("Relu", {"c"}, {"r"}, "/block/relu");
  b.node("Sin", {"r"}, {"s"}, "/block/sin");
  b.node("Mul", {"s", "k"}, {"y"}, "/head/scale");
  b.output("y");
  const std::string path = (dir / "mixed.onnx").string();
  b.save(path);
  return path;
}

/// Exports `export_args` with --etrecord, runs `methods` 5 times each with --etdump and inspects
/// all dumps with --json --tsv; returns the JSON.
json export_run_inspect(const fs::path& dir, const std::string& export_args,
                        const std::vector<std::string>& methods = {"forward"}) {
  const std::string pte = (dir / "m.pte").string();
  const std::string record = (dir / "m.etrecord").string();
  std::string out;
  std::string err;
  EXPECT_EQ(ptec("export " + export_args + " -o " + pte + " --etrecord " + record, &out, &err), 0)
      << err;
  std::string dumps;
  for (const std::string& m : methods) {
    const std::string dump = (dir / (m + ".etdp")).string();
    EXPECT_EQ(
        ptec("run " + pte + " --method " + m + " --etdump " + dump + " --iterations 5", &out, &err),
        0)
        << err;
    dumps += " --etdump " + dump;
  }
  EXPECT_EQ(ptec("inspect --etrecord " + record + dumps + " --json --tsv " +
                     (dir / "events.tsv").string(),
                 &out, &err),
            0)
      << err;
  return json::parse(out);
}

/// Profile events of the "Execute" blocks the Inspector counts as runtime events (kernel
/// calls, delegate calls and the delegate's own events), counted straight from the dump; one
/// per distinct event, as the Inspector joins the iterations.
size_t runtime_events_in_dump(const fs::path& path) {
  const devtools::ETDump dump = devtools::ETDump::load(path.string());
  std::set<std::tuple<std::string, std::string, int32_t, int32_t>> distinct;
  for (const devtools::RunData& run : dump.run_data) {
    if (run.name != "Execute") continue;
    for (const devtools::ETDumpEvent& e : run.events) {
      const devtools::ProfileEvent* p = e.profile();
      if (p == nullptr || p->instruction_id < 0 || p->name == "OPERATOR_CALL") continue;
      distinct.insert({run.method_name, p->name, p->instruction_id, p->delegate_debug_id_int});
    }
  }
  return distinct.size();
}

/// The coverage the test asks for, checked against the events themselves: every event of an
/// "Execute" block has 5 samples and statistics in order.
void expect_mapped(const json& j, size_t expected_runtime_events) {
  const json& c = j["coverage"];
  EXPECT_EQ(c["runtime_events"].get<size_t>(), expected_runtime_events);
  EXPECT_GT(expected_runtime_events, 0u);
  EXPECT_GE(c["op_type_fraction"].get<double>(), 0.95) << c.dump();
  EXPECT_GE(c["source_fraction"].get<double>(), 0.95) << c.dump();
  size_t mapped_by_hand = 0;
  size_t events = 0;
  for (const json& block : j["event_blocks"]) {
    if (block["name"] != "Execute") continue;
    EXPECT_EQ(block["runs"], 5) << block["method"];
    for (const json& ev : block["events"]) {
      EXPECT_EQ(ev["raw_ms"].size(), 5u) << ev["name"];
      EXPECT_LE(ev["min_ms"].get<double>(), ev["p10_ms"].get<double>());
      EXPECT_LE(ev["p10_ms"].get<double>(), ev["p50_ms"].get<double>());
      EXPECT_LE(ev["p50_ms"].get<double>(), ev["p90_ms"].get<double>());
      EXPECT_LE(ev["p90_ms"].get<double>(), ev["max_ms"].get<double>());
      if (ev["kind"] == "other") continue;
      ++events;
      if (!ev["op_types"].empty() && !ev["source_locations"].empty()) ++mapped_by_hand;
    }
  }
  EXPECT_EQ(events, expected_runtime_events);
  EXPECT_GE(mapped_by_hand * 100, events * 95);
}

TEST(InspectCli, DelegatedCnnMapsDelegateNodesToOpTypesAndOnnxNodes) {
  const fs::path dir = temp_dir("cnn");
  const json j = export_run_inspect(dir, kCnn);
  expect_mapped(j, runtime_events_in_dump(dir / "forward.etdp"));
  EXPECT_EQ(j["methods"], json({"forward"}));

  // The backend's own events: one per backend node, each with the backend's name, an aten op
  // and the ONNX node names of the Conv / Clip / Gemm nodes it ran.
  size_t delegate_nodes = 0;
  std::set<std::string> sources;
  for (const json& block : j["event_blocks"]) {
    for (const json& ev : block["events"]) {
      if (ev["kind"] != "delegate") continue;
      ++delegate_nodes;
      EXPECT_EQ(ev["delegate_backend"], "PtecCpuBackend");
      for (const json& s : ev["source_locations"]) sources.insert(s.get<std::string>());
    }
  }
  EXPECT_GT(delegate_nodes, 10u);
  EXPECT_EQ(sources.count("/classifier/classifier.1/Gemm"), 1u);
  EXPECT_EQ(sources.count("/features/features.0/features.0.0/Conv"), 1u);

  bool conv_total = false;
  for (const json& t : j["operator_totals"])
    conv_total |= t["op_type"].get<std::string>().find("aten::convolution") == 0;
  EXPECT_TRUE(conv_total);

  // --tsv: a header and one line per event of every block.
  std::ifstream tsv(dir / "events.tsv");
  std::string line;
  size_t lines = 0;
  while (std::getline(tsv, line)) ++lines;
  size_t all_events = 0;
  for (const json& block : j["event_blocks"]) all_events += block["events"].size();
  EXPECT_EQ(lines, 1 + all_events);
}

TEST(InspectCli, DelegatedAndUndelegatedOpsBothMap) {
  const fs::path dir = temp_dir("mixed");
  const json j = export_run_inspect(dir, write_mixed_model(dir));
  expect_mapped(j, runtime_events_in_dump(dir / "forward.etdp"));
  bool sin_kernel = false;
  bool relu_in_delegate = false;
  bool scale_in_delegate = false;
  for (const json& block : j["event_blocks"]) {
    for (const json& ev : block["events"]) {
      const std::string sources = ev["source_locations"].dump();
      if (ev["kind"] == "kernel" && ev["op_types"] == json({"aten::sin"})) {
        sin_kernel = true;
        EXPECT_EQ(ev["source_locations"], json({"/block/sin"}));
        EXPECT_FALSE(ev.contains("delegate_backend"));
      }
      if (ev["kind"] == "delegate" && sources.find("/block/relu") != std::string::npos) {
        relu_in_delegate = true;
        EXPECT_EQ(ev["delegate_backend"], "PtecCpuBackend");
      }
      if (ev["kind"] == "delegate" && sources.find("/head/scale") != std::string::npos)
        scale_in_delegate = true;
    }
  }
  EXPECT_TRUE(sin_kernel) << j["event_blocks"].dump();
  EXPECT_TRUE(relu_in_delegate);
  EXPECT_TRUE(scale_in_delegate);
}

TEST(InspectCli, TwoMethodProgramMapsEveryMethodThroughItsOwnMaps) {
  const fs::path dir = temp_dir("two_methods");
  const std::string mixed = write_mixed_model(dir);
  const json j = export_run_inspect(dir, "--method a=" + kCnn + " --method b=" + mixed, {"a", "b"});
  EXPECT_EQ(j["methods"], json({"a", "b"}));
  expect_mapped(j, runtime_events_in_dump(dir / "a.etdp") + runtime_events_in_dump(dir / "b.etdp"));
  std::set<std::string> sources_a;
  std::set<std::string> sources_b;
  for (const json& block : j["event_blocks"]) {
    for (const json& ev : block["events"])
      for (const json& s : ev["source_locations"])
        (block["method"] == "a" ? sources_a : sources_b).insert(s.get<std::string>());
  }
  EXPECT_EQ(sources_a.count("/classifier/classifier.1/Gemm"), 1u);
  EXPECT_EQ(sources_a.count("/block/sin"), 0u);
  EXPECT_EQ(sources_b.count("/block/sin"), 1u);
  EXPECT_EQ(sources_b.count("/classifier/classifier.1/Gemm"), 0u);
}

TEST(InspectCli, PortableRecipeMapsEveryKernel) {
  const fs::path dir = temp_dir("portable");
  const json j = export_run_inspect(dir, kCnn + " --recipe portable");
  expect_mapped(j, runtime_events_in_dump(dir / "forward.etdp"));
  for (const json& block : j["event_blocks"])
    for (const json& ev : block["events"]) EXPECT_NE(ev["kind"], "delegate");
}

TEST(InspectCli, DebugBufferGivesEveryKernelItsLoggedOutput) {
  const fs::path dir = temp_dir("debug_buffer");
  const std::string model = write_mixed_model(dir);
  const std::string pte = (dir / "m.pte").string();
  const std::string record = (dir / "m.etrecord").string();
  const std::string dump = (dir / "m.etdp").string();
  const std::string buffer = (dir / "m.bin").string();
  std::string out;
  std::string err;
  ASSERT_EQ(ptec("export " + model + " --recipe portable -o " + pte + " --etrecord " + record, &out,
                 &err),
            0)
      << err;
  ASSERT_EQ(
      ptec("run " + pte + " --etdump " + dump + " --debug-buffer " + buffer + " --iterations 2",
           &out, &err),
      0)
      << err;
  ASSERT_EQ(ptec("inspect --etrecord " + record + " --etdump " + dump + " --debug-buffer " +
                     buffer + " --json",
                 &out, &err),
            0)
      << err;
  const json j = json::parse(out);
  std::map<std::string, json> by_source;
  for (const json& block : j["event_blocks"]) {
    for (const json& ev : block["events"]) {
      if (ev["kind"] != "kernel") continue;
      ASSERT_TRUE(ev.contains("outputs")) << ev.dump();
      ASSERT_EQ(ev["outputs"].size(), 1u);
      EXPECT_EQ(ev["outputs"][0]["dtype"], "f32");
      ASSERT_TRUE(ev["outputs"][0].contains("mean")) << ev.dump();
      by_source[ev["source_locations"][0].get<std::string>()] = ev["outputs"][0];
    }
  }
  // Relu's output is >= 0, Sin's within [-1, 1], the scaled output within [-2, 2]: the values
  // are the model's, read from the debug buffer. (Conv and Relu may be one kernel after fusion;
  // Sin and the scale are their own.)
  ASSERT_EQ(by_source.count("/block/sin"), 1u) << j.dump();
  ASSERT_EQ(by_source.count("/head/scale"), 1u);
  EXPECT_GE(by_source["/block/sin"]["min"].get<double>(), -1.0);
  EXPECT_LE(by_source["/block/sin"]["max"].get<double>(), 1.0);
  EXPECT_GT(by_source["/block/sin"]["max"].get<double>(), 0.0);
  EXPECT_LE(by_source["/head/scale"]["max"].get<double>(), 2.0);
  EXPECT_NEAR(by_source["/head/scale"]["mean"].get<double>(),
              2 * by_source["/block/sin"]["mean"].get<double>(), 1e-5);
  if (by_source.count("/block/relu") != 0) {
    EXPECT_GE(by_source["/block/relu"]["min"].get<double>(), 0.0);
  }
  EXPECT_EQ(by_source["/block/sin"]["sizes"], json({1, 3, 3, 3}));
}

TEST(InspectCli, NumericGapAgainstAPortableReferenceRun) {
  const fs::path dir = temp_dir("numeric_gap");
  const std::string model = write_mixed_model(dir);
  std::string out;
  std::string err;
  for (const std::string& r : {std::string("cpu_fp32"), std::string("portable")}) {
    const std::string stem = (dir / r).string();
    ASSERT_EQ(ptec("export " + model + " --recipe " + r + " -o " + stem + ".pte --etrecord " +
                       stem + ".etrecord",
                   &out, &err),
              0)
        << err;
    ASSERT_EQ(ptec("run " + stem + ".pte --etdump " + stem + ".etdp --debug-buffer " + stem +
                       ".bin --iterations 2",
                   &out, &err),
              0)
        << err;
  }
  auto inspect = [&](const std::string& run, const std::string& metric) {
    const std::string r = (dir / run).string();
    const std::string p = (dir / "portable").string();
    return "inspect --etrecord " + r + ".etrecord --etdump " + r + ".etdp --debug-buffer " + r +
           ".bin --numeric-gap --metric " + metric + " --reference-etrecord " + p +
           ".etrecord --reference-etdump " + p + ".etdp --reference-debug-buffer " + p +
           ".bin --json";
  };
  // The delegated run logs the kernel outside the delegates (Sin): compared with the portable
  // run's Sin through the shared debug handle.
  ASSERT_EQ(ptec(inspect("cpu_fp32", "snr"), &out, &err), 0) << err;
  json j = json::parse(out);
  EXPECT_EQ(j["numeric_gap"]["metric"], "snr");
  ASSERT_EQ(j["numeric_gap"]["nodes"].size(), 1u) << out;
  const json& sin = j["numeric_gap"]["nodes"][0];
  EXPECT_EQ(sin["source"], "/block/sin");
  EXPECT_EQ(sin["op"], "aten::sin");
  EXPECT_EQ(sin["numel"], 27);
  EXPECT_TRUE(sin["value"].is_null() || sin["value"].get<double>() > 60.0) << sin.dump();

  // The portable run against itself: every kernel's node, no gap.
  ASSERT_EQ(ptec(inspect("portable", "mse"), &out, &err), 0) << err;
  j = json::parse(out);
  std::set<std::string> sources;
  for (const json& n : j["numeric_gap"]["nodes"]) {
    sources.insert(n["source"].get<std::string>());
    EXPECT_EQ(n["value"].get<double>(), 0.0);
  }
  EXPECT_EQ(sources.count("/block/sin"), 1u);
  EXPECT_EQ(sources.count("/head/scale"), 1u);

  // The logged outputs are required.
  const std::string p = (dir / "portable").string();
  EXPECT_EQ(ptec("inspect --etrecord " + p + ".etrecord --etdump " + p +
                     ".etdp --numeric-gap --reference-etrecord " + p + ".etrecord",
                 &out, &err),
            1);
  EXPECT_THAT(err, HasSubstr("--numeric-gap needs --debug-buffer"));
}

TEST(InspectCli, NumericGapRunsTheRecordsProgramsOnThePortableKernels) {
  // No reference run given: the ETRecord's Edge program runs in-process on the portable kernels
  // on the inputs the run used (ones: `ptec run` without --inputs), per method, with the weights
  // of the exported program (the record holds them by reference).
  const fs::path dir = temp_dir("numeric_gap_self");
  const std::string model = write_mixed_model(dir);
  std::string out;
  std::string err;
  const std::string stem = (dir / "m").string();
  ASSERT_EQ(
      ptec("export " + model + " -o " + stem + ".pte --etrecord " + stem + ".etrecord", &out, &err),
      0)
      << err;
  ASSERT_EQ(ptec("run " + stem + ".pte --etdump " + stem + ".etdp --debug-buffer " + stem + ".bin",
                 &out, &err),
            0)
      << err;
  const std::string self = "inspect --etrecord " + stem + ".etrecord --etdump " + stem +
                           ".etdp --debug-buffer " + stem + ".bin --numeric-gap";
  EXPECT_EQ(ptec(self, &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("holds the weights of its programs by reference; give the exported "
                             "program (--program FILE.pte)"));
  ASSERT_EQ(ptec(self + " --program " + stem + ".pte --metric l1 --json", &out, &err), 0) << err;
  json j = json::parse(out);
  EXPECT_EQ(j["numeric_gap"]["metric"], "l1");
  EXPECT_EQ(j["numeric_gap"]["reference"], "portable");
  EXPECT_EQ(j["numeric_gap"]["inputs"], json({{"forward", "ones"}}));
  // The delegated run logs the kernel outside the delegates (Sin), and the program output, which
  // the delegate computed (the Mul of /head/scale).
  ASSERT_EQ(j["numeric_gap"]["nodes"].size(), 2u) << out;
  std::map<std::string, json> by_source;
  for (const json& n : j["numeric_gap"]["nodes"]) by_source[n["source"].get<std::string>()] = n;
  ASSERT_EQ(by_source.count("/block/sin"), 1u) << out;
  ASSERT_EQ(by_source.count("/head/scale"), 1u) << out;
  EXPECT_EQ(by_source["/block/sin"]["event"], "native_call_sin.out");
  EXPECT_EQ(by_source["/block/sin"]["numel"], 27);
  EXPECT_LT(by_source["/block/sin"]["value"].get<double>(), 1e-6) << out;
  EXPECT_EQ(by_source["/head/scale"]["event"], "program output 0");
  EXPECT_EQ(by_source["/head/scale"]["numel"], 27);
  EXPECT_LT(by_source["/head/scale"]["value"].get<double>(), 1e-6) << out;

  // A two-method program on the portable recipe, one run (dump and debug buffer) per method:
  // every kernel of both methods is compared.
  const std::string two = (dir / "two").string();
  ASSERT_EQ(ptec("export --method a=" + model + " --method b=" + model + " --recipe portable -o " +
                     two + ".pte --etrecord " + two + ".etrecord",
                 &out, &err),
            0)
      << err;
  std::string dumps;
  for (const std::string m : {"a", "b"}) {
    const std::string run = two + "_" + m;
    ASSERT_EQ(ptec("run " + two + ".pte --method " + m + " --etdump " + run +
                       ".etdp --debug-buffer " + run + ".bin",
                   &out, &err),
              0)
        << err;
    dumps += " --etdump " + run + ".etdp --debug-buffer " + run + ".bin";
  }
  const std::string two_self = "inspect --etrecord " + two + ".etrecord" + dumps +
                               " --numeric-gap --program " + two + ".pte";
  ASSERT_EQ(ptec(two_self + " --json", &out, &err), 0) << err;
  j = json::parse(out);
  std::map<std::string, std::set<std::string>> sources;
  for (const json& n : j["numeric_gap"]["nodes"]) {
    sources[n["method"].get<std::string>()].insert(n["source"].get<std::string>());
    EXPECT_LT(n["value"].get<double>(), 1e-8) << n.dump();
  }
  const std::set<std::string> all = {"/block/conv", "/block/relu", "/block/sin", "/head/scale"};
  EXPECT_EQ(sources["a"], all);
  EXPECT_EQ(sources["b"], all);
  EXPECT_EQ(j["numeric_gap"]["inputs"], json({{"a", "ones"}, {"b", "ones"}}));

  // Text output says what the reference is; --inputs must name a method the dumps ran.
  ASSERT_EQ(ptec(two_self, &out, &err), 0) << err;
  EXPECT_THAT(out, HasSubstr("against the ETRecord's programs on the portable kernels"));
  EXPECT_THAT(out, HasSubstr("reference inputs of a: ones"));
  EXPECT_EQ(ptec(two_self + " --inputs c=" + dir.string(), &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("the ETDump has no run of method 'c'"));
  // Weights must come from the program the record was exported with.
  ASSERT_EQ(ptec("export " + kCnn + " -o " + (dir / "other.pte").string(), &out, &err), 0) << err;
  EXPECT_EQ(ptec(self + " --program " + (dir / "other.pte").string(), &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("is it the program this ETRecord was exported with?"));
  // Debug buffers pair with dumps.
  EXPECT_EQ(ptec("inspect --etrecord " + two + ".etrecord --etdump " + two + "_a.etdp --etdump " +
                     two + "_b.etdp --debug-buffer " + two + "_a.bin --debug-buffer " + two +
                     "_a.bin --debug-buffer " + two + "_b.bin",
                 &out, &err),
            1);
  EXPECT_THAT(err, HasSubstr("3 debug buffers for 2 ETDumps"));
}

TEST(InspectCli, TextOutputAndErrors) {
  const fs::path dir = temp_dir("errors");
  const std::string pte = (dir / "m.pte").string();
  const std::string record = (dir / "m.etrecord").string();
  const std::string dump = (dir / "m.etdp").string();
  std::string out;
  std::string err;
  ASSERT_EQ(ptec("export " + kCnn + " -o " + pte + " --etrecord " + record, &out, &err), 0) << err;
  ASSERT_EQ(ptec("run " + pte + " --etdump " + dump, &out, &err), 0) << err;
  ASSERT_EQ(ptec("inspect --etrecord " + record + " --etdump " + dump, &out, &err), 0) << err;
  EXPECT_THAT(out, HasSubstr("== method 'forward', block 'Execute' (1 run) =="));
  EXPECT_THAT(out, HasSubstr("PtecCpuBackend"));
  EXPECT_THAT(out, HasSubstr("runtime events to op types (100.0%)"));

  // A record of another program: the dump's method is unknown to it.
  const std::string other = (dir / "other.etrecord").string();
  ASSERT_EQ(ptec("export --method alpha=" + kCnn + " -o " + (dir / "o.pte").string() +
                     " --etrecord " + other,
                 &out, &err),
            0)
      << err;
  EXPECT_EQ(ptec("inspect --etrecord " + other + " --etdump " + dump, &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("method 'forward'"));
  EXPECT_THAT(err, HasSubstr("alpha"));

  // A dump that is not one, and a record that is not one: errors name the file.
  EXPECT_EQ(ptec("inspect --etrecord " + record + " --etdump " + record, &out, &err), 1);
  EXPECT_THAT(err, HasSubstr(record));
  EXPECT_EQ(ptec("inspect --etrecord " + dump + " --etdump " + dump, &out, &err), 1);
  EXPECT_THAT(err, HasSubstr("invalid etrecord file"));
  // Both files are required.
  EXPECT_NE(ptec("inspect --etrecord " + record, &out, &err), 0);
  EXPECT_THAT(err, HasSubstr("--etdump"));
}

}  // namespace
}  // namespace ptec::test
