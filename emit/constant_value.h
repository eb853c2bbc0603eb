#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "ir/tensor_spec.h"

namespace ptec::emit {

/// The value a constant method returns (exir's "prim getters", e.g. `get_vocab_size` → 512):
/// an int, a double, a bool, a string, a tensor, or a list of those. A list is flattened into
/// several outputs, like exir does with a Python tuple.
struct ConstantValue {
  using List = std::vector<ConstantValue>;
  std::variant<int64_t, double, bool, std::string, ir::TensorData, List> value;

  ConstantValue() : value(int64_t{0}) {}
  /* implicit */ ConstantValue(int64_t v) : value(v) {}
  /* implicit */ ConstantValue(int v) : value(int64_t{v}) {}
  /* implicit */ ConstantValue(double v) : value(v) {}
  /* implicit */ ConstantValue(bool v) : value(v) {}
  /* implicit */ ConstantValue(std::string v) : value(std::move(v)) {}
  /* implicit */ ConstantValue(const char* v) : value(std::string(v)) {}
  /* implicit */ ConstantValue(ir::TensorData v) : value(std::move(v)) {}
  /* implicit */ ConstantValue(List v) : value(std::move(v)) {}
};

}  // namespace ptec::emit
