#include "tools/ptec/recipes.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/engine/aot/engine_recipe_provider.h"
#include "export/recipe_registry.h"
#include "ir/exception.h"
#include "tools/ptec/tensor_io.h"

namespace ptec::cli {
namespace {

namespace fs = std::filesystem;

bool has_input_files(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path& p = entry.path();
    if (entry.is_regular_file() &&
        (p.extension() == ".npy" ||
         (p.extension() == ".pb" && p.stem().string().rfind("input_", 0) == 0))) {
      return true;
    }
  }
  return false;
}

ir::TensorData to_tensor_data(const HostTensor& t) {
  return {ir::TensorSpec(t.dtype, t.sizes), ir::Buffer::copy_of(t.data.data(), t.data.size())};
}

// One input set of ones for the user inputs of `program` (ptec run's default inputs).
std::vector<ir::TensorData> ones_for(const ir::ExportedProgram& program) {
  std::vector<ir::TensorData> set;
  for (const std::string& name : program.signature().user_inputs()) {
    const ir::TensorSpec& spec = program.graph().get(name).spec();
    PTEC_ENFORCE(spec.is_static(), InvalidArgument,
                 "input {} has a dynamic shape {}: give calibration inputs (--calibration DIR)",
                 name, spec.to_string());
    const auto n = static_cast<size_t>(spec.numel_upper_bound());
    std::vector<uint8_t> bytes(n * element_size(spec.dtype));
    for (size_t i = 0; i < n; ++i) {
      uint8_t* e = bytes.data() + i * element_size(spec.dtype);
      switch (spec.dtype) {
        case DType::Float: {
          const float one = 1.0f;
          std::memcpy(e, &one, sizeof one);
          break;
        }
        case DType::Double: {
          const double one = 1.0;
          std::memcpy(e, &one, sizeof one);
          break;
        }
        case DType::Long: {
          const int64_t one = 1;
          std::memcpy(e, &one, sizeof one);
          break;
        }
        case DType::Int: {
          const int32_t one = 1;
          std::memcpy(e, &one, sizeof one);
          break;
        }
        case DType::Bool:
        case DType::Byte:
        case DType::Char: *e = 1; break;
        default:
          raise(Error::NotSupported,
                "input {} has dtype {}: give calibration inputs (--calibration DIR)", name,
                to_string(spec.dtype));
      }
    }
    set.push_back({spec, ir::Buffer::from_vector(std::move(bytes))});
  }
  return set;
}

// The registry with the providers the CLI adds to the built-in ones (the engine's: export/ does
// not link it).
RecipeRegistry& registry() {
  engine::register_engine_recipe_provider();
  return RecipeRegistry::instance();
}

std::string default_text(const RecipeKwarg& k) {
  return k.default_value ? to_string(*k.default_value) : std::string("(provider default)");
}

}  // namespace

const std::vector<std::string>& recipe_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {"cpu_fp32"};  // the default first
    const RecipeRegistry& r = registry();
    for (const auto& [backend, info] : r.recipe_types()) {
      if (info.available && info.name != out[0]) out.push_back(info.name);
    }
    for (const auto& target : r.targets()) out.push_back(target.name);
    return out;
  }();
  return names;
}

LoweringRecipe recipe_lowering(const std::string& recipe) {
  // The registry's error for an unknown name lists the recipes it has.
  const ExportRecipe r = registry().create_recipe(recipe);
  PTEC_ENFORCE(r.quantization.quantizers.empty(), NotSupported,
               "recipe '{}' quantizes; quantized export takes a single model "
               "(ptec export MODEL.onnx --recipe {} [--calibration DIR])",
               recipe, recipe);
  return r.lowering;
}

ExportRecipe create_recipe(const std::string& name, const std::vector<std::string>& args) {
  RecipeRegistry& r = registry();
  return r.create_recipe(name, r.parse_kwargs(name, args));
}

std::vector<std::vector<ir::TensorData>> read_calibration_sets(const std::string& dir) {
  PTEC_ENFORCE(fs::is_directory(dir), NotFound, "--calibration {}: not a directory", dir);
  std::vector<fs::path> set_dirs;
  if (has_input_files(dir)) {
    set_dirs.emplace_back(dir);
  } else {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_directory() && has_input_files(entry.path())) set_dirs.push_back(entry.path());
    }
    std::sort(set_dirs.begin(), set_dirs.end());
  }
  PTEC_ENFORCE(!set_dirs.empty(), NotFound,
               "--calibration {}: no input sets (subdirectories with input_K.pb or .npy files, "
               "or such files in the directory itself)",
               dir);
  std::vector<std::vector<ir::TensorData>> sets;
  for (const fs::path& d : set_dirs) {
    std::vector<ir::TensorData> set;
    for (const HostTensor& t : read_input_dir(d.string())) set.push_back(to_tensor_data(t));
    sets.push_back(std::move(set));
  }
  return sets;
}

ir::ExportedProgram quantize_for_recipe(const ExportRecipe& recipe,
                                        const ir::ExportedProgram& program,
                                        const std::string& calibration_dir) {
  std::vector<std::vector<ir::TensorData>> sets;
  if (calibration_dir.empty()) {
    std::fprintf(stderr,
                 "ptec: warning: recipe %s quantizes and no --calibration DIR was given: "
                 "calibrating on one input of ones (static activation ranges will not fit real "
                 "data)\n",
                 recipe.name.c_str());
    sets.push_back(ones_for(program));
  } else {
    sets = read_calibration_sets(calibration_dir);
  }
  ir::ExportedProgram current = program;
  for (const auto& q : recipe.quantization.quantizers) {
    current = q->quantize(current, sets, recipe.quantization.calibration);
  }
  return current;
}

int run_recipes(bool json) {
  const RecipeRegistry& reg = registry();
  if (json) {
    nlohmann::ordered_json j;
    j["recipes"] = nlohmann::ordered_json::array();
    for (const auto& [backend, info] : reg.recipe_types()) {
      nlohmann::ordered_json r;
      r["name"] = info.name;
      r["backend"] = backend;
      r["description"] = info.description;
      r["available"] = info.available;
      r["kwargs"] = nlohmann::ordered_json::array();
      for (const RecipeKwarg& k : info.kwargs) {
        r["kwargs"].push_back({{"name", k.name},
                               {"type", to_string(k.type)},
                               {"default", default_text(k)},
                               {"description", k.description}});
      }
      j["recipes"].push_back(r);
    }
    j["targets"] = nlohmann::ordered_json::array();
    for (const TargetRecipeInfo& t : reg.targets()) {
      j["targets"].push_back(
          {{"name", t.name}, {"description", t.description}, {"combines", t.recipe_types}});
    }
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::string last_backend;
  for (const auto& [backend, info] : reg.recipe_types()) {
    if (backend != last_backend) {
      std::printf("%sbackend %s\n", last_backend.empty() ? "" : "\n", backend.c_str());
      last_backend = backend;
    }
    std::printf("  %s%s\n      %s\n", info.name.c_str(),
                info.available ? "" : " (not available yet)", info.description.c_str());
    for (const RecipeKwarg& k : info.kwargs) {
      std::printf("      --recipe-arg %s=<%s> (default %s): %s\n", k.name.c_str(),
                  to_string(k.type), default_text(k).c_str(), k.description.c_str());
    }
  }
  std::printf("\ntargets\n");
  for (const TargetRecipeInfo& t : reg.targets()) {
    std::string combines;
    for (const std::string& s : t.recipe_types) combines += (combines.empty() ? "" : " + ") + s;
    std::printf("  %s = %s\n      %s\n", t.name.c_str(), combines.c_str(), t.description.c_str());
  }
  return 0;
}

}  // namespace ptec::cli
