#include "quant/quantize.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "devtools/reference/reference_runner.h"
#include "frontends/builder/graph_builder.h"
#include "ir/exception.h"
#include "ir/verifier.h"
#include "quant/cpu_quantizer.h"

namespace ptec::quant {
namespace {

using builder::Value;

ir::TensorData random_tensor(const std::vector<int64_t>& sizes, std::mt19937& rng,
                             float scale = 1.0f) {
  std::normal_distribution<float> n(0.f, scale);
  int64_t count = 1;
  for (int64_t s : sizes) count *= s;
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = n(rng);
  return {ir::TensorSpec(DType::Float, sizes),
          ir::Buffer::copy_of(v.data(), v.size() * sizeof(float))};
}

// conv(3→8) + bias → relu → max pool → depthwise conv → + pooled → mean(H, W) → linear(8→5).
ir::ExportedProgram small_cnn(std::mt19937& rng) {
  builder::GraphBuilder b("small_cnn");
  Value x = b.input("x", DType::Float, {1, 3, 8, 8});
  Value w1 = b.parameter("conv1.weight", random_tensor({8, 3, 3, 3}, rng, 0.3f));
  Value b1 = b.parameter("conv1.bias", random_tensor({8}, rng, 0.1f));
  Value w2 = b.parameter("dw.weight", random_tensor({8, 1, 3, 3}, rng, 0.3f));
  Value fw = b.parameter("fc.weight", random_tensor({5, 8}, rng, 0.3f));
  Value fb = b.parameter("fc.bias", random_tensor({5}, rng, 0.1f));
  Value c1 = b.relu(b.conv2d(x, w1, b1, {1, 1}, {1, 1}));
  std::vector<Value> pool =
      b.call_multi("aten::max_pool2d_with_indices", {c1, std::vector<int64_t>{2, 2}});
  Value dw = b.conv2d(pool[0], w2, std::nullopt, {1, 1}, {1, 1}, {1, 1}, 8);
  Value sum = b.add(dw, pool[0]);
  Value m = b.mean(sum, {2, 3});
  b.output({b.linear(m, fw, fb)});
  return b.build();
}

// x [4, 64] → linear(64→32) → relu → linear(32→16).
ir::ExportedProgram mlp(std::mt19937& rng) {
  builder::GraphBuilder b("mlp");
  Value x = b.input("x", DType::Float, {4, 64});
  Value w1 = b.parameter("l1.weight", random_tensor({32, 64}, rng, 0.2f));
  Value b1 = b.parameter("l1.bias", random_tensor({32}, rng, 0.1f));
  Value w2 = b.parameter("l2.weight", random_tensor({16, 32}, rng, 0.2f));
  b.output({b.linear(b.relu(b.linear(x, w1, b1)), w2)});
  return b.build();
}

size_t count_op(const ir::ExportedProgram& p, const std::string& target) {
  size_t n = 0;
  for (const ir::Node* node : p.graph().nodes()) n += node->is_op(target) ? 1 : 0;
  return n;
}

const ir::Node* first_op(const ir::ExportedProgram& p, const std::string& target) {
  for (const ir::Node* node : p.graph().nodes()) {
    if (node->is_op(target)) return node;
  }
  return nullptr;
}

std::vector<std::vector<ir::TensorData>> input_sets(size_t n, const std::vector<int64_t>& sizes,
                                                    std::mt19937& rng) {
  std::vector<std::vector<ir::TensorData>> out;
  for (size_t i = 0; i < n; ++i) out.push_back({random_tensor(sizes, rng)});
  return out;
}

TEST(CpuQuantizer, AnnotatesStaticPatterns) {
  std::mt19937 rng(1);
  ir::ExportedProgram p = small_cnn(rng);
  CpuQuantizer q(get_symmetric_quantization_config(true, false));
  const Annotations a = q.annotate(p);
  const ir::Graph& g = p.graph();
  const ir::Node* conv1 = first_op(p, "aten::convolution");
  ASSERT_NE(conv1, nullptr);
  const NodeAnnotation& c = a.at(conv1->name());
  EXPECT_EQ(c.input_activations.count(0), 1u);
  ASSERT_EQ(c.weights.count(1), 1u);
  EXPECT_EQ(c.weights.at(1).ch_axis, 0);
  EXPECT_EQ(c.weights.at(1).quant_min, -127);
  // conv → relu: the relu's output is quantized, not the conv's.
  EXPECT_FALSE(c.output.has_value());
  EXPECT_TRUE(a.at(first_op(p, "aten::relu")->name()).output.has_value());
  // The pooled value shares the pool input's parameters.
  const ir::Node* pool = first_op(p, "aten::max_pool2d_with_indices");
  const ir::Node* item = pool->users()[0];
  EXPECT_EQ(a.at(item->name()).output_shares_with, pool->arg(0).as_node()->name());
  // Depthwise conv: weight per channel on axis 0; add: both inputs and output.
  int convs = 0;
  for (const ir::Node* n : g.nodes()) {
    if (!n->is_op("aten::convolution")) continue;
    ++convs;
    EXPECT_EQ(a.at(n->name()).weights.at(1).ch_axis, 0);
  }
  EXPECT_EQ(convs, 2);
  const NodeAnnotation& add = a.at(first_op(p, "aten::add.Tensor")->name());
  EXPECT_EQ(add.input_activations.size(), 2u);
  EXPECT_TRUE(add.output.has_value());
  EXPECT_TRUE(a.at(first_op(p, "aten::mean.dim")->name()).output.has_value());
  // Linear: the weight behind t_copy has its channels on axis 0.
  const NodeAnnotation& fc = a.at(first_op(p, "aten::addmm")->name());
  EXPECT_EQ(fc.weights.at(2).ch_axis, 0);
  EXPECT_EQ(fc.input_activations.count(1), 1u);
}

TEST(CpuQuantizer, DynamicAndWeightOnlyAnnotations) {
  std::mt19937 rng(1);
  ir::ExportedProgram p = small_cnn(rng);
  const Annotations dyn = CpuQuantizer(get_symmetric_quantization_config(true, true)).annotate(p);
  for (const auto& [name, a] : dyn) {
    EXPECT_FALSE(a.output.has_value()) << name;
    for (const auto& [i, s] : a.input_activations) EXPECT_TRUE(s.is_dynamic) << name;
    EXPECT_FALSE(a.weights.empty()) << name;  // only convolutions and linear layers
  }
  EXPECT_EQ(dyn.size(), 3u);
  ir::ExportedProgram m = mlp(rng);
  const Annotations w4 = CpuQuantizer(get_int4_weight_only_config(16)).annotate(m);
  EXPECT_EQ(w4.size(), 2u);
  for (const auto& [name, a] : w4) {
    EXPECT_TRUE(a.input_activations.empty());
    EXPECT_EQ(a.weights.begin()->second.group_size, 16);
  }
  // A group size that does not divide K leaves the layer float.
  EXPECT_EQ(CpuQuantizer(get_int4_weight_only_config(64)).annotate(m).size(), 1u);
}

TEST(Convert, HandSetObserverStatistics) {
  std::mt19937 rng(2);
  ir::ExportedProgram p = small_cnn(rng);
  QuantizationConfig cfg = get_symmetric_quantization_config(true, false);
  cfg.input_activation->observer = ObserverKind::MinMax;
  cfg.output_activation->observer = ObserverKind::MinMax;
  PreparedProgram prepared = prepare(p, CpuQuantizer(cfg));
  // Without calibration convert refuses.
  EXPECT_THROW((void)convert(prepared), Exception);
  // Every group sees the range [-1, 3]: scale 4 / 255, zero point -128 + 64 = -64 (rounded).
  const std::vector<float> range = {-1.f, 3.f};
  for (ObserverGroup& g : prepared.groups) g.observer->observe(range.data(), {2});
  prepared.calibration_runs = 1;
  const ir::ExportedProgram q = convert(prepared);
  EXPECT_TRUE(ir::verify(q).empty());
  EXPECT_EQ(q.stage(), ir::Stage::Aten);
  // Values: x, relu (shared with the pooled getitem), conv2 input = pooled, add output, mean.
  const ir::Node* quant = first_op(q, "quantized_decomposed::quantize_per_tensor");
  ASSERT_NE(quant, nullptr);
  EXPECT_NEAR(quant->arg(1).as_double(), 4.0 / 255.0, 1e-7);
  EXPECT_EQ(quant->arg(2).as_int(), -128 - static_cast<int64_t>(std::nearbyint(-255.0 / 4.0)));
  EXPECT_EQ(quant->arg(5).as_dtype(), DType::Char);
  // Each quantized value has one quantize and one dequantize per user.
  for (const ir::Node* n : q.graph().nodes()) {
    if (!n->is_op("quantized_decomposed::quantize_per_tensor")) continue;
    for (const ir::Node* u : n->users()) {
      EXPECT_TRUE(u->is_op("quantized_decomposed::dequantize_per_tensor")) << u->name();
      EXPECT_EQ(u->users().size(), 1u);
    }
  }
  // x, relu + pooled (one group, two values), depthwise conv, add, mean, linear: 7 quantizes.
  EXPECT_EQ(count_op(q, "quantized_decomposed::quantize_per_tensor"), 7u);
  // Weights: int8 constants with per-channel scales; the float weights are gone.
  EXPECT_EQ(count_op(q, "quantized_decomposed::dequantize_per_channel"), 3u);
  const ir::Node* dqw = first_op(q, "quantized_decomposed::dequantize_per_channel");
  const ir::TensorData* wq = q.constant_for_placeholder(dqw->arg(0).as_node()->name());
  ASSERT_NE(wq, nullptr);
  EXPECT_EQ(wq->spec.dtype, DType::Char);
  EXPECT_EQ(q.constant_for_placeholder(dqw->arg(1).as_node()->name())->spec.dtype, DType::Double);
  EXPECT_EQ(q.constant_for_placeholder(dqw->arg(2).as_node()->name())->spec.dtype, DType::Long);
  for (const auto& [name, t] : q.state_dict()) {
    EXPECT_TRUE(name.find("weight") == std::string::npos || t.spec.dtype != DType::Float)
        << name << " is still a float weight";
  }
  // The bias stays float.
  EXPECT_EQ(q.state_dict().at("conv1.bias").spec.dtype, DType::Float);
  // The weight's largest magnitude per channel maps to +-127.
  const auto* bytes = reinterpret_cast<const int8_t*>(wq->data->data());
  int max_abs = 0;
  for (size_t i = 0; i < 27; ++i) max_abs = std::max(max_abs, std::abs(static_cast<int>(bytes[i])));
  EXPECT_EQ(max_abs, 127);
  EXPECT_EQ(q.provenance().back().stage, "quantize");
}

TEST(Convert, PerTensorWeightsAndDynamic) {
  std::mt19937 rng(3);
  ir::ExportedProgram p = small_cnn(rng);
  const auto cal = input_sets(2, {1, 3, 8, 8}, rng);
  const ir::ExportedProgram pt =
      quantize(p, CpuQuantizer(get_symmetric_quantization_config(false, false)), cal);
  EXPECT_EQ(count_op(pt, "quantized_decomposed::dequantize_per_channel"), 0u);
  // 5 activation values x users + 3 weights.
  EXPECT_GE(count_op(pt, "quantized_decomposed::dequantize_per_tensor"), 8u);
  const ir::ExportedProgram dyn =
      quantize(p, CpuQuantizer(get_symmetric_quantization_config(true, true)), cal);
  EXPECT_EQ(count_op(dyn, "quantized_decomposed::choose_qparams.tensor"), 3u);
  EXPECT_EQ(count_op(dyn, "quantized_decomposed::quantize_per_tensor.tensor"), 3u);
  EXPECT_EQ(count_op(dyn, "quantized_decomposed::quantize_per_tensor"), 0u);
  EXPECT_EQ(count_op(dyn, "quantized_decomposed::dequantize_per_channel"), 3u);
  EXPECT_TRUE(ir::verify(dyn).empty());
}

double run_sqnr(const ir::ExportedProgram& fp, const ir::ExportedProgram& q,
                const std::vector<std::vector<ir::TensorData>>& sets) {
  devtools::ReferenceRunner rf(fp), rq(q);
  double worst = 1e9;
  for (const auto& s : sets) worst = std::min(worst, sqnr_db(rf.run(s)[0], rq.run(s)[0]));
  return worst;
}

TEST(Quantize, EndToEndOnPortableKernels) {
  std::mt19937 rng(4);
  ir::ExportedProgram p = small_cnn(rng);
  const auto cal = input_sets(8, {1, 3, 8, 8}, rng);
  const auto test = input_sets(4, {1, 3, 8, 8}, rng);
  const double st = run_sqnr(
      p, quantize(p, CpuQuantizer(get_symmetric_quantization_config(true, false)), cal), test);
  const double dy = run_sqnr(
      p, quantize(p, CpuQuantizer(get_symmetric_quantization_config(true, true)), cal), test);
  EXPECT_GT(st, 25.0);
  EXPECT_GT(dy, 30.0);
  // Calibration inputs are required; at least one run happens even for dynamic.
  EXPECT_THROW((void)quantize(p, CpuQuantizer(get_symmetric_quantization_config(true, true)), {}),
               Exception);
  PreparedProgram prepared =
      prepare(p, CpuQuantizer(get_symmetric_quantization_config(true, true)));
  calibrate(prepared, cal, {.max_samples = 3, .show_progress = false});
  EXPECT_EQ(prepared.calibration_runs, 3u);
  // Not ATEN: refused, naming the stage.
  ir::ExportedProgram edge = p;
  edge.set_stage(ir::Stage::Edge);
  try {
    (void)prepare(edge, CpuQuantizer());
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("EDGE"), std::string::npos) << e.what();
  }
}

TEST(Quantize, Int4WeightOnlyPerGroup) {
  std::mt19937 rng(5);
  ir::ExportedProgram p = mlp(rng);
  const auto cal = input_sets(1, {4, 64}, rng);
  const ir::ExportedProgram q = quantize(p, CpuQuantizer(get_int4_weight_only_config(16)), cal);
  EXPECT_TRUE(ir::verify(q).empty());
  EXPECT_EQ(count_op(q, "quantized_decomposed::quantize_per_tensor"), 0u);
  EXPECT_EQ(count_op(q, "quantized_decomposed::dequantize_per_channel"), 2u);
  const ir::Node* dq = first_op(q, "quantized_decomposed::dequantize_per_channel");
  EXPECT_EQ(dq->arg("quant_min").as_int(), -8);
  EXPECT_EQ(dq->arg("quant_max").as_int(), 7);
  EXPECT_TRUE(dq->arg(0).as_node()->is_op("aten::view_copy"));
  const ir::Node* stored = dq->arg(0).as_node()->arg(0).as_node();
  const ir::TensorData* w = q.constant_for_placeholder(stored->name());
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->spec.to_string(),
            ir::TensorSpec(DType::Char, std::vector<int64_t>{32, 64}).to_string());
  const auto* v = reinterpret_cast<const int8_t*>(w->data->data());
  bool low = false;
  for (size_t i = 0; i < 32 * 64; ++i) {
    EXPECT_GE(v[i], -8);
    EXPECT_LE(v[i], 7);
    low = low || v[i] == -8 || v[i] == 7;
  }
  EXPECT_TRUE(low);
  // Scales: one per row and group of 16 columns.
  EXPECT_EQ(q.constant_for_placeholder(dq->arg(1).as_node()->name())->spec.numel_upper_bound(),
            32 * 4);
  const double s = run_sqnr(p, q, input_sets(4, {4, 64}, rng));
  EXPECT_GT(s, 12.0);
  EXPECT_LT(s, 40.0);  // int4 is lossy: the weights really were quantized
}

}  // namespace
}  // namespace ptec::quant
