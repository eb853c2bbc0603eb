#include <gtest/gtest.h>

#include "ir/exception.h"
#include "passes/rewrite_utils.h"
#include "passes/test/test_graphs.h"
#include "program/to_edge.h"

namespace ptec::program {
namespace {

using testing::calls;

const ir::OpSchema& mystery_op() {
  static const ir::OpSchema op = [] {
    ir::OpSchema s = ir::parse_schema("aten::mystery(Tensor self) -> Tensor");
    s.shape_fn = [](const ir::OpSchema&, const ir::ArgumentList& args) {
      return std::vector<ir::TensorSpec>{args[0].as_node()->spec()};
    };
    return s;
  }();
  return op;
}

TEST(ToEdge, FoldsDecomposesAndSetsTheStage) {
  testing::ConvBnReluAdd model;
  const ir::ExportedProgram& aten = model.program;
  const ir::ExportedProgram edge = to_edge(aten);
  EXPECT_EQ(edge.stage(), ir::Stage::Edge);
  EXPECT_EQ(calls(edge), (std::vector<std::string>{"convolution(aten::convolution)",
                                                   "relu(aten::relu)", "add(aten::add.Tensor)"}));
  ASSERT_FALSE(edge.provenance().empty());
  EXPECT_EQ(edge.provenance().back().stage, "to_edge");
  EXPECT_NE(edge.provenance().back().detail.find("check_ir_validity=true"), std::string::npos);
  EXPECT_EQ(edge.uuid(), aten.uuid());
  // The input is untouched.
  EXPECT_EQ(aten.stage(), ir::Stage::Aten);
  EXPECT_EQ(calls(aten).size(), 5u);
  EXPECT_EQ(aten.state_dict().size(), 6u);
}

TEST(ToEdge, RefusesAProgramThatIsAlreadyAtEdge) {
  testing::ConvBnReluAdd model;
  const ir::ExportedProgram edge = to_edge(model.program);
  try {
    to_edge(edge);
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidState);
    EXPECT_NE(std::string(e.what()).find("EDGE"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ATEN"), std::string::npos) << e.what();
  }
}

TEST(ToEdge, NonCoreOpIsAnErrorUnlessPreserved) {
  ir::ExportedProgram p;
  ir::Node* x = testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{4}));
  ir::Node* m = passes::insert_call(p.graph(), mystery_op(), {x}, nullptr, nullptr, "odd");
  testing::output(p, {m});
  try {
    to_edge(p);
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidProgram);
    EXPECT_NE(std::string(e.what()).find("%odd"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("aten::mystery"), std::string::npos) << e.what();
  }
  EdgeCompileConfig config;
  config.preserve_ops = {"aten::mystery"};
  const ir::ExportedProgram edge = to_edge(p, config);
  EXPECT_EQ(calls(edge), (std::vector<std::string>{"odd(aten::mystery)"}));
  EXPECT_NE(edge.provenance().back().detail.find("aten::mystery"), std::string::npos);
}

}  // namespace
}  // namespace ptec::program
