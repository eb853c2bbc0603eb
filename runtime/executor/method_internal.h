#pragma once

// Structures a loaded Method keeps in its method allocator. Internal to the executor.

#include <cstddef>
#include <cstdint>

#include "runtime/backend/interface.h"
#include "runtime/core/evalue.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/kernel/operator_registry.h"
#include "schema/program_generated.h"

namespace ptec::runtime {

namespace internal {

struct Instruction {
  executorch_flatbuffer::InstructionArguments type =
      executorch_flatbuffer::InstructionArguments::NONE;
  OpFunction kernel = nullptr;
  const char* op_name = nullptr;     // "aten::add.out", for logs
  const char* event_name = nullptr;  // "native_call_aten::add.out", only with a tracer
  EValue** args = nullptr;
  size_t n_args = 0;
  size_t delegate_index = 0;
  int32_t a = 0;  // move_from / cond_value_index / value_index
  int32_t b = 0;  // move_to / destination_instruction
};

struct Chain {
  Instruction* instructions = nullptr;
  size_t n_instructions = 0;
};

struct Delegate {
  BackendInterface* backend = nullptr;
  DelegateHandle* handle = nullptr;
  FreeableBuffer processed;
  const char* id = nullptr;
};

}  // namespace internal

}  // namespace ptec::runtime
