#pragma once

// Turns an unboxed kernel such as
//   Tensor& add_out(KernelRuntimeContext&, const Tensor& self, const Tensor& other,
//                   const Scalar& alpha, Tensor& out);
// into an OpFunction: PTEC_KERNEL("aten::add.out", add_out). The boxed function checks that the
// stack has one value per parameter plus the return slot, and that each EValue has the type the
// parameter needs; a mismatch fails the context with InvalidProgram (never a crash).

#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/log.h"
#include "runtime/core/evalue.h"
#include "runtime/kernel/operator_registry.h"

namespace ptec::runtime {
namespace internal {

template <typename T>
struct Unbox;  // Unbox<T>::ok(const EValue&) and Unbox<T>::get(EValue&) for each parameter type.

template <>
struct Unbox<Tensor> {
  static bool ok(const EValue& v) { return v.is_tensor(); }
  static Tensor& get(EValue& v) { return v.to_tensor(); }
};
template <>
struct Unbox<std::optional<Tensor>> {
  static bool ok(const EValue& v) { return v.is_none() || v.is_tensor(); }
  static std::optional<Tensor> get(EValue& v) {
    return v.is_none() ? std::nullopt : std::optional<Tensor>(v.to_tensor());
  }
};
template <>
struct Unbox<int64_t> {
  static bool ok(const EValue& v) { return v.is_int(); }
  static int64_t get(EValue& v) { return v.to_int(); }
};
template <>
struct Unbox<double> {
  static bool ok(const EValue& v) { return v.is_double() || v.is_int(); }
  static double get(EValue& v) {
    return v.is_double() ? v.to_double() : static_cast<double>(v.to_int());
  }
};
template <>
struct Unbox<bool> {
  static bool ok(const EValue& v) { return v.is_bool(); }
  static bool get(EValue& v) { return v.to_bool(); }
};
template <>
struct Unbox<Scalar> {
  static bool ok(const EValue& v) { return v.is_scalar(); }
  static Scalar get(EValue& v) { return v.to_scalar(); }
};
template <>
struct Unbox<DType> {
  static bool ok(const EValue& v) { return v.is_int() && is_valid_dtype(v.to_int()); }
  static DType get(EValue& v) { return static_cast<DType>(v.to_int()); }
};
template <>
struct Unbox<std::string_view> {
  static bool ok(const EValue& v) { return v.is_string(); }
  static std::string_view get(EValue& v) { return v.to_string(); }
};
template <>
struct Unbox<Span<const int64_t>> {
  static bool ok(const EValue& v) { return v.is_int_list(); }
  static Span<const int64_t> get(EValue& v) { return v.to_int_list(); }
};
template <>
struct Unbox<Span<const double>> {
  static bool ok(const EValue& v) { return v.is_double_list(); }
  static Span<const double> get(EValue& v) { return v.to_double_list(); }
};
template <>
struct Unbox<Span<const bool>> {
  static bool ok(const EValue& v) { return v.is_bool_list(); }
  static Span<const bool> get(EValue& v) { return v.to_bool_list(); }
};
template <>
struct Unbox<Span<const Tensor>> {
  static bool ok(const EValue& v) { return v.is_tensor_list(); }
  static Span<const Tensor> get(EValue& v) { return v.to_tensor_list(); }
};
template <>
struct Unbox<Span<const std::optional<Tensor>>> {
  static bool ok(const EValue& v) { return v.is_optional_tensor_list(); }
  static Span<const std::optional<Tensor>> get(EValue& v) { return v.to_optional_tensor_list(); }
};
// Optional non-tensor arguments: None or the value.
template <typename T>
struct Unbox<std::optional<T>> {
  static bool ok(const EValue& v) { return v.is_none() || Unbox<T>::ok(v); }
  static std::optional<T> get(EValue& v) {
    return v.is_none() ? std::nullopt : std::optional<T>(Unbox<T>::get(v));
  }
};

template <typename T>
using Bare = std::remove_cvref_t<T>;

template <typename Sig>
struct KernelTraits;
template <typename R, typename... Args>
struct KernelTraits<R (*)(KernelRuntimeContext&, Args...)> {
  static constexpr size_t kNumArgs = sizeof...(Args);
  using ArgTuple = std::tuple<Args...>;
};

template <auto Fn, size_t... I>
void call_unboxed(KernelRuntimeContext& ctx, Span<EValue*> stack, std::index_sequence<I...>) {
  using Traits = KernelTraits<decltype(Fn)>;
  const bool types_ok =
      (Unbox<Bare<std::tuple_element_t<I, typename Traits::ArgTuple>>>::ok(*stack[I]) && ...);
  if (!types_ok) {
    size_t bad = 0;
    ((Unbox<Bare<std::tuple_element_t<I, typename Traits::ArgTuple>>>::ok(*stack[I])
          ? void()
          : void(bad = bad == 0 ? I + 1 : bad)),
     ...);
    PTEC_LOG(Error, "kernel argument %zu has unexpected type %s", bad - 1,
             EValue::tag_name(stack[bad - 1]->tag()));
    ctx.fail(Error::InvalidProgram);
    return;
  }
  Fn(ctx, Unbox<Bare<std::tuple_element_t<I, typename Traits::ArgTuple>>>::get(*stack[I])...);
}

template <auto Fn>
void boxed(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  using Traits = KernelTraits<decltype(Fn)>;
  // +1 for the return value (FORMAT.md §3).
  if (stack.size() != Traits::kNumArgs + 1) {
    PTEC_LOG(Error, "kernel expected %zu arguments (return slot included), received %zu",
             Traits::kNumArgs + 1, stack.size());
    ctx.fail(Error::InvalidProgram);
    return;
  }
  for (EValue* v : stack) {
    if (v == nullptr) {
      ctx.fail(Error::InvalidProgram);
      return;
    }
  }
  call_unboxed<Fn>(ctx, stack, std::make_index_sequence<Traits::kNumArgs>{});
}

}  // namespace internal
}  // namespace ptec::runtime

/// A registry entry for an unboxed kernel function.
#define PTEC_KERNEL(name, fn) \
  ::ptec::runtime::Kernel { name, &::ptec::runtime::internal::boxed<&fn> }
