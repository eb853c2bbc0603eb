// The numeric gap against the in-process reference (numeric_gap_vs_reference): a two-method
// program exported with generate_etrecord runs under ETDumpGen with its intermediate outputs
// logged; the record's Edge programs run on the portable kernels (devtools/reference) on the
// record's representative inputs and are compared per debug handle with what the run logged.
// The test hook: the run's aten::tanh.out kernel is replaced (runtime::replace_kernel) by one
// that perturbs its output, and the gap report must rank tanh first in every method.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "devtools/etdump/etdump_gen.h"
#include "devtools/inspector/inspector.h"
#include "frontends/builder/graph_builder.h"
#include "ir/exception.h"
#include "ir/printer.h"
#include "kernels/portable/register.h"
#include "program/edge_program_manager.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"
#include "runtime/kernel/operator_registry.h"

namespace ptec::devtools {
namespace {

using builder::Value;

ir::TensorData floats(const std::vector<int64_t>& sizes, const std::vector<float>& values) {
  return {ir::TensorSpec(DType::Float, sizes),
          ir::Buffer::copy_of(values.data(), values.size() * sizeof(float))};
}

const std::vector<float> kForwardX = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f};
const std::vector<float> kDecodeX = {-2.0f, -0.5f, 0.5f, 3.0f};

// forward: relu(sigmoid(tanh(x * w)) + x). What follows tanh contracts its error (sigmoid's slope
// is at most 1/4), so under every metric (SNR too, which scaling alone would not change) tanh's
// own output is the worst.
ir::ExportedProgram forward_program() {
  builder::GraphBuilder b("gap_forward");
  Value x = b.input("x", DType::Float, {2, 3});
  Value w = b.parameter("w", floats({2, 3}, {0.5f, -1.0f, 2.0f, 1.0f, -0.5f, 3.0f}));
  Value t = b.call("aten::tanh", {b.mul(x, w)});
  Value s = b.call("aten::sigmoid", {t});
  b.output({b.relu(b.add(s, x))});
  ir::ExportedProgram p = b.build();
  p.example_inputs() = {floats({2, 3}, kForwardX)};
  return p;
}

// decode: sigmoid(tanh(sigmoid(x))) + sigmoid(x).
ir::ExportedProgram decode_program() {
  builder::GraphBuilder b("gap_decode");
  Value x = b.input("x", DType::Float, {4});
  Value e = b.call("aten::sigmoid", {x});
  Value t = b.call("aten::tanh", {e});
  b.output({b.add(b.call("aten::sigmoid", {t}), e)});
  ir::ExportedProgram p = b.build();
  p.example_inputs() = {floats({4}, kDecodeX)};
  return p;
}

// The test hook: aten::tanh.out computes the portable tanh, then adds 0.5.
runtime::OpFunction g_portable_tanh = nullptr;
void perturbed_tanh(runtime::KernelRuntimeContext& ctx, Span<runtime::EValue*> stack) {
  g_portable_tanh(ctx, stack);
  runtime::Tensor& out = stack[stack.size() - 1]->to_tensor();
  float* d = out.mutable_data_ptr<float>();
  for (size_t i = 0; i < out.numel(); ++i) d[i] += 0.5f;
}

struct Exported {
  std::vector<uint8_t> pte;
  ETRecord record;
};

Exported export_two_methods() {
  program::ToEdgeOptions options;
  options.generate_etrecord = true;
  const program::EdgeProgramManager edge =
      program::to_edge({{"forward", forward_program()}, {"decode", decode_program()}}, options);
  program::ExecutorchProgramManager et = edge.to_executorch();
  return {et.buffer(), et.get_etrecord()};
}

// Runs every method once on its representative inputs under ETDumpGen (intermediate outputs
// logged), with tanh perturbed while the methods load (kernels are resolved at load).
Inspector run_and_inspect(const Exported& exported, bool perturb,
                          runtime::EventTracerDebugLogLevel level =
                              runtime::EventTracerDebugLogLevel::IntermediateOutputs) {
  EXPECT_EQ(kernels::register_portable_kernels(), Error::Ok);
  std::unique_ptr<uint8_t[]> aligned(new (std::align_val_t(64)) uint8_t[exported.pte.size()]);
  std::memcpy(aligned.get(), exported.pte.data(), exported.pte.size());
  ETDumpGen gen;
  gen.set_event_tracer_debug_level(level);
  {
    runtime::Module module(aligned.get(), exported.pte.size(), &gen);
    if (perturb) {
      EXPECT_EQ(runtime::replace_kernel("aten::tanh.out", perturbed_tanh, &g_portable_tanh),
                Error::Ok);
    }
    const Error f = module.load_method("forward");
    const Error d = module.load_method("decode");
    if (perturb) {
      EXPECT_EQ(runtime::replace_kernel("aten::tanh.out", g_portable_tanh), Error::Ok);
    }
    EXPECT_EQ(f, Error::Ok);
    EXPECT_EQ(d, Error::Ok);
    auto fx = runtime::OwnedTensor::from(DType::Float, {2, 3}, kForwardX);
    auto dx = runtime::OwnedTensor::from(DType::Float, {4}, kDecodeX);
    EXPECT_TRUE(module.execute("forward", {fx.evalue()}).ok());
    EXPECT_TRUE(module.execute("decode", {dx.evalue()}).ok());
  }
  ::operator delete[](aligned.release(), std::align_val_t(64));
  std::vector<uint8_t> debug(gen.debug_buffer().begin(), gen.debug_buffer().end());
  return Inspector(exported.record, ETDump::parse(gen.get_etdump_data()), std::move(debug));
}

TEST(NumericGapReference, PerturbedKernelIsRankedFirstInEveryMethod) {
  const Exported exported = export_two_methods();
  const Inspector inspector = run_and_inspect(exported, /*perturb=*/true);
  for (GapMetric metric : {GapMetric::MSE, GapMetric::L1, GapMetric::SNR}) {
    const std::vector<NumericGap> gaps =
        numeric_gap_vs_reference(inspector, inspector.etrecord(), metric);
    ASSERT_GE(gaps.size(), 2u);
    // Both methods' tanh come first (they are the only nodes off by 0.5).
    std::set<std::string> top_methods;
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(gaps[i].op, "aten::tanh") << to_string(metric) << " #" << i;
      EXPECT_EQ(gaps[i].event, "native_call_tanh.out");
      top_methods.insert(gaps[i].method);
      if (metric == GapMetric::MSE) {
        EXPECT_NEAR(gaps[i].value, 0.25, 1e-6);
      }
    }
    EXPECT_EQ(top_methods, (std::set<std::string>{"decode", "forward"}));
    // What follows tanh carries at most a quarter of its error; what precedes it none.
    if (metric == GapMetric::MSE) {
      EXPECT_LT(gaps[2].value, 0.25 / 16 + 1e-6);
    }
  }
}

TEST(NumericGapReference, SameKernelsGiveNoGapForAnyLoggedNode) {
  const Exported exported = export_two_methods();
  const Inspector inspector = run_and_inspect(exported, /*perturb=*/false);
  const std::vector<NumericGap> gaps =
      numeric_gap_vs_reference(inspector, inspector.etrecord(), GapMetric::MSE);
  // Every kernel of both methods has a reference value (forward: mul, tanh, sigmoid, add, relu;
  // decode: sigmoid, tanh, sigmoid, add), and they are equal.
  std::map<std::string, std::set<std::string>> ops;
  for (const NumericGap& g : gaps) {
    ops[g.method].insert(g.op);
    EXPECT_EQ(g.value, 0.0) << g.method << " " << g.op;
  }
  EXPECT_EQ(ops["forward"], (std::set<std::string>{"aten::add.Tensor", "aten::mul.Tensor",
                                                   "aten::relu", "aten::sigmoid", "aten::tanh"}));
  EXPECT_EQ(ops["decode"],
            (std::set<std::string>{"aten::add.Tensor", "aten::sigmoid", "aten::tanh"}));
  EXPECT_EQ(gaps.size(), 9u);
}

TEST(NumericGapReference, ProgramOutputsStandForNodesNoKernelLogged) {
  // Only the program outputs are logged (as for a delegate's result): each is compared with the
  // reference's output under the handle of the node computing it.
  const Exported exported = export_two_methods();
  for (bool perturb : {false, true}) {
    const Inspector inspector =
        run_and_inspect(exported, perturb, runtime::EventTracerDebugLogLevel::ProgramOutputs);
    const std::vector<NumericGap> gaps =
        numeric_gap_vs_reference(inspector, inspector.etrecord(), GapMetric::MSE);
    ASSERT_EQ(gaps.size(), 2u);
    std::map<std::string, NumericGap> by_method;
    for (const NumericGap& g : gaps) by_method[g.method] = g;
    EXPECT_EQ(by_method["forward"].op, "aten::relu");
    EXPECT_EQ(by_method["decode"].op, "aten::add.Tensor");
    for (const auto& [method, g] : by_method) {
      EXPECT_EQ(g.event, "program output 0") << method;
      EXPECT_EQ(
          g.debug_handle,
          reference_program(inspector.etrecord(), method)->graph().outputs()[0]->debug_handle());
      if (perturb) {
        EXPECT_GT(g.value, 1e-4) << method;  // tanh's error, contracted by sigmoid
      } else {
        EXPECT_EQ(g.value, 0.0) << method;
      }
    }
  }
}

TEST(NumericGapReference, GivenInputsReplaceTheRepresentativeOnes) {
  // Other inputs than the run's: every node differs, so the gap is no longer zero.
  const Exported exported = export_two_methods();
  const Inspector inspector = run_and_inspect(exported, /*perturb=*/false);
  ReferenceInputs inputs;
  inputs["decode"] = {floats({4}, {1.f, 1.f, 1.f, 1.f})};
  const std::vector<NumericGap> gaps =
      numeric_gap_vs_reference(inspector, inspector.etrecord(), GapMetric::MSE, inputs);
  for (const NumericGap& g : gaps) {
    if (g.method == "decode") {
      EXPECT_GT(g.value, 0.0) << g.op;
    } else {
      EXPECT_EQ(g.value, 0.0) << g.op;
    }
  }
}

TEST(NumericGapReference, MethodWithoutInputsIsNamed) {
  Exported exported = export_two_methods();
  exported.record.set_representative_inputs("decode", {});
  const Inspector inspector = run_and_inspect(exported, /*perturb=*/false);
  try {
    (void)numeric_gap_vs_reference(inspector, inspector.etrecord(), GapMetric::MSE);
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_EQ(e.code(), Error::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("method decode: no inputs for the reference run"),
              std::string::npos)
        << e.what();
  }
}

TEST(NumericGapReference, WeightsOfALoadedRecordComeFromTheProgram) {
  // A record saved without payloads loads stand-ins (zeros of the right size and hash): the
  // reference refuses them, and with_payloads takes the bytes from the .pte's constants.
  const Exported exported = export_two_methods();
  const std::filesystem::path dir =
      std::filesystem::path(PTEC_BINARY_DIR) / "devtools" / "inspector" / "gap_out";
  std::filesystem::create_directories(dir);
  const std::string pte = (dir / "m.pte").string();
  const std::string etrecord = (dir / "m.etrecord").string();
  {
    std::ofstream out(pte, std::ios::binary);
    out.write(reinterpret_cast<const char*>(exported.pte.data()),
              static_cast<std::streamsize>(exported.pte.size()));
  }
  exported.record.save(etrecord);
  Exported loaded{exported.pte, ETRecord::load(etrecord)};
  EXPECT_EQ(unloaded_payloads(*reference_program(loaded.record, "forward")),
            std::vector<std::string>{"w"});
  const Inspector inspector = run_and_inspect(loaded, /*perturb=*/true);
  try {
    (void)numeric_gap_vs_reference(inspector, loaded.record, GapMetric::MSE);
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("method forward: the ETRecord holds 1 weights of its "
                                         "program by reference only (e.g. w)"),
              std::string::npos)
        << e.what();
  }

  std::vector<std::string> missing;
  const ETRecord resolved = with_payloads(loaded.record, program_payloads(pte), &missing);
  EXPECT_TRUE(missing.empty());
  const ProgramPtr forward = reference_program(resolved, "forward");
  EXPECT_TRUE(unloaded_payloads(*forward).empty());
  EXPECT_EQ(
      ir::payload_hash(*forward->state_dict().at("w").data),
      ir::payload_hash(*reference_program(exported.record, "forward")->state_dict().at("w").data));
  const std::vector<NumericGap> gaps =
      numeric_gap_vs_reference(inspector, resolved, GapMetric::MSE);
  ASSERT_GE(gaps.size(), 2u);
  EXPECT_EQ(gaps[0].op, "aten::tanh");
  EXPECT_EQ(gaps[1].op, "aten::tanh");
  EXPECT_NEAR(gaps[0].value, 0.25, 1e-6);

  // Payloads of another program resolve nothing.
  missing.clear();
  (void)with_payloads(loaded.record, {ir::Buffer::copy_of("abcd", 4)}, &missing);
  EXPECT_EQ(missing, (std::vector<std::string>{"forward: w", "forward: w"}));
}

}  // namespace
}  // namespace ptec::devtools
