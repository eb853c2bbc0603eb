#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "emit/emitted_program.h"

namespace ptec::emit {

/// What `ptec info` prints about one method.
struct MethodSummary {
  std::string name;
  bool is_constant_method = false;
  size_t num_values = 0;
  size_t num_inputs = 0;
  size_t num_outputs = 0;
  size_t num_instructions = 0;
  /// "aten::add.out" → number of KernelCalls of it.
  std::map<std::string, size_t> instructions_per_operator;
  /// Sizes of the planned buffers, memory_id 1 first (non_const_buffer_sizes without the
  /// reserved entry 0).
  std::vector<uint64_t> planned_buffer_sizes;
  /// Bytes all planned tensors would need without reuse (the greedy planner's saving is the
  /// difference to planned_buffer_sizes).
  uint64_t planned_tensor_bytes = 0;
};

/// What `ptec info` prints about a program.
struct ProgramSummary {
  std::vector<MethodSummary> methods;
  size_t num_constants = 0;     // distinct constants in the constant segment
  uint64_t constant_bytes = 0;  // their bytes, without padding
  uint64_t segment_data_size = 0;
};

/// Summarizes an emitted program.
ProgramSummary summarize(const EmittedProgram& program);

/// A human-readable multi-line rendering of `summary`.
std::string to_string(const ProgramSummary& summary);

}  // namespace ptec::emit
