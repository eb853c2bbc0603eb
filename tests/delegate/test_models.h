#pragma once

// Small programs for the export API tests, built with the C++ GraphBuilder.

#include <cstring>
#include <string>
#include <vector>

#include "frontends/builder/graph_builder.h"
#include "ir/exported_program.h"

namespace ptec::test {

inline ir::TensorData float_tensor(const std::vector<int64_t>& sizes,
                                   const std::vector<float>& values) {
  ir::TensorData t;
  t.spec = ir::TensorSpec(DType::Float, sizes);
  t.data = ir::Buffer::copy_of(values.data(), values.size() * sizeof(float));
  return t;
}

/// x[2,3] → a = x * w → b = relu(a) → c = b * b → d = c + x. Two mul nodes that are not
/// connected to each other (relu between): an OpSetPartitioner on aten::mul.Tensor makes two
/// partitions. `w` is parameter "w" (values 0.5, -1, 2, 1, -0.5, 3 unless `scale` changes them).
inline ir::ExportedProgram two_mul_program(float scale = 1.0f) {
  builder::GraphBuilder b("two_mul");
  builder::Value x = b.input("x", DType::Float, {2, 3});
  std::vector<float> w = {0.5f, -1.0f, 2.0f, 1.0f, -0.5f, 3.0f};
  for (float& v : w) v *= scale;
  builder::Value wv = b.parameter("w", float_tensor({2, 3}, w));
  builder::Value a = b.call("aten::mul.Tensor", {x, wv}, {}, "a");
  builder::Value r = b.call("aten::relu", {a}, {}, "r");
  builder::Value c = b.call("aten::mul.Tensor", {r, r}, {}, "c");
  builder::Value d = b.call("aten::add.Tensor", {c, x}, {}, "d");
  b.output({d});
  return b.build();
}

/// Reference of two_mul_program.
inline std::vector<float> two_mul_reference(const std::vector<float>& x, float scale = 1.0f) {
  const float w[6] = {0.5f, -1.0f, 2.0f, 1.0f, -0.5f, 3.0f};
  std::vector<float> out(6);
  for (int i = 0; i < 6; ++i) {
    const float a = x[i] * w[i] * scale;
    const float r = a > 0 ? a : 0;
    out[i] = r * r + x[i];
  }
  return out;
}

}  // namespace ptec::test
