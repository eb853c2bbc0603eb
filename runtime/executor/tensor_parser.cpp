#include "runtime/executor/tensor_parser.h"

#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>
#include <utility>

#include "core/log.h"
#include "runtime/executor/program.h"
#include "schema/program_generated.h"

namespace ptec::runtime::internal {

namespace fb = executorch_flatbuffer;

namespace {

bool is_aligned(const void* data, size_t alignment) {
  return alignment <= 1 || reinterpret_cast<uintptr_t>(data) % alignment == 0;
}

Result<void*> external_data_ptr(const fb::Tensor* tensor, const TensorFacts& facts,
                                size_t value_index, const MemoryManager& memory_manager,
                                const NamedDataMap* external_data, FreeableBuffer* external_slot,
                                void* planned) {
  const flatbuffers::String* fqn = tensor->extra_tensor_info()->fully_qualified_name();
  PTEC_CHECK_OR_RETURN_ERROR(fqn != nullptr && fqn->size() > 0, InvalidProgram,
                             "value %zu: EXTERNAL tensor without a fully_qualified_name",
                             value_index);
  const std::string_view key(fqn->c_str(), fqn->size());
  const int key_len = static_cast<int>(key.size());
  if (external_data == nullptr) {
    PTEC_LOG(Error,
             "value %zu: tensor '%.*s' is stored outside the program, but no data file (.ptd) "
             "was given",
             value_index, key_len, key.data());
    return Error::NotFound;
  }
  Result<TensorLayout> layout = external_data->get_tensor_layout(key);
  if (!layout.ok()) {
    PTEC_LOG(Error, "value %zu: no tensor layout for external tensor '%.*s' in the data file (%s)",
             value_index, key_len, key.data(), to_string(layout.error()));
    return layout.error() == Error::NotFound ? Error::NotFound : Error::InvalidExternalData;
  }
  bool same = layout->scalar_type() == facts.dtype && layout->sizes().size() == facts.dim;
  for (size_t i = 0; same && i < facts.dim; ++i) {
    same =
        layout->sizes()[i] == tensor->sizes()->Get(static_cast<flatbuffers::uoffset_t>(i)) &&
        layout->dim_order()[i] == tensor->dim_order()->Get(static_cast<flatbuffers::uoffset_t>(i));
  }
  if (!same) {
    PTEC_LOG(Error,
             "value %zu: external tensor '%.*s' has another layout in the data file (%s, rank "
             "%zu) than in the program (%s, rank %zu), or other sizes/dim_order",
             value_index, key_len, key.data(), to_string(layout->scalar_type()),
             layout->sizes().size(), to_string(facts.dtype), facts.dim);
    return Error::InvalidExternalData;
  }
  if (planned != nullptr || tensor->allocation_info() != nullptr) {
    // Mutable external tensor: its initial value is copied into planned memory.
    const Error err = external_data->load_data_into(key, planned, facts.nbytes);
    if (err != Error::Ok) {
      PTEC_LOG(Error, "value %zu: cannot load external tensor '%.*s' (%s)", value_index, key_len,
               key.data(), to_string(err));
      return err;
    }
    return planned;
  }
  (void)memory_manager;
  Result<FreeableBuffer> data = external_data->get_data(key);
  if (!data.ok()) {
    PTEC_LOG(Error, "value %zu: cannot load external tensor '%.*s' (%s)", value_index, key_len,
             key.data(), to_string(data.error()));
    return data.error();
  }
  PTEC_CHECK_OR_RETURN_ERROR(data->size() >= facts.nbytes, InvalidExternalData,
                             "value %zu: external tensor '%.*s' has %zu bytes, %zu needed",
                             value_index, key_len, key.data(), data->size(), facts.nbytes);
  void* ptr = const_cast<void*>(data->data());
  PTEC_CHECK_OR_RETURN_ERROR(external_slot != nullptr, Internal, "no slot for external data");
  *external_slot = std::move(data.get());
  return ptr;
}

}  // namespace

bool is_external_constant(const fb::Tensor* tensor) {
  return tensor != nullptr && tensor->extra_tensor_info() != nullptr &&
         tensor->extra_tensor_info()->location() == fb::TensorDataLocation::EXTERNAL &&
         tensor->allocation_info() == nullptr;
}

Result<TensorFacts> validate_tensor(const fb::Tensor* tensor, size_t value_index) {
  PTEC_CHECK_OR_RETURN_ERROR(tensor != nullptr, InvalidProgram, "value %zu: missing tensor",
                             value_index);
  const int64_t st = static_cast<int64_t>(tensor->scalar_type());
  PTEC_CHECK_OR_RETURN_ERROR(is_valid_dtype(st), InvalidProgram,
                             "value %zu: invalid scalar_type %lld", value_index,
                             static_cast<long long>(st));
  PTEC_CHECK_OR_RETURN_ERROR(tensor->storage_offset() == 0, InvalidProgram,
                             "value %zu: storage_offset %d is not supported (must be 0)",
                             value_index, tensor->storage_offset());
  const auto* sizes = tensor->sizes();
  const auto* dim_order = tensor->dim_order();
  PTEC_CHECK_OR_RETURN_ERROR(sizes != nullptr && dim_order != nullptr, InvalidProgram,
                             "value %zu: tensor without sizes or dim_order", value_index);
  const size_t dim = sizes->size();
  PTEC_CHECK_OR_RETURN_ERROR(dim <= kTensorDimensionLimit, InvalidProgram,
                             "value %zu: rank %zu exceeds the limit of %zu", value_index, dim,
                             kTensorDimensionLimit);
  PTEC_CHECK_OR_RETURN_ERROR(dim_order->size() == dim, InvalidProgram,
                             "value %zu: %zu sizes but %u dim_order entries", value_index, dim,
                             dim_order->size());
  TensorFacts facts;
  facts.dtype = static_cast<DType>(st);
  facts.dim = dim;
  bool seen[kTensorDimensionLimit] = {};
  uint64_t numel = 1;
  uint64_t stride_span = 1;  // product of max(size, 1): the largest stride the tensor computes
  for (size_t i = 0; i < dim; ++i) {
    const int32_t s = sizes->Get(static_cast<flatbuffers::uoffset_t>(i));
    PTEC_CHECK_OR_RETURN_ERROR(s >= 0, InvalidProgram, "value %zu: negative size %d at dim %zu",
                               value_index, s, i);
    const uint8_t d = dim_order->Get(static_cast<flatbuffers::uoffset_t>(i));
    PTEC_CHECK_OR_RETURN_ERROR(d < dim && !seen[d], InvalidProgram,
                               "value %zu: dim_order is not a permutation of [0, %zu)", value_index,
                               dim);
    seen[d] = true;
    numel *= static_cast<uint64_t>(s);
    stride_span *= static_cast<uint64_t>(s == 0 ? 1 : s);
    PTEC_CHECK_OR_RETURN_ERROR(stride_span <= INT32_MAX, NotSupported,
                               "value %zu: tensor of more than 2^31 elements is not supported",
                               value_index);
  }
  facts.numel = static_cast<size_t>(numel);
  facts.nbytes = facts.numel * element_size(facts.dtype);  // < 2^31 * 8: no overflow
  switch (tensor->shape_dynamism()) {
    case fb::TensorShapeDynamism::STATIC: facts.dynamism = ShapeDynamism::Static; break;
    case fb::TensorShapeDynamism::DYNAMIC_BOUND:
      facts.dynamism = ShapeDynamism::DynamicBound;
      break;
    case fb::TensorShapeDynamism::DYNAMIC_UNBOUND:
      PTEC_LOG(Error, "value %zu: DYNAMIC_UNBOUND tensors are not supported", value_index);
      return Error::NotSupported;
    default:
      PTEC_LOG(Error, "value %zu: invalid shape_dynamism %d", value_index,
               static_cast<int>(tensor->shape_dynamism()));
      return Error::InvalidProgram;
  }
  if (tensor->extra_tensor_info() != nullptr) {
    const auto location = tensor->extra_tensor_info()->location();
    PTEC_CHECK_OR_RETURN_ERROR(
        location == fb::TensorDataLocation::SEGMENT || location == fb::TensorDataLocation::EXTERNAL,
        InvalidProgram, "value %zu: invalid tensor data location %d", value_index,
        static_cast<int>(location));
  }
  return facts;
}

Result<Tensor*> parse_tensor(const Program& program, const MemoryManager& memory_manager,
                             const fb::Tensor* tensor, size_t value_index,
                             const NamedDataMap* external_data, FreeableBuffer* external_slot) {
  PTEC_TRY_ASSIGN(const TensorFacts facts, validate_tensor(tensor, value_index));
  MemoryAllocator* allocator = memory_manager.method_allocator;
  auto* sizes = allocator->allocate_list<SizesType>(facts.dim);
  auto* dim_order = allocator->allocate_list<DimOrderType>(facts.dim);
  auto* strides = allocator->allocate_list<StridesType>(facts.dim);
  void* storage = allocator->allocate(sizeof(Tensor), alignof(Tensor));
  PTEC_CHECK_OR_RETURN_ERROR(
      sizes != nullptr && dim_order != nullptr && strides != nullptr && storage != nullptr,
      MemoryAllocationFailed, "value %zu: method allocator exhausted", value_index);
  for (size_t i = 0; i < facts.dim; ++i) {
    sizes[i] = tensor->sizes()->Get(static_cast<flatbuffers::uoffset_t>(i));
    dim_order[i] = tensor->dim_order()->Get(static_cast<flatbuffers::uoffset_t>(i));
  }

  // The five cases of FORMAT.md §2 "How the runtime picks a tensor's data pointer".
  const fb::AllocationDetails* allocation = tensor->allocation_info();
  const uint32_t data_buffer_idx = tensor->data_buffer_idx();
  const bool external = tensor->extra_tensor_info() != nullptr &&
                        tensor->extra_tensor_info()->location() == fb::TensorDataLocation::EXTERNAL;
  void* planned = nullptr;
  if (allocation != nullptr) {
    PTEC_CHECK_OR_RETURN_ERROR(memory_manager.planned_memory != nullptr, InvalidArgument,
                               "value %zu: tensor is memory planned but the MemoryManager has no "
                               "planned memory",
                               value_index);
    const uint64_t offset = static_cast<uint64_t>(allocation->memory_offset_low()) |
                            static_cast<uint64_t>(allocation->memory_offset_high()) << 32;
    Result<void*> address = memory_manager.planned_memory->get_offset_address(
        allocation->memory_id(), offset, facts.nbytes);
    if (!address.ok()) {
      PTEC_LOG(Error, "value %zu: cannot place the tensor in planned memory", value_index);
      return address.error();
    }
    planned = address.get();
  }
  void* data = nullptr;
  if (external) {
    PTEC_TRY_ASSIGN(data, external_data_ptr(tensor, facts, value_index, memory_manager,
                                            external_data, external_slot, planned));
  } else if (data_buffer_idx > 0 && allocation == nullptr) {
    PTEC_TRY_ASSIGN(const void* constant, program.get_constant_data(data_buffer_idx, facts.nbytes));
    data = const_cast<void*>(constant);  // kernels never write their inputs
  } else if (data_buffer_idx > 0) {
    PTEC_TRY(program.load_mutable_data_into(data_buffer_idx, planned, facts.nbytes));
    data = planned;
  } else {
    data = planned;  // null when not planned: provided at run time
  }
  PTEC_CHECK_OR_RETURN_ERROR(
      facts.nbytes == 0 || data == nullptr || is_aligned(data, element_size(facts.dtype)),
      InvalidProgram, "value %zu: tensor data at %p is not aligned to its %zu-byte elements",
      value_index, data, element_size(facts.dtype));
  return new (storage)
      Tensor(facts.dtype, facts.dim, sizes, dim_order, strides, data, facts.dynamism);
}

}  // namespace ptec::runtime::internal
