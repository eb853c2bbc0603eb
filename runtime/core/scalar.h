#pragma once

#include <cstdint>

namespace ptec::runtime {

/// An ATen `Scalar` argument: an integer, a double or a bool.
class Scalar final {
 public:
  enum class Tag : uint8_t { Int, Double, Bool };

  Scalar() : Scalar(int64_t{0}) {}
  /* implicit */ Scalar(int64_t v) : tag_(Tag::Int) { v_.as_int = v; }
  /* implicit */ Scalar(double v) : tag_(Tag::Double) { v_.as_double = v; }
  /* implicit */ Scalar(bool v) : tag_(Tag::Bool) { v_.as_bool = v; }

  Tag tag() const { return tag_; }
  bool is_integral() const { return tag_ == Tag::Int; }
  bool is_floating_point() const { return tag_ == Tag::Double; }
  bool is_boolean() const { return tag_ == Tag::Bool; }

  int64_t to_int() const {
    return tag_ == Tag::Int
               ? v_.as_int
               : (tag_ == Tag::Bool ? int64_t{v_.as_bool} : static_cast<int64_t>(v_.as_double));
  }
  double to_double() const {
    return tag_ == Tag::Double
               ? v_.as_double
               : (tag_ == Tag::Int ? static_cast<double>(v_.as_int) : (v_.as_bool ? 1.0 : 0.0));
  }
  bool to_bool() const { return tag_ == Tag::Bool ? v_.as_bool : to_double() != 0.0; }

 private:
  Tag tag_;
  union {
    int64_t as_int;
    double as_double;
    bool as_bool;
  } v_;
};

}  // namespace ptec::runtime
