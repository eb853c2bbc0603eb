#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/dtype.h"
#include "core/result.h"
#include "core/span.h"
#include "runtime/core/evalue.h"

namespace executorch_flatbuffer {
struct ExecutionPlan;
struct Tensor;
}  // namespace executorch_flatbuffer

namespace ptec::runtime {

/// Shape and type of an input or output tensor as the program declares it. The spans point into
/// the program's flatbuffer: the Program must outlive the TensorInfo.
class TensorInfo final {
 public:
  /// Upper bounds for dynamically shaped tensors.
  Span<const int32_t> sizes() const { return sizes_; }
  Span<const uint8_t> dim_order() const { return dim_order_; }
  DType scalar_type() const { return dtype_; }
  /// Bytes of the tensor at its (upper-bound) sizes.
  size_t nbytes() const { return nbytes_; }
  /// True when the tensor lives in planned memory (set_input copies into it).
  bool is_memory_planned() const { return is_memory_planned_; }
  /// 0 static, 1 dynamic with an upper bound.
  bool is_dynamic() const { return is_dynamic_; }
  /// ExtraTensorInfo.fully_qualified_name, or empty.
  std::string_view name() const { return name_; }

 private:
  friend class MethodMeta;
  Span<const int32_t> sizes_;
  Span<const uint8_t> dim_order_;
  DType dtype_ = DType::Float;
  size_t nbytes_ = 0;
  bool is_memory_planned_ = false;
  bool is_dynamic_ = false;
  std::string_view name_;
};

/// Facts about a method that need no loading: its inputs, outputs and planned memory. Obtained
/// from Program::method_meta(); valid while the Program lives.
class MethodMeta final {
 public:
  const char* name() const;

  size_t num_inputs() const;
  /// Errors: InvalidArgument for an index out of range; InvalidProgram for a malformed value.
  Result<EValue::Tag> input_tag(size_t index) const;
  /// Errors as input_tag(), plus InvalidArgument when the input is not a tensor.
  Result<TensorInfo> input_tensor_meta(size_t index) const;

  size_t num_outputs() const;
  Result<EValue::Tag> output_tag(size_t index) const;
  Result<TensorInfo> output_tensor_meta(size_t index) const;

  /// len(non_const_buffer_sizes) - 1: entry 0 is reserved.
  size_t num_memory_planned_buffers() const;
  /// non_const_buffer_sizes[index + 1], the size of the buffer for memory_id index + 1.
  /// Errors: InvalidArgument (index), InvalidProgram (negative size).
  Result<int64_t> memory_planned_buffer_size(size_t index) const;

  /// Instructions over all chains.
  size_t num_instructions() const;
  size_t num_backends() const;
  /// BackendDelegate.id of delegate `index`.
  Result<const char*> get_backend_name(size_t index) const;
  bool uses_backend(std::string_view backend_name) const;

  /// Validates the plan's required fields (inputs, outputs, non_const_buffer_sizes).
  /// Used by Program; errors: InvalidProgram.
  static Result<MethodMeta> create(const executorch_flatbuffer::ExecutionPlan* plan,
                                   size_t num_values);

 private:
  friend class Method;
  MethodMeta(const executorch_flatbuffer::ExecutionPlan* plan, size_t num_values)
      : plan_(plan), num_values_(num_values) {}
  Result<EValue::Tag> value_tag(int32_t value_index) const;
  Result<TensorInfo> tensor_info(int32_t value_index) const;

  const executorch_flatbuffer::ExecutionPlan* plan_;
  size_t num_values_;
};

}  // namespace ptec::runtime
