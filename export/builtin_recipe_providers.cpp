#include "export/builtin_recipe_providers.h"

#include "backends/cpu/aot/cpu_backend.h"
#include "backends/cpu/aot/cpu_partitioner.h"
#include "ir/exception.h"

namespace ptec {
namespace {

// Kwargs every recipe of the built-in providers takes: how the program is laid out.
std::vector<RecipeKwarg> common_kwargs() {
  return {
      {"external_constants", KwargType::Bool,
       "store weights and constants in a .ptd beside the .pte instead of inside it",
       RecipeValue(false)},
      {"memory_planning", KwargType::String,
       "memory planner of every method: 'greedy' (lifetime-based, default) or 'naive'",
       RecipeValue(std::string("greedy"))},
  };
}

void apply_common_kwargs(const std::string& type, const RecipeKwargs& kwargs,
                         ExportRecipe& recipe) {
  if (auto it = kwargs.find("external_constants"); it != kwargs.end()) {
    recipe.backend_config.external_constants = std::get<bool>(it->second);
  }
  if (auto it = kwargs.find("memory_planning"); it != kwargs.end()) {
    const std::string& planner = std::get<std::string>(it->second);
    if (planner == "greedy") {
      recipe.backend_config.memory_planning = emit::MemoryPlanning::Greedy;
    } else if (planner == "naive") {
      recipe.backend_config.memory_planning = emit::MemoryPlanning::Naive;
    } else {
      raise(Error::InvalidArgument,
            "recipe '{}': kwarg 'memory_planning' must be 'greedy' or 'naive', got '{}'", type,
            planner);
    }
  }
}

class PortableRecipeProvider final : public BackendRecipeProvider {
 public:
  std::string backend_name() const override { return "portable"; }
  std::vector<RecipeTypeInfo> recipe_types() const override {
    return {{"portable",
             "every operator on ptec's kernels (optimized where they exist, portable otherwise); "
             "no delegates",
             common_kwargs(), true}};
  }
  ExportRecipe create_recipe(const std::string& type, const RecipeKwargs& kwargs) const override {
    ExportRecipe recipe;
    recipe.name = type;
    apply_common_kwargs(type, kwargs, recipe);
    return recipe;
  }
};

constexpr const char* kCpuFp32 = "cpu_fp32";

class CpuRecipeProvider final : public BackendRecipeProvider {
 public:
  std::string backend_name() const override { return "cpu"; }
  std::vector<RecipeTypeInfo> recipe_types() const override {
    std::vector<RecipeKwarg> int4 = common_kwargs();
    int4.push_back({"group_size", KwargType::Int,
                    "input channels that share one weight scale (a divisor of the channels)",
                    RecipeValue(int64_t{32})});
    return {
        {kCpuFp32,
         "PtecCpuBackend in fp32: convolutions, linear layers, pooling and element-wise ops on "
         "its AVX2/FMA kernels, the rest on the kernels",
         common_kwargs(), true},
        {"cpu_int8_dynamic_per_channel",
         "int8 dynamic activations, per-channel int8 weights, on PtecCpuBackend", common_kwargs(),
         false},
        {"cpu_int8_static_per_channel",
         "int8 static activations (calibrated), per-channel int8 weights, on PtecCpuBackend",
         common_kwargs(), false},
        {"cpu_int8_static_per_tensor",
         "int8 static activations (calibrated), per-tensor int8 weights, on PtecCpuBackend",
         common_kwargs(), false},
        {"cpu_int4_weight_per_group", "int4 weight-only quantization per group of input channels",
         int4, false},
    };
  }
  ExportRecipe create_recipe(const std::string& type, const RecipeKwargs& kwargs) const override {
    if (type != kCpuFp32) {
      // Declared so that listings and kwarg checks know them; the quantizers are not built.
      raise(Error::NotSupported,
            "recipe '{}' is not available yet: post-training quantization (quant/) is not part "
            "of this build; use '{}' or import a quantized ONNX QDQ model",
            type, kCpuFp32);
    }
    ExportRecipe recipe;
    recipe.name = type;
    backends::cpu::register_cpu_backend_aot();
    recipe.lowering.partitioners.push_back(std::make_shared<backends::cpu::CpuPartitioner>());
    apply_common_kwargs(type, kwargs, recipe);
    return recipe;
  }
};

}  // namespace

std::vector<std::shared_ptr<const BackendRecipeProvider>> builtin_recipe_providers() {
  return {std::make_shared<PortableRecipeProvider>(), std::make_shared<CpuRecipeProvider>()};
}

std::vector<TargetRecipeInfo> builtin_target_recipes() {
  return {{"x86_64-cpu-fp32",
           "x86-64 CPUs in fp32: PtecCpuBackend for what it runs, the kernels for the rest",
           {kCpuFp32, "portable"}}};
}

}  // namespace ptec
