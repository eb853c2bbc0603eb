#pragma once

#include <cstddef>
#include <cstdint>

#include "core/result.h"
#include "core/span.h"
#include "runtime/backend/interface.h"
#include "runtime/core/evalue.h"
#include "runtime/core/event_tracer.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/named_data_map.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method_meta.h"
#include "runtime/kernel/operator_registry.h"

namespace executorch_flatbuffer {
struct ExecutionPlan;
}  // namespace executorch_flatbuffer

namespace ptec::runtime {

class Program;

namespace internal {
struct Instruction;
struct Chain;
struct Delegate;
}  // namespace internal

/// A loaded method: its values, tensors, delegates and resolved kernels, all allocated from the
/// MemoryManager's method allocator (no heap). Created by Program::load_method(). Move-only;
/// destroying it destroys its delegate handles and releases external data it holds.
///
/// Lifetimes: the Program, the MemoryManager (and its buffers), the EventTracer and the
/// NamedDataMap given to load_method() must outlive the Method. Tensors returned by
/// get_output() point into planned memory and are overwritten by the next execute().
class Method final {
 public:
  Method(Method&& other) noexcept;
  Method& operator=(Method&&) = delete;
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  ~Method();

  /// Sets input `index`. For a tensor input the dtype and rank must match; sizes must match a
  /// static input and fit the upper bounds of a DYNAMIC_BOUND one (the input is resized). A
  /// memory-planned input receives a copy of the data; any other input shares `value`'s data
  /// pointer, which must then outlive execution. Int, Double, Bool and String inputs must
  /// equal the value in the program; a None input accepts only None.
  /// Errors: InvalidArgument (index, type, dtype, shape, alignment, null data), NotSupported.
  Error set_input(const EValue& value, size_t index);

  /// Makes tensor input `index` use `data` (at least `nbytes`, suitably aligned) without a
  /// copy, even when it is memory planned. `data` must outlive execution.
  /// Errors: InvalidArgument.
  Error set_input_pointer(size_t index, void* data, size_t nbytes);

  /// Gives a tensor output that is not memory planned a buffer to write to.
  /// Errors: InvalidArgument (index, not a tensor, too small, misaligned), InvalidState
  /// (the output is memory planned).
  Error set_output_data_ptr(void* buffer, size_t size, size_t output_index);

  /// Runs every chain's instructions in order. Errors: InvalidState (an input was not set, or
  /// the step limit was exceeded), InvalidProgram (an instruction's values have the wrong
  /// type), or the failing kernel's or delegate's error; each failure is logged with the
  /// chain and instruction index.
  Error execute();

  size_t inputs_size() const { return n_inputs_; }
  size_t outputs_size() const { return n_outputs_; }
  /// Copies of the values (tensor values are views of the method's tensors).
  /// Errors: InvalidArgument (index).
  Result<EValue> get_input(size_t index) const;
  Result<EValue> get_output(size_t index) const;
  /// Value index of input/output `index` in the method's value table (for debugging tools).
  Result<size_t> input_value_index(size_t index) const;
  Result<size_t> output_value_index(size_t index) const;

  MethodMeta method_meta() const;
  const char* name() const { return name_; }

  /// Bounds the number of instructions one execute() may run (0, the default, means no bound);
  /// guards against programs whose JumpFalseCall loops never end (fuzzing, untrusted files).
  void set_step_limit(size_t max_steps) { step_limit_ = max_steps; }

 private:
  friend class Program;

  Method(MemoryManager* memory_manager, EventTracer* event_tracer,
         const executorch_flatbuffer::ExecutionPlan* plan);
  Error init(const Program& program, const NamedDataMap* external_data);
  Error parse_values(const Program& program, const NamedDataMap* external_data);
  Error check_list_items() const;
  Error init_delegates(const Program& program);
  Error init_chains();
  Error init_io();
  Error execute_instruction(size_t chain_index, size_t& pc);
  Error check_kernel_args(const internal::Instruction& instruction, size_t chain_index,
                          size_t pc) const;
  Error check_input_index(size_t index) const;

  MemoryManager* memory_manager_;
  EventTracer* event_tracer_;
  const executorch_flatbuffer::ExecutionPlan* plan_;
  const char* name_ = "";

  EValue* values_ = nullptr;
  size_t n_values_ = 0;
  internal::Delegate* delegates_ = nullptr;
  size_t n_delegates_ = 0;  // initialized delegates (destroyed in ~Method)
  internal::Chain* chains_ = nullptr;
  size_t n_chains_ = 0;
  FreeableBuffer* external_data_ = nullptr;  // .ptd tensors held for the method's lifetime
  size_t n_external_data_ = 0;
  const NamedDataMap* merged_data_map_ = nullptr;

  size_t* input_indices_ = nullptr;   // value index of each input
  size_t* output_indices_ = nullptr;  // value index of each output
  size_t n_inputs_ = 0;
  size_t n_outputs_ = 0;
  bool* input_planned_ = nullptr;  // data came from planned memory at load
  bool* input_set_ = nullptr;
  size_t step_limit_ = 0;
  bool initialized_ = false;
};

}  // namespace ptec::runtime
