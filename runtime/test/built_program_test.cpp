// Hand-built programs (flatc JSON): control flow, moves, frees, every value kind, dynamic
// shapes, mutable segments, and the load-time checks on malformed values and instructions.

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/portable/register.h"
#include "runtime/executor/program.h"
#include "runtime/extension/owned_tensor.h"
#include "runtime/loader/buffer_data_loader.h"
#include "runtime/test/test_util.h"

namespace ptec::runtime {
namespace {

using testing::AlignedBytes;
using testing::int_json;
using testing::LogCapture;
using testing::tensor_json;
using testing::TestMemory;

// A program built from JSON, loaded, with one method "forward" ready to load.
class Built {
 public:
  explicit Built(const std::string& json, const std::vector<std::vector<uint8_t>>& segments = {})
      : bytes_(testing::pte_from_json(json, segments)), loader_(bytes_.data(), bytes_.size()) {
    Result<Program> program = Program::load(&loader_);
    load_error_ = program.error();
    if (program.ok()) program_ = std::make_unique<Program>(std::move(program.get()));
  }
  Error load_error() const { return load_error_; }
  Program* program() const { return program_.get(); }

  /// Loads "forward"; keeps the memory alive with the method.
  Result<Method*> method(const char* name = "forward") {
    if (program_ == nullptr) return load_error_;
    Result<MethodMeta> meta = program_->method_meta(name);
    if (!meta.ok()) return meta.error();
    memory_ = std::make_unique<TestMemory>(meta.get());
    Result<Method> m = program_->load_method(name, memory_->manager());
    if (!m.ok()) return m.error();
    method_ = std::make_unique<Method>(std::move(m.get()));
    return method_.get();
  }

 private:
  AlignedBytes bytes_;
  BufferDataLoader loader_;
  Error load_error_ = Error::Ok;
  std::unique_ptr<Program> program_;
  std::unique_ptr<TestMemory> memory_;
  std::unique_ptr<Method> method_;
};

std::string plan_json(
    const std::string& values, const std::string& inputs, const std::string& outputs,
    const std::string& instructions,
    const std::string& operators = R"([{"name": "aten::add", "overload": "out"}])",
    const std::string& sizes = "[0, 256]") {
  return R"({"execution_plan": [{"name": "forward", "values": [)" + values + R"(], "inputs": )" +
         inputs + R"(, "outputs": )" + outputs + R"(, "chains": [{"instructions": [)" +
         instructions + R"(]}], "operators": )" + operators +
         R"(, "delegates": [], "non_const_buffer_sizes": )" + sizes +
         R"(}], "constant_segment": {"offsets": [0]}})";
}

std::string kernel(int op, const std::string& args) {
  return R"({"instr_args_type": "KernelCall", "instr_args": {"op_index": )" + std::to_string(op) +
         R"(, "args": )" + args + "}}";
}

class BuiltProgramTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(kernels::register_portable_kernels(), Error::Ok); }
};

std::vector<float> output_floats(Method* m, size_t i = 0) {
  return tensor_values<float>(m->get_output(i)->to_tensor());
}

// y = 2x; if cond: y = y + x.
std::string jump_program(const std::string& cond_value) {
  return plan_json(tensor_json("FLOAT", {2}, 1, 0) + ", " + tensor_json("FLOAT", {2}, 1, 16) +
                       ", " + int_json(1) + ", " + cond_value,
                   "[0, 3]", "[1]",
                   kernel(0, "[0, 0, 2, 1, 1]") +
                       R"(, {"instr_args_type": "JumpFalseCall", "instr_args":
                             {"cond_value_index": 3, "destination_instruction": 3}}, )" +
                       kernel(0, "[1, 0, 2, 1, 1]"));
}

TEST_F(BuiltProgramTest, JumpFalseOnBoolTensorCondition) {
  Built built(jump_program(tensor_json("BOOL", {2}, 1, 32)));
  Result<Method*> m = built.method();
  ASSERT_TRUE(m.ok());
  OwnedTensor x = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
  ASSERT_EQ((*m)->set_input(x.evalue(), 0), Error::Ok);
  OwnedTensor all_true = OwnedTensor::full(DType::Bool, {2}, 1);
  ASSERT_EQ((*m)->set_input(all_true.evalue(), 1), Error::Ok);
  ASSERT_EQ((*m)->execute(), Error::Ok);
  EXPECT_EQ(output_floats(*m), std::vector<float>({3, 6}));  // no jump
  OwnedTensor one_false = OwnedTensor::from<uint8_t>(DType::Bool, {2}, {1, 0});
  ASSERT_EQ((*m)->set_input(one_false.evalue(), 1), Error::Ok);
  ASSERT_EQ((*m)->execute(), Error::Ok);
  EXPECT_EQ(output_floats(*m), std::vector<float>({2, 4}));  // jumped past the second add
}

TEST_F(BuiltProgramTest, JumpFalseOnBoolValueAndBadCondition) {
  for (bool cond : {true, false}) {
    Built built(jump_program(std::string(R"({"val_type": "Bool", "val": {"bool_val": )") +
                             (cond ? "true" : "false") + "}}"));
    Result<Method*> m = built.method();
    ASSERT_TRUE(m.ok());
    OwnedTensor x = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
    ASSERT_EQ((*m)->set_input(x.evalue(), 0), Error::Ok);
    EXPECT_EQ((*m)->set_input(EValue(!cond), 1), Error::InvalidArgument);
    ASSERT_EQ((*m)->set_input(EValue(cond), 1), Error::Ok);
    ASSERT_EQ((*m)->execute(), Error::Ok);
    EXPECT_EQ(output_floats(*m), cond ? std::vector<float>({3, 6}) : std::vector<float>({2, 4}));
  }
  Built bad(jump_program(int_json(1)));
  Result<Method*> m = bad.method();
  ASSERT_TRUE(m.ok());
  OwnedTensor x = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
  ASSERT_EQ((*m)->set_input(x.evalue(), 0), Error::Ok);
  ASSERT_EQ((*m)->set_input(EValue(int64_t{1}), 1), Error::Ok);
  LogCapture log;
  EXPECT_EQ((*m)->execute(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("JumpFalseCall condition is a Int")) << log.all();
}

TEST_F(BuiltProgramTest, StepLimitStopsEndlessLoops) {
  Built built(plan_json(R"({"val_type": "Bool", "val": {"bool_val": false}})", "[]", "[]",
                        R"({"instr_args_type": "JumpFalseCall", "instr_args":
                            {"cond_value_index": 0, "destination_instruction": 0}})",
                        "[]", "[0]"));
  Result<Method*> m = built.method();
  ASSERT_TRUE(m.ok());
  (*m)->set_step_limit(1000);
  LogCapture log;
  EXPECT_EQ((*m)->execute(), Error::InvalidState);
  EXPECT_TRUE(log.contains("step limit of 1000 instructions exceeded")) << log.all();
}

// a = 2x; value 3 (no data) = move(a); out = value3 + x.
std::string move_program(int move_from) {
  return plan_json(
      tensor_json("FLOAT", {2}, 1, 0) + ", " + tensor_json("FLOAT", {2}, 1, 16) + ", " +
          tensor_json("FLOAT", {2}, 1, 32) + ", " + tensor_json("FLOAT", {2}) + ", " + int_json(1),
      "[0]", "[2]",
      kernel(0, "[0, 0, 4, 1, 1]") +
          R"(, {"instr_args_type": "MoveCall", "instr_args": {"move_from": )" +
          std::to_string(move_from) + R"(, "move_to": 3}}, )" + kernel(0, "[3, 0, 4, 2, 2]"));
}

TEST_F(BuiltProgramTest, MoveCallAliasesTheValue) {
  Built built(move_program(1));
  Result<Method*> m = built.method();
  ASSERT_TRUE(m.ok());
  OwnedTensor x = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
  ASSERT_EQ((*m)->set_input(x.evalue(), 0), Error::Ok);
  ASSERT_EQ((*m)->execute(), Error::Ok);
  EXPECT_EQ(output_floats(*m), std::vector<float>({3, 6}));
}

TEST_F(BuiltProgramTest, MoveCallMustKeepTheValueType) {
  Built built(move_program(4));  // Int -> Tensor
  Result<Method*> m = built.method();
  ASSERT_TRUE(m.ok());
  OwnedTensor x = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
  ASSERT_EQ((*m)->set_input(x.evalue(), 0), Error::Ok);
  LogCapture log;
  EXPECT_EQ((*m)->execute(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("MoveCall from a Int value to a Tensor value")) << log.all();
}

TEST_F(BuiltProgramTest, TensorWithoutDataIsRefusedBeforeTheKernel) {
  // Without the move, value 3 never gets data: the kernel must not see a null pointer.
  Built built(plan_json(tensor_json("FLOAT", {2}, 1, 0) + ", " + tensor_json("FLOAT", {2}, 1, 32) +
                            ", " + tensor_json("FLOAT", {2}) + ", " + int_json(1),
                        "[0]", "[1]", kernel(0, "[2, 0, 3, 1, 1]")));
  Result<Method*> m = built.method();
  ASSERT_TRUE(m.ok());
  OwnedTensor x = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
  ASSERT_EQ((*m)->set_input(x.evalue(), 0), Error::Ok);
  LogCapture log;
  EXPECT_EQ((*m)->execute(), Error::InvalidState);
  EXPECT_TRUE(log.contains("argument 0 is a tensor without data")) << log.all();
}

TEST_F(BuiltProgramTest, FreeCallReleasesTheData) {
  Built built(plan_json(tensor_json("FLOAT", {2}, 1, 0) + ", " + tensor_json("FLOAT", {2}, 1, 16) +
                            ", " + int_json(1),
                        "[0]", "[1]",
                        R"({"instr_args_type": "FreeCall", "instr_args": {"value_index": 0}}, )" +
                            kernel(0, "[0, 0, 2, 1, 1]")));
  Result<Method*> m = built.method();
  ASSERT_TRUE(m.ok());
  OwnedTensor x = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
  ASSERT_EQ((*m)->set_input(x.evalue(), 0), Error::Ok);
  LogCapture log;
  EXPECT_EQ((*m)->execute(), Error::InvalidState);
  EXPECT_TRUE(log.contains("tensor without data")) << log.all();
}

TEST_F(BuiltProgramTest, NonPlannedInputsShareTheCallersBuffer) {
  // x is not planned: it must be set before execute, and the method reads the caller's bytes.
  Built built(
      plan_json(tensor_json("FLOAT", {2}) + ", " + tensor_json("FLOAT", {2}) + ", " + int_json(1),
                "[0]", "[1]", kernel(0, "[0, 0, 2, 1, 1]")));
  Result<Method*> m = built.method();
  ASSERT_TRUE(m.ok());
  LogCapture log;
  EXPECT_EQ((*m)->execute(), Error::InvalidState);
  EXPECT_TRUE(log.contains("input 0 has not been set")) << log.all();
  OwnedTensor x = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
  ASSERT_EQ((*m)->set_input(x.evalue(), 0), Error::Ok);
  EXPECT_EQ((*m)->execute(), Error::InvalidState);  // the output has no buffer either
  alignas(8) float out[2] = {0, 0};
  EXPECT_EQ((*m)->set_output_data_ptr(out, 4, 0), Error::InvalidArgument);
  ASSERT_EQ((*m)->set_output_data_ptr(out, sizeof(out), 0), Error::Ok);
  ASSERT_EQ((*m)->execute(), Error::Ok);
  EXPECT_EQ(out[0], 2.0f);
  x.tensor().mutable_data_ptr<float>()[0] = 10.0f;  // shared, not copied
  ASSERT_EQ((*m)->execute(), Error::Ok);
  EXPECT_EQ(out[0], 20.0f);
}

TEST_F(BuiltProgramTest, DynamicBoundInputsResize) {
  const std::string dyn = R"("shape_dynamism": "DYNAMIC_BOUND")";
  Built built(plan_json(tensor_json("FLOAT", {4}, 1, 0, dyn) + ", " +
                            tensor_json("FLOAT", {4}, 1, 16, dyn) + ", " + int_json(1),
                        "[0]", "[1]", kernel(0, "[0, 0, 2, 1, 1]")));
  Result<Method*> m = built.method();
  ASSERT_TRUE(m.ok());
  OwnedTensor x = OwnedTensor::from<float>(DType::Float, {2}, {1, 2});
  ASSERT_EQ((*m)->set_input(x.evalue(), 0), Error::Ok);
  ASSERT_EQ((*m)->execute(), Error::Ok);
  Tensor& out = (*m)->get_output(0)->to_tensor();
  ASSERT_EQ(out.dim(), 1u);
  EXPECT_EQ(out.size(0), 2);  // the kernel resized its out tensor
  EXPECT_EQ(output_floats(*m), std::vector<float>({2, 4}));
  OwnedTensor too_big = OwnedTensor::full(DType::Float, {5}, 1.0);
  LogCapture log;
  EXPECT_EQ((*m)->set_input(too_big.evalue(), 0), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("bounded shape")) << log.all();
}

TEST_F(BuiltProgramTest, DynamicBoundInputChecksEachAxis) {
  // Upper bounds [2, 2]: [1, 4] has as many elements, but axis 1 exceeds its bound.
  const std::string dyn = R"("shape_dynamism": "DYNAMIC_BOUND")";
  Built built(plan_json(tensor_json("FLOAT", {2, 2}, 1, 0, dyn) + ", " +
                            tensor_json("FLOAT", {2, 2}, 1, 16, dyn) + ", " + int_json(1),
                        "[0]", "[1]", kernel(0, "[0, 0, 2, 1, 1]")));
  Result<Method*> m = built.method();
  ASSERT_TRUE(m.ok());
  OwnedTensor fits = OwnedTensor::full(DType::Float, {1, 2}, 1.0);
  EXPECT_EQ((*m)->set_input(fits.evalue(), 0), Error::Ok);
  OwnedTensor wide = OwnedTensor::full(DType::Float, {1, 4}, 1.0);
  LogCapture log;
  EXPECT_EQ((*m)->set_input(wide.evalue(), 0), Error::InvalidArgument);
  EXPECT_TRUE(log.contains("axis 1 has size 4, outside the bounded shape's range [0, 2]"))
      << log.all();
}

TEST_F(BuiltProgramTest, ConstantMethodWithEveryValueKind) {
  // Outputs: a constant tensor from the segment, a DoubleList, a BoolList (a byte of 2 reads as
  // true), an OptionalTensorList [None, tensor], an IntList of boxed Ints, a Null.
  const std::string values = tensor_json("FLOAT", {2}, 0, 0, R"("data_buffer_idx": 1)") +
                             R"(, {"val_type": "DoubleList", "val": {"items": [0.5, -1.25]}},
          {"val_type": "BoolList", "val": {"items": [true, false]}},
          {"val_type": "OptionalTensorList", "val": {"items": [-1, 0]}},
          {"val_type": "IntList", "val": {"items": [5, 6]}}, )" +
                             int_json(7) + ", " + int_json(-8) +
                             R"(, {"val_type": "Null", "val": {}})";
  std::string json =
      R"({"execution_plan": [{"name": "forward", "values": [)" + values +
      R"(], "inputs": [], "outputs": [0, 1, 2, 3, 4, 7], "chains": [{"instructions": []}],
      "operators": [], "delegates": [], "non_const_buffer_sizes": [0]}],
    "segments": [{"offset": 0, "size": 8}],
    "constant_segment": {"segment_index": 0, "offsets": [0, 0]}})";
  Built built(json, {testing::bytes_of<float>({1.5f, 2.5f})});
  ASSERT_EQ(built.load_error(), Error::Ok);
  Result<Method*> m = built.method();
  ASSERT_TRUE(m.ok());
  ASSERT_EQ((*m)->execute(), Error::Ok);
  EXPECT_EQ(output_floats(*m, 0), std::vector<float>({1.5f, 2.5f}));
  Span<const double> doubles = (*m)->get_output(1)->to_double_list();
  EXPECT_EQ(std::vector<double>(doubles.begin(), doubles.end()), std::vector<double>({0.5, -1.25}));
  Span<const bool> bools = (*m)->get_output(2)->to_bool_list();
  ASSERT_EQ(bools.size(), 2u);
  EXPECT_TRUE(bools[0]);
  EXPECT_FALSE(bools[1]);
  Span<const std::optional<Tensor>> opt = (*m)->get_output(3)->to_optional_tensor_list();
  ASSERT_EQ(opt.size(), 2u);
  EXPECT_FALSE(opt[0].has_value());
  ASSERT_TRUE(opt[1].has_value());
  EXPECT_EQ(opt[1]->numel(), 2u);
  Span<const int64_t> ints = (*m)->get_output(4)->to_int_list();
  EXPECT_EQ(std::vector<int64_t>(ints.begin(), ints.end()), std::vector<int64_t>({7, -8}));
  EXPECT_TRUE((*m)->get_output(5)->is_none());
  Result<MethodMeta> meta = built.program()->method_meta("forward");
  EXPECT_EQ(meta->output_tag(1).get(), EValue::Tag::DoubleList);
  EXPECT_EQ(meta->output_tag(3).get(), EValue::Tag::OptionalTensorList);
  EXPECT_EQ(meta->output_tensor_meta(1).error(), Error::InvalidArgument);
}

TEST_F(BuiltProgramTest, MutableTensorIsInitializedFromItsSegment) {
  std::string json = R"({"execution_plan": [{"name": "forward", "values": [)" +
                     tensor_json("FLOAT", {2}, 1, 16, R"("data_buffer_idx": 1)") +
                     R"(], "inputs": [], "outputs": [0], "chains": [{"instructions": []}],
      "operators": [], "delegates": [], "non_const_buffer_sizes": [0, 32]}],
    "segments": [{"offset": 0, "size": 0}, {"offset": 0, "size": 8}],
    "constant_segment": {"segment_index": 0, "offsets": [0]},
    "mutable_data_segments": [{"segment_index": 1, "offsets": [0, 0]}]})";
  Built built(json, {{}, testing::bytes_of<float>({3.0f, 4.0f})});
  Result<Method*> m = built.method();
  ASSERT_TRUE(m.ok());
  ASSERT_EQ((*m)->execute(), Error::Ok);
  EXPECT_EQ(output_floats(*m), std::vector<float>({3.0f, 4.0f}));
}

struct BadProgram {
  const char* name;
  std::string values;
  std::string instructions;
  Error expected;
  const char* log;
};

TEST_F(BuiltProgramTest, MalformedValuesAndInstructionsFailToLoad) {
  const std::string x = tensor_json("FLOAT", {2}, 1, 0);
  const std::vector<BadProgram> cases = {
      {"rank", tensor_json("FLOAT", std::vector<int>(17, 1)), "", Error::InvalidProgram,
       "rank 17 exceeds the limit of 16"},
      {"negative size", tensor_json("FLOAT", {2, -1}), "", Error::InvalidProgram,
       "negative size -1 at dim 1"},
      {"dim order",
       R"({"val_type": "Tensor", "val": {"scalar_type": "FLOAT", "sizes": [2, 2], "dim_order": [1, 1]}})",
       "", Error::InvalidProgram, "dim_order is not a permutation"},
      {"dim order length",
       R"({"val_type": "Tensor", "val": {"scalar_type": "FLOAT", "sizes": [2, 2], "dim_order": [0]}})",
       "", Error::InvalidProgram, "2 sizes but 1 dim_order entries"},
      {"no sizes", R"({"val_type": "Tensor", "val": {"scalar_type": "FLOAT"}})", "",
       Error::InvalidProgram, "without sizes or dim_order"},
      {"storage offset", tensor_json("FLOAT", {2}, 0, 0, R"("storage_offset": 3)"), "",
       Error::InvalidProgram, "storage_offset 3"},
      {"unbound", tensor_json("FLOAT", {2}, 0, 0, R"("shape_dynamism": "DYNAMIC_UNBOUND")"), "",
       Error::NotSupported, "DYNAMIC_UNBOUND"},
      {"scalar type",
       R"({"val_type": "Tensor", "val": {"scalar_type": 9, "sizes": [2], "dim_order": [0]}})", "",
       Error::InvalidProgram, "invalid scalar_type 9"},
      {"huge", tensor_json("FLOAT", {65536, 65536, 2}), "", Error::NotSupported,
       "more than 2^31 elements"},
      {"misaligned", tensor_json("FLOAT", {2}, 1, 2), "", Error::InvalidProgram,
       "not aligned to its 4-byte elements"},
      {"planned out of range", tensor_json("FLOAT", {2}, 1, 252), "", Error::InvalidArgument,
       "outside memory_id 1's 256 bytes"},
      {"memory id", tensor_json("FLOAT", {2}, 3, 0), "", Error::InvalidArgument,
       "memory_id 3 has no planned buffer"},
      {"constant index", tensor_json("FLOAT", {2}, 0, 0, R"("data_buffer_idx": 4)"), "",
       Error::InvalidProgram, "constant data_buffer_idx 4 out of range"},
      {"external without name",
       tensor_json("FLOAT", {2}, 0, 0, R"("extra_tensor_info": {"location": "EXTERNAL"})"), "",
       Error::InvalidProgram, "without a fully_qualified_name"},
      {"int list item type", x + R"(, {"val_type": "IntList", "val": {"items": [0]}})", "",
       Error::InvalidProgram, "IntList item 0 is a Tensor value, expected Int"},
      {"int list index", x + R"(, {"val_type": "IntList", "val": {"items": [9]}})", "",
       Error::InvalidProgram, "refers to value 9 of 2"},
      {"tensor list item type",
       int_json(1) + R"(, {"val_type": "TensorList", "val": {"items": [0]}})", "",
       Error::InvalidProgram, "tensor list item 0 is a Int value"},
      {"optional list index", x + R"(, {"val_type": "OptionalTensorList", "val": {"items": [-2]}})",
       "", Error::InvalidProgram, "refers to value -2"},
      {"no type", x + R"(, {})", "", Error::InvalidProgram, "value 1 has no type"},
      {"op index", x, kernel(3, "[0]"), Error::InvalidProgram, "op_index 3 out of range"},
      {"arg index", x, kernel(0, "[0, 5]"), Error::InvalidProgram, "arg 1 refers to value 5 of 1"},
      {"delegate index", x,
       R"({"instr_args_type": "DelegateCall", "instr_args": {"delegate_index": 0, "args": []}})",
       Error::InvalidProgram, "delegate_index 0 out of range"},
      {"move index", x,
       R"({"instr_args_type": "MoveCall", "instr_args": {"move_from": 0, "move_to": 4}})",
       Error::InvalidProgram, "move_to 4 is not a value index"},
      {"jump destination", x,
       R"({"instr_args_type": "JumpFalseCall", "instr_args": {"cond_value_index": 0, "destination_instruction": 9}})",
       Error::InvalidProgram, "jump destination 9"},
      {"free type", int_json(1),
       R"({"instr_args_type": "FreeCall", "instr_args": {"value_index": 0}})",
       Error::InvalidProgram, "FreeCall on a Int value"},
      {"empty instruction", x, R"({})", Error::InvalidProgram, "instruction 0 is empty"},
  };
  for (const BadProgram& c : cases) {
    Built built(plan_json(c.values, "[]", "[]", c.instructions));
    ASSERT_EQ(built.load_error(), Error::Ok) << c.name;
    LogCapture log;
    Result<Method*> m = built.method();
    EXPECT_EQ(m.error(), c.expected) << c.name << "\n" << log.all();
    EXPECT_TRUE(log.contains(c.log)) << c.name << "\n" << log.all();
  }
}

TEST_F(BuiltProgramTest, MissingOperatorsAreAllNamed) {
  Built built(plan_json(int_json(1), "[]", "[]",
                        kernel(0, "[0]") + ", " + kernel(1, "[0]") + ", " + kernel(0, "[0]"),
                        R"([{"name": "my_ns::first", "overload": "out"},
                            {"name": "my_ns::second", "overload": ""}])"));
  LogCapture log;
  EXPECT_EQ(built.method().error(), Error::OperatorMissing);
  EXPECT_TRUE(log.contains("Missing operator: my_ns::first.out")) << log.all();
  EXPECT_TRUE(log.contains("Missing operator: my_ns::second\n") ||
              log.contains("Missing operator: my_ns::second"))
      << log.all();
  EXPECT_TRUE(log.contains("2 operator(s) have no registered kernel")) << log.all();
}

TEST_F(BuiltProgramTest, NoChainsIsAnError) {
  Built built(R"({"execution_plan": [{"name": "forward", "values": [], "inputs": [], "outputs": [],
      "chains": [], "operators": [], "delegates": [], "non_const_buffer_sizes": [0]}],
      "constant_segment": {"offsets": [0]}})");
  LogCapture log;
  EXPECT_EQ(built.method().error(), Error::InvalidProgram);
  EXPECT_TRUE(log.contains("No chains")) << log.all();
}

}  // namespace
}  // namespace ptec::runtime
