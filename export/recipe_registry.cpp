#include "export/recipe_registry.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "export/builtin_recipe_providers.h"
#include "ir/exception.h"

namespace ptec {

const char* to_string(KwargType type) {
  switch (type) {
    case KwargType::Bool: return "bool";
    case KwargType::Int: return "int";
    case KwargType::Float: return "float";
    case KwargType::String: return "string";
  }
  return "unknown";
}

KwargType kwarg_type_of(const RecipeValue& value) {
  switch (value.index()) {
    case 0: return KwargType::Bool;
    case 1: return KwargType::Int;
    case 2: return KwargType::Float;
    default: return KwargType::String;
  }
}

std::string to_string(const RecipeValue& value) {
  if (const bool* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const int64_t* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const double* d = std::get_if<double>(&value)) return fmt::format("{}", *d);
  return "'" + std::get<std::string>(value) + "'";
}

std::string qat_not_supported_message(const std::string& type) {
  return fmt::format(
      "recipe '{}': quantization-aware training is not supported (ptec quantizes trained models "
      "after training); a QAT-trained model is accepted as an ONNX QDQ model "
      "(QuantizeLinear/DequantizeLinear) with any fp32 recipe",
      type);
}

RecipeRegistry::RecipeRegistry() {
  // Under construction: no other thread can see the registry yet.
  for (auto& p : builtin_recipe_providers()) providers_.emplace(p->backend_name(), p);
  for (auto& t : builtin_target_recipes()) targets_.push_back(std::move(t));
}

RecipeRegistry& RecipeRegistry::instance() {
  static RecipeRegistry registry;
  return registry;
}

void RecipeRegistry::register_provider(std::shared_ptr<const BackendRecipeProvider> provider) {
  PTEC_ENFORCE(provider != nullptr, InvalidArgument, "register_provider: null provider");
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string name = provider->backend_name();
  PTEC_ENFORCE(!providers_.count(name), InvalidArgument,
               "a recipe provider for backend '{}' is already registered", name);
  providers_.emplace(name, std::move(provider));
}

void RecipeRegistry::register_target(TargetRecipeInfo target) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const TargetRecipeInfo& t : targets_) {
    PTEC_ENFORCE(t.name != target.name, InvalidArgument, "target recipe '{}' is already registered",
                 target.name);
  }
  PTEC_ENFORCE(find_provider_locked(target.name) == nullptr, InvalidArgument,
               "target recipe '{}' has the name of a recipe type", target.name);
  PTEC_ENFORCE(!target.recipe_types.empty(), InvalidArgument,
               "target recipe '{}' combines no recipe types", target.name);
  targets_.push_back(std::move(target));
}

std::vector<std::string> RecipeRegistry::backends() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, p] : providers_) names.push_back(name);
  return names;
}

std::shared_ptr<const BackendRecipeProvider> RecipeRegistry::provider(
    const std::string& backend) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = providers_.find(backend);
  if (it == providers_.end()) {
    std::vector<std::string> names;
    for (const auto& [name, p] : providers_) names.push_back(name);
    raise(Error::NotFound, "no recipe provider for backend '{}' (backends: {})", backend,
          fmt::join(names, ", "));
  }
  return it->second;
}

std::vector<std::pair<std::string, RecipeTypeInfo>> RecipeRegistry::recipe_types() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::pair<std::string, RecipeTypeInfo>> out;
  for (const auto& [name, p] : providers_) {
    for (RecipeTypeInfo& info : p->recipe_types()) out.emplace_back(name, std::move(info));
  }
  return out;
}

std::vector<TargetRecipeInfo> RecipeRegistry::targets() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return targets_;
}

std::shared_ptr<const BackendRecipeProvider> RecipeRegistry::find_provider_locked(
    const std::string& type) const {
  for (const auto& [name, p] : providers_) {
    for (const RecipeTypeInfo& info : p->recipe_types()) {
      if (info.name == type) return p;
    }
  }
  return nullptr;
}

std::string RecipeRegistry::available_types_locked() const {
  std::vector<std::string> types;
  for (const auto& [name, p] : providers_) {
    for (const RecipeTypeInfo& info : p->recipe_types()) {
      types.push_back(info.available ? info.name : info.name + " (not available yet)");
    }
  }
  std::vector<std::string> targets;
  for (const TargetRecipeInfo& t : targets_) targets.push_back(t.name);
  return fmt::format(
      "recipe types: {}; targets: {}", fmt::join(types, ", "),
      targets.empty() ? std::string("none") : fmt::format("{}", fmt::join(targets, ", ")));
}

namespace {

RecipeTypeInfo info_of(const BackendRecipeProvider& provider, const std::string& type) {
  for (RecipeTypeInfo& info : provider.recipe_types()) {
    if (info.name == type) return info;
  }
  std::vector<std::string> names;
  for (const RecipeTypeInfo& info : provider.recipe_types()) names.push_back(info.name);
  raise(Error::NotFound, "backend '{}' has no recipe type '{}' (its recipe types: {})",
        provider.backend_name(), type, fmt::join(names, ", "));
}

const RecipeKwarg* find_kwarg(const std::vector<RecipeKwarg>& declared, const std::string& name) {
  for (const RecipeKwarg& k : declared) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::string accepted(const std::vector<RecipeKwarg>& declared) {
  if (declared.empty()) return "it takes no kwargs";
  std::vector<std::string> names;
  for (const RecipeKwarg& k : declared) names.push_back(k.name + ": " + to_string(k.type));
  return fmt::format("accepted: {}", fmt::join(names, ", "));
}

// Every kwarg is declared and holds a value of its declared type.
void check_kwargs(const std::string& type, const std::vector<RecipeKwarg>& declared,
                  const RecipeKwargs& kwargs) {
  for (const auto& [name, value] : kwargs) {
    const RecipeKwarg* k = find_kwarg(declared, name);
    PTEC_ENFORCE(k != nullptr, InvalidArgument, "recipe '{}': unknown kwarg '{}' ({})", type, name,
                 accepted(declared));
    PTEC_ENFORCE(kwarg_type_of(value) == k->type, InvalidArgument,
                 "recipe '{}': kwarg '{}' must be {}, got {} {}", type, name, to_string(k->type),
                 to_string(kwarg_type_of(value)), to_string(value));
  }
}

}  // namespace

std::vector<RecipeKwarg> RecipeRegistry::declared_kwargs_locked(const std::string& type) const {
  if (auto p = find_provider_locked(type)) return info_of(*p, type).kwargs;
  for (const TargetRecipeInfo& t : targets_) {
    if (t.name != type) continue;
    std::vector<RecipeKwarg> all;
    for (const std::string& sub : t.recipe_types) {
      for (const RecipeKwarg& k : declared_kwargs_locked(sub)) {
        if (find_kwarg(all, k.name) == nullptr) all.push_back(k);
      }
    }
    return all;
  }
  if (type.find("qat") != std::string::npos) {
    raise(Error::NotSupported, "{}", qat_not_supported_message(type));
  }
  raise(Error::NotFound, "unknown recipe '{}' ({})", type, available_types_locked());
}

RecipeTypeInfo RecipeRegistry::recipe_type(const std::string& type) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto p = find_provider_locked(type)) return info_of(*p, type);
  raise(Error::NotFound, "unknown recipe type '{}' ({})", type, available_types_locked());
}

ExportRecipe RecipeRegistry::create_with(const BackendRecipeProvider& provider,
                                         const RecipeTypeInfo& info, const RecipeKwargs& kwargs) {
  check_kwargs(info.name, info.kwargs, kwargs);
  ExportRecipe recipe = provider.create_recipe(info.name, kwargs);
  if (recipe.name.empty()) recipe.name = info.name;
  return recipe;
}

ExportRecipe RecipeRegistry::create_recipe(const std::string& type,
                                           const RecipeKwargs& kwargs) const {
  // What to create, decided under the lock; the providers run without it (they may use the
  // registry themselves).
  struct Part {
    std::shared_ptr<const BackendRecipeProvider> provider;
    RecipeTypeInfo info;
    RecipeKwargs kwargs;
  };
  std::vector<Part> parts;
  bool is_target = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto p = find_provider_locked(type)) {
      parts.push_back({p, info_of(*p, type), kwargs});
    } else {
      for (const TargetRecipeInfo& t : targets_) {
        if (t.name != type) continue;
        is_target = true;
        check_kwargs(type, declared_kwargs_locked(type), kwargs);
        for (const std::string& sub : t.recipe_types) {
          auto sp = find_provider_locked(sub);
          PTEC_ENFORCE(sp != nullptr, NotFound,
                       "target recipe '{}': recipe type '{}' is not registered", type, sub);
          Part part{sp, info_of(*sp, sub), {}};
          for (const auto& [name, value] : kwargs) {
            if (find_kwarg(part.info.kwargs, name) != nullptr) part.kwargs.emplace(name, value);
          }
          parts.push_back(std::move(part));
        }
      }
      if (!is_target) declared_kwargs_locked(type);  // throws the unknown-recipe (or QAT) error
    }
  }
  std::vector<ExportRecipe> recipes;
  for (const Part& part : parts)
    recipes.push_back(create_with(*part.provider, part.info, part.kwargs));
  if (!is_target) return std::move(recipes.front());
  ExportRecipe combined = ExportRecipe::combine(recipes, type);
  combined.name = type;
  return combined;
}

ExportRecipe RecipeRegistry::create_recipe(const std::string& backend, const std::string& type,
                                           const RecipeKwargs& kwargs) const {
  std::shared_ptr<const BackendRecipeProvider> p = provider(backend);
  return create_with(*p, info_of(*p, type), kwargs);
}

bool RecipeRegistry::supports_recipe(const std::string& type) const {
  try {
    (void)create_recipe(type);
    return true;
  } catch (const Exception&) {
    return false;
  }
}

RecipeKwargs RecipeRegistry::parse_kwargs(const std::string& type,
                                          const std::vector<std::string>& args) const {
  std::vector<RecipeKwarg> declared;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    declared = declared_kwargs_locked(type);
  }
  RecipeKwargs out;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    PTEC_ENFORCE(eq != std::string::npos && eq > 0, InvalidArgument,
                 "recipe '{}': argument '{}' is not key=value", type, arg);
    const std::string key = arg.substr(0, eq);
    const std::string text = arg.substr(eq + 1);
    const RecipeKwarg* k = find_kwarg(declared, key);
    PTEC_ENFORCE(k != nullptr, InvalidArgument, "recipe '{}': unknown kwarg '{}' ({})", type, key,
                 accepted(declared));
    auto bad = [&]() {
      raise(Error::InvalidArgument, "recipe '{}': kwarg '{}' must be {}, got '{}'", type, key,
            to_string(k->type), text);
    };
    switch (k->type) {
      case KwargType::Bool:
        if (text == "true" || text == "1") {
          out[key] = true;
        } else if (text == "false" || text == "0") {
          out[key] = false;
        } else {
          bad();
        }
        break;
      case KwargType::Int: {
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || errno != 0 || *end != '\0') bad();
        out[key] = static_cast<int64_t>(v);
        break;
      }
      case KwargType::Float: {
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || errno != 0 || *end != '\0') bad();
        out[key] = v;
        break;
      }
      case KwargType::String: out[key] = text; break;
    }
  }
  return out;
}

}  // namespace ptec
