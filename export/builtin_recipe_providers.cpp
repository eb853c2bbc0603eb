#include "export/builtin_recipe_providers.h"

#include <optional>

#include "backends/cpu/aot/cpu_backend.h"
#include "backends/cpu/aot/cpu_partitioner.h"
#include "ir/exception.h"
#include "passes/conv3d_as_conv2d.h"
#include "quant/cpu_quantizer.h"
#include "quant/quantize.h"

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
constexpr const char* kInt8Dynamic = "cpu_int8_dynamic_per_channel";
constexpr const char* kInt8StaticPerChannel = "cpu_int8_static_per_channel";
constexpr const char* kInt8StaticPerTensor = "cpu_int8_static_per_tensor";
constexpr const char* kInt4Weight = "cpu_int4_weight_per_group";
constexpr int64_t kDefaultGroupSize = 32;

// ExportSession's Quantizer over quant/: prepare → calibrate → convert.
class PtqQuantizer final : public Quantizer {
 public:
  explicit PtqQuantizer(std::shared_ptr<const quant::Quantizer> q) : q_(std::move(q)) {}
  std::string name() const override { return q_->name(); }
  ir::ExportedProgram quantize(const ir::ExportedProgram& program,
                               const std::vector<InputSet>& calibration,
                               const CalibrationSettings& settings) const override {
    quant::CalibrationOptions o;
    o.max_samples = settings.max_samples;
    o.show_progress = settings.show_progress;
    return quant::quantize(program, *q_, calibration, o);
  }

 private:
  std::shared_ptr<const quant::Quantizer> q_;
};

class CpuRecipeProvider final : public BackendRecipeProvider {
 public:
  std::string backend_name() const override { return "cpu"; }
  std::vector<RecipeTypeInfo> recipe_types() const override {
    std::vector<RecipeKwarg> int4 = common_kwargs();
    int4.push_back({"group_size", KwargType::Int,
                    "input channels of a linear weight that share one scale (positive; layers "
                    "whose input channels it does not divide stay float)",
                    RecipeValue(kDefaultGroupSize)});
    return {
        {kCpuFp32,
         "PtecCpuBackend in fp32: convolutions, linear layers, pooling and element-wise ops on "
         "its AVX2/FMA kernels, the rest on the kernels",
         common_kwargs(), true},
        {kInt8Dynamic,
         "int8 dynamic quantization: convolution and linear inputs quantized per run "
         "(choose_qparams), per-channel symmetric int8 weights; PtecCpuBackend for the rest",
         common_kwargs(), true},
        {kInt8StaticPerChannel,
         "int8 static quantization calibrated on the calibration inputs: activations int8 "
         "(histogram, MSE range), per-channel symmetric int8 weights; on PtecCpuBackend",
         common_kwargs(), true},
        {kInt8StaticPerTensor,
         "int8 static quantization calibrated on the calibration inputs: activations int8 "
         "(histogram, MSE range), per-tensor symmetric int8 weights; on PtecCpuBackend",
         common_kwargs(), true},
        {kInt4Weight,
         "int4 weight-only quantization of linear layers per group of input channels "
         "(group_size); activations stay fp32",
         int4, true},
    };
  }
  ExportRecipe create_recipe(const std::string& type, const RecipeKwargs& kwargs) const override {
    ExportRecipe recipe;
    recipe.name = type;
    std::optional<quant::QuantizationConfig> config;
    if (type == kInt8Dynamic) {
      config = quant::get_symmetric_quantization_config(/*is_per_channel=*/true,
                                                        /*is_dynamic=*/true);
    } else if (type == kInt8StaticPerChannel) {
      config = quant::get_symmetric_quantization_config(true, false);
    } else if (type == kInt8StaticPerTensor) {
      config = quant::get_symmetric_quantization_config(false, false);
    } else if (type == kInt4Weight) {
      int64_t group_size = kDefaultGroupSize;
      if (auto it = kwargs.find("group_size"); it != kwargs.end()) {
        group_size = std::get<int64_t>(it->second);
      }
      PTEC_ENFORCE(group_size > 0, InvalidArgument,
                   "recipe '{}': kwarg 'group_size' must be a positive integer, got {}", type,
                   group_size);
      config = quant::get_int4_weight_only_config(group_size);
    } else if (type != kCpuFp32) {
      raise(Error::NotFound, "backend 'cpu' has no recipe type '{}'", type);
    }
    if (config) {
      recipe.quantization.quantizers.push_back(
          make_ptq_quantizer(std::make_shared<quant::CpuQuantizer>(*config, type)));
    }
    backends::cpu::register_cpu_backend_aot();
    // Factored video blocks' 3-D convolutions as 2-D ones, which the backend claims.
    recipe.lowering.edge_transform_passes.push_back(std::make_shared<passes::Conv3dAsConv2d>());
    recipe.lowering.partitioners.push_back(std::make_shared<backends::cpu::CpuPartitioner>());
    apply_common_kwargs(type, kwargs, recipe);
    return recipe;
  }
};

}  // namespace

std::shared_ptr<const Quantizer> make_ptq_quantizer(
    std::shared_ptr<const quant::Quantizer> quantizer) {
  PTEC_ENFORCE(quantizer != nullptr, InvalidArgument, "make_ptq_quantizer: null quantizer");
  return std::make_shared<PtqQuantizer>(std::move(quantizer));
}

std::vector<std::shared_ptr<const BackendRecipeProvider>> builtin_recipe_providers() {
  return {std::make_shared<PortableRecipeProvider>(), std::make_shared<CpuRecipeProvider>()};
}

std::vector<TargetRecipeInfo> builtin_target_recipes() {
  return {{"x86_64-cpu-fp32",
           "x86-64 CPUs in fp32: PtecCpuBackend for what it runs, the kernels for the rest",
           {kCpuFp32, "portable"}},
          {"x86_64-cpu-int8",
           "x86-64 CPUs in int8: static per-channel quantization (calibrated), PtecCpuBackend "
           "for what it runs, the kernels for the rest",
           {kInt8StaticPerChannel, "portable"}}};
}

}  // namespace ptec
