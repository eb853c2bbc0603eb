#pragma once

// The recipe registry (DESIGN.md §9): a process-wide set of BackendRecipeProviders, keyed by
// backend name, that create ExportRecipes by type ("cpu_fp32", "portable", ...) from typed
// keyword arguments, plus target recipes for whole platforms ("x86_64-cpu-fp32") that combine
// backend recipes.
//
// Built-in providers: "portable" (no partitioners: every op on the portable/optimized kernels)
// and "cpu" (PtecCpuBackend in fp32, and with quant/'s post-training quantization: int8 dynamic,
// int8 static per channel / per tensor, int4 weight-only per group).

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "export/recipe.h"

namespace ptec {

/// The value of a recipe keyword argument.
using RecipeValue = std::variant<bool, int64_t, double, std::string>;
/// Keyword arguments by name.
using RecipeKwargs = std::map<std::string, RecipeValue>;

/// The declared type of a keyword argument.
enum class KwargType { Bool, Int, Float, String };
/// "bool", "int", "float", "string".
const char* to_string(KwargType type);
/// The type a value holds.
KwargType kwarg_type_of(const RecipeValue& value);
/// A value as text ("true", "32", "0.5", "'greedy'").
std::string to_string(const RecipeValue& value);

/// One keyword argument a recipe type accepts.
struct RecipeKwarg {
  std::string name;
  KwargType type = KwargType::Bool;
  std::string description;
  /// Used when the caller does not give the argument (none: the provider decides).
  std::optional<RecipeValue> default_value;
};

/// A recipe type as listed by `ptec recipes`.
struct RecipeTypeInfo {
  std::string name;
  std::string description;
  std::vector<RecipeKwarg> kwargs;
  /// False for types that are declared but cannot be created yet (create fails, saying why).
  bool available = true;
};

/// Creates the recipes of one backend (ExecuTorch's BackendRecipeProvider).
class BackendRecipeProvider {
 public:
  virtual ~BackendRecipeProvider() = default;
  /// The backend this provider is registered under ("cpu").
  virtual std::string backend_name() const = 0;
  /// Every recipe type this provider declares. Called with the registry locked: must not use
  /// the registry.
  virtual std::vector<RecipeTypeInfo> recipe_types() const = 0;
  /// Creates a recipe of `type` (one of recipe_types()). `kwargs` has already been checked
  /// against the type's declared kwargs (names and types); it holds exactly what the caller
  /// gave. Called without the registry's lock: it may create other recipes through the registry
  /// (e.g. to build on them). Throws ptec::Exception (e.g. NotSupported for a declared type that is
  /// not available, InvalidArgument for a bad value).
  virtual ExportRecipe create_recipe(const std::string& type, const RecipeKwargs& kwargs) const = 0;
};

/// A recipe for a whole platform: the recipes of several types combined in order.
struct TargetRecipeInfo {
  std::string name;
  std::string description;
  std::vector<std::string> recipe_types;
};

/// The process-wide registry of recipe providers. Thread-safe.
class RecipeRegistry {
 public:
  /// The one registry (the built-in providers registered on first use).
  static RecipeRegistry& instance();

  RecipeRegistry(const RecipeRegistry&) = delete;
  RecipeRegistry& operator=(const RecipeRegistry&) = delete;

  /// Adds `provider` under its backend name. InvalidArgument for null or a name already taken.
  void register_provider(std::shared_ptr<const BackendRecipeProvider> provider);
  /// Adds a target recipe. InvalidArgument for a name already used by a target or a recipe
  /// type.
  void register_target(TargetRecipeInfo target);

  /// Backend names, sorted.
  std::vector<std::string> backends() const;
  /// The provider of `backend`; NotFound listing the backends otherwise.
  std::shared_ptr<const BackendRecipeProvider> provider(const std::string& backend) const;
  /// Every recipe type of every provider, by backend then declaration order.
  std::vector<std::pair<std::string, RecipeTypeInfo>> recipe_types() const;
  /// The declared info of `type` (a recipe type of any provider); NotFound listing every
  /// recipe type and target otherwise.
  RecipeTypeInfo recipe_type(const std::string& type) const;
  /// Every target recipe, in registration order.
  std::vector<TargetRecipeInfo> targets() const;

  /// Creates a recipe of `type` — a recipe type of any provider or a target recipe — with
  /// `kwargs` checked against the declared kwargs (for a target: the kwargs of every type it
  /// combines; each type gets those it declares). Errors: NotFound listing every recipe type
  /// and target for an unknown type; InvalidArgument for an unknown kwarg (listing the accepted
  /// ones) or a value of the wrong type (naming the kwarg, the expected and the given type);
  /// what the provider throws (NotSupported for a type that is not available yet).
  ExportRecipe create_recipe(const std::string& type, const RecipeKwargs& kwargs = {}) const;
  /// The same for the provider of `backend` only: NotFound listing the backends for an unknown
  /// backend, NotFound listing the backend's recipe types for a type it does not declare.
  ExportRecipe create_recipe(const std::string& backend, const std::string& type,
                             const RecipeKwargs& kwargs) const;
  /// True exactly when create_recipe(type) (no kwargs) succeeds.
  bool supports_recipe(const std::string& type) const;

  /// Converts "key=value" texts (the CLI's --recipe-arg) into kwargs of `type`, parsing each
  /// value as its declared type. InvalidArgument for a missing '=', an unknown kwarg or a value
  /// that does not parse.
  RecipeKwargs parse_kwargs(const std::string& type, const std::vector<std::string>& args) const;

 private:
  RecipeRegistry();
  /// The kwargs `type` declares (for a target: those of its types).
  std::vector<RecipeKwarg> declared_kwargs_locked(const std::string& type) const;
  std::shared_ptr<const BackendRecipeProvider> find_provider_locked(const std::string& type) const;
  std::string available_types_locked() const;
  static ExportRecipe create_with(const BackendRecipeProvider& provider, const RecipeTypeInfo& info,
                                  const RecipeKwargs& kwargs);

  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const BackendRecipeProvider>> providers_;
  std::vector<TargetRecipeInfo> targets_;
};

/// The message of a QAT request: QAT itself is out of scope, QAT-trained models come in as ONNX
/// QDQ models.
std::string qat_not_supported_message(const std::string& type);

}  // namespace ptec
