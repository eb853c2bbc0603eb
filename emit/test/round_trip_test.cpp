#include <gtest/gtest.h>

#include <cmath>

#include "emit/export_pte.h"
#include "emit/test/pte_test_util.h"
#include "kernels/portable/register.h"
#include "kernels/quantized/register.h"
#include "passes/test/test_graphs.h"
#include "program/to_edge.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::emit {
namespace {

std::vector<float> floats(const runtime::Tensor& t) {
  const float* p = t.const_data_ptr<float>();
  return {p, p + t.numel()};
}

class RoundTrip : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(kernels::register_portable_kernels(), Error::Ok); }
};

// build → to_edge (BN folded) → emit → load with ptec's runtime → execute → hand-computed values.
TEST_F(RoundTrip, ConvBnReluAdd) {
  ptec::testing::ConvBnReluAdd model;
  std::map<std::string, ir::ExportedProgram> methods;
  methods.emplace("forward", program::to_edge(model.program));
  std::map<std::string, ConstantValue> constants;
  constants["get_channels"] = int64_t{2};
  const auto dir = testing::temp_dir("round_trip");
  const std::string path = (dir / "model.pte").string();
  for (MemoryPlanning planning : {MemoryPlanning::Greedy, MemoryPlanning::Naive}) {
    EmitConfig config;
    config.memory_planning = planning;
    export_pte(methods, config, path, constants);

    runtime::Module module(path);
    ASSERT_EQ(module.load(), Error::Ok);
    const std::vector<float> x = {1, -2, 3, 0.5f, -1, 4, 0, 2};
    auto input = runtime::OwnedTensor::from(DType::Float, {1, 2, 2, 2}, x);
    auto outputs = module.forward({input.evalue()});
    ASSERT_TRUE(outputs.ok()) << to_string(outputs.error());
    ASSERT_EQ(outputs->size(), 1u);
    ASSERT_TRUE((*outputs)[0].is_tensor());
    const std::vector<float> got = floats((*outputs)[0].to_tensor());
    const std::vector<float> expected = model.reference(x);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-5) << i;

    auto channels = module.execute("get_channels", {});
    ASSERT_TRUE(channels.ok()) << to_string(channels.error());
    ASSERT_EQ(channels->size(), 1u);
    EXPECT_EQ((*channels)[0].to_int(), 2);
  }
}

TEST_F(RoundTrip, MultiOutputMaxDim) {
  ir::ExportedProgram p;
  ir::Node* x =
      ptec::testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{2, 3}));
  ir::Node* m = ptec::testing::call(p, "aten::max.dim", {x, int64_t{1}});
  ptec::testing::output(p, {ptec::testing::call(p, "getitem", {m, int64_t{0}}),
                            ptec::testing::call(p, "getitem", {m, int64_t{1}})});
  std::map<std::string, ir::ExportedProgram> methods;
  methods.emplace("forward", program::to_edge(p));
  const auto dir = testing::temp_dir("round_trip_max");
  const std::string path = (dir / "max.pte").string();
  export_pte(methods, {}, path);
  runtime::Module module(path);
  auto input =
      runtime::OwnedTensor::from(DType::Float, {2, 3}, std::vector<float>{1, 5, 2, 7, 0, 3});
  auto outputs = module.forward({input.evalue()});
  ASSERT_TRUE(outputs.ok()) << to_string(outputs.error());
  ASSERT_EQ(outputs->size(), 2u);
  EXPECT_EQ(floats((*outputs)[0].to_tensor()), (std::vector<float>{5, 7}));
  const int64_t* idx = (*outputs)[1].to_tensor().const_data_ptr<int64_t>();
  EXPECT_EQ(idx[0], 1);
  EXPECT_EQ(idx[1], 0);
}

// quantized_decomposed ops run from a .pte, and views to a scalar (empty size lists, which
// flatbuffers leaves unaligned) load.
TEST_F(RoundTrip, QuantizedDecomposedAndScalarViews) {
  ASSERT_EQ(kernels::register_quantized_kernels(), Error::Ok);
  ir::ExportedProgram p;
  ir::Node* x = ptec::testing::input(p, "x", ir::TensorSpec(DType::Float, std::vector<int64_t>{4}));
  ir::Node* q = ptec::testing::call(p, "quantized_decomposed::quantize_per_tensor",
                                    {x, 0.5, int64_t{3}, int64_t{0}, int64_t{255}, DType::Byte});
  ir::Node* dq = ptec::testing::call(p, "quantized_decomposed::dequantize_per_tensor",
                                     {q, 0.5, int64_t{3}, int64_t{0}, int64_t{255}, DType::Byte});
  ir::Node* s = ptec::testing::input(p, "s", ir::TensorSpec(DType::Float, std::vector<int64_t>{1}));
  std::vector<ir::Node*> outs = {dq};
  for (int i = 0; i < 4; ++i) {
    s = ptec::testing::call(p, "aten::view_copy", {s, std::vector<int64_t>{}});
    outs.push_back(s);
    s = ptec::testing::call(p, "aten::view_copy", {s, std::vector<int64_t>{1}});
  }
  ptec::testing::output(p, outs);
  std::map<std::string, ir::ExportedProgram> methods;
  methods.emplace("forward", program::to_edge(p));
  const auto dir = testing::temp_dir("round_trip_quantized");
  const std::string path = (dir / "quantized.pte").string();
  export_pte(methods, {}, path);
  runtime::Module module(path);
  ASSERT_EQ(module.load(), Error::Ok);
  auto input =
      runtime::OwnedTensor::from(DType::Float, {4}, std::vector<float>{-1.f, 0.3f, 0.25f, 200.f});
  auto scalar = runtime::OwnedTensor::from(DType::Float, {1}, std::vector<float>{7.f});
  auto outputs = module.forward({input.evalue(), scalar.evalue()});
  ASSERT_TRUE(outputs.ok()) << to_string(outputs.error());
  ASSERT_EQ(outputs->size(), 5u);
  // q = clamp(3 + round_half_even(x * 2), 0, 255) = {1, 4, 3, 255}; dq = (q - 3) * 0.5.
  EXPECT_EQ(floats((*outputs)[0].to_tensor()), (std::vector<float>{-1.f, 0.5f, 0.f, 126.f}));
  for (size_t i = 1; i < 5; ++i) {
    EXPECT_EQ((*outputs)[i].to_tensor().dim(), 0u);
    EXPECT_EQ(floats((*outputs)[i].to_tensor()), (std::vector<float>{7.f}));
  }
}

}  // namespace
}  // namespace ptec::emit
