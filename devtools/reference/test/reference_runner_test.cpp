#include "devtools/reference/reference_runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frontends/builder/graph_builder.h"
#include "ir/exception.h"
#include "ir/op_schema.h"
#include "kernels/portable/register.h"
#include "passes/rewrite_utils.h"
#include "program/to_edge.h"
#include "runtime/kernel/operator_registry.h"

namespace ptec::devtools {
namespace {

using builder::Value;

ir::TensorData floats(const std::vector<int64_t>& sizes, const std::vector<float>& values) {
  return {ir::TensorSpec(DType::Float, sizes),
          ir::Buffer::copy_of(values.data(), values.size() * sizeof(float))};
}

std::vector<float> values_of(const ir::TensorData& t) {
  std::vector<float> out(t.data->size() / sizeof(float));
  std::memcpy(out.data(), t.data->data(), out.size() * sizeof(float));
  return out;
}

// aten::hardswish is not a core ATen op (the registry does not hold it): to_edge decomposes it
// into add / clamp / mul / div, each recording extra["from_node"].
const ir::OpSchema& hardswish_op() {
  static const ir::OpSchema op = [] {
    ir::OpSchema s = ir::parse_schema("aten::hardswish(Tensor self) -> Tensor");
    s.shape_fn = [](const ir::OpSchema&, const ir::ArgumentList& args) {
      return std::vector<ir::TensorSpec>{args[0].as_node()->spec()};
    };
    return s;
  }();
  return op;
}

// Inputs and weights of the test model, with values that exercise every op (negative and
// positive pre-activations).
constexpr int64_t kC = 2, kO = 3, kH = 4, kW = 4;

std::vector<float> ramp(size_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7) % 11) + offset;
  return v;
}

const std::vector<float>& input_values() {
  static const std::vector<float> v = ramp(kC * kH * kW, 0.3f, -1.4f);
  return v;
}
const std::vector<float>& weight_values() {
  static const std::vector<float> v = ramp(kO * kC * 3 * 3, 0.05f, -0.25f);
  return v;
}
const std::vector<float>& bias_values() {
  static const std::vector<float> v = {0.1f, -0.2f, 0.3f};
  return v;
}

// conv(3x3, pad 1) → relu → add(relu, conv) → max_pool2d_with_indices(2) → getitem 0 →
// hardswish.
ir::ExportedProgram model() {
  builder::GraphBuilder b("ref_cnn");
  Value x = b.input("x", DType::Float, {1, kC, kH, kW});
  Value w = b.parameter("conv.weight", floats({kO, kC, 3, 3}, weight_values()));
  Value bias = b.parameter("conv.bias", floats({kO}, bias_values()));
  Value conv = b.conv2d(x, w, bias, {1, 1}, {1, 1});
  Value relu = b.relu(conv);
  Value sum = b.add(relu, conv);
  std::vector<Value> pool =
      b.call_multi("aten::max_pool2d_with_indices", {sum, {2, 2}}, {}, "pool");
  b.output({pool[0]});
  ir::ExportedProgram p = b.build();
  ir::Node* pooled = p.graph().outputs()[0];
  ir::Node* hs = passes::insert_call(p.graph(), hardswish_op(), {pooled}, nullptr, nullptr, "hs");
  p.graph().set_output({hs});
  p.signature().outputs[0].name = hs->name();
  return p;
}

// The same model computed directly.
struct Expected {
  std::vector<float> conv, relu, add, pool, hs;
};
Expected compute() {
  Expected e;
  const auto& x = input_values();
  const auto& w = weight_values();
  const auto& bias = bias_values();
  e.conv.assign(kO * kH * kW, 0.f);
  for (int64_t o = 0; o < kO; ++o) {
    for (int64_t i = 0; i < kH; ++i) {
      for (int64_t j = 0; j < kW; ++j) {
        double acc = bias[o];
        for (int64_t c = 0; c < kC; ++c) {
          for (int64_t di = 0; di < 3; ++di) {
            for (int64_t dj = 0; dj < 3; ++dj) {
              const int64_t ii = i + di - 1, jj = j + dj - 1;
              if (ii < 0 || jj < 0 || ii >= kH || jj >= kW) continue;
              acc += static_cast<double>(x[(c * kH + ii) * kW + jj]) *
                     w[((o * kC + c) * 3 + di) * 3 + dj];
            }
          }
        }
        e.conv[(o * kH + i) * kW + j] = static_cast<float>(acc);
      }
    }
  }
  for (float v : e.conv) e.relu.push_back(std::max(v, 0.f));
  for (size_t i = 0; i < e.conv.size(); ++i) e.add.push_back(e.relu[i] + e.conv[i]);
  for (int64_t o = 0; o < kO; ++o) {
    for (int64_t i = 0; i < kH / 2; ++i) {
      for (int64_t j = 0; j < kW / 2; ++j) {
        float m = -INFINITY;
        for (int64_t di = 0; di < 2; ++di) {
          for (int64_t dj = 0; dj < 2; ++dj) {
            m = std::max(m, e.add[(o * kH + 2 * i + di) * kW + 2 * j + dj]);
          }
        }
        e.pool.push_back(m);
      }
    }
  }
  for (float v : e.pool) e.hs.push_back(v * std::clamp(v + 3.f, 0.f, 6.f) / 6.f);
  return e;
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-5) << what << "[" << i << "]";
}

std::vector<ir::TensorData> inputs() { return {floats({1, kC, kH, kW}, input_values())}; }

TEST(ReferenceRunner, AtenProgramIntermediatesEqualIndependentValues) {
  const ir::ExportedProgram p = model();
  const Expected e = compute();
  std::map<std::string, ObservedOutput> seen;
  std::vector<std::string> order;
  const std::vector<ir::TensorData> out = run_reference(p, inputs(), [&](const ObservedOutput& o) {
    order.push_back(o.node_name);
    seen[o.node_name] = o;
  });

  ASSERT_EQ(out.size(), 1u);
  expect_near(values_of(out[0]), e.hs, "output");
  ASSERT_TRUE(seen.contains("convolution"));
  ASSERT_TRUE(seen.contains("relu"));
  ASSERT_TRUE(seen.contains("add"));
  ASSERT_TRUE(seen.contains("pool"));
  ASSERT_TRUE(seen.contains("hs"));
  expect_near(values_of(seen["convolution"].outputs.at(0)), e.conv, "convolution");
  expect_near(values_of(seen["relu"].outputs.at(0)), e.relu, "relu");
  expect_near(values_of(seen["add"].outputs.at(0)), e.add, "add");
  // The multi-output node: values and indices; its getitem gets the values.
  ASSERT_EQ(seen["pool"].outputs.size(), 2u);
  EXPECT_EQ(seen["pool"].outputs[1].spec.dtype, DType::Long);
  expect_near(values_of(seen["pool"].outputs[0]), e.pool, "pool");
  const std::string getitem = p.graph().get("hs").arg(0).as_node()->name();
  ASSERT_TRUE(seen.contains(getitem));
  expect_near(values_of(seen[getitem].outputs.at(0)), e.pool, getitem);
  // The decomposed node is observed through the last node of its decomposition.
  expect_near(values_of(seen["hs"].outputs.at(0)), e.hs, "hs");
  // Nodes are the given program's, in execution order.
  for (const auto& [name, o] : seen) {
    EXPECT_EQ(o.node, p.graph().find(name)) << name;
    EXPECT_EQ(o.debug_handle, o.node->debug_handle()) << name;
  }
  EXPECT_EQ(order.front(), "convolution");
  EXPECT_EQ(order.back(), "hs");
  EXPECT_EQ(seen["convolution"].outputs[0].spec.upper_bound_sizes(),
            (std::vector<int64_t>{1, kO, kH, kW}));
}

TEST(ReferenceRunner, EveryCallNodeOfAnEdgeProgramIsVisited) {
  const ir::ExportedProgram edge = program::to_edge(model());
  ReferenceRunner runner(edge, {.name = "ref_cnn"});
  std::set<std::string> want;
  for (const ir::Node* n : edge.graph().nodes()) {
    if (n->is_call() && !n->meta().val.empty()) want.insert(n->name());
  }
  ASSERT_GE(want.size(), 8u);  // conv, relu, add, pool, getitem and hardswish's 4 nodes
  std::set<std::string> observed;
  for (const ir::Node* n : runner.observed_nodes()) observed.insert(n->name());
  EXPECT_EQ(observed, want);

  // Two runs on the same runner: each visits every node once, with the same values.
  for (int run = 0; run < 2; ++run) {
    std::map<std::string, int> visits;
    std::map<int64_t, std::string> by_handle;
    const auto out = runner.run(inputs(), [&](const ObservedOutput& o) {
      ++visits[o.node_name];
      by_handle[o.debug_handle] = o.node_name;
      EXPECT_EQ(o.node, edge.graph().find(o.node_name));
    });
    std::set<std::string> visited;
    for (const auto& [name, count] : visits) {
      EXPECT_EQ(count, 1) << name;
      visited.insert(name);
    }
    EXPECT_EQ(visited, want);
    for (const auto& [handle, name] : by_handle) {
      EXPECT_EQ(edge.graph().get(name).debug_handle(), handle);
    }
    expect_near(values_of(out.at(0)), compute().hs, "output");
  }
  // Without a visitor the outputs are still computed.
  expect_near(values_of(runner.run(inputs()).at(0)), compute().hs, "output");
}

void broken_kernel(runtime::KernelRuntimeContext&, Span<runtime::EValue*> stack) {
  runtime::Tensor& out = stack[stack.size() - 1]->to_tensor();
  float* d = out.mutable_data_ptr<float>();
  for (size_t i = 0; i < out.numel(); ++i) d[i] = 1234.f;
}

TEST(ReferenceRunner, RunsThePortableKernelsWhateverElseIsRegistered) {
  // Other kernels are registered under the names of portable ones (as a kernel library such as
  // the optimized one does): the reference still runs the portable kernels, and leaves the
  // registry as it found it.
  ASSERT_EQ(kernels::register_portable_kernels(), Error::Ok);
  runtime::OpFunction portable_relu = nullptr;
  runtime::OpFunction portable_conv = nullptr;
  ASSERT_EQ(runtime::replace_kernel("aten::relu.out", broken_kernel, &portable_relu), Error::Ok);
  ASSERT_EQ(runtime::replace_kernel("aten::convolution.out", broken_kernel, &portable_conv),
            Error::Ok);

  const ir::ExportedProgram p = model();
  std::vector<float> relu;
  const auto out = run_reference(p, inputs(), [&](const ObservedOutput& o) {
    if (o.node_name == "relu") relu = values_of(o.outputs.at(0));
  });
  expect_near(relu, compute().relu, "relu");
  expect_near(values_of(out.at(0)), compute().hs, "output");
  EXPECT_EQ(runtime::get_op_function("aten::relu.out"), broken_kernel);
  EXPECT_EQ(runtime::get_op_function("aten::convolution.out"), broken_kernel);
  ASSERT_EQ(runtime::replace_kernel("aten::relu.out", portable_relu), Error::Ok);
  ASSERT_EQ(runtime::replace_kernel("aten::convolution.out", portable_conv), Error::Ok);
}

TEST(ReferenceRunner, ReplaceKernelNeedsARegisteredName) {
  EXPECT_EQ(runtime::replace_kernel("aten::no_such_op.out", broken_kernel), Error::NotFound);
  EXPECT_EQ(runtime::replace_kernel("aten::relu.out", nullptr), Error::InvalidArgument);
}

TEST(ReferenceRunner, ProgramsPastEdgeAreRefused) {
  ir::ExportedProgram p = program::to_edge(model());
  p.set_stage(ir::Stage::Lowered);
  try {
    ReferenceRunner runner(p, {.name = "lowered_cnn"});
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("reference run of lowered_cnn"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("LOWERED"), std::string::npos) << e.what();
  }
}

TEST(ReferenceRunner, NodeWithoutPortableKernelIsNamed) {
  // An op the IR knows (with an out variant) but the portable library does not run.
  std::string op;
  for (const char* candidate : {"aten::log10", "aten::log2", "aten::expm1", "aten::log1p"}) {
    const std::string kernel = std::string(candidate) + ".out";
    bool has = false;
    for (const runtime::Kernel& k : kernels::portable_kernels()) has |= kernel == k.name;
    if (!has && ir::find_op(candidate) != nullptr) {
      op = candidate;
      break;
    }
  }
  if (op.empty()) GTEST_SKIP() << "every candidate op has a portable kernel";
  builder::GraphBuilder b("no_kernel");
  Value x = b.input("x", DType::Float, {4});
  b.output({b.call(op, {b.relu(x)}, {}, "odd")});
  const ir::ExportedProgram p = b.build();
  try {
    ReferenceRunner runner(p, {.name = "no_kernel"});
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::NotSupported);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("reference run of no_kernel"), std::string::npos) << msg;
    EXPECT_NE(msg.find("%odd (" + op + ")"), std::string::npos) << msg;
    EXPECT_NE(msg.find("no portable kernel"), std::string::npos) << msg;
  }
}

TEST(ReferenceRunner, WrongInputsAreNamed) {
  const ir::ExportedProgram p = model();
  ReferenceRunner runner(p, {.name = "ref_cnn"});
  try {
    runner.run({});
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("0 inputs given, the program takes 1"), std::string::npos)
        << e.what();
  }
  try {
    runner.run({floats({1, kC, kH}, std::vector<float>(kC * kH, 0.f))});
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("input 0 (x)"), std::string::npos) << e.what();
  }
}

TEST(ReferenceRunner, VisitorErrorsReachTheCaller) {
  const ir::ExportedProgram p = model();
  ReferenceRunner runner(p);
  EXPECT_THROW(runner.run(inputs(), [](const ObservedOutput&) { throw std::runtime_error("x"); }),
               std::runtime_error);
  // The runner stays usable.
  expect_near(values_of(runner.run(inputs()).at(0)), compute().hs, "output");
}

}  // namespace
}  // namespace ptec::devtools
