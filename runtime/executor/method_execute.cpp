// Method: inputs, outputs and the instruction loop (loading is in method.cpp).

#include <cstring>

#include "core/log.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_internal.h"
#include "schema/program_generated.h"

namespace ptec::runtime {

namespace fb = executorch_flatbuffer;

namespace {

bool is_aligned(const void* data, size_t alignment) {
  return alignment <= 1 || reinterpret_cast<uintptr_t>(data) % alignment == 0;
}

bool same_scalar(const EValue& a, const EValue& b) {
  if (a.tag() != b.tag()) return false;
  switch (a.tag()) {
    case EValue::Tag::None: return true;
    case EValue::Tag::Int: return a.to_int() == b.to_int();
    case EValue::Tag::Double: return a.to_double() == b.to_double();
    case EValue::Tag::Bool: return a.to_bool() == b.to_bool();
    case EValue::Tag::String: return a.to_string() == b.to_string();
    default: return false;
  }
}

// A tensor whose bytes a kernel would touch but that has no data (an unset input, a freed
// tensor, a placeholder the program never filled).
bool missing_data(const Tensor& t) { return t.nbytes() > 0 && t.const_data_ptr() == nullptr; }

}  // namespace

Error Method::set_input(const EValue& value, size_t index) {
  PTEC_TRY(check_input_index(index));
  EValue& slot = values_[input_indices_[index]];
  if (slot.is_tensor()) {
    PTEC_CHECK_OR_RETURN_ERROR(value.is_tensor(), InvalidArgument,
                               "input %zu expects a Tensor, got %s", index,
                               EValue::tag_name(value.tag()));
    Tensor& dst = slot.to_tensor();
    const Tensor& src = value.to_tensor();
    PTEC_CHECK_OR_RETURN_ERROR(src.dtype() == dst.dtype(), InvalidArgument,
                               "input %zu: dtype %s does not match the program's %s", index,
                               to_string(src.dtype()), to_string(dst.dtype()));
    PTEC_CHECK_OR_RETURN_ERROR(src.dim() == dst.dim(), InvalidArgument,
                               "input %zu: rank %zu does not match the program's %zu", index,
                               src.dim(), dst.dim());
    for (size_t d = 0; d < dst.dim(); ++d) {
      PTEC_CHECK_OR_RETURN_ERROR(src.dim_order()[d] == dst.dim_order()[d], InvalidArgument,
                                 "input %zu: dim order does not match the program's", index);
    }
    if (dst.shape_dynamism() == ShapeDynamism::DynamicBound) {
      // The serialized sizes of a DYNAMIC_BOUND input are its per-dim upper bounds; a size
      // beyond one is an error even when the element count would fit the buffer.
      const auto* serialized =
          plan_->values()->Get(static_cast<flatbuffers::uoffset_t>(input_indices_[index]));
      const auto* fb_tensor = serialized != nullptr ? serialized->val_as_Tensor() : nullptr;
      const auto* bounds = fb_tensor != nullptr ? fb_tensor->sizes() : nullptr;
      for (size_t d = 0; bounds != nullptr && d < dst.dim() && d < bounds->size(); ++d) {
        PTEC_CHECK_OR_RETURN_ERROR(
            src.sizes()[d] <= bounds->Get(static_cast<flatbuffers::uoffset_t>(d)), InvalidArgument,
            "input %zu: axis %zu has size %d, outside the bounded shape's range [0, %d]", index, d,
            static_cast<int>(src.sizes()[d]),
            static_cast<int>(bounds->Get(static_cast<flatbuffers::uoffset_t>(d))));
      }
    }
    const Error resized = dst.resize(src.sizes());
    if (resized != Error::Ok) {
      PTEC_LOG(Error, "input %zu: sizes do not fit the program's %s shape", index,
               dst.shape_dynamism() == ShapeDynamism::Static ? "static" : "bounded");
      return resized == Error::NotSupported ? Error::InvalidArgument : resized;
    }
    PTEC_CHECK_OR_RETURN_ERROR(src.nbytes() == 0 || src.const_data_ptr() != nullptr,
                               InvalidArgument, "input %zu: tensor has no data", index);
    if (input_planned_[index]) {
      if (dst.nbytes() > 0 && dst.mutable_data_ptr() != src.const_data_ptr()) {
        PTEC_CHECK_OR_RETURN_ERROR(dst.mutable_data_ptr() != nullptr, InvalidState,
                                   "input %zu: planned data was released", index);
        std::memmove(dst.mutable_data_ptr(), src.const_data_ptr(), dst.nbytes());
      }
    } else {
      PTEC_CHECK_OR_RETURN_ERROR(
          is_aligned(src.const_data_ptr(), src.element_size()), InvalidArgument,
          "input %zu: data is not aligned to its %zu-byte elements", index, src.element_size());
      dst.set_data(src.mutable_data_ptr());
    }
  } else if (slot.is_none() || slot.is_int() || slot.is_double() || slot.is_bool() ||
             slot.is_string()) {
    PTEC_CHECK_OR_RETURN_ERROR(same_scalar(slot, value), InvalidArgument,
                               "input %zu: a %s input must equal the value in the program", index,
                               EValue::tag_name(slot.tag()));
  } else {
    PTEC_LOG(Error, "input %zu: %s inputs are not supported", index, EValue::tag_name(slot.tag()));
    return Error::NotSupported;
  }
  input_set_[index] = true;
  return Error::Ok;
}

Error Method::set_input_pointer(size_t index, void* data, size_t nbytes) {
  PTEC_TRY(check_input_index(index));
  EValue& slot = values_[input_indices_[index]];
  PTEC_CHECK_OR_RETURN_ERROR(slot.is_tensor(), InvalidArgument, "input %zu is a %s, not a Tensor",
                             index, EValue::tag_name(slot.tag()));
  Tensor& t = slot.to_tensor();
  PTEC_CHECK_OR_RETURN_ERROR(nbytes >= t.nbytes() && (data != nullptr || t.nbytes() == 0),
                             InvalidArgument, "input %zu: %zu bytes given, %zu needed", index,
                             nbytes, t.nbytes());
  PTEC_CHECK_OR_RETURN_ERROR(is_aligned(data, t.element_size()), InvalidArgument,
                             "input %zu: data is not aligned to its %zu-byte elements", index,
                             t.element_size());
  t.set_data(data);
  input_set_[index] = true;
  return Error::Ok;
}

Error Method::set_output_data_ptr(void* buffer, size_t size, size_t output_index) {
  PTEC_CHECK_OR_RETURN_ERROR(initialized_, InvalidState, "method is not loaded");
  PTEC_CHECK_OR_RETURN_ERROR(output_index < n_outputs_, InvalidArgument,
                             "output index %zu out of range (%zu outputs)", output_index,
                             n_outputs_);
  const size_t idx = output_indices_[output_index];
  EValue& slot = values_[idx];
  PTEC_CHECK_OR_RETURN_ERROR(slot.is_tensor(), InvalidArgument, "output %zu is a %s, not a Tensor",
                             output_index, EValue::tag_name(slot.tag()));
  const fb::Tensor* t =
      plan_->values()->Get(static_cast<flatbuffers::uoffset_t>(idx))->val_as_Tensor();
  PTEC_CHECK_OR_RETURN_ERROR(
      t->allocation_info() == nullptr && t->data_buffer_idx() == 0, InvalidState,
      "output %zu is memory planned or constant; its buffer is fixed", output_index);
  Tensor& tensor = slot.to_tensor();
  PTEC_CHECK_OR_RETURN_ERROR(size >= tensor.nbytes() && (buffer != nullptr || size == 0),
                             InvalidArgument, "output %zu: %zu bytes given, %zu needed",
                             output_index, size, tensor.nbytes());
  PTEC_CHECK_OR_RETURN_ERROR(is_aligned(buffer, tensor.element_size()), InvalidArgument,
                             "output %zu: buffer is not aligned to its %zu-byte elements",
                             output_index, tensor.element_size());
  tensor.set_data(buffer);
  return Error::Ok;
}

Error Method::check_kernel_args(const internal::Instruction& instr, size_t chain_index,
                                size_t pc) const {
  for (size_t k = 0; k < instr.n_args; ++k) {
    const EValue& v = *instr.args[k];
    bool missing = false;
    if (v.is_tensor()) {
      missing = missing_data(v.to_tensor());
    } else if (v.is_tensor_list()) {
      for (const Tensor& t : v.to_tensor_list()) missing = missing || missing_data(t);
    } else if (v.is_optional_tensor_list()) {
      for (const auto& t : v.to_optional_tensor_list()) {
        missing = missing || (t.has_value() && missing_data(*t));
      }
    }
    if (missing) {
      PTEC_LOG(Error,
               "method '%s' chain %zu instruction %zu (%s): argument %zu is a tensor without "
               "data (an input that was not set, or a released tensor)",
               name_, chain_index, pc, instr.op_name, k);
      return Error::InvalidState;
    }
  }
  return Error::Ok;
}

Error Method::execute_instruction(size_t chain_index, size_t& pc) {
  const internal::Instruction& instr = chains_[chain_index].instructions[pc];
  const int32_t instruction_id = static_cast<int32_t>(pc);
  const ChainID chain_id = static_cast<ChainID>(chain_index);
  size_t next = pc + 1;
  switch (instr.type) {
    case fb::InstructionArguments::KernelCall: {
      PTEC_TRY(check_kernel_args(instr, chain_index, pc));
      KernelRuntimeContext context(memory_manager_->temp_allocator, event_tracer_);
      EventTracerEntry op_event;
      EventTracerEntry call_event;
      if (event_tracer_ != nullptr) {
        op_event = event_tracer_->start_profiling("OPERATOR_CALL", chain_id, instruction_id);
        call_event = event_tracer_->start_profiling(instr.event_name, chain_id, instruction_id);
      }
      instr.kernel(context, Span<EValue*>(instr.args, instr.n_args));
      if (event_tracer_ != nullptr) {
        event_tracer_->end_profiling(call_event);
        event_tracer_->end_profiling(op_event);
        if (event_tracer_->logs_intermediate_outputs() && instr.n_args > 0 &&
            context.failure_state() == Error::Ok) {
          // The last argument is the out value (a tensor, or the list of a multi-output op).
          (void)event_tracer_->log_evalue(*instr.args[instr.n_args - 1],
                                          LoggedEValueType::IntermediateOutput, chain_id,
                                          instruction_id);
        }
      }
      if (memory_manager_->temp_allocator != nullptr) memory_manager_->temp_allocator->reset();
      if (context.failure_state() != Error::Ok) {
        PTEC_LOG(Error, "method '%s' chain %zu instruction %zu: kernel %s failed: %s", name_,
                 chain_index, pc, instr.op_name, to_string(context.failure_state()));
        return context.failure_state();
      }
      break;
    }
    case fb::InstructionArguments::DelegateCall: {
      internal::Delegate& d = delegates_[instr.delegate_index];
      BackendExecutionContext context(event_tracer_, memory_manager_->temp_allocator, name_);
      EventTracerEntry event;
      if (event_tracer_ != nullptr) {
        event = event_tracer_->start_profiling("DELEGATE_CALL", chain_id, instruction_id);
        event_tracer_->set_current_instruction(chain_id, instruction_id);
      }
      const Error err =
          d.backend->execute(context, d.handle, Span<EValue*>(instr.args, instr.n_args));
      if (event_tracer_ != nullptr) {
        event_tracer_->set_current_instruction(kUnsetChainId, kUnsetInstructionId);
        event_tracer_->end_profiling(event);
      }
      if (memory_manager_->temp_allocator != nullptr) memory_manager_->temp_allocator->reset();
      if (err != Error::Ok) {
        PTEC_LOG(Error, "method '%s' chain %zu instruction %zu: delegate %s failed: %s", name_,
                 chain_index, pc, d.id, to_string(err));
        return err;
      }
      break;
    }
    case fb::InstructionArguments::MoveCall: {
      EValue& from = values_[instr.a];
      EValue& to = values_[instr.b];
      // Lists refer to values by index and rely on their types; a move must keep them.
      PTEC_CHECK_OR_RETURN_ERROR(from.tag() == to.tag(), InvalidProgram,
                                 "method '%s' chain %zu instruction %zu: MoveCall from a %s "
                                 "value to a %s value",
                                 name_, chain_index, pc, EValue::tag_name(from.tag()),
                                 EValue::tag_name(to.tag()));
      to = from;
      break;
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const EValue& cond = values_[instr.a];
      bool value = false;
      if (cond.is_bool()) {
        value = cond.to_bool();
      } else if (cond.is_tensor() && cond.to_tensor().dtype() == DType::Bool) {
        const Tensor& t = cond.to_tensor();
        PTEC_CHECK_OR_RETURN_ERROR(!missing_data(t), InvalidState,
                                   "chain %zu instruction %zu: condition tensor has no data",
                                   chain_index, pc);
        const uint8_t* bytes = t.const_data_ptr<uint8_t>();
        value = true;
        for (size_t i = 0; i < t.numel(); ++i) value = value && bytes[i] != 0;
      } else {
        PTEC_LOG(Error,
                 "method '%s' chain %zu instruction %zu: JumpFalseCall condition is a %s, "
                 "expected Bool or a bool Tensor",
                 name_, chain_index, pc, EValue::tag_name(cond.tag()));
        return Error::InvalidProgram;
      }
      if (!value) next = static_cast<size_t>(instr.b);
      break;
    }
    case fb::InstructionArguments::FreeCall: {
      EValue& v = values_[instr.a];
      PTEC_CHECK_OR_RETURN_ERROR(v.is_tensor(), InvalidProgram,
                                 "chain %zu instruction %zu: FreeCall on a %s value", chain_index,
                                 pc, EValue::tag_name(v.tag()));
      v.to_tensor().set_data(nullptr);
      break;
    }
    default: return Error::Internal;  // rejected at load
  }
  pc = next;
  return Error::Ok;
}

Error Method::execute() {
  PTEC_CHECK_OR_RETURN_ERROR(initialized_, InvalidState, "method is not loaded");
  for (size_t i = 0; i < n_inputs_; ++i) {
    const EValue& v = values_[input_indices_[i]];
    if (v.is_tensor() && !input_set_[i] && missing_data(v.to_tensor())) {
      PTEC_LOG(Error, "method '%s': input %zu has not been set", name_, i);
      return Error::InvalidState;
    }
  }
  if (event_tracer_ != nullptr) event_tracer_->create_event_block("Execute", name_);
  {
    // Ends on every return, so a failed run still closes its event.
    EventTracerProfileScope execute_event(event_tracer_, "Method::execute");
    size_t steps = 0;
    for (size_t c = 0; c < n_chains_; ++c) {
      size_t pc = 0;
      while (pc < chains_[c].n_instructions) {
        if (step_limit_ != 0 && ++steps > step_limit_) {
          PTEC_LOG(Error, "method '%s': step limit of %zu instructions exceeded", name_,
                   step_limit_);
          return Error::InvalidState;
        }
        PTEC_TRY(execute_instruction(c, pc));
      }
    }
  }
  if (event_tracer_ != nullptr && event_tracer_->logs_program_outputs()) {
    for (size_t i = 0; i < n_outputs_; ++i) {
      (void)event_tracer_->log_evalue(values_[output_indices_[i]], LoggedEValueType::ProgramOutput);
    }
  }
  return Error::Ok;
}

}  // namespace ptec::runtime
