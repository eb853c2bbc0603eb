#include "program/to_edge_transform_and_lower.h"

#include <set>

#include "ir/exception.h"
#include "program/to_edge.h"

namespace ptec::program {
namespace {

template <typename List>
const List* for_method(const std::variant<List, std::map<std::string, List>>& option,
                       const std::string& method) {
  if (const auto* all = std::get_if<List>(&option)) return all;
  const auto& per_method = std::get<std::map<std::string, List>>(option);
  auto it = per_method.find(method);
  return it == per_method.end() ? nullptr : &it->second;
}

template <typename List>
void check_methods(const std::variant<List, std::map<std::string, List>>& option,
                   const std::map<std::string, ir::ExportedProgram>& programs, const char* what) {
  if (const auto* per_method = std::get_if<std::map<std::string, List>>(&option)) {
    for (const auto& [name, list] : *per_method) {
      PTEC_ENFORCE(programs.count(name) != 0, NotFound,
                   "to_edge_transform_and_lower: {} given for unknown method '{}'", what, name);
    }
  }
}

}  // namespace

EdgeProgramManager to_edge_transform_and_lower(
    const std::map<std::string, ir::ExportedProgram>& programs,
    const TransformAndLowerOptions& options) {
  PTEC_ENFORCE(!programs.empty(), InvalidArgument,
               "to_edge_transform_and_lower: there are no programs");
  check_methods(options.transform_passes, programs, "transform passes");
  check_methods(options.partitioners, programs, "partitioners");

  std::map<std::string, ProgramPtr> edge;
  std::map<std::string, std::set<std::string>> kept;  // method → ops kept for partitioners
  const std::set<std::string> user_preserved(options.compile_config.preserve_ops.begin(),
                                             options.compile_config.preserve_ops.end());
  for (const auto& [name, program] : programs) {
    PTEC_ENFORCE(program.stage() == ir::Stage::Aten, InvalidState,
                 "to_edge_transform_and_lower: method '{}' is at stage {}; it takes programs at "
                 "stage {}",
                 name, ir::to_string(program.stage()), ir::to_string(ir::Stage::Aten));
    EdgeCompileConfig config = options.compile_config;
    if (const PartitionerList* list = for_method(options.partitioners, name)) {
      for (const auto& partitioner : *list) {
        PTEC_ENFORCE(partitioner != nullptr, InvalidArgument,
                     "to_edge_transform_and_lower: method '{}' has a null partitioner", name);
        for (const std::string& op : partitioner->ops_to_not_decompose(program)) {
          if (user_preserved.count(op) == 0) kept[name].insert(op);
          config.preserve_ops.push_back(op);
        }
      }
    }
    try {
      edge[name] = std::make_shared<const ir::ExportedProgram>(to_edge(program, config));
    } catch (const Exception& e) {
      raise(e.code(), "to_edge_transform_and_lower: method '{}': {}", name, e.what());
    }
  }
  std::shared_ptr<devtools::ETRecord> record;
  if (options.generate_etrecord) {
    record = std::make_shared<devtools::ETRecord>();
    for (const auto& [name, program] : programs) record_aten_program(*record, name, program);
    for (const auto& [name, program] : edge) record->set_edge_program(name, program);
  }
  EdgeProgramManager manager(std::move(edge), options.constant_methods, options.compile_config);

  MethodPasses passes;
  MethodPartitioners partitioners;
  for (const auto& [name, program] : programs) {
    if (const PassList* list = for_method(options.transform_passes, name)) passes[name] = *list;
    if (const PartitionerList* list = for_method(options.partitioners, name)) {
      partitioners[name] = *list;
    }
  }
  manager = manager.transform(passes);
  if (record != nullptr) {
    for (const auto& [name, list] : passes) {
      if (!list.empty()) record->set_edge_after_transform(name, manager.exported_program_ptr(name));
    }
    manager = manager.with_etrecord(std::move(record));
  }
  manager = manager.to_backend(partitioners);

  for (const auto& [name, ops] : kept) {
    for (const ir::Node* node : manager.exported_program(name).graph().nodes()) {
      if (node->is_call() && ops.count(node->target()) != 0) {
        raise(Error::InvalidProgram,
              "to_edge_transform_and_lower: method '{}': node %{} ({}) was kept from "
              "decomposition for a partitioner but no partitioner delegated it",
              name, node->name(), node->target());
      }
    }
  }
  return manager;
}

EdgeProgramManager to_edge_transform_and_lower(const ir::ExportedProgram& program,
                                               const TransformAndLowerOptions& options) {
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("forward", program);
  return to_edge_transform_and_lower(programs, options);
}

}  // namespace ptec::program
