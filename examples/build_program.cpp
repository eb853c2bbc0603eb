// Builds a small CNN (conv -> relu -> mean -> linear) with the C++ GraphBuilder, prints it in
// ptec's text format and verifies it.
#include <cstdio>
#include <vector>

#include "frontends/builder/graph_builder.h"
#include "ir/printer.h"
#include "ir/verifier.h"

using namespace ptec;
using ptec::builder::Value;

// A weight of `sizes` filled with 0.01 (a real model would map its weights from a file).
ir::TensorData weight(std::vector<int64_t> sizes) {
  ir::TensorSpec spec(DType::Float, sizes);
  std::vector<float> values(static_cast<size_t>(spec.numel_upper_bound()), 0.01f);
  return {spec, ir::Buffer::copy_of(values.data(), spec.nbytes_upper_bound())};
}

int main() {
  builder::GraphBuilder b("tiny_cnn");
  ir::SymInt batch = b.symbol("batch", 1, 8);
  Value x = b.input("x", DType::Float, {batch, 3, 32, 32});
  Value conv_w = b.parameter("conv.weight", weight({8, 3, 3, 3}));
  Value conv_b = b.parameter("conv.bias", weight({8}));
  Value fc_w = b.parameter("fc.weight", weight({10, 8}));
  Value fc_b = b.parameter("fc.bias", weight({10}));
  Value conv = b.conv2d(x, conv_w, conv_b, /*stride=*/{1, 1}, /*padding=*/{1, 1});
  Value pooled = b.mean(b.relu(conv), /*dims=*/{2, 3});  // [batch, 8]
  Value logits = b.call("aten::addmm", {fc_b, pooled, b.call("aten::t_copy", {fc_w})});
  b.output({logits});
  ir::ExportedProgram program = b.build();  // verified; throws ptec::Exception on a bad graph
  std::fputs(ir::print(program).c_str(), stdout);
  return ir::verify(program).empty() ? 0 : 1;
}
