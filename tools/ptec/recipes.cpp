#include "tools/ptec/recipes.h"

#include "export/recipe_registry.h"
#include "ir/exception.h"

namespace ptec::cli {

const std::vector<std::string>& recipe_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out = {"cpu_fp32"};  // the default first
    const auto& registry = RecipeRegistry::instance();
    for (const auto& [backend, info] : registry.recipe_types()) {
      if (info.available && info.name != out[0]) out.push_back(info.name);
    }
    for (const auto& target : registry.targets()) out.push_back(target.name);
    return out;
  }();
  return names;
}

program::PartitionerList recipe_partitioners(const std::string& recipe) {
  // The registry's error for an unknown name lists the recipes it has.
  const ExportRecipe r = RecipeRegistry::instance().create_recipe(recipe);
  PTEC_ENFORCE(r.quantization.quantizers.empty(), NotSupported,
               "recipe '{}' quantizes; ptec export does not run quantization yet", recipe);
  return r.lowering.partitioners;
}

}  // namespace ptec::cli
