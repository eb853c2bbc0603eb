// The verifier reports each kind of defect, naming the node: programs are parsed from text and
// then broken on purpose.

#include "ir/verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/exception.h"
#include "ir/parser.h"

namespace ptec::ir {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kProgram = R"IR(program uuid=000000000000000000000000000000aa stage=ATEN
  symbol batch [1, 8]
  input USER_INPUT x
  input PARAMETER p_w target="w"
  input BUFFER b_stat target="stat"
  output USER_OUTPUT relu
  state_dict "stat" f32[4] bytes=16 hash=0
  state_dict "w" f32[4, 3] bytes=48 hash=0
graph:
  %x : f32[batch, 3] = placeholder() #1
  %p_w : f32[4, 3] = placeholder() #2
  %b_stat : f32[4] = placeholder() #3
  %t_copy : f32[3, 4] = aten::t_copy(%p_w) #4
  %mm : f32[batch, 4] = aten::mm(%x, %t_copy) #5
  %relu : f32[batch, 4] = aten::relu(%mm) #6
  return (%relu) #7
)IR";

class VerifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    program_ = parse(kProgram);
    ASSERT_THAT(verify(program_), ElementsAre());
  }
  Graph& g() { return program_.graph(); }
  Node* n(std::string_view name) { return &g().get(name); }
  std::vector<std::string> problems() { return verify(program_); }

  ExportedProgram program_;
};

TEST_F(VerifierTest, WrongArgumentCount) {
  g().set_args(n("mm"), {n("x")});
  EXPECT_THAT(problems(), ElementsAre("%mm (aten::mm): has 1 arguments, the schema has 2"));
}

TEST_F(VerifierTest, WrongArgumentType) {
  g().set_arg(n("relu"), 0, int64_t{3});
  g().set_arg(n("mm"), 1, ArgumentList{n("t_copy")});
  EXPECT_THAT(problems(),
              ElementsAre("%mm (aten::mm): argument 'mat2': expected Tensor, got a list of 1",
                          "%relu (aten::relu): argument 'self': expected Tensor, got int 3"));
}

TEST_F(VerifierTest, MetaValDisagreesWithTheShapeFunction) {
  n("relu")->meta().val[0].dtype = DType::Long;
  n("mm")->meta().val[0].shape[1] = SymInt(5);
  EXPECT_THAT(
      problems(),
      ElementsAre("%mm (aten::mm): meta.val is f32[batch, 5] but aten::mm computes f32[batch, 4]",
                  // relu's input spec changed too, so relu's computed spec follows it.
                  "%relu (aten::relu): meta.val is i64[batch, 4] but aten::relu computes "
                  "f32[batch, 5]"));
}

TEST_F(VerifierTest, ShapeFunctionFailureIsReported) {
  n("t_copy")->meta().val[0] = TensorSpec(DType::Float, std::vector<int64_t>{7, 4});
  EXPECT_THAT(
      problems(),
      ElementsAre("%t_copy (aten::t_copy): meta.val is f32[7, 4] but aten::t_copy computes "
                  "f32[3, 4]",
                  "%mm (aten::mm): aten::mm: argument 'mat2': f32[7, 4] cannot be multiplied "
                  "with 'self' f32[batch, 3] (inner dimensions 3 and 7)"));
}

TEST_F(VerifierTest, UseBeforeDefinition) {
  g().move_before(n("relu"), n("mm"));
  EXPECT_THAT(problems(), ElementsAre("%relu (aten::relu): uses %mm before it is defined"));
}

TEST_F(VerifierTest, OutputNodeNotLast) {
  g().move_before(g().output_node(), n("relu"));
  EXPECT_THAT(problems(), ElementsAre("%output (output): the output node is not last",
                                      "%output (output): uses %relu before it is defined"));
}

TEST_F(VerifierTest, PlaceholdersFirst) {
  g().move_before(n("t_copy"), n("b_stat"));
  EXPECT_THAT(problems(),
              ElementsAre("%b_stat (placeholder): placeholder after a non-placeholder node "
                          "(placeholders come first)"));
}

TEST_F(VerifierTest, DebugHandlesUniqueAndPositive) {
  n("relu")->set_debug_handle(4);
  n("x")->set_debug_handle(0);
  EXPECT_THAT(problems(),
              ElementsAre("%x (placeholder): debug handle 0 is not positive",
                          "%relu (aten::relu): debug handle 4 is also used by %t_copy"));
}

TEST_F(VerifierTest, MultiOutputNodeUsedByNonGetitem) {
  program_ = parse(R"IR(program uuid=1 stage=ATEN
  input USER_INPUT x
  output USER_OUTPUT relu
graph:
  %x : f32[2, 4] = placeholder() #1
  %ln : (f32[2, 4], f32[2, 1], f32[2, 1]) = aten::native_layer_norm(%x, [4], None, None, 1e-05) #2
  %relu : f32[2, 4] = aten::relu(%ln) #3
  return (%relu) #4
)IR");
  EXPECT_THAT(problems(),
              ElementsAre("%ln (aten::native_layer_norm): multi-output node used by %relu "
                          "(aten::relu); only getitem may use it",
                          "%relu (aten::relu): argument 'self': expected Tensor, got %ln with 3 "
                          "output specs"));
}

TEST_F(VerifierTest, SignatureInputs) {
  std::swap(program_.signature().inputs[0], program_.signature().inputs[1]);
  EXPECT_THAT(
      problems(),
      ElementsAre("%x (placeholder): input spec 0 is for 'p_w' (placeholders and input specs "
                  "must be in the same order)",
                  "%p_w (placeholder): input spec 1 is for 'x' (placeholders and input specs "
                  "must be in the same order)"));
  SetUp();
  program_.signature().inputs.pop_back();
  EXPECT_THAT(problems(), ElementsAre("signature has 2 input specs for 3 placeholders"));
}

TEST_F(VerifierTest, SignatureTargetsAndPayloads) {
  program_.state_dict().erase("w");
  program_.state_dict()["stat"].spec = TensorSpec(DType::Float, std::vector<int64_t>{5});
  EXPECT_THAT(
      problems(),
      ElementsAre("%p_w (placeholder): PARAMETER target 'w' is not in state_dict",
                  "%b_stat (placeholder): placeholder is f32[4] but state_dict 'stat' is f32[5]",
                  "%b_stat (placeholder): state_dict 'stat': tensor f32[5] needs 20 bytes but "
                  "its buffer holds 16"));
}

TEST_F(VerifierTest, SignatureOutputs) {
  program_.signature().outputs[0].name = "mm";
  program_.signature().outputs.push_back({OutputKind::BufferMutation, "relu", "w"});
  EXPECT_THAT(problems(),
              ElementsAre("signature has 2 output specs for 1 returned values",
                          "output spec 0 is for 'mm' but the output node returns %relu"));
  program_.signature().outputs = {{OutputKind::BufferMutation, "relu", "w"}};
  EXPECT_THAT(problems(), ElementsAre("output spec 0 ('relu'): BUFFER_MUTATION target 'w' is not a "
                                      "buffer input"));
  program_.signature().outputs = {{OutputKind::BufferMutation, "relu", "stat"}};
  EXPECT_THAT(problems(), ElementsAre());
}

TEST_F(VerifierTest, RangeConstraints) {
  program_.range_constraints().clear();
  EXPECT_THAT(problems(), ElementsAre("%x (placeholder): symbol 'batch' has no range constraint"));
  program_.range_constraints()["b"] = std::make_shared<Symbol>(Symbol{"batch", 1, 8});
  EXPECT_THAT(problems(), Contains("range constraint 'b' holds symbol 'batch'"));
}

TEST_F(VerifierTest, ReportsAllProblemsAndVerifyOrThrowListsThem) {
  g().set_arg(n("relu"), 0, int64_t{3});
  n("x")->set_debug_handle(-1);
  EXPECT_EQ(problems().size(), 2u);
  try {
    verify_or_throw(program_);
    FAIL() << "no error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidProgram);
    EXPECT_EQ(std::string(e.what()),
              "program 000000000000000000000000000000aa is invalid (2 problems):\n"
              "  %x (placeholder): debug handle -1 is not positive\n"
              "  %relu (aten::relu): argument 'self': expected Tensor, got int 3");
  }
}

TEST(CheckArgument, Types) {
  const OpSchema op = parse_schema(
      "f(Tensor a, Tensor? b, int[] c, Scalar d, float e, str f, ScalarType g, Tensor?[] h, "
      "bool i) -> Tensor");
  EXPECT_EQ(check_argument(op.args[0], Argument()), "expected Tensor, got None");
  EXPECT_EQ(check_argument(op.args[1], Argument()), std::nullopt);
  EXPECT_EQ(check_argument(op.args[2], Argument(std::vector<int64_t>{1, 2})), std::nullopt);
  EXPECT_EQ(check_argument(op.args[2], Argument(int64_t{1})), "expected int[], got int 1");
  EXPECT_EQ(check_argument(op.args[2], Argument(ArgumentList{int64_t{1}, true})),
            "item 1 of int[]: expected int, got bool True");
  EXPECT_EQ(check_argument(op.args[3], Argument(2.5)), std::nullopt);
  EXPECT_EQ(check_argument(op.args[3], Argument("x")), "expected Scalar, got str \"x\"");
  EXPECT_EQ(check_argument(op.args[4], Argument(int64_t{1})), std::nullopt);
  EXPECT_EQ(check_argument(op.args[5], Argument(int64_t{1})), "expected str, got int 1");
  EXPECT_EQ(check_argument(op.args[6], Argument(DType::Half)), std::nullopt);
  EXPECT_EQ(check_argument(op.args[7], Argument(ArgumentList{Argument()})), std::nullopt);
  EXPECT_EQ(check_argument(op.args[8], Argument(int64_t{1})), "expected bool, got int 1");
}

}  // namespace
}  // namespace ptec::ir
