#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/span.h"
#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"

namespace ptec::runtime {

class EValue;

/// A list whose elements live in other EValues (schema IntList / TensorList / OptionalTensorList
/// hold value indices). `get()` unboxes into `unboxed`, so the list reflects the current values
/// (for example a symbolic size written by an earlier instruction). Both arrays are owned by the
/// method allocator and must outlive the list.
template <typename T>
class BoxedEvalueList final {
 public:
  BoxedEvalueList() = default;
  BoxedEvalueList(EValue** wrapped, T* unboxed, size_t size)
      : wrapped_(wrapped), unboxed_(unboxed), size_(size) {}
  Span<const T> get() const;
  size_t size() const { return size_; }

 private:
  EValue** wrapped_ = nullptr;
  T* unboxed_ = nullptr;
  size_t size_ = 0;
};

template <>
Span<const int64_t> BoxedEvalueList<int64_t>::get() const;
template <>
Span<const Tensor> BoxedEvalueList<Tensor>::get() const;
template <>
Span<const std::optional<Tensor>> BoxedEvalueList<std::optional<Tensor>>::get() const;

/// An instruction argument: None, Int, Double, Bool, String, Tensor, or one of the list kinds.
/// Values are non-owning: tensors, strings and list storage live in the method allocator or
/// the program's flatbuffer, both of which outlive the EValue.
class EValue final {
 public:
  enum class Tag : uint8_t {
    None = 0,
    Int,
    Double,
    Bool,
    String,
    Tensor,
    IntList,
    DoubleList,
    BoolList,
    TensorList,
    OptionalTensorList,
  };

  EValue() : tag_(Tag::None) { payload_.as_int = 0; }
  explicit EValue(int64_t v) : tag_(Tag::Int) { payload_.as_int = v; }
  explicit EValue(double v) : tag_(Tag::Double) { payload_.as_double = v; }
  explicit EValue(bool v) : tag_(Tag::Bool) { payload_.as_bool = v; }
  explicit EValue(std::string_view s) : tag_(Tag::String) {
    payload_.as_string = {s.data(), s.size()};
  }
  explicit EValue(Tensor* t) : tag_(Tag::Tensor) { payload_.as_tensor = t; }
  explicit EValue(BoxedEvalueList<int64_t> l) : tag_(Tag::IntList) { payload_.as_int_list = l; }
  explicit EValue(Span<const double> l) : tag_(Tag::DoubleList) { payload_.as_double_list = l; }
  explicit EValue(Span<const bool> l) : tag_(Tag::BoolList) { payload_.as_bool_list = l; }
  explicit EValue(BoxedEvalueList<Tensor> l) : tag_(Tag::TensorList) {
    payload_.as_tensor_list = l;
  }
  explicit EValue(BoxedEvalueList<std::optional<Tensor>> l) : tag_(Tag::OptionalTensorList) {
    payload_.as_opt_tensor_list = l;
  }

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::None; }
  bool is_int() const { return tag_ == Tag::Int; }
  bool is_double() const { return tag_ == Tag::Double; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  bool is_string() const { return tag_ == Tag::String; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_scalar() const { return is_int() || is_double() || is_bool(); }
  bool is_int_list() const { return tag_ == Tag::IntList; }
  bool is_double_list() const { return tag_ == Tag::DoubleList; }
  bool is_bool_list() const { return tag_ == Tag::BoolList; }
  bool is_tensor_list() const { return tag_ == Tag::TensorList; }
  bool is_optional_tensor_list() const { return tag_ == Tag::OptionalTensorList; }

  // Accessors: the caller checks the tag first (the boxing layer does).
  int64_t to_int() const { return payload_.as_int; }
  double to_double() const { return payload_.as_double; }
  bool to_bool() const { return payload_.as_bool; }
  std::string_view to_string() const { return {payload_.as_string.data, payload_.as_string.size}; }
  Tensor& to_tensor() const { return *payload_.as_tensor; }
  Tensor* tensor_ptr() const { return is_tensor() ? payload_.as_tensor : nullptr; }
  Scalar to_scalar() const {
    return is_int() ? Scalar(to_int()) : (is_double() ? Scalar(to_double()) : Scalar(to_bool()));
  }
  Span<const int64_t> to_int_list() const { return payload_.as_int_list.get(); }
  Span<const double> to_double_list() const { return payload_.as_double_list; }
  Span<const bool> to_bool_list() const { return payload_.as_bool_list; }
  Span<const Tensor> to_tensor_list() const { return payload_.as_tensor_list.get(); }
  Span<const std::optional<Tensor>> to_optional_tensor_list() const {
    return payload_.as_opt_tensor_list.get();
  }

  /// Name of the tag, for error messages.
  static const char* tag_name(Tag tag);

 private:
  struct StringRef {
    const char* data;
    size_t size;
  };
  Tag tag_;
  union Payload {
    Payload() : as_int(0) {}
    int64_t as_int;
    double as_double;
    bool as_bool;
    StringRef as_string;
    Tensor* as_tensor;
    BoxedEvalueList<int64_t> as_int_list;
    Span<const double> as_double_list;
    Span<const bool> as_bool_list;
    BoxedEvalueList<Tensor> as_tensor_list;
    BoxedEvalueList<std::optional<Tensor>> as_opt_tensor_list;
  } payload_;
};

template <>
inline Span<const int64_t> BoxedEvalueList<int64_t>::get() const {
  for (size_t i = 0; i < size_; ++i) unboxed_[i] = wrapped_[i]->to_int();
  return {unboxed_, size_};
}

template <>
inline Span<const Tensor> BoxedEvalueList<Tensor>::get() const {
  for (size_t i = 0; i < size_; ++i) unboxed_[i] = wrapped_[i]->to_tensor();
  return {unboxed_, size_};
}

template <>
inline Span<const std::optional<Tensor>> BoxedEvalueList<std::optional<Tensor>>::get() const {
  for (size_t i = 0; i < size_; ++i) {
    unboxed_[i] = (wrapped_[i] == nullptr || wrapped_[i]->is_none())
                      ? std::nullopt
                      : std::optional<Tensor>(wrapped_[i]->to_tensor());
  }
  return {unboxed_, size_};
}

}  // namespace ptec::runtime
