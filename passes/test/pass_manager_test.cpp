#include <gtest/gtest.h>

#include <sstream>

#include "ir/exception.h"
#include "passes/dead_code_elimination.h"
#include "passes/pass_manager.h"
#include "passes/test/test_graphs.h"

namespace ptec::passes {
namespace {

class ThrowingPass final : public Pass {
 public:
  std::string name() const override { return "throwing"; }
  PassResult run(ir::ExportedProgram&) override { raise(Error::InvalidArgument, "bad node"); }
};

TEST(PassManager, RunsPassesInOrderAndPrintsBeforeAndAfter) {
  testing::ConvBnReluAdd model;
  testing::call(model.program, "aten::relu", {&model.program.graph().get("x")}, "unused");
  std::ostringstream dump;
  PassManagerOptions options;
  options.print_ir = &dump;
  PassManager pm(options);
  pm.add(std::make_unique<DeadCodeElimination>());
  EXPECT_EQ(pm.pass_names(), (std::vector<std::string>{"dead_code_elimination"}));
  EXPECT_TRUE(pm.run(model.program).modified);
  const std::string text = dump.str();
  const size_t before = text.find("before dead_code_elimination");
  const size_t after = text.find("after dead_code_elimination");
  ASSERT_NE(before, std::string::npos);
  ASSERT_NE(after, std::string::npos);
  EXPECT_NE(text.substr(before, after - before).find("unused"), std::string::npos);
  EXPECT_EQ(text.substr(after).find("unused"), std::string::npos);
}

TEST(PassManager, ErrorsNameThePass) {
  ir::ExportedProgram p;
  PassManager pm;
  pm.add(std::make_unique<ThrowingPass>());
  try {
    pm.run(p);
    FAIL();
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidArgument);
    EXPECT_EQ(std::string(e.what()), "pass throwing: bad node");
  }
}

}  // namespace
}  // namespace ptec::passes
