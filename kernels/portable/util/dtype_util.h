#pragma once

// Dtype dispatch, ATen type promotion and element conversion, shared by every kernel.
//
// Dispatch: `dispatch_<set>(dtype, [&](auto tag) { using T = decltype(tag); ... })` calls the
// lambda with a value of the C++ type for `dtype` and returns false when `dtype` is not in the
// set. Sets: float (Float, Double), int (Byte, Char, Short, Int, Long), real (int + float),
// real_bool (real + Bool). Half and BFloat16 are not supported by the portable kernels.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype.h"
#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"

namespace ptec::kernels {

/// The DType of C++ type T.
template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return DType::Bool;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::Byte;
  if constexpr (std::is_same_v<T, int8_t>) return DType::Char;
  if constexpr (std::is_same_v<T, int16_t>) return DType::Short;
  if constexpr (std::is_same_v<T, int32_t>) return DType::Int;
  if constexpr (std::is_same_v<T, int64_t>) return DType::Long;
  if constexpr (std::is_same_v<T, float>) return DType::Float;
  if constexpr (std::is_same_v<T, double>) return DType::Double;
}

template <typename F>
bool dispatch_float(DType t, F&& f) {
  switch (t) {
    case DType::Float: f(float{}); return true;
    case DType::Double: f(double{}); return true;
    default: return false;
  }
}

template <typename F>
bool dispatch_int(DType t, F&& f) {
  switch (t) {
    case DType::Byte: f(uint8_t{}); return true;
    case DType::Char: f(int8_t{}); return true;
    case DType::Short: f(int16_t{}); return true;
    case DType::Int: f(int32_t{}); return true;
    case DType::Long: f(int64_t{}); return true;
    default: return false;
  }
}

template <typename F>
bool dispatch_real(DType t, F&& f) {
  return dispatch_float(t, f) || dispatch_int(t, f);
}

template <typename F>
bool dispatch_real_bool(DType t, F&& f) {
  if (t == DType::Bool) {
    f(bool{});
    return true;
  }
  return dispatch_real(t, f);
}

/// True for the dtypes the portable kernels compute in (real_bool).
bool is_supported_dtype(DType t);

/// ATen's promoteTypes over Bool, Byte, Char, Short, Int, Long, Float, Double.
DType promote_types(DType a, DType b);

/// ATen's canCast: a floating type does not cast to an integral one, a non-bool not to Bool.
bool can_cast(DType from, DType to);

/// ATen's result_type for two tensors: a 0-dim tensor only promotes a dimensioned one across
/// categories (bool < integral < floating).
DType result_type(const runtime::Tensor& a, const runtime::Tensor& b);
/// result_type for a tensor and a (wrapped-number) Scalar: an int Scalar is Long, a double one
/// is Float, and it only matters across categories.
DType result_type(const runtime::Tensor& a, const runtime::Scalar& s);
/// result_type of a dtype (a dimensioned tensor) and a Scalar.
DType result_type(DType a, const runtime::Scalar& s);

/// The Scalar as a value of T (bool: nonzero; integral from a double: truncation).
template <typename T>
T scalar_to(const runtime::Scalar& s) {
  if constexpr (std::is_same_v<T, bool>) {
    return s.to_bool();
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(s.to_double());
  } else {
    return s.is_floating_point() ? static_cast<T>(s.to_double()) : static_cast<T>(s.to_int());
  }
}

/// Converts between element types as ATen's static_cast_with_inter_type does (to bool: != 0).
template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From{0};
  } else {
    return static_cast<To>(v);
  }
}

/// Reads element i of a buffer of some dtype as CT.
template <typename CT>
using LoadFn = CT (*)(const void* data, int64_t i);
/// Writes a CT value as element i of a buffer of some dtype.
template <typename CT>
using StoreFn = void (*)(void* data, int64_t i, CT v);

template <typename CT, typename S>
CT load_as(const void* data, int64_t i) {
  return convert<CT>(static_cast<const S*>(data)[i]);
}
template <typename CT, typename D>
void store_as(void* data, int64_t i, CT v) {
  static_cast<D*>(data)[i] = convert<D>(v);
}

/// Loader for dtype `t` into CT; nullptr when `t` is unsupported.
template <typename CT>
LoadFn<CT> get_load_fn(DType t) {
  LoadFn<CT> fn = nullptr;
  dispatch_real_bool(t, [&](auto tag) { fn = &load_as<CT, decltype(tag)>; });
  return fn;
}
/// Storer from CT into dtype `t`; nullptr when `t` is unsupported.
template <typename CT>
StoreFn<CT> get_store_fn(DType t) {
  StoreFn<CT> fn = nullptr;
  dispatch_real_bool(t, [&](auto tag) { fn = &store_as<CT, decltype(tag)>; });
  return fn;
}

/// The accumulation type ATen uses on CPU for sums: double for floating, int64 for integral.
template <typename T>
using acc_t = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

/// Lowest value of T (-inf for floating types), the identity of max.
template <typename T>
constexpr T lowest_value() {
  if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::lowest();
}
/// Highest value of T (+inf for floating types), the identity of min.
template <typename T>
constexpr T highest_value() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::max();
}

/// NaN test that compiles for every element type.
template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

}  // namespace ptec::kernels
