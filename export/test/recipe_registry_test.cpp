// The recipe registry: one process-wide instance, errors that list what is available, kwargs
// checked by type and passed to providers unchanged, supports_recipe agreeing with
// create_recipe, the built-in portable / cpu providers and the x86_64-cpu-fp32 target.

#include <gtest/gtest.h>

#include <functional>

#include "backends/cpu/aot/cpu_partitioner.h"
#include "export/recipe_registry.h"
#include "ir/exception.h"

namespace ptec {
namespace {

std::string error_of(const std::function<void()>& f, Error* code = nullptr) {
  try {
    f();
  } catch (const Exception& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Records the kwargs it is given.
class RecordingProvider final : public BackendRecipeProvider {
 public:
  std::string backend_name() const override { return "test_recording"; }
  std::vector<RecipeTypeInfo> recipe_types() const override {
    return {{"test_recording_recipe",
             "records its kwargs",
             {{"flag", KwargType::Bool, "a bool", std::nullopt},
              {"count", KwargType::Int, "an int", std::nullopt},
              {"ratio", KwargType::Float, "a float", std::nullopt},
              {"label", KwargType::String, "a string", std::nullopt}},
             true}};
  }
  ExportRecipe create_recipe(const std::string& type, const RecipeKwargs& kwargs) const override {
    received.push_back(kwargs);
    ExportRecipe r;
    r.name = type;
    return r;
  }
  mutable std::vector<RecipeKwargs> received;
};

std::shared_ptr<RecordingProvider> recording_provider() {
  static std::shared_ptr<RecordingProvider> p = [] {
    auto provider = std::make_shared<RecordingProvider>();
    RecipeRegistry::instance().register_provider(provider);
    return provider;
  }();
  return p;
}

TEST(RecipeRegistry, IsOneProcessWideInstance) {
  RecipeRegistry& a = RecipeRegistry::instance();
  RecipeRegistry& b = RecipeRegistry::instance();
  EXPECT_EQ(&a, &b);
  // A provider registered through one reference is seen through every other.
  auto provider = recording_provider();
  EXPECT_EQ(RecipeRegistry::instance().provider("test_recording"), provider);
  const std::vector<std::string> backends = b.backends();
  EXPECT_NE(std::find(backends.begin(), backends.end(), "test_recording"), backends.end());
  // Registering a second provider for the backend is refused.
  Error code = Error::Ok;
  const std::string msg =
      error_of([&] { a.register_provider(std::make_shared<RecordingProvider>()); }, &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_TRUE(contains(msg, "'test_recording' is already registered")) << msg;
}

TEST(RecipeRegistry, BuiltInProvidersAndTargets) {
  RecipeRegistry& r = RecipeRegistry::instance();
  const std::vector<std::string> backends = r.backends();
  EXPECT_NE(std::find(backends.begin(), backends.end(), "cpu"), backends.end());
  EXPECT_NE(std::find(backends.begin(), backends.end(), "portable"), backends.end());

  const ExportRecipe portable = r.create_recipe("portable");
  EXPECT_EQ(portable.name, "portable");
  EXPECT_TRUE(portable.lowering.partitioners.empty());
  EXPECT_TRUE(portable.quantization.empty());

  const ExportRecipe cpu = r.create_recipe("cpu_fp32");
  EXPECT_EQ(cpu.name, "cpu_fp32");
  ASSERT_EQ(cpu.lowering.partitioners.size(), 1u);
  EXPECT_EQ(cpu.lowering.partitioners[0]->name(), "CpuPartitioner");
  // The backend-scoped form creates the same recipe.
  EXPECT_EQ(r.create_recipe("cpu", "cpu_fp32", {}).lowering.partitioners.size(), 1u);

  const ExportRecipe target = r.create_recipe("x86_64-cpu-fp32");
  EXPECT_EQ(target.name, "x86_64-cpu-fp32");
  ASSERT_EQ(target.lowering.partitioners.size(), 1u);
  EXPECT_EQ(target.lowering.partitioners[0]->name(), "CpuPartitioner");
  const std::vector<TargetRecipeInfo> targets = r.targets();
  ASSERT_FALSE(targets.empty());
  EXPECT_EQ(targets[0].name, "x86_64-cpu-fp32");
  EXPECT_EQ(targets[0].recipe_types, (std::vector<std::string>{"cpu_fp32", "portable"}));
  // Kwargs of a target reach the types that declare them.
  const ExportRecipe external = r.create_recipe("x86_64-cpu-fp32", {{"external_constants", true}});
  EXPECT_TRUE(external.backend_config.external_constants);
}

TEST(RecipeRegistry, UnknownBackendListsTheBackends) {
  Error code = Error::Ok;
  const std::string msg = error_of([] { (void)RecipeRegistry::instance().provider("tpu"); }, &code);
  EXPECT_EQ(code, Error::NotFound);
  EXPECT_TRUE(contains(msg, "'tpu'")) << msg;
  EXPECT_TRUE(contains(msg, "cpu")) << msg;
  EXPECT_TRUE(contains(msg, "portable")) << msg;
  const std::string msg2 =
      error_of([] { (void)RecipeRegistry::instance().create_recipe("tpu", "tpu_fp32", {}); });
  EXPECT_TRUE(contains(msg2, "backends: ")) << msg2;
  EXPECT_TRUE(contains(msg2, "cpu, ")) << msg2;
}

TEST(RecipeRegistry, UnknownRecipeListsTheRecipes) {
  Error code = Error::Ok;
  const std::string msg =
      error_of([] { (void)RecipeRegistry::instance().create_recipe("gpu_fp16"); }, &code);
  EXPECT_EQ(code, Error::NotFound);
  EXPECT_TRUE(contains(msg, "'gpu_fp16'")) << msg;
  EXPECT_TRUE(contains(msg, "cpu_fp32")) << msg;
  EXPECT_TRUE(contains(msg, "portable")) << msg;
  EXPECT_TRUE(contains(msg, "x86_64-cpu-fp32")) << msg;
  EXPECT_TRUE(contains(msg, "cpu_int8_static_per_channel")) << msg;
  EXPECT_TRUE(contains(msg, "x86_64-cpu-int8")) << msg;

  // Scoped to a backend: that backend's types.
  const std::string scoped = error_of(
      [] { (void)RecipeRegistry::instance().create_recipe("cpu", "portable", {}); }, &code);
  EXPECT_EQ(code, Error::NotFound);
  EXPECT_TRUE(contains(scoped, "backend 'cpu' has no recipe type 'portable'")) << scoped;
  EXPECT_TRUE(contains(scoped, "cpu_fp32")) << scoped;
}

TEST(RecipeRegistry, QuantizedTypesQuantizeThenLowerToTheCpuBackend) {
  RecipeRegistry& r = RecipeRegistry::instance();
  for (const char* type : {"cpu_int8_dynamic_per_channel", "cpu_int8_static_per_channel",
                           "cpu_int8_static_per_tensor", "cpu_int4_weight_per_group"}) {
    const ExportRecipe recipe = r.create_recipe(type);
    EXPECT_EQ(recipe.name, type);
    ASSERT_EQ(recipe.quantization.quantizers.size(), 1u) << type;
    EXPECT_TRUE(contains(recipe.quantization.quantizers[0]->name(), type))
        << recipe.quantization.quantizers[0]->name();
    EXPECT_EQ(recipe.lowering.partitioners.size(), 1u) << type;
    EXPECT_TRUE(r.supports_recipe(type)) << type;
    EXPECT_TRUE(r.recipe_type(type).available) << type;
  }
  EXPECT_TRUE(r.create_recipe("cpu_fp32").quantization.empty());
  // The int8 target: the static per-channel quantizer, the CPU partitioner, then the kernels.
  const ExportRecipe target = r.create_recipe("x86_64-cpu-int8");
  EXPECT_EQ(target.name, "x86_64-cpu-int8");
  ASSERT_EQ(target.quantization.quantizers.size(), 1u);
  EXPECT_TRUE(contains(target.quantization.quantizers[0]->name(), "cpu_int8_static_per_channel"));
  EXPECT_EQ(target.lowering.partitioners.size(), 1u);
  // group_size: a positive int.
  Error code = Error::Ok;
  std::string msg = error_of(
      [&] {
        (void)r.create_recipe("cpu_int4_weight_per_group", {{"group_size", int64_t{0}}});
      },
      &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_TRUE(contains(msg, "'group_size' must be a positive integer, got 0")) << msg;
  EXPECT_NO_THROW(
      (void)r.create_recipe("cpu_int4_weight_per_group", {{"group_size", int64_t{64}}}));
  msg = error_of([&] { (void)r.parse_kwargs("cpu_int4_weight_per_group", {"group_size=3.5"}); });
  EXPECT_TRUE(contains(msg, "kwarg 'group_size' must be int, got '3.5'")) << msg;
  msg = error_of([&] {
    (void)r.create_recipe("cpu_int8_static_per_tensor", {{"group_size", int64_t{8}}});
  });
  EXPECT_TRUE(contains(msg, "unknown kwarg 'group_size'")) << msg;
  // A QAT request says how QAT-trained models come in.
  const std::string qat = error_of([&] { (void)r.create_recipe("cpu_int8_qat"); }, &code);
  EXPECT_EQ(code, Error::NotSupported);
  EXPECT_TRUE(contains(qat, "ONNX QDQ")) << qat;
}

TEST(RecipeRegistry, SupportsRecipeExactlyWhenCreateSucceeds) {
  RecipeRegistry& r = RecipeRegistry::instance();
  std::vector<std::string> names = {"nope", "cpu_int8_qat"};
  for (const auto& [backend, info] : r.recipe_types()) names.push_back(info.name);
  for (const TargetRecipeInfo& t : r.targets()) names.push_back(t.name);
  size_t supported = 0;
  for (const std::string& name : names) {
    bool created = true;
    try {
      (void)r.create_recipe(name);
    } catch (const Exception&) {
      created = false;
    }
    EXPECT_EQ(r.supports_recipe(name), created) << name;
    supported += created;
  }
  EXPECT_TRUE(r.supports_recipe("cpu_fp32"));
  EXPECT_TRUE(r.supports_recipe("portable"));
  EXPECT_TRUE(r.supports_recipe("x86_64-cpu-fp32"));
  EXPECT_FALSE(r.supports_recipe("nope"));
  EXPECT_GE(supported, 3u);
}

TEST(RecipeRegistry, KwargsReachTheProviderUnchanged) {
  auto provider = recording_provider();
  provider->received.clear();
  const RecipeKwargs kwargs = {
      {"flag", true}, {"count", int64_t{7}}, {"ratio", 0.25}, {"label", std::string("x")}};
  (void)RecipeRegistry::instance().create_recipe("test_recording_recipe", kwargs);
  ASSERT_EQ(provider->received.size(), 1u);
  EXPECT_EQ(provider->received[0], kwargs);
  // No kwargs: the provider gets none (not the defaults filled in).
  (void)RecipeRegistry::instance().create_recipe("test_recording_recipe");
  ASSERT_EQ(provider->received.size(), 2u);
  EXPECT_TRUE(provider->received[1].empty());
}

TEST(RecipeRegistry, KwargsAreTypeChecked) {
  auto provider = recording_provider();
  provider->received.clear();
  RecipeRegistry& r = RecipeRegistry::instance();
  Error code = Error::Ok;

  // An unknown kwarg is an error listing the accepted ones, and the provider is not called.
  std::string msg = error_of(
      [&] {
        (void)r.create_recipe("test_recording_recipe", {{"colour", std::string("red")}});
      },
      &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_TRUE(contains(msg, "unknown kwarg 'colour'")) << msg;
  EXPECT_TRUE(contains(msg, "count: int")) << msg;

  // The wrong type names the kwarg, the expected type and the given one.
  msg = error_of([&] { (void)r.create_recipe("test_recording_recipe", {{"count", 2.5}}); }, &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_TRUE(contains(msg, "kwarg 'count' must be int, got float 2.5")) << msg;
  msg = error_of([&] { (void)r.create_recipe("test_recording_recipe", {{"flag", int64_t{1}}}); });
  EXPECT_TRUE(contains(msg, "kwarg 'flag' must be bool, got int 1")) << msg;
  EXPECT_TRUE(provider->received.empty());

  // group_size must be an integer.
  msg = error_of(
      [&] {
        (void)r.create_recipe("cpu_int4_weight_per_group", {{"group_size", std::string("32")}});
      },
      &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_TRUE(contains(msg, "kwarg 'group_size' must be int, got string '32'")) << msg;
  // cpu_fp32 takes no group_size.
  msg = error_of([&] { (void)r.create_recipe("cpu_fp32", {{"group_size", int64_t{32}}}); }, &code);
  EXPECT_EQ(code, Error::InvalidArgument);
  EXPECT_TRUE(contains(msg, "unknown kwarg 'group_size'")) << msg;

  // Values are checked by the provider too.
  msg = error_of([&] {
    (void)r.create_recipe("portable", {{"memory_planning", std::string("best")}});
  });
  EXPECT_TRUE(contains(msg, "'greedy' or 'naive'")) << msg;
  EXPECT_EQ(r.create_recipe("portable", {{"memory_planning", std::string("naive")}})
                .backend_config.memory_planning,
            emit::MemoryPlanning::Naive);
}

// A provider that builds its recipe on another one, through the registry.
class LayeredProvider final : public BackendRecipeProvider {
 public:
  std::string backend_name() const override { return "test_layered"; }
  std::vector<RecipeTypeInfo> recipe_types() const override {
    return {{"test_layered_fp32", "cpu_fp32 with 64-byte alignment", {}, true}};
  }
  ExportRecipe create_recipe(const std::string& type, const RecipeKwargs&) const override {
    ExportRecipe r = RecipeRegistry::instance().create_recipe("cpu_fp32");
    r.name = type;
    r.backend_config.alignment = 64;
    return r;
  }
};

TEST(RecipeRegistry, ProvidersMayUseTheRegistry) {
  RecipeRegistry& r = RecipeRegistry::instance();
  r.register_provider(std::make_shared<LayeredProvider>());
  const ExportRecipe recipe = r.create_recipe("test_layered_fp32");
  EXPECT_EQ(recipe.name, "test_layered_fp32");
  EXPECT_EQ(recipe.backend_config.alignment, 64u);
  EXPECT_EQ(recipe.lowering.partitioners.size(), 1u);
}

TEST(RecipeRegistry, ParsesKeyValueArguments) {
  RecipeRegistry& r = RecipeRegistry::instance();
  const RecipeKwargs kwargs =
      r.parse_kwargs("x86_64-cpu-fp32", {"external_constants=true", "memory_planning=naive"});
  EXPECT_EQ(kwargs.at("external_constants"), RecipeValue(true));
  EXPECT_EQ(kwargs.at("memory_planning"), RecipeValue(std::string("naive")));
  const RecipeKwargs group = r.parse_kwargs("cpu_int4_weight_per_group", {"group_size=64"});
  EXPECT_EQ(group.at("group_size"), RecipeValue(int64_t{64}));
  std::string msg =
      error_of([&] { (void)r.parse_kwargs("cpu_int4_weight_per_group", {"group_size=abc"}); });
  EXPECT_TRUE(contains(msg, "kwarg 'group_size' must be int, got 'abc'")) << msg;
  msg = error_of([&] { (void)r.parse_kwargs("cpu_fp32", {"external_constants"}); });
  EXPECT_TRUE(contains(msg, "not key=value")) << msg;
}

}  // namespace
}  // namespace ptec
