// HannWindow, HammingWindow, BlackmanWindow (opset 17): the window is computed at import time
// (its size must be known then) and becomes a constant of output_datatype. With N = size when
// periodic, size - 1 otherwise, and n in [0, size):
//   Hann:     sin(pi n / N)^2
//   Hamming:  25/46 - 21/46 cos(2 pi n / N)
//   Blackman: 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)

#include <cmath>
#include <numbers>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

void import_window(ImportContext& ctx, const NodeView& node) {
  const ConstTensor& size_tensor = ctx.require_constant(node, 0, "size");
  if (size_tensor.numel() != 1) {
    node.fail(Error::InvalidArgument, "size has {} values; a scalar is expected",
              size_tensor.numel());
  }
  const int64_t size = size_tensor.int_at(0);
  if (size < 0) node.fail(Error::InvalidArgument, "negative size {}", size);
  const DType dtype = dtype_from_onnx(static_cast<int32_t>(node.attr_int("output_datatype", 1)),
                                      node.where() + ": output_datatype");
  const bool periodic = node.attr_int("periodic", 1) != 0;
  const auto n_total = static_cast<double>(periodic ? size : size - 1);
  const std::string& op = node.op_type();
  constexpr double pi = std::numbers::pi;
  std::vector<double> w(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    const double a = pi * static_cast<double>(i) / n_total;  // NaN for size 1, not periodic
    double v = 0;
    if (op == "HannWindow") {
      v = std::sin(a) * std::sin(a);
    } else if (op == "HammingWindow") {
      constexpr double alpha = 25.0 / 46.0;
      v = alpha - (1 - alpha) * std::cos(2 * a);
    } else {
      v = 0.42 - 0.5 * std::cos(2 * a) + 0.08 * std::cos(4 * a);
    }
    w[static_cast<size_t>(i)] = v;
  }
  ctx.set_output(node, 0, ConstTensor::from_double(dtype, {size}, w));
}

}  // namespace

std::vector<OpEntry> window_ops() {
  return {
      {"HannWindow", 17, 17, import_window},
      {"HammingWindow", 17, 17, import_window},
      {"BlackmanWindow", 17, 17, import_window},
  };
}

}  // namespace ptec::onnx_import
