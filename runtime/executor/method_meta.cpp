#include "runtime/executor/method_meta.h"

#include <cstring>

#include "core/log.h"
#include "runtime/executor/tensor_parser.h"
#include "schema/program_generated.h"

namespace ptec::runtime {

namespace fb = executorch_flatbuffer;
using flatbuffers::uoffset_t;

Result<MethodMeta> MethodMeta::create(const fb::ExecutionPlan* plan, size_t num_values) {
  PTEC_CHECK_OR_RETURN_ERROR(plan != nullptr, InvalidProgram, "missing execution plan");
  const char* name = plan->name() == nullptr ? "" : plan->name()->c_str();
  PTEC_CHECK_OR_RETURN_ERROR(plan->inputs() != nullptr && plan->outputs() != nullptr,
                             InvalidProgram, "method '%s' has no inputs or outputs list", name);
  PTEC_CHECK_OR_RETURN_ERROR(
      plan->non_const_buffer_sizes() != nullptr && plan->non_const_buffer_sizes()->size() >= 1,
      InvalidProgram, "method '%s' has no non_const_buffer_sizes (entry 0 is required)", name);
  return MethodMeta(plan, num_values);
}

const char* MethodMeta::name() const {
  return plan_->name() == nullptr ? "" : plan_->name()->c_str();
}

size_t MethodMeta::num_inputs() const { return plan_->inputs()->size(); }
size_t MethodMeta::num_outputs() const { return plan_->outputs()->size(); }

Result<EValue::Tag> MethodMeta::value_tag(int32_t value_index) const {
  PTEC_CHECK_OR_RETURN_ERROR(value_index >= 0 && static_cast<size_t>(value_index) < num_values_,
                             InvalidProgram, "value index %d out of range (%zu values)",
                             value_index, num_values_);
  const fb::EValue* v = plan_->values()->Get(static_cast<uoffset_t>(value_index));
  PTEC_CHECK_OR_RETURN_ERROR(v != nullptr, InvalidProgram, "value %d is null", value_index);
  switch (v->val_type()) {
    case fb::KernelTypes::Null: return EValue::Tag::None;
    case fb::KernelTypes::Int: return EValue::Tag::Int;
    case fb::KernelTypes::Bool: return EValue::Tag::Bool;
    case fb::KernelTypes::Double: return EValue::Tag::Double;
    case fb::KernelTypes::Tensor: return EValue::Tag::Tensor;
    case fb::KernelTypes::String: return EValue::Tag::String;
    case fb::KernelTypes::IntList: return EValue::Tag::IntList;
    case fb::KernelTypes::DoubleList: return EValue::Tag::DoubleList;
    case fb::KernelTypes::BoolList: return EValue::Tag::BoolList;
    case fb::KernelTypes::TensorList: return EValue::Tag::TensorList;
    case fb::KernelTypes::OptionalTensorList: return EValue::Tag::OptionalTensorList;
    default: break;
  }
  PTEC_LOG(Error, "value %d has invalid type %d", value_index, static_cast<int>(v->val_type()));
  return Error::InvalidProgram;
}

Result<TensorInfo> MethodMeta::tensor_info(int32_t value_index) const {
  PTEC_TRY_ASSIGN(const EValue::Tag tag, value_tag(value_index));
  PTEC_CHECK_OR_RETURN_ERROR(tag == EValue::Tag::Tensor, InvalidArgument,
                             "value %d is a %s, not a Tensor", value_index, EValue::tag_name(tag));
  const fb::Tensor* t = plan_->values()->Get(static_cast<uoffset_t>(value_index))->val_as_Tensor();
  PTEC_TRY_ASSIGN(const internal::TensorFacts facts,
                  internal::validate_tensor(t, static_cast<size_t>(value_index)));
  TensorInfo info;
  info.sizes_ = Span<const int32_t>(t->sizes()->data(), t->sizes()->size());
  info.dim_order_ = Span<const uint8_t>(t->dim_order()->data(), t->dim_order()->size());
  info.dtype_ = facts.dtype;
  info.nbytes_ = facts.nbytes;
  info.is_memory_planned_ = t->allocation_info() != nullptr;
  info.is_dynamic_ = facts.dynamism != ShapeDynamism::Static;
  if (t->extra_tensor_info() != nullptr &&
      t->extra_tensor_info()->fully_qualified_name() != nullptr) {
    const flatbuffers::String* s = t->extra_tensor_info()->fully_qualified_name();
    info.name_ = std::string_view(s->c_str(), s->size());
  }
  return info;
}

Result<EValue::Tag> MethodMeta::input_tag(size_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(index < num_inputs(), InvalidArgument,
                             "input index %zu out of range (%zu inputs)", index, num_inputs());
  return value_tag(plan_->inputs()->Get(static_cast<uoffset_t>(index)));
}

Result<TensorInfo> MethodMeta::input_tensor_meta(size_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(index < num_inputs(), InvalidArgument,
                             "input index %zu out of range (%zu inputs)", index, num_inputs());
  return tensor_info(plan_->inputs()->Get(static_cast<uoffset_t>(index)));
}

Result<EValue::Tag> MethodMeta::output_tag(size_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(index < num_outputs(), InvalidArgument,
                             "output index %zu out of range (%zu outputs)", index, num_outputs());
  return value_tag(plan_->outputs()->Get(static_cast<uoffset_t>(index)));
}

Result<TensorInfo> MethodMeta::output_tensor_meta(size_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(index < num_outputs(), InvalidArgument,
                             "output index %zu out of range (%zu outputs)", index, num_outputs());
  return tensor_info(plan_->outputs()->Get(static_cast<uoffset_t>(index)));
}

size_t MethodMeta::num_memory_planned_buffers() const {
  return plan_->non_const_buffer_sizes()->size() - 1;
}

Result<int64_t> MethodMeta::memory_planned_buffer_size(size_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(index < num_memory_planned_buffers(), InvalidArgument,
                             "planned buffer index %zu out of range (%zu buffers)", index,
                             num_memory_planned_buffers());
  const int64_t size = plan_->non_const_buffer_sizes()->Get(static_cast<uoffset_t>(index + 1));
  PTEC_CHECK_OR_RETURN_ERROR(size >= 0, InvalidProgram, "planned buffer %zu has size %lld", index,
                             static_cast<long long>(size));
  return size;
}

size_t MethodMeta::num_instructions() const {
  size_t n = 0;
  if (plan_->chains() == nullptr) return 0;
  for (const fb::Chain* chain : *plan_->chains()) {
    if (chain != nullptr && chain->instructions() != nullptr) n += chain->instructions()->size();
  }
  return n;
}

size_t MethodMeta::num_backends() const {
  return plan_->delegates() == nullptr ? 0 : plan_->delegates()->size();
}

Result<const char*> MethodMeta::get_backend_name(size_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(index < num_backends(), InvalidArgument,
                             "backend index %zu out of range (%zu delegates)", index,
                             num_backends());
  const fb::BackendDelegate* d = plan_->delegates()->Get(static_cast<uoffset_t>(index));
  PTEC_CHECK_OR_RETURN_ERROR(d != nullptr && d->id() != nullptr, InvalidProgram,
                             "delegate %zu has no id", index);
  return d->id()->c_str();
}

bool MethodMeta::uses_backend(std::string_view backend_name) const {
  for (size_t i = 0; i < num_backends(); ++i) {
    Result<const char*> name = get_backend_name(i);
    if (name.ok() && backend_name == name.get()) return true;
  }
  return false;
}

}  // namespace ptec::runtime
