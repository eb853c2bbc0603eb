#pragma once

// Dtype dispatch, ATen type promotion and element conversion, shared by every kernel.
//
// Dispatch: `dispatch_<set>(dtype, [&](auto tag) { using T = decltype(tag); ... })` calls the
// lambda with a value of the C++ type for `dtype` and returns false when `dtype` is not in the
// set. Sets: float (Float, Double), int (Byte, Char, Short, Int, Long), real (int + float),
// real_bool (real + Bool), unsigned (UInt16, UInt32, UInt64: ATen's "barebones" unsigned types,
// which only kernels that opt in compute in), storage (real_bool + Half, BFloat16 and the
// barebones unsigned types: every dtype a buffer can be loaded from or stored to).
//
// Half and BFloat16 compute in Float (compute_dtype), as ExecuTorch's portable kernels and ATen's
// CPU kernels do: elements are loaded as float and rounded back when stored. A kernel that accepts
// them passes DTypeSupport flags to its prologue and dispatches on compute_dtype(common).

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype.h"
#include "runtime/core/bfloat16.h"
#include "runtime/core/half.h"
#include "runtime/core/scalar.h"
#include "runtime/core/tensor.h"

namespace ptec::kernels {

using runtime::BFloat16;
using runtime::Half;

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
  if constexpr (std::is_same_v<T, Half>) return DType::Half;
  if constexpr (std::is_same_v<T, BFloat16>) return DType::BFloat16;
  if constexpr (std::is_same_v<T, uint16_t>) return DType::UInt16;
  if constexpr (std::is_same_v<T, uint32_t>) return DType::UInt32;
  if constexpr (std::is_same_v<T, uint64_t>) return DType::UInt64;
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

template <typename F>
bool dispatch_unsigned(DType t, F&& f) {
  switch (t) {
    case DType::UInt16: f(uint16_t{}); return true;
    case DType::UInt32: f(uint32_t{}); return true;
    case DType::UInt64: f(uint64_t{}); return true;
    default: return false;
  }
}

template <typename F>
bool dispatch_storage(DType t, F&& f) {
  switch (t) {
    case DType::Half: f(Half{}); return true;
    case DType::BFloat16: f(BFloat16{}); return true;
    default: return dispatch_real_bool(t, f) || dispatch_unsigned(t, f);
  }
}

/// True for the dtypes every portable kernel computes in (real_bool).
bool is_supported_dtype(DType t);
/// UInt16, UInt32, UInt64 (ATen's isBarebonesUnsignedType).
bool is_barebones_unsigned(DType t);
/// Half or BFloat16.
bool is_reduced_float(DType t);
/// The dtype a computation whose result dtype is `t` runs in: Float for Half and BFloat16.
DType compute_dtype(DType t);

/// Dtypes beyond real_bool that a kernel accepts (flags for the prologues).
enum DTypeSupport : unsigned {
  kRealBool = 0,
  kReducedFloat = 1,       // Half, BFloat16 (computing in Float)
  kBarebonesUnsigned = 2,  // UInt16, UInt32, UInt64
};
/// True when a tensor of dtype `t` is accepted by a kernel with `support`.
bool is_accepted_dtype(DType t, unsigned support);

/// The result of promote_types when ATen defines none (a barebones unsigned type with a
/// non-floating other type): not a valid DType.
inline constexpr DType kNoPromotion = static_cast<DType>(-1);

/// ATen's promoteTypes over Bool, the integral types, Half, Float, Double and BFloat16
/// (Half with BFloat16 is Float). A barebones unsigned type promotes only with itself and with a
/// floating type (which wins); other pairs give kNoPromotion, as ATen raises.
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

/// True for Half and BFloat16 (C++ types).
template <typename T>
inline constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// Converts between element types as ATen's static_cast_with_inter_type does (to bool: != 0).
/// Half and BFloat16 convert through float (as c10 does).
template <typename To, typename From>
inline To convert(From v) {
  if constexpr (is_reduced_float_v<From> && !std::is_same_v<To, From>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{0};
  } else if constexpr (is_reduced_float_v<To> && !std::is_same_v<To, From>) {
    return To(static_cast<float>(v));
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

/// Loader for dtype `t` (any storage dtype) into CT; nullptr when `t` is unsupported.
template <typename CT>
LoadFn<CT> get_load_fn(DType t) {
  LoadFn<CT> fn = nullptr;
  dispatch_storage(t, [&](auto tag) { fn = &load_as<CT, decltype(tag)>; });
  return fn;
}
/// Storer from CT into dtype `t` (any storage dtype); nullptr when `t` is unsupported.
template <typename CT>
StoreFn<CT> get_store_fn(DType t) {
  StoreFn<CT> fn = nullptr;
  dispatch_storage(t, [&](auto tag) { fn = &store_as<CT, decltype(tag)>; });
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
