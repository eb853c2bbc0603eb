// EdgeProgramManager: stages, provenance, value semantics, transform and sharing.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/exception.h"
#include "ir/printer.h"
#include "passes/dead_code_elimination.h"
#include "program/edge_program_manager.h"
#include "program/to_edge.h"
#include "tests/delegate/test_models.h"

namespace ptec::test {
namespace {

using program::EdgeProgramManager;
using program::PassList;
using ::testing::HasSubstr;

/// Marks every call node with meta.extra["seen"] (modifies the program).
class MarkPass final : public passes::Pass {
 public:
  std::string name() const override { return "mark"; }
  passes::PassResult run(ir::ExportedProgram& program) override {
    for (ir::Node* node : program.graph().nodes()) {
      if (node->is_call()) node->meta().extra["seen"] = "1";
    }
    ++runs;
    return {true};
  }
  int runs = 0;
};

/// Changes the program, then fails.
class FailingPass final : public passes::Pass {
 public:
  std::string name() const override { return "failing"; }
  passes::PassResult run(ir::ExportedProgram& program) override {
    for (ir::Node* node : program.graph().nodes()) node->meta().extra["broken"] = "1";
    raise(Error::InvalidProgram, "failing pass gives up");
  }
};

EdgeProgramManager two_methods() {
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("alpha", two_mul_program(1.0f));
  programs.emplace("beta", two_mul_program(2.0f));
  program::ToEdgeOptions options;
  options.constant_methods["max_seq_len"] = int64_t{128};
  return program::to_edge(programs, options);
}

TEST(EdgeProgramManagerTest, MethodsConfigMethodsAndLookup) {
  const EdgeProgramManager m = two_methods();
  EXPECT_EQ(m.methods(), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(m.config_methods(), (std::vector<std::string>{"max_seq_len"}));
  EXPECT_EQ(m.exported_program("alpha").stage(), ir::Stage::Edge);
  try {
    (void)m.exported_program();
    FAIL() << "forward does not exist";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::NotFound);
    EXPECT_THAT(e.what(), HasSubstr("no method 'forward' (methods: alpha, beta)"));
  }
}

TEST(EdgeProgramManagerTest, SingleProgramIsForwardAndOldToEdgeStillWorks) {
  const EdgeProgramManager m = program::to_edge(two_mul_program(), program::ToEdgeOptions{});
  EXPECT_EQ(m.methods(), (std::vector<std::string>{"forward"}));
  const ir::ExportedProgram edge = program::to_edge(two_mul_program());
  EXPECT_EQ(edge.stage(), ir::Stage::Edge);
  EXPECT_EQ(ir::print(edge.graph()), ir::print(m.exported_program().graph()));
}

TEST(EdgeProgramManagerTest, ProvenanceRecordsEachStep) {
  const EdgeProgramManager m = two_methods();
  const auto& steps = m.exported_program("alpha").provenance();
  ASSERT_GE(steps.size(), 2u);
  EXPECT_EQ(steps.front().stage, "import");
  EXPECT_EQ(steps.back().stage, "to_edge");
  EXPECT_THAT(steps.back().detail, HasSubstr("check_ir_validity=true"));
  auto pass = std::make_shared<MarkPass>();
  const EdgeProgramManager t = m.transform(PassList{pass});
  EXPECT_EQ(t.exported_program("alpha").provenance().back().stage, "transform");
  EXPECT_THAT(t.exported_program("alpha").provenance().back().detail, HasSubstr("mark"));
}

TEST(EdgeProgramManagerTest, StageAlreadyPassedIsAnErrorNamingBothStages) {
  const EdgeProgramManager m = two_methods();
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("alpha", m.exported_program("alpha"));
  try {
    (void)program::to_edge(programs, program::ToEdgeOptions{});
    FAIL() << "to_edge on an EDGE program must fail";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidState);
    EXPECT_THAT(e.what(), HasSubstr("method 'alpha' is at stage EDGE"));
    EXPECT_THAT(e.what(), HasSubstr("stage ATEN"));
  }
  // An ATEN program cannot be held by an edge manager.
  std::map<std::string, program::ProgramPtr> aten;
  aten["forward"] = std::make_shared<const ir::ExportedProgram>(two_mul_program());
  try {
    EdgeProgramManager bad(aten);
    FAIL();
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("stage ATEN"));
    EXPECT_THAT(e.what(), HasSubstr("EDGE"));
  }
  // to_executorch output is at stage EXECUTORCH and cannot go back to an edge manager.
  const auto et = m.to_executorch();
  EXPECT_EQ(et.exported_program("alpha").stage(), ir::Stage::Executorch);
  std::map<std::string, program::ProgramPtr> done;
  done["alpha"] = std::make_shared<const ir::ExportedProgram>(et.exported_program("alpha"));
  EXPECT_THROW(EdgeProgramManager{done}, Exception);
}

TEST(EdgeProgramManagerTest, ConstantMethodNamesAreChecked) {
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("forward", two_mul_program());
  program::ToEdgeOptions options;
  options.constant_methods["forward"] = int64_t{1};
  EXPECT_THROW((void)program::to_edge(programs, options), Exception);
  options.constant_methods.clear();
  options.constant_methods["not an identifier"] = int64_t{1};
  try {
    (void)program::to_edge(programs, options);
    FAIL();
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("'not an identifier' is not a valid identifier"));
  }
}

TEST(EdgeProgramManagerTest, TransformOfOneMethodLeavesTheOtherPointerIdentical) {
  const EdgeProgramManager m = two_methods();
  auto pass = std::make_shared<MarkPass>();
  const EdgeProgramManager t = m.transform({{"alpha", PassList{pass}}});
  EXPECT_EQ(pass->runs, 1);
  // beta: the same program object (graph identity and payload identity follow).
  EXPECT_EQ(t.exported_program_ptr("beta"), m.exported_program_ptr("beta"));
  EXPECT_EQ(&t.exported_program("beta").graph(), &m.exported_program("beta").graph());
  // alpha: a new program with a new graph that shares the weight payloads.
  EXPECT_NE(t.exported_program_ptr("alpha"), m.exported_program_ptr("alpha"));
  EXPECT_NE(&t.exported_program("alpha").graph(), &m.exported_program("alpha").graph());
  EXPECT_EQ(t.exported_program("alpha").state_dict().at("w").data,
            m.exported_program("alpha").state_dict().at("w").data);
  // The old manager is unchanged.
  for (const ir::Node* node : m.exported_program("alpha").graph().nodes()) {
    EXPECT_EQ(node->meta().extra.count("seen"), 0u) << node->name();
  }
  bool marked = false;
  for (const ir::Node* node : t.exported_program("alpha").graph().nodes()) {
    marked |= node->meta().extra.count("seen") != 0;
  }
  EXPECT_TRUE(marked);
  EXPECT_EQ(t.config_methods(), m.config_methods());
}

TEST(EdgeProgramManagerTest, EmptyMapTransformIsANoOp) {
  const EdgeProgramManager m = two_methods();
  const EdgeProgramManager t = m.transform({});
  for (const std::string& name : m.methods()) {
    EXPECT_EQ(t.exported_program_ptr(name), m.exported_program_ptr(name)) << name;
  }
  const EdgeProgramManager u = m.transform({{"alpha", PassList{}}});
  EXPECT_EQ(u.exported_program_ptr("alpha"), m.exported_program_ptr("alpha"));
}

TEST(EdgeProgramManagerTest, TransformAllMethodsAndUnknownMethod) {
  const EdgeProgramManager m = two_methods();
  auto pass = std::make_shared<MarkPass>();
  const EdgeProgramManager t = m.transform(PassList{pass});
  EXPECT_EQ(pass->runs, 2);
  EXPECT_NE(t.exported_program_ptr("beta"), m.exported_program_ptr("beta"));
  try {
    (void)m.transform({{"gamma", PassList{pass}}});
    FAIL();
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::NotFound);
    EXPECT_THAT(e.what(), HasSubstr("no method 'gamma' (methods: alpha, beta)"));
  }
}

TEST(EdgeProgramManagerTest, FailingPassLeavesTheManagerUnchanged) {
  const EdgeProgramManager m = two_methods();
  const program::ProgramPtr alpha = m.exported_program_ptr("alpha");
  const std::string before = ir::print(*alpha);
  try {
    (void)m.transform({{"alpha", PassList{std::make_shared<FailingPass>()}}});
    FAIL() << "the pass throws";
  } catch (const Exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("method 'alpha'"));
    EXPECT_THAT(e.what(), HasSubstr("failing pass gives up"));
  }
  EXPECT_EQ(m.exported_program_ptr("alpha"), alpha);
  EXPECT_EQ(ir::print(m.exported_program("alpha")), before);
  for (const ir::Node* node : alpha->graph().nodes()) {
    EXPECT_EQ(node->meta().extra.count("broken"), 0u);
  }
}

}  // namespace
}  // namespace ptec::test
