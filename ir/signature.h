#pragma once

#include <string>
#include <vector>

namespace ptec::ir {

enum class InputKind { UserInput, Parameter, Buffer, ConstantTensor, CustomObj };
enum class OutputKind { UserOutput, BufferMutation, UserInputMutation };
const char* to_string(InputKind kind);
const char* to_string(OutputKind kind);

/// One graph input (a placeholder node), in placeholder order.
struct InputSpec {
  InputKind kind = InputKind::UserInput;
  std::string name;    // the placeholder node's name
  std::string target;  // fully qualified name in state_dict/constants; empty for user inputs
  bool operator==(const InputSpec&) const = default;
};

/// One graph output, in output order.
struct OutputSpec {
  OutputKind kind = OutputKind::UserOutput;
  std::string name;    // the returned node's name
  std::string target;  // the mutated buffer or input; empty for user outputs
  bool operator==(const OutputSpec&) const = default;
};

/// torch.export's ExportGraphSignature: what each placeholder and each output is.
struct GraphSignature {
  std::vector<InputSpec> inputs;
  std::vector<OutputSpec> outputs;

  std::vector<std::string> user_inputs() const;
  std::vector<std::string> user_outputs() const;
  /// The input spec of placeholder `name`, or nullptr.
  const InputSpec* find_input(const std::string& name) const;
  bool operator==(const GraphSignature&) const = default;
};

}  // namespace ptec::ir
