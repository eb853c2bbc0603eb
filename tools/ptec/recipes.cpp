#include "tools/ptec/recipes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/cpu/aot/cpu_backend.h"
#include "backends/cpu/aot/cpu_partitioner.h"
#include "ir/exception.h"

namespace ptec::cli {

const std::vector<std::string>& recipe_names() {
  static const std::vector<std::string> names = {"cpu_fp32", "portable"};
  return names;
}

program::PartitionerList recipe_partitioners(const std::string& recipe) {
  if (recipe == "portable") return {};
  if (recipe == "cpu_fp32") {
    backends::cpu::register_cpu_backend_aot();
    return {std::make_shared<backends::cpu::CpuPartitioner>()};
  }
  ptec::raise(Error::InvalidArgument, "unknown recipe '{}' (recipes: {})", recipe,
              fmt::join(recipe_names(), ", "));
}

}  // namespace ptec::cli
