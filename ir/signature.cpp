#include "ir/signature.h"

namespace ptec::ir {

const char* to_string(InputKind kind) {
  switch (kind) {
    case InputKind::UserInput: return "USER_INPUT";
    case InputKind::Parameter: return "PARAMETER";
    case InputKind::Buffer: return "BUFFER";
    case InputKind::ConstantTensor: return "CONSTANT_TENSOR";
    case InputKind::CustomObj: return "CUSTOM_OBJ";
  }
  return "UNKNOWN";
}

const char* to_string(OutputKind kind) {
  switch (kind) {
    case OutputKind::UserOutput: return "USER_OUTPUT";
    case OutputKind::BufferMutation: return "BUFFER_MUTATION";
    case OutputKind::UserInputMutation: return "USER_INPUT_MUTATION";
  }
  return "UNKNOWN";
}

std::vector<std::string> GraphSignature::user_inputs() const {
  std::vector<std::string> out;
  for (const InputSpec& s : inputs) {
    if (s.kind == InputKind::UserInput) out.push_back(s.name);
  }
  return out;
}

std::vector<std::string> GraphSignature::user_outputs() const {
  std::vector<std::string> out;
  for (const OutputSpec& s : outputs) {
    if (s.kind == OutputKind::UserOutput) out.push_back(s.name);
  }
  return out;
}

const InputSpec* GraphSignature::find_input(const std::string& name) const {
  for (const InputSpec& s : inputs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace ptec::ir
