// Partitioners, to_backend and the nested-program test backend, end to end through ptec's runtime.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "ir/exception.h"
#include "ir/op_schema.h"
#include "partition/backend.h"
#include "partition/lowered_module.h"
#include "partition/to_backend.h"
#include "program/edge_program_manager.h"
#include "program/to_edge.h"
#include "program/to_edge_transform_and_lower.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"
#include "tests/delegate/nested_backend.h"
#include "tests/delegate/test_models.h"

namespace ptec::test {
namespace {

using program::EdgeProgramManager;
using program::PartitionerList;
using ::testing::HasSubstr;

const std::vector<float> kX = {1.0f, 2.0f, -3.0f, 0.5f, -1.0f, 2.0f};

/// Runs `method` of the .pte in `bytes` on kX and returns the output.
std::vector<float> run(const std::vector<uint8_t>& bytes, const std::string& method = "forward") {
  // Module needs a 16-byte-aligned buffer that outlives it.
  std::unique_ptr<uint8_t[]> aligned(new (std::align_val_t(64)) uint8_t[bytes.size()]);
  std::memcpy(aligned.get(), bytes.data(), bytes.size());
  runtime::Module module(aligned.get(), bytes.size());
  auto input = runtime::OwnedTensor::from(DType::Float, {2, 3}, kX);
  auto out = module.execute(method, {input.evalue()});
  EXPECT_TRUE(out.ok()) << to_string(out.error());
  if (!out.ok()) return {};
  const runtime::Tensor& t = (*out)[0].to_tensor();
  std::vector<float> values(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
  ::operator delete[](aligned.release(), std::align_val_t(64));
  return values;
}

std::shared_ptr<OpSetPartitioner> mul_partitioner() {
  return std::make_shared<OpSetPartitioner>(std::set<std::string>{"aten::mul.Tensor"});
}

size_t count_calls(const ir::ExportedProgram& p, const std::string& target) {
  size_t n = 0;
  for (const ir::Node* node : p.graph().nodes()) n += node->is_call() && node->target() == target;
  return n;
}

/// A partitioner with explicit tags and an optional mischief hook.
class TagPartitioner final : public partition::Partitioner {
 public:
  std::string name() const override { return "tag_partitioner"; }
  partition::PartitionResult partition(const ir::ExportedProgram& program,
                                       const partition::PartitionContext&) const override {
    if (hook) hook(const_cast<ir::ExportedProgram&>(program));
    return result;
  }
  partition::PartitionResult result;
  std::function<void(ir::ExportedProgram&)> hook;
};

/// aten::linear is not in the op registry (frontends decompose it); to_edge's Decompose does.
const ir::OpSchema& linear_op() {
  static const ir::OpSchema op =
      ir::parse_schema("aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor");
  return op;
}

partition::DelegationSpec nested_spec() { return {kNestedBackendId, {}}; }

class ToBackendTest : public ::testing::Test {
 protected:
  void SetUp() override { runtime_ = &register_nested_backend(); }
  NestedProgramRuntime* runtime_ = nullptr;
};

TEST_F(ToBackendTest, TwoPartitionsInOneMethodRunThroughTheNestedProgram) {
  const EdgeProgramManager edge = program::to_edge(two_mul_program(), program::ToEdgeOptions{});
  const EdgeProgramManager lowered = edge.to_backend(PartitionerList{mul_partitioner()});
  const ir::ExportedProgram& p = lowered.exported_program();
  EXPECT_EQ(p.stage(), ir::Stage::Lowered);
  EXPECT_EQ(p.provenance().back().stage, "to_backend");
  EXPECT_THAT(p.provenance().back().detail, HasSubstr("partitions=2"));
  EXPECT_THAT(p.provenance().back().detail, HasSubstr(kNestedBackendId));
  EXPECT_EQ(count_calls(p, "executorch_call_delegate"), 2u);
  EXPECT_EQ(count_calls(p, "aten::mul.Tensor"), 0u);
  EXPECT_EQ(count_calls(p, "aten::relu"), 1u);
  EXPECT_EQ(count_calls(p, "getitem"), 2u);
  const partition::LoweredModule m0 = partition::load_lowered_module(p, "lowered_module_0");
  EXPECT_EQ(m0.backend_id, kNestedBackendId);
  ASSERT_EQ(m0.compile_specs.size(), 1u);
  EXPECT_EQ(m0.compile_specs[0].key, "method_name");
  EXPECT_EQ(m0.debug_handles.size(), 1u);
  (void)partition::load_lowered_module(p, "lowered_module_1");
  // The edge manager is unchanged.
  EXPECT_EQ(count_calls(edge.exported_program(), "aten::mul.Tensor"), 2u);

  const int executes = runtime_->executes;
  const auto et = lowered.to_executorch();
  EXPECT_EQ(run(et.buffer()), two_mul_reference(kX));
  EXPECT_EQ(runtime_->executes, executes + 2);
  // Same numbers as the program run on portable kernels alone.
  EXPECT_EQ(run(edge.to_executorch().buffer()), two_mul_reference(kX));
}

TEST_F(ToBackendTest, TaggedParametersMoveIntoThePartition) {
  auto partitioner = mul_partitioner();
  partitioner->tag_parameters = true;
  const EdgeProgramManager lowered = program::to_edge(two_mul_program(), program::ToEdgeOptions{})
                                         .to_backend(PartitionerList{partitioner});
  const ir::ExportedProgram& p = lowered.exported_program();
  EXPECT_EQ(p.state_dict().count("w"), 0u);
  EXPECT_EQ(p.graph().find("p_w"), nullptr);
  EXPECT_EQ(p.signature().find_input("p_w"), nullptr);
  EXPECT_EQ(run(lowered.to_executorch().buffer()), two_mul_reference(kX));
}

TEST_F(ToBackendTest, PerMethodMapLowersOnlyTheNamedMethods) {
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("alpha", two_mul_program(1.0f));
  programs.emplace("beta", two_mul_program(2.0f));
  const EdgeProgramManager edge = program::to_edge(programs, program::ToEdgeOptions{});
  const EdgeProgramManager lowered =
      edge.to_backend({{"beta", PartitionerList{mul_partitioner()}}});
  EXPECT_EQ(lowered.exported_program_ptr("alpha"), edge.exported_program_ptr("alpha"));
  EXPECT_EQ(lowered.exported_program("alpha").stage(), ir::Stage::Edge);
  EXPECT_EQ(count_calls(lowered.exported_program("alpha"), "executorch_call_delegate"), 0u);
  EXPECT_EQ(count_calls(lowered.exported_program("beta"), "executorch_call_delegate"), 2u);
  const auto bytes = lowered.to_executorch().buffer();
  EXPECT_EQ(run(bytes, "alpha"), two_mul_reference(kX, 1.0f));
  EXPECT_EQ(run(bytes, "beta"), two_mul_reference(kX, 2.0f));
  // An empty map lowers nothing.
  const EdgeProgramManager none = edge.to_backend({});
  EXPECT_EQ(none.exported_program_ptr("beta"), edge.exported_program_ptr("beta"));
}

TEST_F(ToBackendTest, SharedPartitionerInstanceIsToldTheMethodName) {
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("decode", two_mul_program(1.0f));
  programs.emplace("prefill", two_mul_program(2.0f));
  auto shared = mul_partitioner();
  const EdgeProgramManager lowered =
      program::to_edge(programs, program::ToEdgeOptions{}).to_backend(PartitionerList{shared});
  EXPECT_EQ(shared->seen_methods, (std::vector<std::string>{"decode", "prefill"}));
  for (const char* method : {"decode", "prefill"}) {
    const auto module =
        partition::load_lowered_module(lowered.exported_program(method), "lowered_module_0");
    ASSERT_EQ(module.compile_specs.size(), 1u);
    EXPECT_EQ(
        std::string(module.compile_specs[0].value.begin(), module.compile_specs[0].value.end()),
        method);
  }
  // The runtime half checks compile spec method_name against the method it initializes.
  const auto bytes = lowered.to_executorch().buffer();
  runtime_->init_methods.clear();
  EXPECT_EQ(run(bytes, "decode"), two_mul_reference(kX, 1.0f));
  EXPECT_EQ(run(bytes, "prefill"), two_mul_reference(kX, 2.0f));
  EXPECT_EQ(runtime_->init_methods,
            (std::vector<std::string>{"decode", "decode", "prefill", "prefill"}));
}

TEST_F(ToBackendTest, MisnamedPartitionerIsRejected) {
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("decode", two_mul_program());
  auto misnamed = mul_partitioner();
  misnamed->fixed_method_name = "prefill";
  const EdgeProgramManager edge = program::to_edge(programs, program::ToEdgeOptions{});
  try {
    (void)edge.to_backend(PartitionerList{misnamed});
    FAIL() << "a partitioner naming another method must be rejected";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("method_name='prefill'"));
    EXPECT_THAT(e.what(), HasSubstr("partitioning method 'decode'"));
  }
}

TEST_F(ToBackendTest, UndelegatedPreservedOpIsAnError) {
  // The partitioner asks to keep aten::linear (which to_edge decomposes) but does not claim it.
  builder::GraphBuilder b("linear");
  builder::Value x = b.input("x", DType::Float, {2, 3});
  builder::Value w = b.parameter("w", float_tensor({4, 3}, std::vector<float>(12, 0.5f)));
  ir::Node* fc = b.program().graph().add_call(linear_op(), {x.node(), w.node(), nullptr}, "fc");
  fc->meta().val = {ir::TensorSpec(DType::Float, std::vector<int64_t>{2, 4})};
  b.output({builder::Value(fc)});
  const ir::ExportedProgram aten = b.build();
  auto partitioner = mul_partitioner();
  partitioner->keep_ops = {"aten::linear"};
  program::TransformAndLowerOptions options;
  options.partitioners = PartitionerList{partitioner};
  try {
    (void)program::to_edge_transform_and_lower(aten, options);
    FAIL() << "aten::linear is kept and left undelegated";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidProgram);
    EXPECT_THAT(e.what(), HasSubstr("node %fc (aten::linear)"));
  }
  // A partitioner that claims it: the kept op is delegated whole, and the result runs.
  auto claiming = std::make_shared<OpSetPartitioner>(std::set<std::string>{"aten::linear"});
  claiming->keep_ops = {"aten::linear"};
  options.partitioners = PartitionerList{claiming};
  const EdgeProgramManager lowered = program::to_edge_transform_and_lower(aten, options);
  EXPECT_EQ(count_calls(lowered.exported_program(), "executorch_call_delegate"), 1u);
  // Without keeping it, linear is decomposed and the op set partitioner finds nothing.
  claiming->keep_ops.clear();
  const EdgeProgramManager decomposed = program::to_edge_transform_and_lower(aten, options);
  EXPECT_EQ(count_calls(decomposed.exported_program(), "executorch_call_delegate"), 0u);
  EXPECT_EQ(count_calls(decomposed.exported_program(), "aten::linear"), 0u);
}

TEST_F(ToBackendTest, TransformAndLowerWithPerMethodPartitionersAndPasses) {
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("alpha", two_mul_program(1.0f));
  programs.emplace("beta", two_mul_program(2.0f));
  program::TransformAndLowerOptions options;
  options.partitioners = program::MethodPartitioners{{"alpha", {mul_partitioner()}}};
  options.constant_methods["answer"] = int64_t{42};
  const EdgeProgramManager m = program::to_edge_transform_and_lower(programs, options);
  EXPECT_EQ(count_calls(m.exported_program("alpha"), "executorch_call_delegate"), 2u);
  EXPECT_EQ(count_calls(m.exported_program("beta"), "executorch_call_delegate"), 0u);
  EXPECT_EQ(m.config_methods(), (std::vector<std::string>{"answer"}));
  // Already at EDGE: refused, naming both stages.
  std::map<std::string, ir::ExportedProgram> edge;
  edge.emplace("alpha", m.exported_program("alpha"));
  try {
    (void)program::to_edge_transform_and_lower(edge, {});
    FAIL();
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("at stage LOWERED"));
    EXPECT_THAT(e.what(), HasSubstr("stage ATEN"));
  }
}

ir::ExportedProgram edge_two_mul() { return program::to_edge(two_mul_program()); }

void expect_to_backend_error(const ir::ExportedProgram& edge, const TagPartitioner& partitioner,
                             const std::string& message) {
  try {
    (void)partition::to_backend(edge, partitioner, {"forward"});
    FAIL() << "expected: " << message;
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr(message));
  }
}

TEST_F(ToBackendTest, OutputNodeIsNeverTagged) {
  const ir::ExportedProgram edge = edge_two_mul();
  TagPartitioner p;
  p.result.partition_tags["t"] = nested_spec();
  p.result.node_tags[edge.graph().output_node()->name()] = "t";
  expect_to_backend_error(edge, p, "the output node");
}

TEST_F(ToBackendTest, TaggedParameterUsedOutsideItsPartitionIsAnError) {
  const ir::ExportedProgram edge = edge_two_mul();
  TagPartitioner p;
  p.result.partition_tags["t"] = nested_spec();
  p.result.node_tags["p_w"] = "t";  // used by %a, which is not tagged
  expect_to_backend_error(edge, p, "tagged parameter %p_w (tag 't') is used by %a outside");
}

TEST_F(ToBackendTest, PartitionerMayNotChangeTheGraph) {
  const ir::ExportedProgram edge = edge_two_mul();
  TagPartitioner p;
  p.hook = [](ir::ExportedProgram& program) {
    program.graph().add_call(ir::get_op("aten::relu"), {program.graph().find("a")}, "sneaky");
  };
  expect_to_backend_error(edge, p, "partitioner tag_partitioner changed the graph");
}

TEST_F(ToBackendTest, NonConvexPartitionIsAnError) {
  builder::GraphBuilder b("diamond");
  builder::Value x = b.input("x", DType::Float, {2, 3});
  builder::Value a = b.call("aten::mul.Tensor", {x, x}, {}, "a");
  builder::Value r = b.call("aten::relu", {a}, {}, "r");
  builder::Value c = b.call("aten::add.Tensor", {a, r}, {}, "c");
  b.output({c});
  const ir::ExportedProgram edge = program::to_edge(b.build());
  TagPartitioner p;
  p.result.partition_tags["t"] = nested_spec();
  p.result.node_tags = {{"a", "t"}, {"c", "t"}};
  expect_to_backend_error(edge, p, "partition 't' is not convex: %r depends on the partition");
}

TEST_F(ToBackendTest, UnregisteredBackendAndMissingSpec) {
  const ir::ExportedProgram edge = edge_two_mul();
  TagPartitioner p;
  p.result.partition_tags["t"] = {"NoSuchBackend", {}};
  p.result.node_tags = {{"a", "t"}};
  expect_to_backend_error(edge, p, "Backend NoSuchBackend is not registered (registered: ");
  p.result.partition_tags.clear();
  expect_to_backend_error(edge, p, "has tag 't', which has no DelegationSpec");
}

TEST_F(ToBackendTest, StageChecks) {
  TagPartitioner p;
  try {
    (void)partition::to_backend(two_mul_program(), p, {"forward"});
    FAIL();
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("at stage ATEN"));
    EXPECT_THAT(e.what(), HasSubstr("stage EDGE or LOWERED"));
  }
}

}  // namespace
}  // namespace ptec::test
