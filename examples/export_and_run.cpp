// Exports a program built in C++ to a .pte and runs it with ptec's runtime: the C++ counterpart
// of `ptec export` + `ptec run`. Usage: example_export_and_run OUT.pte
#include <cstdio>

#include "emit/export_pte.h"
#include "frontends/builder/graph_builder.h"
#include "kernels/portable/register.h"
#include "program/to_edge.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"

using namespace ptec;

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  // y = relu(x * 2 - 1) for x: f32[2, 3]
  builder::GraphBuilder b("scale_shift");
  builder::Value x = b.input("x", DType::Float, {2, 3});
  builder::Value y = b.call("aten::sub.Scalar", {b.call("aten::mul.Scalar", {x, 2.0}), 1.0});
  b.output({b.relu(y)});
  ir::ExportedProgram edge = program::to_edge(b.build());              // decompose, fold, verify
  emit::export_pte({{"forward", edge}}, emit::EmitConfig{}, argv[1]);  // atomic write

  if (kernels::register_portable_kernels() != Error::Ok) return 1;
  runtime::Module module(argv[1]);
  runtime::OwnedTensor input =
      runtime::OwnedTensor::from<float>(DType::Float, {2, 3}, {0.f, 0.25f, 0.5f, 1.f, 2.f, 3.f});
  Result<std::vector<runtime::EValue>> outputs = module.forward({input.evalue()});
  if (!outputs.ok()) return 1;
  const float* out = (*outputs)[0].to_tensor().const_data_ptr<float>();
  for (int i = 0; i < 6; ++i) std::printf("%g ", out[i]);  // 0 0 0 1 3 5
  std::printf("\n");
  return out[5] == 5.f ? 0 : 1;
}
