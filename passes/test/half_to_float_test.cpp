// HalfToFloat: a Half model's parameters, dtype arguments and specs become Float, its inputs are
// cast where they enter and its outputs cast back. tests/e2e/run_float16.sh runs float16 ONNX
// models end to end.

#include <gtest/gtest.h>

#include "passes/half_to_float.h"
#include "passes/test/test_graphs.h"
#include "runtime/core/half.h"

namespace ptec::passes {
namespace {

using testing::calls;

ir::TensorData half_tensor(const std::vector<int64_t>& sizes, const std::vector<float>& values) {
  std::vector<uint16_t> bits;
  for (float v : values) bits.push_back(runtime::Half(v).x);
  return {ir::TensorSpec(DType::Half, sizes),
          ir::Buffer::copy_of(bits.data(), bits.size() * sizeof(uint16_t))};
}

TEST(HalfToFloat, ComputesInFloatAndKeepsTheSignaturesDtypes) {
  ir::ExportedProgram p;
  ir::Node* x = testing::input(p, "x", ir::TensorSpec(DType::Half, std::vector<int64_t>{2, 3}));
  ir::Node* w =
      testing::param(p, "w", half_tensor({3, 2}, {0.5f, -1.0f, 2.0f, 0.25f, 3.0f, 1e-3f}));
  ir::Node* mm = testing::call(p, "aten::mm", {x, w}, "mm");
  ir::Node* relu = testing::call(p, "aten::relu", {mm}, "relu");
  // A Cast to float16 and back (ONNX's Cast nodes): the dtype arguments name Float.
  ir::Node* down = testing::call(p, "aten::_to_copy", {relu, DType::Half}, "down");
  testing::output(p, {down, x});
  ASSERT_TRUE(HalfToFloat().run(p).modified);

  const ir::TensorData& wd = p.state_dict().at("w");
  EXPECT_EQ(wd.spec.dtype, DType::Float);
  EXPECT_EQ(testing::floats_of(wd), (std::vector<float>{0.5f, -1.0f, 2.0f, 0.25f, 3.0f,
                                                        static_cast<float>(runtime::Half(1e-3f))}));
  EXPECT_EQ(w->spec().dtype, DType::Float);
  EXPECT_EQ(x->spec().dtype, DType::Half);  // the method still takes Half
  // x is cast where it enters; mm reads the cast.
  const ir::Node* cast_in = mm->arg(0).as_node();
  EXPECT_TRUE(cast_in->is_op("aten::_to_copy"));
  EXPECT_EQ(cast_in->arg(0).as_node(), x);
  EXPECT_EQ(cast_in->spec().dtype, DType::Float);
  EXPECT_EQ(mm->spec().dtype, DType::Float);
  EXPECT_EQ(relu->spec().dtype, DType::Float);
  EXPECT_EQ(down->arg("dtype").as_dtype(), DType::Float);
  EXPECT_EQ(down->spec().dtype, DType::Float);
  // Both outputs are cast back to Half, and the signature names the casts.
  const std::vector<ir::Node*> outs = p.graph().outputs();
  ASSERT_EQ(outs.size(), 2u);
  for (size_t i = 0; i < outs.size(); ++i) {
    EXPECT_TRUE(outs[i]->is_op("aten::_to_copy")) << i;
    EXPECT_EQ(outs[i]->spec().dtype, DType::Half) << i;
    EXPECT_EQ(p.signature().outputs[i].name, outs[i]->name()) << i;
  }
  EXPECT_EQ(outs[0]->arg(0).as_node(), down);
  EXPECT_EQ(outs[1]->arg(0).as_node(), cast_in);
}

TEST(HalfToFloat, LeavesFloatProgramsAlone) {
  ir::ExportedProgram p;
  ir::Node* x = testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{4}));
  testing::output(p, {testing::call(p, "aten::relu", {x}, "relu")});
  const std::vector<std::string> before = calls(p);
  EXPECT_FALSE(HalfToFloat().run(p).modified);
  EXPECT_EQ(calls(p), before);
}

}  // namespace
}  // namespace ptec::passes
