// End to end in process: ptec::engine::compile → ptec::engine::export (export_engine_program) →
// to_executorch → the runtime (PtecEngineBackend) runs the .pte and matches the program run on
// the portable/optimized kernels; a two-method program has one engine delegate per method with
// different blobs, and the caller's programs are unchanged.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "backends/engine/aot/engine_compile.h"
#include "backends/engine/aot/engine_export.h"
#include "backends/engine/engine_ids.h"
#include "backends/engine/runtime/engine_backend_runtime.h"
#include "frontends/builder/graph_builder.h"
#include "ir/printer.h"
#include "kernels/optimized/ops/register.h"
#include "partition/lowered_module.h"
#include "program/to_edge_transform_and_lower.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::engine {
namespace {

using builder::Value;

ir::TensorData random_tensor(const std::vector<int64_t>& sizes, uint32_t seed) {
  size_t n = 1;
  for (int64_t s : sizes) n *= static_cast<size_t>(s);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return ir::TensorData{ir::TensorSpec(DType::Float, sizes),
                        ir::Buffer::copy_of(v.data(), v.size() * sizeof(float))};
}

/// conv3x3 + bias → relu → conv3x3 → + residual → relu → mean → addmm; weights from `seed`.
ir::ExportedProgram small_cnn(uint32_t seed) {
  builder::GraphBuilder b("small_cnn");
  Value x = b.input("x", DType::Float, {1, 3, 8, 8});
  Value w1 = b.parameter("w1", random_tensor({8, 3, 3, 3}, seed));
  Value b1 = b.parameter("b1", random_tensor({8}, seed + 1));
  Value w2 = b.parameter("w2", random_tensor({8, 8, 3, 3}, seed + 2));
  Value fc_w = b.parameter("fc_w", random_tensor({4, 8}, seed + 3));
  Value fc_b = b.parameter("fc_b", random_tensor({4}, seed + 4));
  const std::vector<int64_t> one = {1, 1}, zero = {0, 0};
  Value c1 = b.call("aten::convolution", {x, w1, b1, one, one, one, false, zero, 1});
  Value r1 = b.call("aten::relu", {c1});
  Value c2 = b.call("aten::convolution", {r1, w2, nullptr, one, one, one, false, zero, 1});
  Value r2 = b.call("aten::relu", {b.call("aten::add.Tensor", {c2, r1})});
  Value m = b.call("aten::mean.dim", {r2, std::vector<int64_t>{-1, -2}, false});
  Value t = b.call("aten::permute_copy", {fc_w, std::vector<int64_t>{1, 0}});
  b.output({b.call("aten::addmm", {fc_b, m, t})});
  return b.build();
}

runtime::OwnedTensor input(uint32_t seed) {
  const ir::TensorData t = random_tensor({1, 3, 8, 8}, seed);
  std::vector<float> v(t.data->size() / sizeof(float));
  std::memcpy(v.data(), t.data->data(), t.data->size());
  return runtime::OwnedTensor::from(DType::Float, {1, 3, 8, 8}, v);
}

/// Runs `method` of the .pte `bytes` on `x`; the first output's values.
std::vector<float> run(const std::vector<uint8_t>& bytes, const std::string& method,
                       runtime::OwnedTensor& x) {
  std::unique_ptr<uint8_t[]> aligned(new (std::align_val_t(64)) uint8_t[bytes.size()]);
  std::memcpy(aligned.get(), bytes.data(), bytes.size());
  std::vector<float> values;
  {
    runtime::Module module(aligned.get(), bytes.size());
    std::vector<runtime::EValue> args{x.evalue()};
    auto out = module.execute(method, args);
    EXPECT_TRUE(out.ok()) << method << ": " << to_string(out.error());
    if (out.ok()) {
      const runtime::Tensor& t = (*out)[0].to_tensor();
      values.assign(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
    }
  }
  ::operator delete[](aligned.release(), std::align_val_t(64));
  return values;
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  ASSERT_FALSE(want.empty());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-4 * std::max(1.0f, std::fabs(want[i]))) << "at " << i;
  }
}

std::vector<partition::LoweredModule> engine_delegates(const ir::ExportedProgram& p) {
  std::vector<partition::LoweredModule> out;
  for (const ir::Node* n : p.graph().nodes()) {
    if (!n->is_call() || n->target() != "executorch_call_delegate") continue;
    partition::LoweredModule m = partition::load_lowered_module(p, n->arg(0).as_node()->target());
    if (m.backend_id == kBackendId) out.push_back(std::move(m));
  }
  return out;
}

class EngineExportE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(register_engine_backend_runtime(), Error::Ok);
    ASSERT_EQ(kernels::register_optimized_kernels(), Error::Ok);
  }
  static ir::ExportedProgram compiled(const ir::ExportedProgram& source) {
    EngineCompileOptions options;
    options.autotune = false;
    return compile(source, options);
  }
  static std::vector<float> reference(const ir::ExportedProgram& source, runtime::OwnedTensor& x) {
    return run(program::to_edge_transform_and_lower(source, {}).to_executorch().buffer(), "forward",
               x);
  }
};

TEST_F(EngineExportE2E, ACompiledProgramRunsAndMatchesThePortableKernels) {
  const ir::ExportedProgram source = small_cnn(10);
  const ir::ExportedProgram engines = compiled(source);
  ASSERT_EQ(count_engine_calls(engines), 1u);
  const program::EdgeProgramManager manager = export_engine_program(engines);
  ASSERT_EQ(engine_delegates(manager.exported_program()).size(), 1u);
  runtime::OwnedTensor x = input(99);
  expect_near(run(manager.to_executorch().buffer(), "forward", x), reference(source, x));
}

TEST_F(EngineExportE2E, TwoMethodsHaveTheirOwnEngineDelegatesAndTheSourcesAreUnchanged) {
  const ir::ExportedProgram prefill_source = small_cnn(20);
  const ir::ExportedProgram decode_source = small_cnn(40);
  const ir::ExportedProgram prefill = compiled(prefill_source);
  const ir::ExportedProgram decode = compiled(decode_source);
  const std::string prefill_before = ir::print(prefill), decode_before = ir::print(decode);

  const program::EdgeProgramManager manager =
      export_engine_program(EngineSources{{"prefill", &prefill}, {"decode", &decode}});
  const auto p = engine_delegates(manager.exported_program("prefill"));
  const auto d = engine_delegates(manager.exported_program("decode"));
  ASSERT_EQ(p.size(), 1u);
  ASSERT_EQ(d.size(), 1u);
  ASSERT_NE(p[0].processed.get(), d[0].processed.get());
  EXPECT_FALSE(
      p[0].processed->size() == d[0].processed->size() &&
      std::memcmp(p[0].processed->data(), d[0].processed->data(), p[0].processed->size()) == 0);
  // The sources: unchanged, still engine-bearing, and no engine buffer name in them.
  EXPECT_EQ(ir::print(prefill), prefill_before);
  EXPECT_EQ(ir::print(decode), decode_before);
  for (const ir::ExportedProgram* source : {&prefill, &decode}) {
    EXPECT_EQ(count_engine_calls(*source), 1u);
    EXPECT_TRUE(source->state_dict().empty());
    for (const ir::InputSpec& in : source->signature().inputs) {
      EXPECT_NE(in.kind, ir::InputKind::Buffer) << in.name;
    }
  }

  const std::vector<uint8_t> pte = manager.to_executorch().buffer();
  runtime::OwnedTensor x = input(7);
  expect_near(run(pte, "prefill", x), reference(prefill_source, x));
  expect_near(run(pte, "decode", x), reference(decode_source, x));
}

}  // namespace
}  // namespace ptec::engine
