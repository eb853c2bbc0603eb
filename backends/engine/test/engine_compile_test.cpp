// ptec::engine::compile and the PtecEngineBackend runtime: regions become execute_engine calls
// on live engines; the engine blob runs through the runtime backend (no re-tuning) and matches
// the portable kernels; autotuning records its choices; dynamic dims become profiles whose
// bounds the runtime enforces, naming the binding.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "backends/cpu/cpu_delegate_generated.h"
#include "backends/engine/aot/engine.h"
#include "backends/engine/aot/engine_compile.h"
#include "backends/engine/aot/engine_export.h"
#include "backends/engine/cpu_engine_format.h"
#include "backends/engine/engine_ids.h"
#include "backends/engine/runtime/engine_backend_runtime.h"
#include "core/log.h"
#include "frontends/builder/graph_builder.h"
#include "ir/exception.h"
#include "ir/printer.h"
#include "ir/program_archive.h"
#include "kernels/optimized/ops/register.h"
#include "kernels/optimized/threadpool.h"
#include "program/to_edge_transform_and_lower.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::engine {
namespace {

using builder::Value;

std::string g_log;
void capture(LogLevel, const char* message, void*) { g_log += std::string(message) + "\n"; }

std::vector<float> random_vector(size_t n, uint32_t seed, float scale = 0.5f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

ir::TensorData tensor(const std::vector<int64_t>& sizes, uint32_t seed) {
  size_t n = 1;
  for (int64_t s : sizes) n *= static_cast<size_t>(s);
  const std::vector<float> v = random_vector(n, seed);
  return ir::TensorData{ir::TensorSpec(DType::Float, sizes),
                        ir::Buffer::copy_of(v.data(), v.size() * sizeof(float))};
}

// conv3x3+bias → relu → conv3x3 + residual → relu → maxpool → depthwise conv → hardtanh →
// mean → view → linear. `batch` may be symbolic ("batch" in [1, max_batch]).
ir::ExportedProgram small_cnn(bool dynamic, int64_t max_batch = 4) {
  builder::GraphBuilder b("small_cnn");
  ir::SymInt batch = dynamic ? b.symbol("batch", 1, max_batch) : ir::SymInt(2);
  Value x = b.input("x", DType::Float, {batch, 3, 9, 11});
  Value w1 = b.parameter("w1", tensor({8, 3, 3, 3}, 1));
  Value b1 = b.parameter("b1", tensor({8}, 2));
  Value w2 = b.parameter("w2", tensor({8, 8, 3, 3}, 3));
  Value wd = b.parameter("wd", tensor({16, 1, 3, 3}, 4));
  Value fc_w = b.parameter("fc_w", tensor({5, 16}, 5));
  Value fc_b = b.parameter("fc_b", tensor({5}, 6));
  const std::vector<int64_t> one = {1, 1}, zero = {0, 0}, two = {2, 2};
  Value c1 = b.call("aten::convolution", {x, w1, b1, one, one, one, false, zero, 1});
  Value r1 = b.call("aten::relu", {c1});
  Value c2 = b.call("aten::convolution", {r1, w2, nullptr, one, one, one, false, zero, 1});
  Value s = b.call("aten::add.Tensor", {c2, r1});
  Value r2 = b.call("aten::relu", {s});
  Value p = b.call_multi("aten::max_pool2d_with_indices",
                         {r2, std::vector<int64_t>{3, 3}, two, one, one, true})[0];
  Value d = b.call("aten::convolution", {p, wd, nullptr, two, one, one, false, zero, 8});
  Value h = b.call("aten::hardtanh", {d, 0.0, 6.0});
  Value m = b.call("aten::mean.dim", {h, std::vector<int64_t>{-1, -2}, false});
  Value t = b.call("aten::permute_copy", {fc_w, std::vector<int64_t>{1, 0}});
  Value y = b.call("aten::addmm", {fc_b, m, t});
  b.output({y});
  return b.build();
}

// An f32 output whose sizes may shrink within its capacity (as a method's planned outputs).
struct DynamicOutput {
  explicit DynamicOutput(std::vector<int32_t> upper)
      : sizes(std::move(upper)), dim_order(sizes.size()), strides(sizes.size()) {
    size_t n = 1;
    for (size_t i = 0; i < sizes.size(); ++i) {
      dim_order[i] = static_cast<uint8_t>(i);
      n *= static_cast<size_t>(sizes[i]);
    }
    data.assign(n, 0.0f);
    tensor = runtime::Tensor(DType::Float, sizes.size(), sizes.data(), dim_order.data(),
                             strides.data(), data.data(), runtime::ShapeDynamism::DynamicBound);
  }
  std::vector<float> values() const {
    return {data.begin(), data.begin() + static_cast<std::ptrdiff_t>(tensor.numel())};
  }
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  std::vector<float> data;
  runtime::Tensor tensor;
};

class EngineCompileTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(register_engine_backend_runtime(), Error::Ok);
    ASSERT_EQ(kernels::register_optimized_kernels(), Error::Ok);
  }
  void SetUp() override { g_log.clear(); }
  void TearDown() override { set_log_sink(nullptr, nullptr); }

  // The output of `program` on the portable/optimized kernels (no delegate).
  static std::vector<float> reference(const ir::ExportedProgram& program,
                                      runtime::OwnedTensor& input) {
    const std::vector<uint8_t> bytes =
        program::to_edge_transform_and_lower(program, {}).to_executorch().buffer();
    std::unique_ptr<uint8_t[]> aligned(new (std::align_val_t(64)) uint8_t[bytes.size()]);
    std::memcpy(aligned.get(), bytes.data(), bytes.size());
    std::vector<float> values;
    {
      runtime::Module module(aligned.get(), bytes.size());
      std::vector<runtime::EValue> args{input.evalue()};
      auto out = module.execute("forward", args);
      EXPECT_TRUE(out.ok()) << to_string(out.error());
      if (out.ok()) {
        const runtime::Tensor& t = (*out)[0].to_tensor();
        values.assign(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
      }
    }
    ::operator delete[](aligned.release(), std::align_val_t(64));
    return values;
  }

  // Runs an engine blob through the runtime backend: init, then execute on `input` into an
  // output of `out_sizes` (upper bound). Returns the error of whichever step failed.
  static Error run_engine(const ir::Buffer& blob, runtime::OwnedTensor& input,
                          DynamicOutput& output) {
    std::vector<uint8_t> arena(64 << 20);
    runtime::MemoryAllocator alloc(arena.data(), arena.size());
    runtime::BackendInitContext init(&alloc, nullptr, "forward", nullptr);
    runtime::FreeableBuffer processed(blob.data(), blob.size(), nullptr);
    EngineBackendRuntime backend;
    Result<runtime::DelegateHandle*> handle = backend.init(init, &processed, {});
    if (!handle.ok()) return handle.error();
    runtime::EValue in = input.evalue(), out(&output.tensor);
    runtime::EValue* args[] = {&in, &out};
    std::vector<uint8_t> temp_arena(16 << 20);
    runtime::MemoryAllocator temp(temp_arena.data(), temp_arena.size());
    runtime::BackendExecutionContext exec(nullptr, &temp, "forward");
    const Error e = backend.execute(exec, *handle, {args, 2});
    backend.destroy(*handle);
    return e;
  }

  static std::shared_ptr<const Engine> only_engine(const ir::ExportedProgram& compiled) {
    std::shared_ptr<const Engine> found;
    for (const auto& [name, object] : compiled.custom_objects()) {
      if (object.type != kEngineObjectType) continue;
      EXPECT_EQ(found, nullptr) << "more than one engine";
      EXPECT_EQ(object.payload, nullptr) << "the live object serializes on demand";
      found = engine_of(object);
      EXPECT_EQ(found.get(), object.object.get()) << "engine_of returns the live object";
    }
    return found;
  }

  static void expect_near(const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    ASSERT_FALSE(want.empty());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-4 * std::max(1.0f, std::fabs(want[i]))) << "at " << i;
    }
  }
};

TEST_F(EngineCompileTest, RegionBecomesAnEngineCallOnALiftedCustomObject) {
  const ir::ExportedProgram source = small_cnn(false);
  const std::string before = ir::to_string(source.stage());
  EngineCompileOptions options;
  options.autotune = false;
  const ir::ExportedProgram compiled = compile(source, options);
  EXPECT_EQ(compiled.stage(), ir::Stage::Aten);
  EXPECT_EQ(count_engine_calls(compiled), 1u);
  // The weights moved into the engine; its placeholder is a CUSTOM_OBJ input.
  EXPECT_TRUE(compiled.state_dict().empty());
  size_t custom = 0;
  for (const ir::InputSpec& in : compiled.signature().inputs) {
    if (in.kind == ir::InputKind::CustomObj) {
      ++custom;
      EXPECT_EQ(compiled.custom_objects().at(in.target).type, kEngineObjectType);
    }
  }
  EXPECT_EQ(custom, 1u);
  for (const ir::Node* node : compiled.graph().nodes()) {
    EXPECT_FALSE(node->is_op("executorch_call_delegate")) << node->name();
    if (!node->is_op(kExecuteEngineOp)) continue;
    ASSERT_TRUE(node->arg(0).is_list());
    EXPECT_EQ(node->arg(0).as_list().size(), 1u);
    EXPECT_TRUE(node->arg(1).as_node()->is_placeholder());
  }
  // Metadata without serializing: bindings, device, ISA, version.
  const std::shared_ptr<const Engine> engine = only_engine(compiled);
  ASSERT_NE(engine, nullptr);
  const EngineMetadata& meta = engine->metadata();
  ASSERT_EQ(meta.io_bindings.size(), 2u);
  EXPECT_EQ(meta.io_bindings[0].name, "x");
  EXPECT_TRUE(meta.io_bindings[0].input);
  EXPECT_EQ(meta.io_bindings[0].shape,
            (std::vector<EngineDim>{{2, 2, ""}, {3, 3, ""}, {9, 9, ""}, {11, 11, ""}}));
  EXPECT_FALSE(meta.io_bindings[1].input);
  EXPECT_EQ(meta.io_bindings[1].shape, (std::vector<EngineDim>{{2, 2, ""}, {5, 5, ""}}));
  EXPECT_EQ(meta.device, "cpu");
  EXPECT_FALSE(meta.target_isa.empty());
  EXPECT_FALSE(meta.builder_version.empty());
  EXPECT_FALSE(meta.choices.empty());
  // The source is unchanged.
  EXPECT_EQ(ir::to_string(source.stage()), before);
  EXPECT_EQ(count_engine_calls(source), 0u);
  EXPECT_FALSE(source.state_dict().empty());
  // The serialized blob is the engine's own (one buffer, not rebuilt per call).
  EXPECT_EQ(engine->serialize().get(), engine->serialize().get());
  EXPECT_EQ(Engine::from_blob(engine->serialize())->metadata(), meta);
}

TEST_F(EngineCompileTest, EngineRunsThroughTheRuntimeBackendAndMatchesPortable) {
  const ir::ExportedProgram source = small_cnn(false);
  const ir::ExportedProgram compiled = compile(source, EngineCompileOptions{});
  const std::shared_ptr<const Engine> engine = only_engine(compiled);
  ASSERT_NE(engine, nullptr);
  auto input = runtime::OwnedTensor::from(DType::Float, {2, 3, 9, 11}, random_vector(594, 9, 1));
  DynamicOutput output({2, 5});
  ASSERT_EQ(run_engine(*engine->serialize(), input, output), Error::Ok);
  expect_near(output.values(), reference(source, input));
}

TEST_F(EngineCompileTest, AutotuneRecordsAThreadAndAlgorithmChoicePerNodeInThePlans) {
  set_num_threads(2);
  EngineCompileOptions options;
  options.autotune_iterations = 2;
  const ir::ExportedProgram compiled = compile(small_cnn(false), options);
  set_num_threads(0);
  const std::shared_ptr<const Engine> engine = only_engine(compiled);
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->metadata().threads, 2);
  // Every node has a choice naming its kernel and thread count, and the plan carries it.
  CpuEngineView view;
  ASSERT_EQ(view.parse(engine->engine_bytes()->data(), engine->engine_bytes()->size()), Error::Ok);
  ASSERT_EQ(view.num_plans(), 1u);
  const auto* graph = ptec_cpu_fb::GetGraph(view.plan_data(0));
  ASSERT_EQ(engine->metadata().choices.size(), graph->nodes()->size());
  int convolutions = 0;
  for (const auto* node : *graph->nodes()) {
    const std::string& choice = engine->metadata().choices.at(node->name()->str());
    const int threads = node->threads() == 0 ? 2 : node->threads();
    EXPECT_NE(choice.find(fmt::format("threads={}", threads)), std::string::npos) << choice;
    EXPECT_NE(choice.find(ptec_cpu_fb::EnumNameNodeKind(node->kind())), std::string::npos);
    // Convolutions get the measured algorithm: the 3x3 stride-1 ones im2col + GEMM or
    // Winograd F(2x2) or F(4x4), the depthwise one a depthwise path.
    if (node->kind() == ptec_cpu_fb::NodeKind::Conv2d) {
      ++convolutions;
      const bool depthwise = node->ints()->Get(6) > 1;
      EXPECT_NE(node->algorithm(), ptec_cpu_fb::ConvAlgorithm::Auto) << choice;
      // Depthwise (channel multiplier 2): the row and the channel-interleaved paths apply.
      const bool interleaved = node->algorithm() == ptec_cpu_fb::ConvAlgorithm::DepthwiseChannels;
      if (depthwise && !interleaved) {
        EXPECT_EQ(node->algorithm(), ptec_cpu_fb::ConvAlgorithm::DepthwiseRows) << choice;
      }
      EXPECT_TRUE(!interleaved || depthwise) << choice;
      const bool winograd = node->algorithm() == ptec_cpu_fb::ConvAlgorithm::Winograd ||
                            node->algorithm() == ptec_cpu_fb::ConvAlgorithm::Winograd4x4;
      const bool f4 = node->algorithm() == ptec_cpu_fb::ConvAlgorithm::Winograd4x4;
      EXPECT_NE(choice.find(f4            ? "algorithm=winograd4x4; block="
                            : winograd    ? "algorithm=winograd; block="
                            : interleaved ? "algorithm=depthwise_channels"
                            : depthwise   ? "algorithm=depthwise_rows"
                                          : "algorithm=gemm"),
                std::string::npos)
          << choice;
      EXPECT_EQ(node->block() > 0, winograd) << choice;
    }
  }
  EXPECT_EQ(convolutions, 3);
  // Without autotune the plans keep the runtime's defaults (threads 0, algorithm Auto) and the
  // choices say so.
  EngineCompileOptions plain;
  plain.autotune = false;
  const auto untuned = only_engine(compile(small_cnn(false), plain));
  for (const auto& [node, choice] : untuned->metadata().choices) {
    EXPECT_NE(choice.find("threads=0"), std::string::npos) << node << ": " << choice;
    EXPECT_EQ(choice.find("algorithm="), std::string::npos) << node << ": " << choice;
  }
  CpuEngineView untuned_view;
  ASSERT_EQ(untuned_view.parse(untuned->engine_bytes()->data(), untuned->engine_bytes()->size()),
            Error::Ok);
  for (const auto* node : *ptec_cpu_fb::GetGraph(untuned_view.plan_data(0))->nodes()) {
    EXPECT_EQ(node->algorithm(), ptec_cpu_fb::ConvAlgorithm::Auto);
  }
}

TEST_F(EngineCompileTest, DynamicBatchBecomesAProfileWithAPlanPerPoint) {
  const ir::ExportedProgram source = small_cnn(true, 4);
  EngineCompileOptions options;
  options.autotune = false;
  const ir::ExportedProgram compiled = compile(source, options);
  const std::shared_ptr<const Engine> engine = only_engine(compiled);
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->metadata().io_bindings[0].shape[0], (EngineDim{1, 4, "batch"}));
  EXPECT_EQ(engine->metadata().io_bindings[1].shape[0], (EngineDim{1, 4, "batch"}));
  CpuEngineView view;
  ASSERT_EQ(view.parse(engine->engine_bytes()->data(), engine->engine_bytes()->size()), Error::Ok);
  EXPECT_EQ(view.num_plans(), 4u);
  // The engine call's outputs stay symbolic.
  for (const ir::Node* node : compiled.graph().nodes()) {
    if (node->is_op(kExecuteEngineOp)) {
      EXPECT_TRUE(node->meta().val.at(0).shape[0].is_symbolic());
    }
  }
  for (int64_t batch : {1, 3}) {
    auto input = runtime::OwnedTensor::from(DType::Float, {static_cast<int32_t>(batch), 3, 9, 11},
                                            random_vector(static_cast<size_t>(batch) * 297, 11, 1));
    DynamicOutput output({4, 5});
    ASSERT_EQ(run_engine(*engine->serialize(), input, output), Error::Ok);
    ASSERT_EQ(output.tensor.size(0), batch);
    expect_near(output.values(), reference(specialize(source, {{"batch", batch}}), input));
  }
}

TEST_F(EngineCompileTest, RuntimeRefusesInputsOutsideTheProfileNamingTheBinding) {
  EngineCompileOptions options;
  options.autotune = false;
  options.input_profiles["batch"] = EngineDimProfile{1, 2, {}};
  const auto engine = only_engine(compile(small_cnn(true, 4), options));
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->metadata().io_bindings[0].shape[0], (EngineDim{1, 2, "batch"}));
  set_log_sink(capture, nullptr);
  auto big = runtime::OwnedTensor::from(DType::Float, {3, 3, 9, 11}, random_vector(891, 1));
  DynamicOutput output({4, 5});
  EXPECT_EQ(run_engine(*engine->serialize(), big, output), Error::InvalidArgument);
  EXPECT_NE(g_log.find("input 'x' dim 0 is 3, outside the engine's profile [1, 2]"),
            std::string::npos)
      << g_log;
  g_log.clear();
  auto wide = runtime::OwnedTensor::from(DType::Float, {1, 3, 9, 12}, random_vector(324, 1));
  EXPECT_EQ(run_engine(*engine->serialize(), wide, output), Error::InvalidArgument);
  EXPECT_NE(g_log.find("input 'x' dim 3 is 12, outside the engine's profile [11, 11]"),
            std::string::npos)
      << g_log;
}

TEST_F(EngineCompileTest, SharedSymbolsStayShared) {
  builder::GraphBuilder b("two_inputs");
  ir::SymInt batch = b.symbol("batch", 1, 2);
  Value x = b.input("x", DType::Float, {batch, 4});
  Value y = b.input("y", DType::Float, {batch, 4});
  Value s = b.call("aten::add.Tensor", {x, y});
  b.output({b.call("aten::relu", {s})});
  EngineCompileOptions options;
  options.autotune = false;
  const auto engine = only_engine(compile(b.build(), options));
  ASSERT_NE(engine, nullptr);
  ASSERT_EQ(engine->metadata().io_bindings.size(), 3u);
  for (const EngineBinding& binding : engine->metadata().io_bindings) {
    EXPECT_EQ(binding.shape[0], (EngineDim{1, 2, "batch"})) << binding.name;
  }
  // x at batch 1 and y at batch 2 are each within the profile, but not equal.
  std::vector<uint8_t> arena(1 << 20);
  runtime::MemoryAllocator alloc(arena.data(), arena.size());
  runtime::BackendInitContext init(&alloc, nullptr, "forward", nullptr);
  const ir::BufferPtr blob = engine->serialize();
  runtime::FreeableBuffer processed(blob->data(), blob->size(), nullptr);
  EngineBackendRuntime backend;
  Result<runtime::DelegateHandle*> handle = backend.init(init, &processed, {});
  ASSERT_TRUE(handle.ok());
  auto a = runtime::OwnedTensor::from(DType::Float, {1, 4}, random_vector(4, 1));
  auto c = runtime::OwnedTensor::from(DType::Float, {2, 4}, random_vector(8, 2));
  DynamicOutput out({2, 4});
  runtime::EValue ea = a.evalue(), ec = c.evalue(), eo(&out.tensor);
  runtime::EValue* args[] = {&ea, &ec, &eo};
  runtime::BackendExecutionContext exec(nullptr, nullptr, "forward");
  set_log_sink(capture, nullptr);
  EXPECT_EQ(backend.execute(exec, *handle, {args, 3}), Error::InvalidArgument);
  EXPECT_NE(g_log.find("input 'y' dim 0 is 2 but input 'x' dim 0 is 1; both are symbol 'batch'"),
            std::string::npos)
      << g_log;
  backend.destroy(*handle);
}

// Two U-Net levels: h and w (multiples of 8) halved twice by strided convolutions, the deeper map
// upsampled by nearest 2x (outside the CPU backend) and concatenated with the first level's
// output. The region after the upsampling reads only window counts of h and w ("h/2"), not h
// and w themselves: its plans must still specialize them at each point.
ir::ExportedProgram unet_levels() {
  builder::GraphBuilder b("unet_levels");
  ir::SymInt h = b.symbol("h", 8, 16, 8), w = b.symbol("w", 8, 16, 8);
  Value x = b.input("x", DType::Float, {1, 3, h, w});
  Value w_skip = b.parameter("w_skip", tensor({4, 3, 3, 3}, 1));
  Value w_down = b.parameter("w_down", tensor({4, 4, 3, 3}, 2));
  Value w_out = b.parameter("w_out", tensor({2, 8, 3, 3}, 3));
  const std::vector<int64_t> one = {1, 1}, zero = {0, 0}, two = {2, 2};
  Value skip =
      b.call("aten::relu",
             {b.call("aten::convolution", {x, w_skip, nullptr, two, one, one, false, zero, 1})});
  Value down =
      b.call("aten::relu",
             {b.call("aten::convolution", {skip, w_down, nullptr, two, one, one, false, zero, 1})});
  Value up = b.call("aten::upsample_nearest2d.vec", {down, nullptr, std::vector<double>{2, 2}});
  Value cat = b.call("aten::cat", {std::vector<Value>{up, skip}, 1});
  b.output({b.call("aten::convolution", {cat, w_out, nullptr, one, one, one, false, zero, 1})});
  return b.build();
}

TEST_F(EngineCompileTest, RegionsReadingCountsOfTheSymbolsSpecializeThemAtEachPoint) {
  const ir::ExportedProgram source = unet_levels();
  EngineCompileOptions options;
  options.autotune = false;
  const ir::ExportedProgram compiled = compile(source, options);
  ASSERT_GE(count_engine_calls(compiled), 2u) << ir::print(compiled);
  // Through the archive (as `ptec compile` then `ptec export MODEL.ptep`): the window counts
  // read back still compose as the shape functions compute them, so the program verifies.
  const std::string path = ::testing::TempDir() + "engine_counts_test.ptep";
  ir::save_program(compiled, path);
  register_engine_loader();
  const ir::ExportedProgram loaded = ir::load_program(path);
  std::remove(path.c_str());
  const std::vector<uint8_t> bytes = export_engine_program(loaded).to_executorch().buffer();
  std::unique_ptr<uint8_t[]> aligned(new (std::align_val_t(64)) uint8_t[bytes.size()]);
  std::memcpy(aligned.get(), bytes.data(), bytes.size());
  {
    runtime::Module module(aligned.get(), bytes.size());
    for (const auto& [h, w] : {std::pair{8, 16}, std::pair{16, 8}}) {
      auto input = runtime::OwnedTensor::from(DType::Float, {1, 3, h, w},
                                              random_vector(static_cast<size_t>(3 * h * w), 7, 1));
      std::vector<runtime::EValue> args{input.evalue()};
      auto out = module.execute("forward", args);
      ASSERT_TRUE(out.ok()) << h << "x" << w << ": " << to_string(out.error());
      const runtime::Tensor& t = (*out)[0].to_tensor();
      ASSERT_EQ(t.size(2), h / 2);
      ASSERT_EQ(t.size(3), w / 2);
      expect_near({t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel()},
                  reference(specialize(source, {{"h", h}, {"w", w}}), input));
    }
  }
  ::operator delete[](aligned.release(), std::align_val_t(64));
}

TEST_F(EngineCompileTest, PointsOfADeclaredMultipleAreMultiples) {
  builder::GraphBuilder b("multiples");
  ir::SymInt n = b.symbol("n", 24, 96, 24);
  Value x = b.input("x", DType::Float, {2, n});
  b.output({b.call("aten::relu", {b.call("aten::add.Tensor", {x, x})})});
  const ir::ExportedProgram source = b.build();
  EngineCompileOptions options;
  options.autotune = false;
  const auto engine = only_engine(compile(source, options));
  ASSERT_NE(engine, nullptr);
  // 24, 48, 72 and 96: every size the symbol takes (not 32 and 64, which it never takes).
  CpuEngineView view;
  ASSERT_EQ(view.parse(engine->engine_bytes()->data(), engine->engine_bytes()->size()), Error::Ok);
  EXPECT_EQ(view.num_plans(), 4u);
  auto input = runtime::OwnedTensor::from(DType::Float, {2, 72}, random_vector(144, 5, 1));
  DynamicOutput output({2, 96});
  ASSERT_EQ(run_engine(*engine->serialize(), input, output), Error::Ok);
  expect_near(output.values(), reference(specialize(source, {{"n", 72}}), input));
  // Listed points must be multiples too.
  options.input_profiles["n"] = EngineDimProfile{24, 96, {24, 36}};
  try {
    compile(source, options);
    FAIL() << "a point that is not a multiple was accepted";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("point n=36 is not a multiple of 24"), std::string::npos)
        << e.what();
  }
}

// Deep 3x3 layers on a small map: timing every layer's Winograd F(4x4) candidate at once packs
// 4x their weights, more than the method memory sized from the plan's tensors holds.
TEST_F(EngineCompileTest, AutotuneGrowsTheMethodMemoryForLargePackedWeights) {
  builder::GraphBuilder b("deep_small");
  Value x = b.input("x", DType::Float, {1, 512, 4, 4});
  const std::vector<int64_t> one = {1, 1}, zero = {0, 0};
  Value y = x;
  for (uint32_t i = 0; i < 2; ++i) {
    Value w = b.parameter("w" + std::to_string(i), tensor({512, 512, 3, 3}, 20 + i));
    y = b.call("aten::relu",
               {b.call("aten::convolution", {y, w, nullptr, one, one, one, false, zero, 1})});
  }
  b.output({y});
  EngineCompileOptions options;
  options.autotune_iterations = 1;
  EXPECT_NE(only_engine(compile(b.build(), options)), nullptr);
}

TEST_F(EngineCompileTest, ProgramArchiveRoundTripKeepsTheEngine) {
  EngineCompileOptions options;
  options.autotune = false;
  const ir::ExportedProgram compiled = compile(small_cnn(true, 2), options);
  const auto engine = only_engine(compiled);
  ASSERT_NE(engine, nullptr);
  const std::string path = ::testing::TempDir() + "engine_archive_test.ptep";
  ir::save_program(compiled, path);
  register_engine_loader();
  const ir::ExportedProgram loaded = ir::load_program(path);
  std::remove(path.c_str());
  EXPECT_EQ(ir::print(loaded), ir::print(compiled));
  EXPECT_EQ(count_engine_calls(loaded), 1u);
  const auto reloaded = only_engine(loaded);
  ASSERT_NE(reloaded, nullptr);
  EXPECT_EQ(reloaded->metadata(), engine->metadata());
  const ir::BufferPtr a = engine->serialize(), b = reloaded->serialize();
  ASSERT_EQ(a->size(), b->size());
  EXPECT_EQ(std::memcmp(a->data(), b->data(), a->size()), 0);
  // The engine is a view into the archive's mapping, its engine bytes 16-byte aligned.
  EXPECT_TRUE(b->is_mapped());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(reloaded->engine_bytes()->data()) % 16, 0u);
}

TEST_F(EngineCompileTest, RuntimeRejectsMalformedBlobsAsInvalidProgram) {
  EngineCompileOptions options;
  options.autotune = false;
  const auto engine = only_engine(compile(small_cnn(false), options));
  const ir::BufferPtr blob = engine->serialize();
  auto input = runtime::OwnedTensor::from(DType::Float, {2, 3, 9, 11}, random_vector(594, 9));
  DynamicOutput output({2, 5});
  set_log_sink(capture, nullptr);
  for (size_t n : {size_t{0}, size_t{31}, blob->size() / 2, blob->size() - 1}) {
    const ir::BufferPtr cut = ir::Buffer::copy_of(blob->data(), n);
    EXPECT_EQ(run_engine(*cut, input, output), Error::InvalidProgram) << n << " bytes";
  }
  // Engine bytes that are not a cpu engine.
  std::vector<uint8_t> bad(blob->data(), blob->data() + blob->size());
  const size_t engine_at = static_cast<size_t>(engine->engine_bytes()->data() - blob->data());
  bad[engine_at] = 'X';
  EXPECT_EQ(run_engine(*ir::Buffer::copy_of(bad.data(), bad.size()), input, output),
            Error::InvalidProgram);
  EXPECT_NE(g_log.find("not a cpu engine"), std::string::npos) << g_log;
}

TEST_F(EngineCompileTest, OptionsAreValidated) {
  EngineCompileOptions gpu;
  gpu.target = "gpu";
  EXPECT_THROW(compile(small_cnn(false), gpu), Exception);
  EngineCompileOptions unknown;
  unknown.input_profiles["seq"] = EngineDimProfile{1, 2, {}};
  try {
    compile(small_cnn(true), unknown);
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("'seq', which is not a symbol"), std::string::npos)
        << e.what();
  }
  EngineCompileOptions wide;
  wide.input_profiles["batch"] = EngineDimProfile{1, 9, {}};
  EXPECT_THROW(compile(small_cnn(true, 4), wide), Exception);
  EngineCompileOptions many;
  many.max_plans = 2;
  EXPECT_THROW(compile(small_cnn(true, 4), many), Exception);
}

}  // namespace
}  // namespace ptec::engine
