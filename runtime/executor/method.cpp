#include "runtime/executor/method.h"

#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

#include "core/log.h"
#include "runtime/executor/method_internal.h"
#include "runtime/executor/program.h"
#include "runtime/executor/pte_data_map.h"
#include "runtime/executor/tensor_parser.h"
#include "schema/program_generated.h"

namespace ptec::runtime {

namespace fb = executorch_flatbuffer;

namespace {

using flatbuffers::uoffset_t;

// Longest "name.overload" the runtime accepts (ExecuTorch uses a 100-char buffer).
constexpr size_t kMaxOperatorNameLength = 255;

template <typename T>
T* allocate_constructed(MemoryAllocator* allocator, size_t count) {
  T* items = allocator->allocate_list<T>(count);
  if (items == nullptr) return nullptr;
  for (size_t i = 0; i < count; ++i) new (&items[i]) T();
  return items;
}

const char* copy_string(MemoryAllocator* allocator, const char* prefix, const char* a,
                        const char* sep, const char* b) {
  const size_t n = std::strlen(prefix) + std::strlen(a) + std::strlen(sep) + std::strlen(b) + 1;
  char* out = static_cast<char*>(allocator->allocate(n, 1));
  if (out == nullptr) return nullptr;
  std::snprintf(out, n, "%s%s%s%s", prefix, a, sep, b);
  return out;
}

}  // namespace

Method::Method(MemoryManager* memory_manager, EventTracer* event_tracer,
               const fb::ExecutionPlan* plan)
    : memory_manager_(memory_manager), event_tracer_(event_tracer), plan_(plan) {}

Method::Method(Method&& other) noexcept
    : memory_manager_(other.memory_manager_),
      event_tracer_(other.event_tracer_),
      plan_(other.plan_),
      name_(other.name_),
      values_(other.values_),
      n_values_(other.n_values_),
      delegates_(std::exchange(other.delegates_, nullptr)),
      n_delegates_(std::exchange(other.n_delegates_, 0)),
      chains_(other.chains_),
      n_chains_(other.n_chains_),
      external_data_(std::exchange(other.external_data_, nullptr)),
      n_external_data_(std::exchange(other.n_external_data_, 0)),
      merged_data_map_(other.merged_data_map_),
      input_indices_(other.input_indices_),
      output_indices_(other.output_indices_),
      n_inputs_(other.n_inputs_),
      n_outputs_(other.n_outputs_),
      input_planned_(other.input_planned_),
      input_set_(other.input_set_),
      step_limit_(other.step_limit_),
      initialized_(std::exchange(other.initialized_, false)) {}

Method::~Method() {
  for (size_t i = 0; i < n_delegates_; ++i) {
    internal::Delegate& d = delegates_[i];
    d.backend->destroy(d.handle);
    d.~Delegate();
  }
  for (size_t i = 0; i < n_external_data_; ++i) external_data_[i].~FreeableBuffer();
}

Error Method::init(const Program& program, const NamedDataMap* external_data) {
  name_ = plan_ != nullptr && plan_->name() != nullptr ? plan_->name()->c_str() : "";
  PTEC_CHECK_OR_RETURN_ERROR(plan_ != nullptr, InvalidProgram, "missing execution plan");
  // Ends on every return, so a failed init still closes its event.
  EventTracerProfileScope init_event(event_tracer_, "Method::init");
  MemoryAllocator* allocator = memory_manager_->method_allocator;
  const NamedDataMap* pte_map = program.get_named_data_map();
  if (external_data != nullptr && pte_map != nullptr) {
    void* storage = allocator->allocate(sizeof(MergedDataMap), alignof(MergedDataMap));
    PTEC_CHECK_OR_RETURN_ERROR(storage != nullptr, MemoryAllocationFailed,
                               "method allocator exhausted");
    merged_data_map_ = new (storage) MergedDataMap(external_data, pte_map);
  } else {
    merged_data_map_ = external_data != nullptr ? external_data : pte_map;
  }
  PTEC_CHECK_OR_RETURN_ERROR(
      plan_->non_const_buffer_sizes() != nullptr && plan_->non_const_buffer_sizes()->size() >= 1,
      InvalidProgram, "method '%s' has no non_const_buffer_sizes (entry 0 is required)", name_);
  PTEC_TRY(parse_values(program, external_data));
  PTEC_TRY(check_list_items());
  PTEC_TRY(init_delegates(program));
  PTEC_TRY(init_chains());
  PTEC_TRY(init_io());
  initialized_ = true;
  return Error::Ok;
}

Error Method::parse_values(const Program& program, const NamedDataMap* external_data) {
  MemoryAllocator* allocator = memory_manager_->method_allocator;
  const auto* values = plan_->values();
  PTEC_CHECK_OR_RETURN_ERROR(values != nullptr, InvalidProgram, "method '%s' has no values", name_);
  const size_t n = values->size();
  values_ = allocate_constructed<EValue>(allocator, n);
  PTEC_CHECK_OR_RETURN_ERROR(values_ != nullptr, MemoryAllocationFailed,
                             "method allocator exhausted (%zu values)", n);
  n_values_ = n;

  size_t n_external = 0;
  for (size_t i = 0; i < n; ++i) {
    const fb::EValue* v = values->Get(static_cast<uoffset_t>(i));
    if (v != nullptr && v->val_type() == fb::KernelTypes::Tensor &&
        internal::is_external_constant(v->val_as_Tensor())) {
      ++n_external;
    }
  }
  if (n_external > 0) {
    external_data_ = allocate_constructed<FreeableBuffer>(allocator, n_external);
    PTEC_CHECK_OR_RETURN_ERROR(external_data_ != nullptr, MemoryAllocationFailed,
                               "method allocator exhausted");
    n_external_data_ = n_external;
  }
  size_t next_external = 0;

  for (size_t i = 0; i < n; ++i) {
    const fb::EValue* v = values->Get(static_cast<uoffset_t>(i));
    PTEC_CHECK_OR_RETURN_ERROR(v != nullptr, InvalidProgram, "value %zu is null", i);
    const fb::KernelTypes type = v->val_type();
    PTEC_CHECK_OR_RETURN_ERROR(type != fb::KernelTypes::NONE, InvalidProgram,
                               "value %zu has no type", i);
    PTEC_CHECK_OR_RETURN_ERROR(type == fb::KernelTypes::Null || v->val() != nullptr, InvalidProgram,
                               "value %zu has a type but no payload", i);
    switch (type) {
      case fb::KernelTypes::Null: values_[i] = EValue(); break;
      case fb::KernelTypes::Int: values_[i] = EValue(v->val_as_Int()->int_val()); break;
      case fb::KernelTypes::Bool: values_[i] = EValue(v->val_as_Bool()->bool_val()); break;
      case fb::KernelTypes::Double: values_[i] = EValue(v->val_as_Double()->double_val()); break;
      case fb::KernelTypes::String: {
        const flatbuffers::String* s = v->val_as_String()->string_val();
        PTEC_CHECK_OR_RETURN_ERROR(s != nullptr, InvalidProgram, "value %zu: String without text",
                                   i);
        values_[i] = EValue(std::string_view(s->c_str(), s->size()));
        break;
      }
      case fb::KernelTypes::Tensor: {
        const fb::Tensor* t = v->val_as_Tensor();
        FreeableBuffer* slot = nullptr;
        if (internal::is_external_constant(t)) slot = &external_data_[next_external++];
        Result<Tensor*> tensor =
            internal::parse_tensor(program, *memory_manager_, t, i, external_data, slot);
        if (!tensor.ok()) return tensor.error();
        values_[i] = EValue(tensor.get());
        break;
      }
      case fb::KernelTypes::IntList: {
        const auto* items = v->val_as_IntList()->items();
        PTEC_CHECK_OR_RETURN_ERROR(items != nullptr, InvalidProgram,
                                   "value %zu: IntList without items", i);
        const size_t m = items->size();
        EValue** wrapped = allocator->allocate_list<EValue*>(m);
        int64_t* unboxed = allocator->allocate_list<int64_t>(m);
        PTEC_CHECK_OR_RETURN_ERROR(wrapped != nullptr && unboxed != nullptr, MemoryAllocationFailed,
                                   "method allocator exhausted");
        for (size_t j = 0; j < m; ++j) {
          const int64_t idx = items->Get(static_cast<uoffset_t>(j));
          PTEC_CHECK_OR_RETURN_ERROR(idx >= 0 && static_cast<uint64_t>(idx) < n, InvalidProgram,
                                     "value %zu: IntList item %zu refers to value %lld of %zu", i,
                                     j, static_cast<long long>(idx), n);
          wrapped[j] = &values_[idx];
          unboxed[j] = 0;
        }
        values_[i] = EValue(BoxedEvalueList<int64_t>(wrapped, unboxed, m));
        break;
      }
      case fb::KernelTypes::DoubleList: {
        const auto* items = v->val_as_DoubleList()->items();
        PTEC_CHECK_OR_RETURN_ERROR(items != nullptr, InvalidProgram,
                                   "value %zu: DoubleList without items", i);
        double* copy = allocator->allocate_list<double>(items->size());
        PTEC_CHECK_OR_RETURN_ERROR(copy != nullptr, MemoryAllocationFailed,
                                   "method allocator exhausted");
        for (uoffset_t j = 0; j < items->size(); ++j) copy[j] = items->Get(j);
        values_[i] = EValue(Span<const double>(copy, items->size()));
        break;
      }
      case fb::KernelTypes::BoolList: {
        const auto* items = v->val_as_BoolList()->items();
        PTEC_CHECK_OR_RETURN_ERROR(items != nullptr, InvalidProgram,
                                   "value %zu: BoolList without items", i);
        bool* copy = allocator->allocate_list<bool>(items->size());
        PTEC_CHECK_OR_RETURN_ERROR(copy != nullptr, MemoryAllocationFailed,
                                   "method allocator exhausted");
        // Read the bytes, not bools: a byte other than 0/1 must not become an invalid bool.
        const uint8_t* raw = reinterpret_cast<const uint8_t*>(items->Data());
        for (uoffset_t j = 0; j < items->size(); ++j) copy[j] = raw[j] != 0;
        values_[i] = EValue(Span<const bool>(copy, items->size()));
        break;
      }
      case fb::KernelTypes::TensorList:
      case fb::KernelTypes::OptionalTensorList: {
        const bool optional = type == fb::KernelTypes::OptionalTensorList;
        const auto* items =
            optional ? v->val_as_OptionalTensorList()->items() : v->val_as_TensorList()->items();
        PTEC_CHECK_OR_RETURN_ERROR(items != nullptr, InvalidProgram,
                                   "value %zu: tensor list without items", i);
        const size_t m = items->size();
        EValue** wrapped = allocator->allocate_list<EValue*>(m);
        PTEC_CHECK_OR_RETURN_ERROR(wrapped != nullptr, MemoryAllocationFailed,
                                   "method allocator exhausted");
        for (size_t j = 0; j < m; ++j) {
          const int32_t idx = items->Get(static_cast<uoffset_t>(j));
          if (optional && idx == -1) {
            wrapped[j] = nullptr;  // None
            continue;
          }
          PTEC_CHECK_OR_RETURN_ERROR(idx >= 0 && static_cast<size_t>(idx) < n, InvalidProgram,
                                     "value %zu: list item %zu refers to value %d of %zu", i, j,
                                     idx, n);
          wrapped[j] = &values_[idx];
        }
        if (optional) {
          auto* unboxed = allocate_constructed<std::optional<Tensor>>(allocator, m);
          PTEC_CHECK_OR_RETURN_ERROR(unboxed != nullptr, MemoryAllocationFailed,
                                     "method allocator exhausted");
          values_[i] = EValue(BoxedEvalueList<std::optional<Tensor>>(wrapped, unboxed, m));
        } else {
          auto* unboxed = allocate_constructed<Tensor>(allocator, m);
          PTEC_CHECK_OR_RETURN_ERROR(unboxed != nullptr, MemoryAllocationFailed,
                                     "method allocator exhausted");
          values_[i] = EValue(BoxedEvalueList<Tensor>(wrapped, unboxed, m));
        }
        break;
      }
      default:
        PTEC_LOG(Error, "value %zu has invalid type %d", i, static_cast<int>(type));
        return Error::InvalidProgram;
    }
  }
  return Error::Ok;
}

// List items are parsed by index, so their types can only be checked once every value exists.
Error Method::check_list_items() const {
  const auto* values = plan_->values();
  for (size_t i = 0; i < n_values_; ++i) {
    const fb::EValue* v = values->Get(static_cast<uoffset_t>(i));
    const fb::KernelTypes type = v->val_type();
    if (type == fb::KernelTypes::IntList) {
      const auto* items = v->val_as_IntList()->items();
      for (uoffset_t j = 0; j < items->size(); ++j) {
        const EValue& item = values_[items->Get(j)];
        PTEC_CHECK_OR_RETURN_ERROR(item.is_int(), InvalidProgram,
                                   "value %zu: IntList item %u is a %s value, expected Int", i, j,
                                   EValue::tag_name(item.tag()));
      }
    } else if (type == fb::KernelTypes::TensorList || type == fb::KernelTypes::OptionalTensorList) {
      const bool optional = type == fb::KernelTypes::OptionalTensorList;
      const auto* items =
          optional ? v->val_as_OptionalTensorList()->items() : v->val_as_TensorList()->items();
      for (uoffset_t j = 0; j < items->size(); ++j) {
        const int32_t idx = items->Get(j);
        if (optional && idx == -1) continue;
        const EValue& item = values_[idx];
        PTEC_CHECK_OR_RETURN_ERROR(item.is_tensor() || (optional && item.is_none()), InvalidProgram,
                                   "value %zu: tensor list item %u is a %s value, expected Tensor",
                                   i, j, EValue::tag_name(item.tag()));
      }
    }
  }
  return Error::Ok;
}

Error Method::init_delegates(const Program& program) {
  const auto* delegates = plan_->delegates();
  PTEC_CHECK_OR_RETURN_ERROR(delegates != nullptr, InvalidProgram,
                             "method '%s' has no delegates table", name_);
  const size_t n = delegates->size();
  if (n == 0) return Error::Ok;
  MemoryAllocator* allocator = memory_manager_->method_allocator;
  delegates_ = allocator->allocate_list<internal::Delegate>(n);
  PTEC_CHECK_OR_RETURN_ERROR(delegates_ != nullptr, MemoryAllocationFailed,
                             "method allocator exhausted");
  const auto* inline_data = program.flatbuffer()->backend_delegate_data();
  for (size_t i = 0; i < n; ++i) {
    const fb::BackendDelegate* d = delegates->Get(static_cast<uoffset_t>(i));
    PTEC_CHECK_OR_RETURN_ERROR(d != nullptr && d->id() != nullptr, InvalidProgram,
                               "delegate %zu has no backend id", i);
    const char* id = d->id()->c_str();
    BackendInterface* backend = get_backend_class(id);
    if (backend == nullptr) {
      PTEC_LOG(Error, "Backend %s is not registered.", id);
      return Error::NotFound;
    }
    if (!backend->is_available()) {
      PTEC_LOG(Error, "Backend %s is not available.", id);
      return Error::NotFound;
    }
    const fb::BackendDelegateDataReference* ref = d->processed();
    PTEC_CHECK_OR_RETURN_ERROR(ref != nullptr, InvalidProgram,
                               "delegate %zu (%s) has no processed data reference", i, id);
    FreeableBuffer blob;
    if (ref->location() == fb::DataLocation::INLINE) {
      PTEC_CHECK_OR_RETURN_ERROR(inline_data != nullptr && ref->index() < inline_data->size(),
                                 InvalidProgram, "delegate %zu (%s): inline blob %u does not exist",
                                 i, id, ref->index());
      const fb::BackendDelegateInlineData* blob_table = inline_data->Get(ref->index());
      const auto* bytes = blob_table == nullptr ? nullptr : blob_table->data();
      if (bytes != nullptr) blob = FreeableBuffer(bytes->data(), bytes->size(), nullptr);
    } else if (ref->location() == fb::DataLocation::SEGMENT) {
      Result<FreeableBuffer> segment =
          program.load_segment(ref->index(), DataLoader::SegmentInfo::Type::Backend, id);
      if (!segment.ok()) {
        PTEC_LOG(Error, "delegate %zu (%s): cannot load its blob from segment %u", i, id,
                 ref->index());
        return segment.error();
      }
      blob = std::move(segment.get());
    } else {
      PTEC_LOG(Error, "delegate %zu (%s): invalid data location %d", i, id,
               static_cast<int>(ref->location()));
      return Error::InvalidProgram;
    }

    const auto* specs = d->compile_specs();
    const size_t n_specs = specs == nullptr ? 0 : specs->size();
    CompileSpec* compile_specs = allocate_constructed<CompileSpec>(allocator, n_specs);
    PTEC_CHECK_OR_RETURN_ERROR(compile_specs != nullptr, MemoryAllocationFailed,
                               "method allocator exhausted");
    for (size_t k = 0; k < n_specs; ++k) {
      const fb::CompileSpec* spec = specs->Get(static_cast<uoffset_t>(k));
      PTEC_CHECK_OR_RETURN_ERROR(spec != nullptr && spec->key() != nullptr, InvalidProgram,
                                 "delegate %zu (%s): compile spec %zu has no key", i, id, k);
      compile_specs[k].key = spec->key()->c_str();
      if (spec->value() != nullptr) {
        compile_specs[k].value = {spec->value()->data(), spec->value()->size()};
      }
    }

    internal::Delegate* slot = new (&delegates_[i]) internal::Delegate();
    slot->backend = backend;
    slot->processed = std::move(blob);
    slot->id = id;
    BackendInitContext context(allocator, event_tracer_, name_, merged_data_map_);
    Result<DelegateHandle*> handle =
        backend->init(context, &slot->processed, Span<const CompileSpec>(compile_specs, n_specs));
    if (!handle.ok()) {
      slot->~Delegate();
      PTEC_LOG(Error, "Backend %s failed to initialize delegate %zu of method '%s': %s", id, i,
               name_, to_string(handle.error()));
      return handle.error();
    }
    slot->handle = handle.get();
    n_delegates_ = i + 1;
  }
  return Error::Ok;
}

Error Method::init_chains() {
  const auto* chains = plan_->chains();
  PTEC_CHECK_OR_RETURN_ERROR(chains != nullptr && chains->size() > 0, InvalidProgram,
                             "method '%s': No chains", name_);
  MemoryAllocator* allocator = memory_manager_->method_allocator;
  const auto* operators = plan_->operators();
  const size_t n_ops = operators == nullptr ? 0 : operators->size();
  OpFunction* op_fns = allocator->allocate_list<OpFunction>(n_ops);
  const char** op_names = allocator->allocate_list<const char*>(n_ops);
  const char** event_names = allocator->allocate_list<const char*>(n_ops);
  bool* op_resolved = allocator->allocate_list<bool>(n_ops);
  PTEC_CHECK_OR_RETURN_ERROR(
      op_fns != nullptr && op_names != nullptr && event_names != nullptr && op_resolved != nullptr,
      MemoryAllocationFailed, "method allocator exhausted");
  for (size_t k = 0; k < n_ops; ++k) {
    op_fns[k] = nullptr;
    op_names[k] = nullptr;
    event_names[k] = nullptr;
    op_resolved[k] = false;
  }
  size_t n_missing = 0;

  n_chains_ = chains->size();
  chains_ = allocate_constructed<internal::Chain>(allocator, n_chains_);
  PTEC_CHECK_OR_RETURN_ERROR(chains_ != nullptr, MemoryAllocationFailed,
                             "method allocator exhausted");
  for (size_t c = 0; c < n_chains_; ++c) {
    const fb::Chain* chain = chains->Get(static_cast<uoffset_t>(c));
    PTEC_CHECK_OR_RETURN_ERROR(chain != nullptr && chain->instructions() != nullptr, InvalidProgram,
                               "method '%s': chain %zu has no instructions", name_, c);
    const auto* instructions = chain->instructions();
    const size_t n_instr = instructions->size();
    internal::Instruction* out = allocate_constructed<internal::Instruction>(allocator, n_instr);
    PTEC_CHECK_OR_RETURN_ERROR(out != nullptr, MemoryAllocationFailed,
                               "method allocator exhausted");
    chains_[c].instructions = out;
    chains_[c].n_instructions = n_instr;

    // Resolves DelegateCall/KernelCall args to value pointers, checking every index.
    auto resolve_args = [&](const flatbuffers::Vector<int32_t>* args, size_t pc,
                            internal::Instruction& instr) -> Error {
      PTEC_CHECK_OR_RETURN_ERROR(args != nullptr, InvalidProgram,
                                 "chain %zu instruction %zu: no args", c, pc);
      instr.n_args = args->size();
      instr.args = allocator->allocate_list<EValue*>(instr.n_args);
      PTEC_CHECK_OR_RETURN_ERROR(instr.args != nullptr, MemoryAllocationFailed,
                                 "method allocator exhausted");
      for (size_t k = 0; k < instr.n_args; ++k) {
        const int32_t idx = args->Get(static_cast<uoffset_t>(k));
        PTEC_CHECK_OR_RETURN_ERROR(idx >= 0 && static_cast<size_t>(idx) < n_values_, InvalidProgram,
                                   "chain %zu instruction %zu: arg %zu refers to value %d of %zu",
                                   c, pc, k, idx, n_values_);
        instr.args[k] = &values_[idx];
      }
      return Error::Ok;
    };
    auto check_value = [&](int32_t idx, size_t pc, const char* what) -> Error {
      PTEC_CHECK_OR_RETURN_ERROR(idx >= 0 && static_cast<size_t>(idx) < n_values_, InvalidProgram,
                                 "chain %zu instruction %zu: %s %d is not a value index (%zu)", c,
                                 pc, what, idx, n_values_);
      return Error::Ok;
    };

    for (size_t pc = 0; pc < n_instr; ++pc) {
      const fb::Instruction* instruction = instructions->Get(static_cast<uoffset_t>(pc));
      PTEC_CHECK_OR_RETURN_ERROR(instruction != nullptr && instruction->instr_args() != nullptr,
                                 InvalidProgram, "chain %zu instruction %zu is empty", c, pc);
      internal::Instruction& instr = out[pc];
      instr.type = instruction->instr_args_type();
      switch (instr.type) {
        case fb::InstructionArguments::KernelCall: {
          const fb::KernelCall* call = instruction->instr_args_as_KernelCall();
          const int32_t op = call->op_index();
          PTEC_CHECK_OR_RETURN_ERROR(op >= 0 && static_cast<size_t>(op) < n_ops, InvalidProgram,
                                     "chain %zu instruction %zu: op_index %d out of range (%zu "
                                     "operators)",
                                     c, pc, op, n_ops);
          PTEC_TRY(resolve_args(call->args(), pc, instr));
          if (!op_resolved[op]) {
            op_resolved[op] = true;
            const fb::Operator* oper = operators->Get(static_cast<uoffset_t>(op));
            PTEC_CHECK_OR_RETURN_ERROR(oper != nullptr && oper->name() != nullptr, InvalidProgram,
                                       "operator %d has no name", op);
            const char* overload = oper->overload() == nullptr ? "" : oper->overload()->c_str();
            PTEC_CHECK_OR_RETURN_ERROR(
                oper->name()->size() + 1 + std::strlen(overload) <= kMaxOperatorNameLength,
                InvalidProgram, "operator %d: name longer than %zu characters", op,
                kMaxOperatorNameLength);
            op_names[op] = copy_string(allocator, "", oper->name()->c_str(),
                                       overload[0] == '\0' ? "" : ".", overload);
            PTEC_CHECK_OR_RETURN_ERROR(op_names[op] != nullptr, MemoryAllocationFailed,
                                       "method allocator exhausted");
            if (event_tracer_ != nullptr) {
              // "native_call_<op>.<overload>" without the namespace, as the upstream runtime
              // names kernel events ("aten::add.out" -> "native_call_add.out").
              const char* base = op_names[op];
              for (const char* p = base; *p != '\0'; ++p) {
                if (p[0] == ':' && p[1] == ':') base = p + 2;
              }
              event_names[op] = copy_string(allocator, "native_call_", base, "", "");
              PTEC_CHECK_OR_RETURN_ERROR(event_names[op] != nullptr, MemoryAllocationFailed,
                                         "method allocator exhausted");
            }
            op_fns[op] = get_op_function(op_names[op]);
            if (op_fns[op] == nullptr) {
              PTEC_LOG(Error, "Missing operator: %s", op_names[op]);
              ++n_missing;
            }
          }
          instr.kernel = op_fns[op];
          instr.op_name = op_names[op];
          instr.event_name = event_names[op];
          break;
        }
        case fb::InstructionArguments::DelegateCall: {
          const fb::DelegateCall* call = instruction->instr_args_as_DelegateCall();
          const int32_t d = call->delegate_index();
          PTEC_CHECK_OR_RETURN_ERROR(d >= 0 && static_cast<size_t>(d) < n_delegates_,
                                     InvalidProgram,
                                     "chain %zu instruction %zu: delegate_index %d out of range "
                                     "(%zu delegates)",
                                     c, pc, d, n_delegates_);
          instr.delegate_index = static_cast<size_t>(d);
          PTEC_TRY(resolve_args(call->args(), pc, instr));
          break;
        }
        case fb::InstructionArguments::MoveCall: {
          const fb::MoveCall* call = instruction->instr_args_as_MoveCall();
          PTEC_TRY(check_value(call->move_from(), pc, "move_from"));
          PTEC_TRY(check_value(call->move_to(), pc, "move_to"));
          instr.a = call->move_from();
          instr.b = call->move_to();
          break;
        }
        case fb::InstructionArguments::JumpFalseCall: {
          const fb::JumpFalseCall* call = instruction->instr_args_as_JumpFalseCall();
          PTEC_TRY(check_value(call->cond_value_index(), pc, "cond_value_index"));
          const int32_t dest = call->destination_instruction();
          PTEC_CHECK_OR_RETURN_ERROR(dest >= 0 && static_cast<size_t>(dest) <= n_instr,
                                     InvalidProgram,
                                     "chain %zu instruction %zu: jump destination %d is outside "
                                     "the chain's %zu instructions",
                                     c, pc, dest, n_instr);
          instr.a = call->cond_value_index();
          instr.b = dest;
          break;
        }
        case fb::InstructionArguments::FreeCall: {
          const fb::FreeCall* call = instruction->instr_args_as_FreeCall();
          PTEC_TRY(check_value(call->value_index(), pc, "value_index"));
          PTEC_CHECK_OR_RETURN_ERROR(values_[call->value_index()].is_tensor(), InvalidProgram,
                                     "chain %zu instruction %zu: FreeCall on a %s value", c, pc,
                                     EValue::tag_name(values_[call->value_index()].tag()));
          instr.a = call->value_index();
          break;
        }
        default:
          PTEC_LOG(Error, "chain %zu instruction %zu has invalid type %d", c, pc,
                   static_cast<int>(instr.type));
          return Error::InvalidProgram;
      }
    }
  }
  if (n_missing > 0) {
    PTEC_LOG(Error,
             "method '%s': %zu operator(s) have no registered kernel; link a kernel library that "
             "provides them",
             name_, n_missing);
    return Error::OperatorMissing;
  }
  return Error::Ok;
}

Error Method::init_io() {
  MemoryAllocator* allocator = memory_manager_->method_allocator;
  const auto* inputs = plan_->inputs();
  const auto* outputs = plan_->outputs();
  PTEC_CHECK_OR_RETURN_ERROR(inputs != nullptr && outputs != nullptr, InvalidProgram,
                             "method '%s' has no inputs or outputs list", name_);
  n_inputs_ = inputs->size();
  n_outputs_ = outputs->size();
  input_indices_ = allocator->allocate_list<size_t>(n_inputs_);
  output_indices_ = allocator->allocate_list<size_t>(n_outputs_);
  input_planned_ = allocator->allocate_list<bool>(n_inputs_);
  input_set_ = allocator->allocate_list<bool>(n_inputs_);
  PTEC_CHECK_OR_RETURN_ERROR(input_indices_ != nullptr && output_indices_ != nullptr &&
                                 input_planned_ != nullptr && input_set_ != nullptr,
                             MemoryAllocationFailed, "method allocator exhausted");
  for (size_t i = 0; i < n_inputs_; ++i) {
    const int32_t idx = inputs->Get(static_cast<uoffset_t>(i));
    PTEC_CHECK_OR_RETURN_ERROR(idx >= 0 && static_cast<size_t>(idx) < n_values_, InvalidProgram,
                               "input %zu refers to value %d of %zu", i, idx, n_values_);
    input_indices_[i] = static_cast<size_t>(idx);
    const fb::EValue* v = plan_->values()->Get(static_cast<uoffset_t>(idx));
    input_planned_[i] = v->val_type() == fb::KernelTypes::Tensor &&
                        v->val_as_Tensor()->allocation_info() != nullptr;
    input_set_[i] = false;
  }
  for (size_t i = 0; i < n_outputs_; ++i) {
    const int32_t idx = outputs->Get(static_cast<uoffset_t>(i));
    PTEC_CHECK_OR_RETURN_ERROR(idx >= 0 && static_cast<size_t>(idx) < n_values_, InvalidProgram,
                               "output %zu refers to value %d of %zu", i, idx, n_values_);
    output_indices_[i] = static_cast<size_t>(idx);
  }
  return Error::Ok;
}

MethodMeta Method::method_meta() const { return MethodMeta(plan_, n_values_); }

Error Method::check_input_index(size_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(initialized_, InvalidState, "method is not loaded");
  PTEC_CHECK_OR_RETURN_ERROR(index < n_inputs_, InvalidArgument,
                             "input index %zu out of range (method '%s' has %zu inputs)", index,
                             name_, n_inputs_);
  return Error::Ok;
}

Result<EValue> Method::get_input(size_t index) const {
  PTEC_TRY(check_input_index(index));
  return values_[input_indices_[index]];
}

Result<EValue> Method::get_output(size_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(initialized_, InvalidState, "method is not loaded");
  PTEC_CHECK_OR_RETURN_ERROR(index < n_outputs_, InvalidArgument,
                             "output index %zu out of range (method '%s' has %zu outputs)", index,
                             name_, n_outputs_);
  return values_[output_indices_[index]];
}

Result<size_t> Method::input_value_index(size_t index) const {
  PTEC_TRY(check_input_index(index));
  return input_indices_[index];
}

Result<size_t> Method::output_value_index(size_t index) const {
  PTEC_CHECK_OR_RETURN_ERROR(initialized_ && index < n_outputs_, InvalidArgument,
                             "output index %zu out of range", index);
  return output_indices_[index];
}

}  // namespace ptec::runtime
