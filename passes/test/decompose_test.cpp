#include <gtest/gtest.h>

#include "ir/exception.h"
#include "passes/decompose.h"
#include "passes/pass_manager.h"
#include "passes/test/test_graphs.h"

namespace ptec::passes {
namespace {

using testing::calls;

// Ops that are not core ATen ops: the registry does not hold them, a frontend might.
const ir::OpSchema& linear_op() {
  static const ir::OpSchema op = [] {
    ir::OpSchema s =
        ir::parse_schema("aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor");
    s.shape_fn = [](const ir::OpSchema&, const ir::ArgumentList& args) {
      ir::TensorSpec out = args[0].as_node()->spec();
      out.shape.back() = args[1].as_node()->spec().shape[0];
      return std::vector<ir::TensorSpec>{out};
    };
    return s;
  }();
  return op;
}
const ir::OpSchema& hardswish_op() {
  static const ir::OpSchema op = [] {
    ir::OpSchema s = ir::parse_schema("aten::hardswish(Tensor self) -> Tensor");
    s.shape_fn = [](const ir::OpSchema&, const ir::ArgumentList& args) {
      return std::vector<ir::TensorSpec>{args[0].as_node()->spec()};
    };
    return s;
  }();
  return op;
}
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

TEST(Decompose, LinearAndHardswishBecomeCoreOps) {
  ir::ExportedProgram p;
  ir::Node* w = testing::param(p, "w", testing::float_tensor({3, 4}, std::vector<float>(12, 1)));
  ir::Node* b = testing::param(p, "b", testing::float_tensor({3}, {1, 2, 3}));
  ir::Node* x = testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{2, 5, 4}));
  ir::Node* lin = insert_call(p.graph(), linear_op(), {x, w, b}, nullptr, nullptr, "fc");
  ir::Node* hs = insert_call(p.graph(), hardswish_op(), {lin}, nullptr, nullptr, "act");
  testing::output(p, {hs});
  const int64_t fc_handle = lin->debug_handle();

  EXPECT_TRUE(Decompose().run(p).modified);
  EXPECT_EQ(calls(p),
            (std::vector<std::string>{
                "permute_copy(aten::permute_copy)", "view_copy(aten::view_copy)",
                "addmm(aten::addmm)", "view_copy_1(aten::view_copy)", "add(aten::add.Scalar)",
                "clamp(aten::clamp)", "mul(aten::mul.Tensor)", "div(aten::div.Scalar)"}));
  const ir::Node& out = *p.graph().outputs()[0];
  EXPECT_EQ(out.name(), "div");
  EXPECT_EQ(p.signature().outputs[0].name, "div");
  EXPECT_EQ(out.spec().upper_bound_sizes(), (std::vector<int64_t>{2, 5, 3}));
  EXPECT_EQ(p.graph().get("addmm").meta().extra.at("from_node"), "fc");
  EXPECT_NE(p.graph().get("addmm").debug_handle(), fc_handle);
  EXPECT_EQ(p.graph().get("view_copy").arg(1).to_int_vector(), (std::vector<int64_t>{10, 4}));
  verify_program(p);
}

TEST(Decompose, PreservedOpsStay) {
  ir::ExportedProgram p;
  ir::Node* x = testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{4}));
  ir::Node* hs = insert_call(p.graph(), hardswish_op(), {x}, nullptr, nullptr, "act");
  testing::output(p, {hs});
  EXPECT_FALSE(Decompose({"aten::hardswish"}).run(p).modified);
  EXPECT_EQ(calls(p), (std::vector<std::string>{"act(aten::hardswish)"}));
}

TEST(Decompose, OpWithoutOutVariantOrDecompositionIsAnError) {
  ir::ExportedProgram p;
  ir::Node* x = testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{4}));
  ir::Node* m = insert_call(p.graph(), mystery_op(), {x}, nullptr, nullptr, "strange");
  testing::output(p, {m});
  try {
    Decompose().run(p);
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidProgram);
    EXPECT_NE(std::string(e.what()).find("%strange"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("aten::mystery"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ptec::passes
