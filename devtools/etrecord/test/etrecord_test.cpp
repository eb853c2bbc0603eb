// ETRecord files: save/load round trips (printed programs, maps, UUIDs), entry names and JSON
// maps of FORMAT.md §7, payloads by reference (or stored when asked), errors, atomic writes, the
// standalone generate_etrecord, and the upstream fixture.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zip.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "devtools/etrecord/etrecord.h"
#include "devtools/etrecord/generate_etrecord.h"
#include "ir/exception.h"
#include "ir/printer.h"
#include "passes/dead_code_elimination.h"
#include "program/to_edge_transform_and_lower.h"
#include "tests/delegate/nested_backend.h"
#include "tests/delegate/test_models.h"

namespace ptec::devtools {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::path(PTEC_BINARY_DIR) / "devtools" / "etrecord" / "out" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// name → bytes of every entry of the zip at `path`.
std::map<std::string, std::string> zip_entries(const fs::path& path) {
  int error = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_RDONLY, &error);
  EXPECT_NE(z, nullptr) << path;
  std::map<std::string, std::string> out;
  if (z == nullptr) return out;
  for (zip_int64_t i = 0; i < zip_get_num_entries(z, 0); ++i) {
    zip_stat_t st;
    zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st);
    std::string bytes(st.size, '\0');
    zip_file_t* f = zip_fopen_index(z, static_cast<zip_uint64_t>(i), 0);
    if (st.size > 0) zip_fread(f, bytes.data(), st.size);
    zip_fclose(f);
    out[st.name] = bytes;
  }
  zip_discard(z);
  return out;
}

void write_zip(const fs::path& path, const std::map<std::string, std::string>& entries) {
  int error = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  ASSERT_NE(z, nullptr);
  std::vector<std::string> keep;
  keep.reserve(entries.size());
  for (const auto& [name, bytes] : entries) {
    keep.push_back(bytes);
    zip_source_t* src = zip_source_buffer(z, keep.back().data(), keep.back().size(), 0);
    ASSERT_GE(zip_file_add(z, name.c_str(), src, 0), 0);
  }
  ASSERT_EQ(zip_close(z), 0);
}

std::map<std::string, ir::ExportedProgram> two_methods() {
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("alpha", test::two_mul_program());
  programs.emplace("beta", test::two_mul_program(2.0f));
  return programs;
}

program::TransformAndLowerOptions lower_options() {
  test::register_nested_backend();
  program::TransformAndLowerOptions options;
  options.generate_etrecord = true;
  options.partitioners = program::MethodPartitioners{
      {"alpha",
       {std::make_shared<test::OpSetPartitioner>(std::set<std::string>{"aten::mul.Tensor"})}}};
  options.transform_passes =
      program::MethodPasses{{"beta", {std::make_shared<passes::DeadCodeElimination>()}}};
  return options;
}

void expect_same_programs(const std::map<std::string, ProgramPtr>& a,
                          const std::map<std::string, ProgramPtr>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, program] : a) {
    ASSERT_EQ(b.count(name), 1u) << name;
    EXPECT_EQ(ir::print(*program), ir::print(*b.at(name))) << name;
    EXPECT_EQ(program->uuid(), b.at(name)->uuid()) << name;
  }
}

void expect_same_record(const ETRecord& a, const ETRecord& b) {
  expect_same_programs(a.aten_programs(), b.aten_programs());
  expect_same_programs(a.edge_programs(), b.edge_programs());
  expect_same_programs(a.edge_after_transform(), b.edge_after_transform());
  EXPECT_EQ(a.debug_handle_map(), b.debug_handle_map());
  EXPECT_EQ(a.delegate_map(), b.delegate_map());
  EXPECT_EQ(a.instruction_id_to_num_outs_map(), b.instruction_id_to_num_outs_map());
  EXPECT_EQ(a.has_executorch_maps(), b.has_executorch_maps());
}

TEST(ETRecord, SaveLoadRoundTripGivesEqualProgramsMapsAndUuids) {
  const program::EdgeProgramManager edge =
      program::to_edge_transform_and_lower(two_methods(), lower_options());
  const program::ExecutorchProgramManager et = edge.to_executorch();
  const ETRecord& record = et.get_etrecord();
  const fs::path path = temp_dir("round_trip") / "m.etrecord";
  record.save(path.string());

  const ETRecord loaded = ETRecord::load(path.string());
  EXPECT_TRUE(loaded.graphs_available());
  EXPECT_EQ(loaded.graph_format(), "ptec");
  expect_same_record(record, loaded);
  EXPECT_EQ(loaded.aten_programs().size(), 2u);
  EXPECT_EQ(loaded.edge_after_transform().size(), 1u);
  EXPECT_FALSE(loaded.delegate_map("alpha").empty());
  // The loaded programs keep debug handles and ONNX-style source names for the Inspector.
  const auto index = loaded.node_index("alpha");
  EXPECT_EQ(index, record.node_index("alpha"));
  for (const auto& [id, call] : loaded.delegate_map("alpha")) {
    const auto nodes = loaded.nodes_for_instruction("alpha", id);
    ASSERT_EQ(nodes.size(), 1u);
    EXPECT_EQ(nodes[0].op, "aten::mul.Tensor");
  }
  // Saving the loaded record gives the same entries.
  const fs::path again = path.parent_path() / "again.etrecord";
  loaded.save(again.string());
  EXPECT_EQ(zip_entries(again), zip_entries(path));
}

TEST(ETRecord, EntryNamesAndMapsFollowTheEtrecordLayout) {
  const program::EdgeProgramManager edge =
      program::to_edge_transform_and_lower(two_methods(), lower_options());
  const program::ExecutorchProgramManager et = edge.to_executorch();
  const fs::path path = temp_dir("layout") / "m.etrecord";
  et.get_etrecord().save(path.string());
  const auto entries = zip_entries(path);
  std::vector<std::string> names;
  for (const auto& [name, bytes] : entries) names.push_back(name);
  EXPECT_THAT(names, ElementsAre("ETRECORD_V0", "aten_dialect_output/alpha",
                                 "aten_dialect_output/beta", "debug_handle_map", "delegate_map",
                                 "edge_after_transform/beta", "edge_dialect_exported_program/alpha",
                                 "edge_dialect_exported_program/beta",
                                 "instruction_id_to_num_outs_map", "ptec_manifest"));
  EXPECT_EQ(entries.at("ETRECORD_V0"), "");

  using nlohmann::json;
  const json handles = json::parse(entries.at("debug_handle_map"));
  const json delegates = json::parse(entries.at("delegate_map"));
  const json outs = json::parse(entries.at("instruction_id_to_num_outs_map"));
  const auto& record = et.get_etrecord();
  ASSERT_EQ(delegates["alpha"].size(), 2u);
  for (const auto& [id, call] : delegates["alpha"].items()) {
    EXPECT_EQ(call["name"], test::kNestedBackendId);
    // A delegate call's debug handles are a list, also in the backend's own map.
    EXPECT_TRUE(handles["alpha"][id].is_array());
    EXPECT_EQ(call["delegate_map"]["0"], handles["alpha"][id]);
    EXPECT_EQ(outs["alpha"][id], 1);
  }
  EXPECT_EQ(delegates["beta"], json::object());
  EXPECT_EQ(outs["beta"], json::object());
  // A kernel call's debug handle is one integer.
  for (const auto& [id, h] : handles["beta"].items()) {
    ASSERT_TRUE(h.is_number_integer()) << id;
    EXPECT_EQ(record.debug_handle_map("beta").at(std::stoll(id)),
              std::vector<int64_t>{h.get<int64_t>()});
  }
  // Graphs are ptec's JSON graph format with their UUIDs.
  const json edge_alpha = json::parse(entries.at("edge_dialect_exported_program/alpha"));
  EXPECT_EQ(edge_alpha["format"], "ptec.exported_program");
  EXPECT_EQ(edge_alpha["uuid"], record.edge_program("alpha")->uuid());
  EXPECT_EQ(edge_alpha["stage"], "EDGE");

  // With one method "forward", its ATEN program is exir's `exported_program` entry.
  program::ToEdgeOptions options;
  options.generate_etrecord = true;
  const auto single = program::to_edge(test::two_mul_program(), options).to_executorch();
  const fs::path single_path = path.parent_path() / "single.etrecord";
  single.get_etrecord().save(single_path.string());
  const auto single_entries = zip_entries(single_path);
  EXPECT_EQ(single_entries.count("exported_program"), 1u);
  EXPECT_EQ(single_entries.count("aten_dialect_output/forward"), 0u);
  const ETRecord loaded = ETRecord::load(single_path.string());
  ASSERT_NE(loaded.exported_program(), nullptr);
  EXPECT_EQ(ir::print(*loaded.exported_program()),
            ir::print(*single.get_etrecord().exported_program()));
}

TEST(ETRecord, PayloadsAreReferencedUnlessStoringIsAsked) {
  program::ToEdgeOptions options;
  options.generate_etrecord = true;
  const ir::ExportedProgram aten = test::two_mul_program();
  const auto et = program::to_edge(aten, options).to_executorch();
  const ir::BufferPtr weight = aten.state_dict().at("w").data;
  const fs::path dir = temp_dir("payloads");

  et.get_etrecord().save((dir / "ref.etrecord").string());
  for (const auto& [name, bytes] : zip_entries(dir / "ref.etrecord")) {
    EXPECT_THAT(name, Not(HasSubstr("payloads/")));
  }
  const ETRecord by_ref = ETRecord::load((dir / "ref.etrecord").string());
  const ir::BufferPtr stand_in = by_ref.edge_program()->state_dict().at("w").data;
  ASSERT_NE(stand_in, nullptr);
  EXPECT_EQ(stand_in->size(), weight->size());
  EXPECT_EQ(ir::payload_hash(*stand_in), ir::payload_hash(*weight));
  EXPECT_EQ(ir::print(*by_ref.edge_program()), ir::print(*et.get_etrecord().edge_program()));

  et.get_etrecord().save((dir / "stored.etrecord").string(), ETRecordSaveOptions{true});
  const auto entries = zip_entries(dir / "stored.etrecord");
  const std::string key = "payloads/" + ir::payload_hash(*weight) + "_24";
  ASSERT_EQ(entries.count(key), 1u);
  EXPECT_EQ(entries.at(key), std::string(reinterpret_cast<const char*>(weight->data()), 24));
  const ETRecord stored = ETRecord::load((dir / "stored.etrecord").string());
  const ir::BufferPtr w_edge = stored.edge_program()->state_dict().at("w").data;
  const ir::BufferPtr w_aten = stored.aten_program()->state_dict().at("w").data;
  EXPECT_EQ(std::memcmp(w_edge->data(), weight->data(), 24), 0);
  EXPECT_EQ(w_edge.get(), w_aten.get());  // stored once, shared after loading

  // A record loaded by reference has no bytes to store.
  try {
    by_ref.save((dir / "again.etrecord").string(), ETRecordSaveOptions{true});
    FAIL() << "no error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidState);
    EXPECT_THAT(e.what(), HasSubstr("cannot store payload " + ir::payload_hash(*weight) +
                                    " (24 bytes): its bytes are not available"));
  }
  EXPECT_FALSE(fs::exists(dir / "again.etrecord"));
}

TEST(ETRecord, RepresentativeInputsAndReferenceOutputsKeepTheirBytes) {
  program::ToEdgeOptions options;
  options.generate_etrecord = true;
  ir::ExportedProgram aten = test::two_mul_program();
  aten.example_inputs().push_back(test::float_tensor({2, 3}, {1, 2, 3, 4, 5, 6}));
  auto et = program::to_edge(aten, options).to_executorch();
  // The example inputs are the representative inputs (shared, not copied).
  ASSERT_EQ(et.get_etrecord().representative_inputs().at("forward").size(), 1u);
  EXPECT_EQ(et.get_etrecord().representative_inputs().at("forward")[0][0].data.get(),
            aten.example_inputs()[0].data.get());
  et.get_etrecord().set_reference_outputs("forward",
                                          {{test::float_tensor({2, 3}, {6, 5, 4, 3, 2, 1})}});
  const fs::path path = temp_dir("tensors") / "m.etrecord";
  et.get_etrecord().save(path.string());
  const ETRecord loaded = ETRecord::load(path.string());
  const ir::TensorData& in = loaded.representative_inputs().at("forward").at(0).at(0);
  const ir::TensorData& out = loaded.reference_outputs().at("forward").at(0).at(0);
  EXPECT_EQ(in.spec, ir::TensorSpec(DType::Float, std::vector<int64_t>{2, 3}));
  EXPECT_EQ(reinterpret_cast<const float*>(in.data->data())[5], 6.0f);
  EXPECT_EQ(reinterpret_cast<const float*>(out.data->data())[0], 6.0f);
}

template <typename Fn>
void expect_error(Fn&& fn, Error code, const std::string& message) {
  try {
    fn();
    FAIL() << "no error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), code);
    EXPECT_THAT(e.what(), HasSubstr(message));
  }
}

TEST(ETRecord, SaveNeedsTheEdgeProgramAndTheMapsAndLeavesNothingOnFailure) {
  const fs::path dir = temp_dir("save_errors");
  const std::string path = (dir / "m.etrecord").string();
  expect_error([&] { ETRecord().save(path); }, Error::InvalidState,
               "cannot save the ETRecord to '" + path + "': it has no Edge program");
  program::ToEdgeOptions options;
  options.generate_etrecord = true;
  const auto edge = program::to_edge(test::two_mul_program(), options);
  expect_error([&] { edge.get_etrecord().save(path); }, Error::InvalidState,
               "it has no debug_handle_map, delegate_map or instruction_id_to_num_outs_map");
  EXPECT_TRUE(fs::is_empty(dir));
  // An existing file is left as it was by a failed save.
  { std::ofstream(path) << "old"; }
  expect_error([&] { edge.get_etrecord().save(path); }, Error::InvalidState, "no debug_handle_map");
  EXPECT_EQ(fs::file_size(path), 3u);
  // An unwritable place: AccessFailed naming the path, no temporary file left.
  const auto et = edge.to_executorch();
  const std::string missing = (dir / "no_such_dir" / "m.etrecord").string();
  expect_error([&] { et.get_etrecord().save(missing); }, Error::AccessFailed,
               "cannot write '" + missing + "'");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(ETRecord, LoadRejectsNonZipFilesAndZipsWithoutTheIdentifier) {
  const fs::path dir = temp_dir("load_errors");
  { std::ofstream(dir / "text.etrecord") << "this is not a zip"; }
  expect_error([&] { ETRecord::load((dir / "text.etrecord").string()); }, Error::InvalidArgument,
               "text.etrecord: invalid etrecord file");
  { std::ofstream(dir / "empty.etrecord"); }
  expect_error([&] { ETRecord::load((dir / "empty.etrecord").string()); }, Error::InvalidArgument,
               "invalid etrecord file");
  write_zip(dir / "nomarker.etrecord", {{"debug_handle_map", "{}"}});
  expect_error([&] { ETRecord::load((dir / "nomarker.etrecord").string()); },
               Error::InvalidArgument, "invalid etrecord file: identifier missing");
  expect_error([&] { ETRecord::load((dir / "absent.etrecord").string()); }, Error::AccessFailed,
               "cannot read '");
  write_zip(dir / "badmap.etrecord",
            {{"ETRECORD_V0", ""}, {"debug_handle_map", "{\"forward\": {\"x\": 1}}"}});
  expect_error([&] { ETRecord::load((dir / "badmap.etrecord").string()); }, Error::InvalidArgument,
               "etrecord entry 'debug_handle_map': 'x' is not an integer id");
}

TEST(ETRecord, GenerateEtrecordWritesTheSameContentAsTheFlag) {
  const fs::path dir = temp_dir("generate");
  const program::EdgeProgramManager edge =
      program::to_edge_transform_and_lower(two_methods(), lower_options());
  const program::ExecutorchProgramManager et = edge.to_executorch();
  et.get_etrecord().save((dir / "flag.etrecord").string());
  generate_etrecord((dir / "standalone.etrecord").string(), edge, et);
  EXPECT_EQ(zip_entries(dir / "standalone.etrecord"), zip_entries(dir / "flag.etrecord"));

  // Managers exported without the flag: the Edge manager's programs and the given ATEN program.
  const ir::ExportedProgram aten = test::two_mul_program();
  const uint64_t before = snapshot_count();
  const auto plain = program::to_edge(aten, program::ToEdgeOptions{});
  const auto plain_et = plain.to_executorch();
  EXPECT_EQ(snapshot_count(), before);
  generate_etrecord((dir / "plain.etrecord").string(), plain, plain_et, &aten);
  const ETRecord loaded = ETRecord::load((dir / "plain.etrecord").string());
  EXPECT_EQ(ir::print(*loaded.exported_program()), ir::print(aten));
  EXPECT_EQ(ir::print(*loaded.edge_program()), ir::print(plain.exported_program()));
  EXPECT_EQ(loaded.debug_handle_map(), make_etrecord(plain, plain_et).debug_handle_map());
  // Without an Edge program there is nothing to save.
  expect_error([&] { ETRecord().save((dir / "x").string()); }, Error::InvalidState,
               "no Edge program");
}

TEST(ETRecord, LoadsTheUpstreamFixtureMapsAndReportsItsGraphFormat) {
  const fs::path fixture =
      fs::path(PTEC_SOURCE_DIR) / ".." / "shared" / "fixtures" / "executorch" / "etrecord.bin";
  if (!fs::exists(fixture)) {
    GTEST_SKIP() << "upstream fixture " << fixture.string()
                 << " is absent (../shared/fixtures comes from outside the repository)";
  }
  const ETRecord record = ETRecord::load(fixture.string());
  EXPECT_FALSE(record.graphs_available());
  EXPECT_THAT(record.graph_format(), HasSubstr("Python toolchain"));
  EXPECT_TRUE(record.has_executorch_maps());
  EXPECT_TRUE(record.debug_handle_map().empty());  // the fixture's maps are {}
  EXPECT_TRUE(record.delegate_map().empty());
  EXPECT_THAT(record.entries(), Contains("edge_dialect_exported_program"));
  EXPECT_THAT(record.entries(), Contains("aten_dialect_output/forward"));
  EXPECT_THAT(record.graphs_unavailable_reason(), HasSubstr("maps"));
  expect_error([&] { (void)record.edge_program(); }, Error::NotSupported,
               "graphs are in torch.export JSON (ExecuTorch's Python toolchain) format");
}

}  // namespace
}  // namespace ptec::devtools
