// generate_etrecord on to_edge and to_edge_transform_and_lower (DESIGN.md §4, §10): what the
// record holds at each stage, that transform/to_backend carry it, that to_executorch gives each
// result its own copy with the maps, that nothing is recorded without the flag, and that
// snapshots share payloads.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/exception.h"
#include "ir/printer.h"
#include "passes/dead_code_elimination.h"
#include "program/edge_program_manager.h"
#include "program/to_edge_transform_and_lower.h"
#include "tests/delegate/nested_backend.h"
#include "tests/delegate/test_models.h"

namespace ptec::program {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::map<std::string, ir::ExportedProgram> two_methods() {
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("alpha", test::two_mul_program());
  programs.emplace("beta", test::two_mul_program(2.0f));
  return programs;
}

PartitionerList mul_partitioner() {
  test::register_nested_backend();
  return {std::make_shared<test::OpSetPartitioner>(std::set<std::string>{"aten::mul.Tensor"})};
}

PassList dce() { return {std::make_shared<passes::DeadCodeElimination>()}; }

bool has_delegate_call(const ir::ExportedProgram& p) {
  for (const ir::Node* n : p.graph().nodes()) {
    if (n->is_call() && n->target() == "executorch_call_delegate") return true;
  }
  return false;
}

template <typename Fn>
void expect_no_record_error(Fn&& fn, const std::string& manager) {
  try {
    fn();
    FAIL() << "no error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidState);
    EXPECT_THAT(e.what(), HasSubstr("no ETRecord was generated for this " + manager));
    EXPECT_THAT(e.what(), HasSubstr("generate_etrecord = true"));
  }
}

TEST(ETRecordFlag, OffByDefaultTakesNoSnapshotAndGetEtrecordNamesTheFlag) {
  const auto programs = two_methods();
  const ir::BufferPtr weight = programs.at("alpha").state_dict().at("w").data;
  EXPECT_FALSE(ToEdgeOptions{}.generate_etrecord);
  EXPECT_FALSE(TransformAndLowerOptions{}.generate_etrecord);
  const uint64_t before = devtools::snapshot_count();

  const EdgeProgramManager edge = to_edge(programs, ToEdgeOptions{});
  // Only the Edge program holds the weight besides the caller: no ATEN copy was made.
  EXPECT_EQ(weight.use_count(), 3);  // `weight`, programs["alpha"], the Edge program
  TransformAndLowerOptions options;
  options.transform_passes = dce();
  options.partitioners = mul_partitioner();
  const EdgeProgramManager lowered = to_edge_transform_and_lower(programs, options);
  const ExecutorchProgramManager et = lowered.to_executorch();
  EXPECT_EQ(devtools::snapshot_count(), before);

  EXPECT_FALSE(edge.has_etrecord());
  EXPECT_FALSE(lowered.has_etrecord());
  EXPECT_FALSE(et.has_etrecord());
  expect_no_record_error([&] { (void)edge.get_etrecord(); }, "EdgeProgramManager");
  expect_no_record_error([&] { (void)lowered.get_etrecord(); }, "EdgeProgramManager");
  expect_no_record_error([&] { (void)et.get_etrecord(); }, "ExecutorchProgramManager");
}

TEST(ETRecordFlag, ToEdgeRecordsEveryMethodsAtenAndEdgeProgramsSharingPayloads) {
  const auto programs = two_methods();
  const uint64_t before = devtools::snapshot_count();
  ToEdgeOptions options;
  options.generate_etrecord = true;
  const EdgeProgramManager edge = to_edge(programs, options);
  EXPECT_EQ(devtools::snapshot_count(), before + 2);  // one ATEN snapshot per method

  const devtools::ETRecord& record = edge.get_etrecord();
  EXPECT_THAT(record.methods(), ElementsAre("alpha", "beta"));
  ASSERT_EQ(record.aten_programs().size(), 2u);
  for (const auto& [name, original] : programs) {
    const devtools::ProgramPtr aten = record.aten_program(name);
    // A snapshot: its own graph, same printed form and UUID, the same weight Buffer.
    EXPECT_NE(aten.get(), &original);
    EXPECT_NE(&aten->graph(), &original.graph());
    EXPECT_EQ(ir::print(*aten), ir::print(original));
    EXPECT_EQ(aten->uuid(), original.uuid());
    EXPECT_EQ(aten->stage(), ir::Stage::Aten);
    EXPECT_EQ(aten->state_dict().at("w").data.get(), original.state_dict().at("w").data.get());
    // The Edge program is the manager's (immutable, shared: not copied again).
    EXPECT_EQ(record.edge_program(name).get(), edge.exported_program_ptr(name).get());
    EXPECT_EQ(record.edge_program(name)->state_dict().at("w").data.get(),
              original.state_dict().at("w").data.get());
  }
  EXPECT_TRUE(record.edge_after_transform().empty());
  EXPECT_FALSE(record.has_executorch_maps());
  // exir's exported_program: forward, or the only method; here neither.
  EXPECT_EQ(record.exported_program(), nullptr);

  // Changing the caller's program later does not change the record.
  auto changed = programs;
  changed.at("alpha").provenance().push_back({"user", "edited"});
  EXPECT_EQ(ir::print(*record.aten_program("alpha")), ir::print(programs.at("alpha")));

  // One program: method "forward", which is exir's exported_program.
  const EdgeProgramManager single = to_edge(test::two_mul_program(), options);
  ASSERT_NE(single.get_etrecord().exported_program(), nullptr);
  EXPECT_EQ(single.get_etrecord().exported_program(), single.get_etrecord().aten_program());
}

TEST(ETRecordFlag, TransformAndToBackendCarryTheRecordUnchanged) {
  ToEdgeOptions options;
  options.generate_etrecord = true;
  const EdgeProgramManager edge = to_edge(two_methods(), options);
  const EdgeProgramManager transformed = edge.transform(dce());
  const EdgeProgramManager lowered = transformed.to_backend(mul_partitioner());
  EXPECT_EQ(&transformed.get_etrecord(), &edge.get_etrecord());
  EXPECT_EQ(&lowered.get_etrecord(), &edge.get_etrecord());
  // The manager's programs changed; the record still holds the Edge programs before lowering.
  EXPECT_TRUE(has_delegate_call(lowered.exported_program("alpha")));
  EXPECT_FALSE(has_delegate_call(*lowered.get_etrecord().edge_program("alpha")));
  EXPECT_TRUE(lowered.get_etrecord().edge_after_transform().empty());
}

TEST(ETRecordFlag, TransformAndLowerRecordsAfterTransformOnlyForMethodsWithPasses) {
  const auto programs = two_methods();
  TransformAndLowerOptions options;
  options.generate_etrecord = true;
  options.partitioners = mul_partitioner();
  {
    const EdgeProgramManager m = to_edge_transform_and_lower(programs, options);
    const devtools::ETRecord& r = m.get_etrecord();
    EXPECT_EQ(r.aten_programs().size(), 2u);
    EXPECT_EQ(r.edge_programs().size(), 2u);
    EXPECT_TRUE(r.edge_after_transform().empty());  // no passes given
    for (const std::string name : {"alpha", "beta"}) {
      EXPECT_EQ(r.edge_program(name)->stage(), ir::Stage::Edge);
      EXPECT_FALSE(has_delegate_call(*r.edge_program(name)));  // before partitioning
      EXPECT_TRUE(has_delegate_call(m.exported_program(name)));
      EXPECT_EQ(ir::print(*r.aten_program(name)), ir::print(programs.at(name)));
    }
  }
  {
    options.transform_passes = MethodPasses{{"alpha", dce()}, {"beta", {}}};
    const EdgeProgramManager m = to_edge_transform_and_lower(programs, options);
    const devtools::ETRecord& r = m.get_etrecord();
    ASSERT_EQ(r.edge_after_transform().size(), 1u);
    const devtools::ProgramPtr after = r.edge_after_transform().at("alpha");
    EXPECT_THAT(after->provenance().back().stage, "transform");
    EXPECT_NE(after.get(), r.edge_program("alpha").get());
    EXPECT_FALSE(has_delegate_call(*after));
  }
  {
    options.transform_passes = dce();  // one list for every method
    const EdgeProgramManager m = to_edge_transform_and_lower(programs, options);
    EXPECT_EQ(m.get_etrecord().edge_after_transform().size(), 2u);
  }
}

TEST(ETRecordFlag, ToExecutorchGivesItsOwnCopyWithTheMapsOfEveryMethod) {
  TransformAndLowerOptions options;
  options.generate_etrecord = true;
  options.partitioners = MethodPartitioners{{"alpha", mul_partitioner()}};
  const EdgeProgramManager edge = to_edge_transform_and_lower(two_methods(), options);
  const ExecutorchProgramManager et = edge.to_executorch();
  const devtools::ETRecord& record = et.get_etrecord();
  EXPECT_NE(&record, &edge.get_etrecord());
  EXPECT_FALSE(edge.get_etrecord().has_executorch_maps());  // the Edge manager's is unchanged
  ASSERT_TRUE(record.has_executorch_maps());
  // The programs are shared with the Edge manager's record, not copied.
  EXPECT_EQ(record.edge_program("alpha").get(), edge.get_etrecord().edge_program("alpha").get());

  for (const auto* map : {&record.debug_handle_map()}) {
    std::vector<std::string> methods;
    for (const auto& [m, entries] : *map) methods.push_back(m);
    EXPECT_THAT(methods, ElementsAre("alpha", "beta"));
  }
  EXPECT_EQ(record.delegate_map().size(), 2u);
  EXPECT_EQ(record.instruction_id_to_num_outs_map().size(), 2u);
  EXPECT_TRUE(record.delegate_map("beta").empty());  // beta was not lowered

  // alpha: two delegate calls (the two muls), each mapped to its mul node and recorded by the
  // backend's own delegate map; the other instructions map to one node each.
  const auto& delegates = record.delegate_map("alpha");
  ASSERT_EQ(delegates.size(), 2u);
  for (const auto& [id, call] : delegates) {
    EXPECT_EQ(call.name, test::kNestedBackendId);
    EXPECT_EQ(record.instruction_id_to_num_outs_map("alpha").at(id), 1);
    const std::vector<int64_t>& handles = record.debug_handle_map("alpha").at(id);
    ASSERT_EQ(handles.size(), 1u);
    ASSERT_EQ(call.delegate_map.size(), 1u);
    EXPECT_EQ(call.delegate_map.at(0), handles);
    const auto nodes = record.nodes_for_instruction("alpha", id);
    ASSERT_EQ(nodes.size(), 1u);
    EXPECT_EQ(nodes[0].op, "aten::mul.Tensor");
    EXPECT_EQ(nodes[0].debug_handle, handles[0]);
  }
  // Every instruction of every method maps back to Edge nodes.
  for (const auto& [method, entries] : record.debug_handle_map()) {
    EXPECT_FALSE(entries.empty()) << method;
    for (const auto& [id, handles] : entries) {
      EXPECT_FALSE(record.nodes_for_instruction(method, id).empty()) << method << " " << id;
    }
  }
  // The same maps as the manager's own accessors.
  for (const auto& [method, entries] : et.debug_handle_map()) {
    for (const auto& [id, handle] : entries) {
      if (delegates.count(id) != 0 && method == "alpha") continue;
      EXPECT_EQ(record.debug_handle_map(method).at(id), std::vector<int64_t>{handle});
    }
  }
}

TEST(ETRecordFlag, ToExecutorchTwiceGivesTwoIndependentRecords) {
  ToEdgeOptions options;
  options.generate_etrecord = true;
  const EdgeProgramManager edge = to_edge(test::two_mul_program(), options);
  ExecutorchProgramManager first = edge.to_executorch();
  ExecutorchProgramManager second = edge.to_executorch();
  EXPECT_NE(&first.get_etrecord(), &second.get_etrecord());
  EXPECT_EQ(first.get_etrecord().debug_handle_map(), second.get_etrecord().debug_handle_map());
  first.get_etrecord().set_reference_outputs("forward",
                                             {{test::float_tensor({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(first.get_etrecord().reference_outputs().size(), 1u);
  EXPECT_TRUE(second.get_etrecord().reference_outputs().empty());
  EXPECT_TRUE(edge.get_etrecord().reference_outputs().empty());
  // A copy of a manager has its own record too.
  ExecutorchProgramManager copy = first;
  copy.get_etrecord().set_reference_outputs("forward", {});
  EXPECT_EQ(first.get_etrecord().reference_outputs().at("forward").size(), 1u);
}

}  // namespace
}  // namespace ptec::program
