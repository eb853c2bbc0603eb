#include "ir/exported_program.h"

#include <random>

#include <fmt/format.h>

namespace ptec::ir {

const char* to_string(Stage stage) {
  switch (stage) {
    case Stage::Aten: return "ATEN";
    case Stage::Edge: return "EDGE";
    case Stage::Lowered: return "LOWERED";
    case Stage::Executorch: return "EXECUTORCH";
  }
  return "UNKNOWN";
}

std::string new_uuid() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format("{:016x}{:016x}", rng(), rng());
}

ExportedProgram::ExportedProgram() : graph_(std::make_unique<Graph>()), uuid_(new_uuid()) {}

ExportedProgram::ExportedProgram(const ExportedProgram& other)
    : graph_(other.graph_->clone()),
      signature_(other.signature_),
      state_dict_(other.state_dict_),  // TensorData holds BufferPtr: payloads are shared
      constants_(other.constants_),
      custom_objects_(other.custom_objects_),
      range_constraints_(other.range_constraints_),
      stage_(other.stage_),
      provenance_(other.provenance_),
      example_inputs_(other.example_inputs_),
      uuid_(other.uuid_) {}

ExportedProgram& ExportedProgram::operator=(const ExportedProgram& other) {
  if (this != &other) {
    ExportedProgram copy(other);
    *this = std::move(copy);
  }
  return *this;
}

const TensorData* ExportedProgram::constant_for_placeholder(
    const std::string& placeholder_name) const {
  const InputSpec* spec = signature_.find_input(placeholder_name);
  if (spec == nullptr) return nullptr;
  switch (spec->kind) {
    case InputKind::Parameter:
    case InputKind::Buffer: {
      auto it = state_dict_.find(spec->target);
      return it == state_dict_.end() ? nullptr : &it->second;
    }
    case InputKind::ConstantTensor: {
      auto it = constants_.find(spec->target);
      return it == constants_.end() ? nullptr : &it->second;
    }
    default: return nullptr;
  }
}

}  // namespace ptec::ir
