#include "emit/program_summary.h"

#include <fmt/format.h>

namespace ptec::emit {

namespace fb = executorch_flatbuffer;

ProgramSummary summarize(const EmittedProgram& program) {
  ProgramSummary out;
  if (program.program == nullptr) return out;
  for (size_t i = 0; i < program.program->execution_plan.size(); ++i) {
    const fb::ExecutionPlanT& plan = *program.program->execution_plan[i];
    MethodSummary m;
    m.name = plan.name;
    m.num_values = plan.values.size();
    m.num_inputs = plan.inputs.size();
    m.num_outputs = plan.outputs.size();
    for (const auto& chain : plan.chains) {
      for (const auto& instruction : chain->instructions) {
        ++m.num_instructions;
        std::string key = "(other)";
        if (const fb::KernelCallT* call = instruction->instr_args.AsKernelCall()) {
          const auto index = static_cast<size_t>(call->op_index);
          if (index < plan.operators.size()) {
            const fb::OperatorT& op = *plan.operators[index];
            key = op.overload.empty() ? op.name : op.name + "." + op.overload;
          }
        } else if (instruction->instr_args.AsDelegateCall() != nullptr) {
          key = "(delegate)";
        }
        ++m.instructions_per_operator[key];
      }
    }
    for (size_t k = 1; k < plan.non_const_buffer_sizes.size(); ++k) {
      m.planned_buffer_sizes.push_back(static_cast<uint64_t>(plan.non_const_buffer_sizes[k]));
    }
    if (i < program.methods.size()) {
      m.is_constant_method = program.methods[i].is_constant_method;
      m.planned_tensor_bytes = program.methods[i].memory_plan.tensor_bytes();
    }
    out.methods.push_back(std::move(m));
  }
  if (!program.segments.empty()) out.num_constants = program.segments[0].pieces.size();
  out.constant_bytes = program.constant_bytes();
  out.segment_data_size = program.segment_data_size();
  return out;
}

std::string to_string(const ProgramSummary& summary) {
  std::string out;
  for (const MethodSummary& m : summary.methods) {
    if (m.is_constant_method) {
      out += fmt::format("constant method {}: {} value(s)\n", m.name, m.num_outputs);
      continue;
    }
    out += fmt::format("method {}: {} inputs, {} outputs, {} values, {} instructions\n", m.name,
                       m.num_inputs, m.num_outputs, m.num_values, m.num_instructions);
    for (const auto& [op, count] : m.instructions_per_operator) {
      out += fmt::format("  {:>6}  {}\n", count, op);
    }
    for (size_t k = 0; k < m.planned_buffer_sizes.size(); ++k) {
      out += fmt::format("  planned buffer {} (memory_id {}): {} bytes\n", k, k + 1,
                         m.planned_buffer_sizes[k]);
    }
    out += fmt::format("  planned tensors without reuse: {} bytes\n", m.planned_tensor_bytes);
  }
  out += fmt::format("constants: {} ({} bytes); segment data: {} bytes\n", summary.num_constants,
                     summary.constant_bytes, summary.segment_data_size);
  return out;
}

}  // namespace ptec::emit
