#include "program/edge_program_manager.h"

#include <cctype>

#include <fmt/format.h>

#include "emit/emitter.h"
#include "ir/exception.h"
#include "partition/to_backend.h"
#include "passes/pass_manager.h"
#include "program/to_edge.h"

namespace ptec::program {
namespace {

bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

/// Forwards to a shared pass (PassManager owns its passes).
class SharedPass final : public passes::Pass {
 public:
  explicit SharedPass(std::shared_ptr<passes::Pass> pass) : pass_(std::move(pass)) {}
  std::string name() const override { return pass_->name(); }
  passes::PassResult run(ir::ExportedProgram& program) override { return pass_->run(program); }

 private:
  std::shared_ptr<passes::Pass> pass_;
};

}  // namespace

EdgeProgramManager::EdgeProgramManager(std::map<std::string, ProgramPtr> methods,
                                       std::map<std::string, emit::ConstantValue> constant_methods,
                                       EdgeCompileConfig compile_config,
                                       std::shared_ptr<const devtools::ETRecord> etrecord)
    : methods_(std::move(methods)),
      constant_methods_(std::move(constant_methods)),
      compile_config_(std::move(compile_config)),
      etrecord_(std::move(etrecord)) {
  PTEC_ENFORCE(!methods_.empty(), InvalidArgument, "EdgeProgramManager: there are no methods");
  for (const auto& [name, program] : methods_) {
    PTEC_ENFORCE(program != nullptr, InvalidArgument, "EdgeProgramManager: method '{}' is null",
                 name);
    PTEC_ENFORCE(is_identifier(name), InvalidArgument,
                 "EdgeProgramManager: method name '{}' is not a valid identifier", name);
    PTEC_ENFORCE(program->stage() == ir::Stage::Edge || program->stage() == ir::Stage::Lowered,
                 InvalidState,
                 "EdgeProgramManager: method '{}' is at stage {}; an edge manager holds programs "
                 "at stage {} or {}",
                 name, ir::to_string(program->stage()), ir::to_string(ir::Stage::Edge),
                 ir::to_string(ir::Stage::Lowered));
  }
  for (const auto& [name, value] : constant_methods_) {
    PTEC_ENFORCE(is_identifier(name), InvalidArgument,
                 "constant method name '{}' is not a valid identifier", name);
    PTEC_ENFORCE(methods_.count(name) == 0, InvalidArgument,
                 "constant method '{}' has the name of a method", name);
  }
}

std::vector<std::string> EdgeProgramManager::methods() const {
  std::vector<std::string> out;
  for (const auto& [name, program] : methods_) out.push_back(name);
  return out;
}

std::vector<std::string> EdgeProgramManager::config_methods() const {
  std::vector<std::string> out;
  for (const auto& [name, value] : constant_methods_) out.push_back(name);
  return out;
}

ProgramPtr EdgeProgramManager::exported_program_ptr(const std::string& name) const {
  auto it = methods_.find(name);
  if (it == methods_.end()) {
    raise(Error::NotFound, "EdgeProgramManager: no method '{}' (methods: {})", name,
          fmt::join(methods(), ", "));
  }
  return it->second;
}

const ir::ExportedProgram& EdgeProgramManager::exported_program(const std::string& name) const {
  return *exported_program_ptr(name);
}

EdgeProgramManager EdgeProgramManager::transform(const PassList& passes) const {
  MethodPasses per_method;
  for (const auto& [name, program] : methods_) per_method[name] = passes;
  return transform(per_method);
}

EdgeProgramManager EdgeProgramManager::transform(const MethodPasses& passes) const {
  for (const auto& [name, list] : passes) (void)exported_program_ptr(name);  // NotFound early
  std::map<std::string, ProgramPtr> methods = methods_;
  for (const auto& [name, list] : passes) {
    if (list.empty()) continue;
    passes::PassManager manager;
    std::vector<std::string> names;
    for (const auto& pass : list) {
      PTEC_ENFORCE(pass != nullptr, InvalidArgument, "transform: method '{}' has a null pass",
                   name);
      names.push_back(pass->name());
      manager.add(std::make_unique<SharedPass>(pass));
    }
    auto copy = std::make_shared<ir::ExportedProgram>(*methods_.at(name));
    try {
      manager.run(*copy);
    } catch (const Exception& e) {
      raise(e.code(), "transform: method '{}': {}", name, e.what());
    }
    copy->provenance().push_back({"transform", fmt::format("passes=[{}]", fmt::join(names, ", "))});
    methods[name] = std::move(copy);
  }
  return EdgeProgramManager(std::move(methods), constant_methods_, compile_config_, etrecord_);
}

EdgeProgramManager EdgeProgramManager::to_backend(const PartitionerList& partitioners) const {
  MethodPartitioners per_method;
  for (const auto& [name, program] : methods_) per_method[name] = partitioners;
  return to_backend(per_method);
}

EdgeProgramManager EdgeProgramManager::to_backend(const MethodPartitioners& partitioners) const {
  for (const auto& [name, list] : partitioners) (void)exported_program_ptr(name);
  std::map<std::string, ProgramPtr> methods = methods_;
  for (const auto& [name, list] : partitioners) {
    if (list.empty()) continue;
    ProgramPtr current = methods_.at(name);
    for (const auto& partitioner : list) {
      PTEC_ENFORCE(partitioner != nullptr, InvalidArgument,
                   "to_backend: method '{}' has a null partitioner", name);
      current = std::make_shared<const ir::ExportedProgram>(
          partition::to_backend(*current, *partitioner, partition::PartitionContext{name}));
    }
    methods[name] = std::move(current);
  }
  return EdgeProgramManager(std::move(methods), constant_methods_, compile_config_, etrecord_);
}

const devtools::ETRecord& EdgeProgramManager::get_etrecord() const {
  PTEC_ENFORCE(etrecord_ != nullptr, InvalidState,
               "get_etrecord: no ETRecord was generated for this EdgeProgramManager; export with "
               "generate_etrecord = true (an option of to_edge and to_edge_transform_and_lower)");
  return *etrecord_;
}

EdgeProgramManager EdgeProgramManager::with_etrecord(
    std::shared_ptr<const devtools::ETRecord> etrecord) const {
  return EdgeProgramManager(methods_, constant_methods_, compile_config_, std::move(etrecord));
}

ExecutorchProgramManager EdgeProgramManager::to_executorch(
    const ExecutorchBackendConfig& config) const {
  std::map<std::string, ir::ExportedProgram> programs;
  std::map<std::string, ProgramPtr> executorch;
  for (const auto& [name, program] : methods_) {
    // Structure copies (payloads shared); the emitter reads them, the manager keeps them.
    ir::ExportedProgram copy(*program);
    copy.set_stage(ir::Stage::Executorch);
    copy.provenance().push_back(
        {"to_executorch",
         fmt::format("memory_planning={}, alignment={}, external_constants={}, "
                     "extract_delegate_segments={}, segment_alignment={}",
                     config.memory_planning == emit::MemoryPlanning::Greedy ? "greedy" : "naive",
                     config.alignment, config.external_constants, config.extract_delegate_segments,
                     config.segment_alignment)});
    programs.emplace(name, std::move(copy));
  }
  auto emitted = std::make_shared<emit::EmittedProgram>(
      emit::emit_program(programs, config.emit_config(), constant_methods_));
  for (auto& [name, program] : programs) {
    executorch[name] = std::make_shared<const ir::ExportedProgram>(std::move(program));
  }
  std::optional<devtools::ETRecord> record;
  if (etrecord_ != nullptr) {
    record = *etrecord_;  // this manager's own copy (programs shared, maps its own)
    devtools::record_executorch_maps(*record, *emitted);
  }
  return ExecutorchProgramManager(std::move(executorch), constant_methods_, std::move(emitted),
                                  config, std::move(record));
}

EdgeProgramManager to_edge(const std::map<std::string, ir::ExportedProgram>& programs,
                           const ToEdgeOptions& options) {
  PTEC_ENFORCE(!programs.empty(), InvalidArgument, "to_edge: there are no programs");
  std::map<std::string, ProgramPtr> methods;
  for (const auto& [name, program] : programs) {
    PTEC_ENFORCE(program.stage() == ir::Stage::Aten, InvalidState,
                 "to_edge: method '{}' is at stage {}; to_edge takes a program at stage {}", name,
                 ir::to_string(program.stage()), ir::to_string(ir::Stage::Aten));
    try {
      methods[name] =
          std::make_shared<const ir::ExportedProgram>(to_edge(program, options.compile_config));
    } catch (const Exception& e) {
      raise(e.code(), "to_edge: method '{}': {}", name, e.what());
    }
  }
  std::shared_ptr<devtools::ETRecord> record;
  if (options.generate_etrecord) {
    record = std::make_shared<devtools::ETRecord>();
    for (const auto& [name, program] : programs) record_aten_program(*record, name, program);
    for (const auto& [name, program] : methods) record->set_edge_program(name, program);
  }
  return EdgeProgramManager(std::move(methods), options.constant_methods, options.compile_config,
                            std::move(record));
}

void record_aten_program(devtools::ETRecord& record, const std::string& method,
                         const ir::ExportedProgram& program) {
  record.set_aten_program(method, devtools::snapshot(program));
  // Example inputs with their bytes are the record's representative inputs (payloads shared).
  const auto& inputs = program.example_inputs();
  bool complete = !inputs.empty();
  for (const ir::TensorData& t : inputs) complete = complete && t.data != nullptr;
  if (complete) record.set_representative_inputs(method, {inputs});
}

EdgeProgramManager to_edge(const ir::ExportedProgram& program, const ToEdgeOptions& options) {
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("forward", program);
  return to_edge(programs, options);
}

}  // namespace ptec::program
