#include <gtest/gtest.h>

#include "emit/emitter.h"
#include "emit/export_pte.h"
#include "emit/program_summary.h"
#include "emit/pte_writer.h"
#include "emit/test/pte_test_util.h"
#include "ir/exception.h"
#include "passes/test/test_graphs.h"
#include "program/to_edge.h"

namespace ptec::emit {
namespace {

namespace fb = executorch_flatbuffer;
using nlohmann::json;

// forward(x[1], y[1]) = x + y: the program of fixtures/executorch/add.pte.
ir::ExportedProgram add_program() {
  ir::ExportedProgram p;
  const ir::TensorSpec f1(DType::Float, std::vector<int64_t>{1});
  ir::Node* x = ptec::testing::input(p, "x", f1);
  ir::Node* y = ptec::testing::input(p, "y", f1);
  ptec::testing::output(p, {ptec::testing::call(p, "aten::add.Tensor", {x, y})});
  return program::to_edge(p);
}

std::map<std::string, ir::ExportedProgram> methods(ir::ExportedProgram p,
                                                   const std::string& name = "forward") {
  std::map<std::string, ir::ExportedProgram> m;
  m.emplace(name, std::move(p));
  return m;
}

TEST(Emit, AddMatchesTheUpstreamFile) {
  const EmittedProgram emitted = emit_program(methods(add_program()));
  const fb::ExecutionPlanT& plan = *emitted.program->execution_plan.at(0);
  ASSERT_EQ(plan.values.size(), 4u);
  EXPECT_EQ(plan.values[3]->val.AsInt()->int_val, 1);
  const fb::KernelCallT* call = plan.chains.at(0)->instructions.at(0)->instr_args.AsKernelCall();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->args, (std::vector<int32_t>{0, 1, 3, 2, 2}));

  // Decode our file and the upstream one with flatc and compare what the runtime reads.
  const auto dir = testing::temp_dir("add");
  write_pte(emitted, (dir / "ours.pte").string());
  const std::vector<uint8_t> bytes = testing::read_file(dir / "ours.pte");
  EXPECT_NE(std::string(bytes.begin() + 8, bytes.begin() + 12), "eh00");  // no segment data
  EXPECT_EQ(std::string(bytes.begin() + 4, bytes.begin() + 8), "ET12");
  const json ours = testing::decode(dir / "ours.pte");
  const std::filesystem::path fixture =
      std::string(PTEC_SOURCE_DIR) + "/../shared/fixtures/executorch/add.pte";
  if (!std::filesystem::exists(fixture)) {
    GTEST_SKIP() << "upstream fixture " << fixture.string()
                 << " is absent (../shared/fixtures comes from outside the repository)";
  }
  std::filesystem::copy_file(fixture, dir / "upstream.pte");
  const json upstream = testing::decode(dir / "upstream.pte");
  const json& a = ours["execution_plan"][0];
  const json& b = upstream["execution_plan"][0];
  for (const char* field : {"values", "inputs", "outputs", "chains", "operators", "delegates",
                            "non_const_buffer_sizes", "name"}) {
    EXPECT_EQ(a[field], b[field]) << field << "\nours: " << a[field].dump()
                                  << "\nupstream: " << b[field].dump();
  }
  for (const char* field : {"segments", "constant_segment", "constant_buffer", "version"}) {
    EXPECT_EQ(ours[field], upstream[field]) << field;
  }
}

TEST(Emit, ConvBnReluAddFileFollowsTheFormat) {
  ptec::testing::ConvBnReluAdd model;
  const ir::ExportedProgram edge = program::to_edge(model.program);
  const auto dir = testing::temp_dir("convbn");
  const std::string path = (dir / "model.pte").string();
  const EmittedProgram emitted = export_pte(methods(edge), {}, path);
  const std::vector<uint8_t> bytes = testing::read_file(path);

  // Identifier and extended header (FORMAT.md §1.1).
  ASSERT_GT(bytes.size(), 64u);
  EXPECT_EQ(std::string(bytes.begin() + 4, bytes.begin() + 8), "ET12");
  EXPECT_EQ(std::string(bytes.begin() + 8, bytes.begin() + 12), "eh00");
  EXPECT_EQ(testing::read_u32(bytes, 12), 32u);
  const uint64_t program_size = testing::read_u64(bytes, 16);
  const uint64_t base = testing::read_u64(bytes, 24);
  const uint64_t data_size = testing::read_u64(bytes, 32);
  EXPECT_EQ(base % 128, 0u);
  EXPECT_EQ(base, (program_size + 127) / 128 * 128);
  EXPECT_EQ(bytes.size(), base + data_size);
  EXPECT_EQ(data_size, 16u + 8u);  // weight [2,2,1,1] padded to 16, then bias [2]
  for (uint64_t i = program_size; i < base; ++i) EXPECT_EQ(bytes[i], 0) << i;
  EXPECT_GE(testing::read_u32(bytes, 0), 40u);  // root offset moved past the header

  const json j = testing::decode(path);
  EXPECT_EQ(j["constant_segment"]["offsets"], json::parse("[0, 0, 16]"));
  EXPECT_EQ(j["segments"], json::parse(R"([{"offset": 0, "size": 24}])"));
  // The constants are the folded ones, at their offsets in the segment.
  const auto& conv = edge.graph().get("convolution");
  const ir::TensorData* w = edge.constant_for_placeholder(conv.arg("weight").as_node()->name());
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(std::memcmp(bytes.data() + base, w->data->data(), 16), 0);

  const json& plan = j["execution_plan"][0];
  EXPECT_EQ(plan["non_const_buffer_sizes"][0], 0);
  EXPECT_EQ(plan["operators"], json::parse(R"([{"name": "aten::convolution", "overload": "out"},
      {"name": "aten::relu", "overload": "out"}, {"name": "aten::add", "overload": "out"}])"));
  const json& values = plan["values"];
  for (const json& v : values) {
    if (v["val_type"] == "Tensor" && v["val"].contains("allocation_info") &&
        !v["val"]["allocation_info"].is_null()) {
      EXPECT_GE(v["val"]["allocation_info"]["memory_id"].get<int>(), 1);
      EXPECT_EQ(v["val"]["allocation_info"]["memory_offset_low"].get<int>() % 16, 0);
    }
    if (v["val_type"] == "IntList") {
      for (const json& item : v["val"]["items"]) {
        EXPECT_EQ(values[item.get<size_t>()]["val_type"], "Int") << v.dump();
      }
    }
  }
  // convolution.out: 9 arguments + out + return slot; the last two are the same out tensor.
  const json& instructions = plan["chains"][0]["instructions"];
  ASSERT_EQ(instructions.size(), 3u);
  const json& conv_args = instructions[0]["instr_args"]["args"];
  ASSERT_EQ(conv_args.size(), 11u);
  EXPECT_EQ(conv_args[9], conv_args[10]);
  EXPECT_EQ(values[conv_args[3].get<size_t>()]["val_type"], "IntList");  // stride
  EXPECT_EQ(values[conv_args[6].get<size_t>()]["val_type"], "Bool");     // transposed
  EXPECT_EQ(values[conv_args[8].get<size_t>()]["val_type"], "Int");      // groups
  EXPECT_EQ(plan["inputs"].size(), 1u);
  EXPECT_EQ(plan["outputs"].size(), 1u);

  // Records for the ETRecord and `ptec info`.
  const auto handles = emitted.debug_handle_map().at("forward");
  ASSERT_EQ(handles.size(), 3u);
  EXPECT_EQ(handles.at(0), conv.debug_handle());
  const ProgramSummary summary = summarize(emitted);
  ASSERT_EQ(summary.methods.size(), 1u);
  EXPECT_EQ(summary.methods[0].num_instructions, 3u);
  EXPECT_EQ(summary.methods[0].instructions_per_operator.at("aten::relu.out"), 1u);
  EXPECT_EQ(summary.num_constants, 2u);
  EXPECT_EQ(summary.constant_bytes, 24u);
  EXPECT_NE(to_string(summary).find("aten::convolution.out"), std::string::npos);
}

TEST(Emit, IdenticalConstantsAreStoredOnce) {
  ir::ExportedProgram p;
  ir::Node* a = ptec::testing::param(p, "a", ptec::testing::float_tensor({4}, {1, 2, 3, 4}));
  ir::Node* b = ptec::testing::param(p, "b", ptec::testing::float_tensor({4}, {1, 2, 3, 4}));
  ir::Node* c = ptec::testing::param(p, "c", ptec::testing::float_tensor({4}, {5, 6, 7, 8}));
  ir::Node* x = ptec::testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{4}));
  ir::Node* s = ptec::testing::call(p, "aten::add.Tensor", {x, a});
  s = ptec::testing::call(p, "aten::add.Tensor", {s, b});
  s = ptec::testing::call(p, "aten::add.Tensor", {s, c});
  ptec::testing::output(p, {s});
  const EmittedProgram emitted = emit_program(methods(program::to_edge(p)));
  EXPECT_EQ(emitted.program->constant_segment->offsets, (std::vector<uint64_t>{0, 0, 16}));
  const auto& values = emitted.program->execution_plan[0]->values;
  EXPECT_EQ(values[0]->val.AsTensor()->data_buffer_idx, 1u);
  EXPECT_EQ(values[1]->val.AsTensor()->data_buffer_idx, 1u);
  EXPECT_EQ(values[2]->val.AsTensor()->data_buffer_idx, 2u);
  EXPECT_EQ(emitted.constant_bytes(), 32u);
}

TEST(Emit, EmptyConstantUsesThePlaceholderAndNoSegment) {
  // forward() = a constant of shape [0]: nothing to store, so the tensor refers to the
  // placeholder (a reference into a zero-byte segment could not be resolved at load time).
  ir::ExportedProgram p;
  ir::Node* e = ptec::testing::param(p, "empty", ptec::testing::float_tensor({0}, {}));
  ptec::testing::output(p, {e});
  const EmittedProgram emitted = emit_program(methods(program::to_edge(p)));
  EXPECT_EQ(emitted.program->constant_segment->offsets, (std::vector<uint64_t>{0}));
  EXPECT_EQ(emitted.constant_bytes(), 0u);
  const auto& values = emitted.program->execution_plan[0]->values;
  ASSERT_FALSE(values.empty());
  EXPECT_EQ(values[0]->val.AsTensor()->data_buffer_idx, 0u);
  ASSERT_EQ(emitted.program->segments.size(), 1u);
  EXPECT_EQ(emitted.program->segments[0]->size, 0u);
}

TEST(Emit, MultiOutputOpHasATensorListReturnSlot) {
  ir::ExportedProgram p;
  ir::Node* x =
      ptec::testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{2, 3}));
  ir::Node* m = ptec::testing::call(p, "aten::max.dim", {x, int64_t{1}});
  ir::Node* values = ptec::testing::call(p, "getitem", {m, int64_t{0}});
  ir::Node* indices = ptec::testing::call(p, "getitem", {m, int64_t{1}});
  ptec::testing::output(p, {values, indices});
  const EmittedProgram emitted = emit_program(methods(program::to_edge(p)));
  const fb::ExecutionPlanT& plan = *emitted.program->execution_plan[0];
  ASSERT_EQ(plan.chains[0]->instructions.size(), 1u);  // getitem emits nothing
  EXPECT_EQ(plan.operators[0]->name, "aten::max");
  EXPECT_EQ(plan.operators[0]->overload, "dim_max");
  const auto& args = plan.chains[0]->instructions[0]->instr_args.AsKernelCall()->args;
  // self, dim, keepdim, max, max_values, return = TensorList[max, max_values]
  ASSERT_EQ(args.size(), 6u);
  const fb::TensorListT* ret = plan.values[static_cast<size_t>(args[5])]->val.AsTensorList();
  ASSERT_NE(ret, nullptr);
  EXPECT_EQ(ret->items, (std::vector<int32_t>{args[3], args[4]}));
  EXPECT_EQ(plan.outputs, (std::vector<int32_t>{args[3], args[4]}));
  EXPECT_EQ(plan.values[static_cast<size_t>(args[4])]->val.AsTensor()->scalar_type,
            fb::ScalarType::LONG);
}

TEST(Emit, SymbolicDimsAreDynamicBoundAtTheirUpperBound) {
  ir::ExportedProgram p;
  auto seq = std::make_shared<ir::Symbol>(ir::Symbol{"seq", 1, 8});
  p.range_constraints()["seq"] = seq;
  ir::Node* x = ptec::testing::input(
      p, "x", ir::TensorSpec(DType::Float, ir::Shape{ir::SymInt(seq), ir::SymInt(4)}));
  ptec::testing::output(p, {ptec::testing::call(p, "aten::relu", {x})});
  const EmittedProgram emitted = emit_program(methods(program::to_edge(p)));
  const fb::TensorT* t = emitted.program->execution_plan[0]->values[0]->val.AsTensor();
  EXPECT_EQ(t->shape_dynamism, fb::TensorShapeDynamism::DYNAMIC_BOUND);
  EXPECT_EQ(t->sizes, (std::vector<int32_t>{8, 4}));
  EXPECT_EQ(emitted.program->execution_plan[0]->non_const_buffer_sizes,
            (std::vector<int64_t>{0, 256}));
}

TEST(Emit, MethodsInSortedOrderThenConstantMethods) {
  std::map<std::string, ir::ExportedProgram> m;
  m.emplace("second", add_program());
  m.emplace("first", add_program());
  std::map<std::string, ConstantValue> constants;
  constants["get_vocab_size"] = int64_t{512};
  constants["get_attrs"] = ConstantValue::List{0.5, int64_t{128}, true, "torch.uint8"};
  constants["get_table"] = ptec::testing::float_tensor({2}, {3, 4});
  const EmittedProgram emitted = emit_program(m, {}, constants);
  std::vector<std::string> names;
  for (const auto& plan : emitted.program->execution_plan) names.push_back(plan->name);
  EXPECT_EQ(names, (std::vector<std::string>{"first", "second", "get_attrs", "get_table",
                                             "get_vocab_size"}));
  const fb::ExecutionPlanT& attrs = *emitted.program->execution_plan[2];
  EXPECT_EQ(attrs.outputs, (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(attrs.values[0]->val.AsDouble()->double_val, 0.5);
  EXPECT_EQ(attrs.values[3]->val.AsString()->string_val, "torch.uint8");
  EXPECT_TRUE(attrs.chains[0]->instructions.empty());
  EXPECT_EQ(attrs.non_const_buffer_sizes, (std::vector<int64_t>{0}));
  const fb::TensorT* table = emitted.program->execution_plan[3]->values[0]->val.AsTensor();
  EXPECT_EQ(table->data_buffer_idx, 1u);
  EXPECT_EQ(table->allocation_info, nullptr);

  // The file decodes, with empty (non-null) inputs for the constant methods.
  const auto dir = testing::temp_dir("constant_methods");
  write_pte(emitted, (dir / "m.pte").string());
  const json j = testing::decode(dir / "m.pte");
  EXPECT_EQ(j["execution_plan"][4]["inputs"], json::array());
  EXPECT_EQ(j["execution_plan"][4]["values"][0]["val"]["int_val"], 512);

  constants.clear();
  constants["first"] = int64_t{1};
  EXPECT_THROW(emit_program(m, {}, constants), Exception);
}

TEST(Emit, RefusesAtenProgramsAndNamesTheStage) {
  ir::ExportedProgram p;
  const ir::TensorSpec f1(DType::Float, std::vector<int64_t>{1});
  ir::Node* x = ptec::testing::input(p, "x", f1);
  ptec::testing::output(p, {ptec::testing::call(p, "aten::relu", {x})});
  try {
    emit_program(methods(p));
    FAIL();
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidState);
    EXPECT_NE(std::string(e.what()).find("ATEN"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("forward"), std::string::npos);
  }
}

TEST(Emit, NaivePlanningUsesMoreMemoryThanGreedy) {
  ptec::testing::ConvBnReluAdd model;
  const ir::ExportedProgram edge = program::to_edge(model.program);
  EmitConfig naive;
  naive.memory_planning = MemoryPlanning::Naive;
  const EmittedProgram a = emit_program(methods(edge));
  const EmittedProgram b = emit_program(methods(edge), naive);
  // x, conv, relu, add: 32 bytes each. Greedy: conv and add share (relu is live between).
  EXPECT_EQ(b.program->execution_plan[0]->non_const_buffer_sizes, (std::vector<int64_t>{0, 128}));
  EXPECT_LT(a.program->execution_plan[0]->non_const_buffer_sizes[1], 128);
}

}  // namespace
}  // namespace ptec::emit
