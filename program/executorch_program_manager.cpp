#include "program/executorch_program_manager.h"

#include <filesystem>

#include <fmt/format.h>

#include "emit/ptd_writer.h"
#include "emit/pte_writer.h"
#include "ir/exception.h"

namespace ptec::program {

ExecutorchProgramManager::ExecutorchProgramManager(
    std::map<std::string, std::shared_ptr<const ir::ExportedProgram>> methods,
    std::map<std::string, emit::ConstantValue> constant_methods,
    std::shared_ptr<const emit::EmittedProgram> emitted, ExecutorchBackendConfig config,
    std::optional<devtools::ETRecord> etrecord)
    : methods_(std::move(methods)),
      constant_methods_(std::move(constant_methods)),
      emitted_(std::move(emitted)),
      config_(std::move(config)),
      etrecord_(std::move(etrecord)) {}

namespace {
[[noreturn]] void no_etrecord() {
  raise(Error::InvalidState,
        "get_etrecord: no ETRecord was generated for this ExecutorchProgramManager; export with "
        "generate_etrecord = true (an option of to_edge and to_edge_transform_and_lower)");
}
}  // namespace

const devtools::ETRecord& ExecutorchProgramManager::get_etrecord() const {
  if (!etrecord_) no_etrecord();
  return *etrecord_;
}

devtools::ETRecord& ExecutorchProgramManager::get_etrecord() {
  if (!etrecord_) no_etrecord();
  return *etrecord_;
}

std::vector<std::string> ExecutorchProgramManager::methods() const {
  std::vector<std::string> out;
  for (const auto& [name, program] : methods_) out.push_back(name);
  return out;
}

std::vector<std::string> ExecutorchProgramManager::config_methods() const {
  std::vector<std::string> out;
  for (const auto& [name, value] : constant_methods_) out.push_back(name);
  return out;
}

const ir::ExportedProgram& ExecutorchProgramManager::exported_program(
    const std::string& name) const {
  auto it = methods_.find(name);
  if (it == methods_.end()) {
    raise(Error::NotFound, "ExecutorchProgramManager: no method '{}' (methods: {})", name,
          fmt::join(methods(), ", "));
  }
  return *it->second;
}

void ExecutorchProgramManager::write_to_file(std::ostream& out) const {
  emit::write_pte(*emitted_, out);
}

void ExecutorchProgramManager::write_to_file(const std::string& path) const {
  emit::write_pte(*emitted_, path);
  if (has_external_tensor_data()) {
    const std::filesystem::path p(path);
    const std::string dir = p.parent_path().empty() ? "." : p.parent_path().string();
    write_tensor_data_to_file(dir, p.stem().string());
  }
}

std::string ExecutorchProgramManager::write_tensor_data_to_file(const std::string& dir,
                                                                const std::string& stem) const {
  PTEC_ENFORCE(has_external_tensor_data(), InvalidState,
               "write_tensor_data_to_file: the program has no external tensor data (set "
               "ExecutorchBackendConfig::external_constants)");
  const std::string path = (std::filesystem::path(dir) / (stem + ".ptd")).string();
  emit::write_ptd(emitted_->external_tensors, path, config_.segment_alignment,
                  config_.constant_tensor_alignment);
  return path;
}

std::vector<uint8_t> ExecutorchProgramManager::buffer() const { return emit::pte_bytes(*emitted_); }

std::map<std::string, std::map<int64_t, int64_t>> ExecutorchProgramManager::debug_handle_map()
    const {
  return emitted_->debug_handle_map();
}

std::map<std::string, std::map<int64_t, emit::DelegateCallRecord>>
ExecutorchProgramManager::delegate_map() const {
  std::map<std::string, std::map<int64_t, emit::DelegateCallRecord>> out;
  for (const emit::EmittedMethod& m : emitted_->methods) {
    if (!m.is_constant_method) out[m.name] = m.delegate_calls;
  }
  return out;
}

std::map<std::string, std::map<int64_t, size_t>>
ExecutorchProgramManager::instruction_id_to_num_outs_map() const {
  std::map<std::string, std::map<int64_t, size_t>> out;
  for (const emit::EmittedMethod& m : emitted_->methods) {
    if (m.is_constant_method) continue;
    auto& entry = out[m.name];
    for (const auto& [id, call] : m.delegate_calls) entry[id] = call.num_outputs;
  }
  return out;
}

}  // namespace ptec::program
