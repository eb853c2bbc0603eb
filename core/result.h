#pragma once

#include <new>
#include <type_traits>
#include <utility>

#include "core/error.h"
#include "core/log.h"

namespace ptec {

/// Either a value of type T or an Error (never Error::Ok). No heap, no exceptions.
/// Accessing the value of an errored Result is a broken invariant and aborts.
template <typename T>
class [[nodiscard]] Result final {
  static_assert(!std::is_reference_v<T>, "Result<T&> is not supported; use Result<T*>");

 public:
  /* implicit */ Result(const T& value) : has_value_(true) { new (&value_) T(value); }
  /* implicit */ Result(T&& value) : has_value_(true) { new (&value_) T(std::move(value)); }
  /// `error` must not be Error::Ok; an Ok error is turned into Error::Internal.
  /* implicit */ Result(Error error)
      : error_(error == Error::Ok ? Error::Internal : error), has_value_(false) {}

  Result(const Result& other) : has_value_(other.has_value_) {
    if (has_value_) {
      new (&value_) T(other.value_);
    } else {
      error_ = other.error_;
    }
  }
  Result(Result&& other) noexcept : has_value_(other.has_value_) {
    if (has_value_) {
      new (&value_) T(std::move(other.value_));
    } else {
      error_ = other.error_;
    }
  }
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;
  ~Result() {
    if (has_value_) value_.~T();
  }

  bool ok() const { return has_value_; }
  Error error() const { return has_value_ ? Error::Ok : error_; }

  T& get() {
    check_ok();
    return value_;
  }
  const T& get() const {
    check_ok();
    return value_;
  }
  T& operator*() { return get(); }
  const T& operator*() const { return get(); }
  T* operator->() { return &get(); }
  const T* operator->() const { return &get(); }

 private:
  void check_ok() const {
    if (!has_value_) ptec::internal::abort_with("Result accessed while holding an error");
  }

  union {
    T value_;
    Error error_;
  };
  bool has_value_;
};

}  // namespace ptec

#define PTEC_INTERNAL_CONCAT2(a, b) a##b
#define PTEC_INTERNAL_CONCAT(a, b) PTEC_INTERNAL_CONCAT2(a, b)

/// If `cond` is false, logs the printf-style message at Error level and returns `error`.
#define PTEC_CHECK_OR_RETURN_ERROR(cond, error, ...) \
  do {                                               \
    if (!(cond)) {                                   \
      PTEC_LOG(Error, __VA_ARGS__);                  \
      return ::ptec::Error::error;                   \
    }                                                \
  } while (0)

/// Evaluates an expression yielding an Error and returns it from the enclosing function unless Ok.
#define PTEC_TRY(expr)                           \
  do {                                           \
    const ::ptec::Error ptec_try_err__ = (expr); \
    if (ptec_try_err__ != ::ptec::Error::Ok) {   \
      return ptec_try_err__;                     \
    }                                            \
  } while (0)

/// Evaluates an expression yielding Result<T>; on error returns the error, otherwise moves the
/// value into `lhs`, which may be a declaration: PTEC_TRY_ASSIGN(auto x, make_x());
#define PTEC_TRY_ASSIGN(lhs, expr) \
  PTEC_INTERNAL_TRY_ASSIGN(lhs, expr, PTEC_INTERNAL_CONCAT(ptec_try_result__, __LINE__))
#define PTEC_INTERNAL_TRY_ASSIGN(lhs, expr, tmp) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) {                               \
    return tmp.error();                          \
  }                                              \
  lhs = std::move(tmp.get())
