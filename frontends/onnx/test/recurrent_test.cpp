// LSTM / GRU / RNN import (frontends/onnx/ops/recurrent.cpp): small ONNX graphs built here are
// imported, lowered, emitted and run with the portable kernels, and compared with a direct
// implementation of the ONNX equations below (per batch entry, its own length, no masks).

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "emit/export_pte.h"
#include "frontends/onnx/test/test_util.h"
#include "kernels/portable/register.h"
#include "program/to_edge.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::onnx_import::testing {
namespace {

// --- deterministic data ------------------------------------------------------------------------

std::vector<float> values(size_t n, uint32_t seed, float scale = 0.5f) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = scale * (static_cast<float>(s >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f);
  }
  return v;
}

// --- the reference -----------------------------------------------------------------------------

struct Act {
  std::string name;
  double alpha = 0;
  double beta = 0;
};

double apply(const Act& a, double x) {
  if (a.name == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (a.name == "Tanh") return std::tanh(x);
  if (a.name == "Relu") return x > 0 ? x : 0;
  if (a.name == "LeakyRelu") return x >= 0 ? x : a.alpha * x;
  if (a.name == "ScaledTanh") return a.alpha * std::tanh(a.beta * x);
  if (a.name == "HardSigmoid") return std::min(1.0, std::max(0.0, a.alpha * x + a.beta));
  if (a.name == "Softsign") return x / (1 + std::abs(x));
  if (a.name == "Softplus") return std::log(std::exp(x) + 1);
  if (a.name == "Elu") return x >= 0 ? x : a.alpha * (std::exp(x) - 1);
  if (a.name == "Affine") return a.alpha * x + a.beta;
  if (a.name == "ThresholdedRelu") return x > a.alpha ? x : 0;
  ADD_FAILURE() << "no reference for " << a.name;
  return 0;
}

/// One recurrent node's configuration and data (float, every optional input given unless empty).
struct Case {
  std::string op;  // LSTM, GRU, RNN
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  std::string direction = "forward";
  bool batch_first = false;
  bool linear_before_reset = false;
  bool input_forget = false;
  float clip = 0;             // 0: none
  std::vector<Act> acts;      // empty: the defaults
  bool acts_once = false;     // bidirectional: the attribute lists the forward half of `acts` only
  std::vector<int32_t> lens;  // empty: no sequence_lens
  std::vector<float> x, w, r, b, h0, c0, p;  // b, h0, c0, p may be empty

  int64_t dirs() const { return direction == "bidirectional" ? 2 : 1; }
  int64_t gates() const { return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1; }
  size_t x_at(int64_t t, int64_t bi, int64_t i) const {
    return static_cast<size_t>(batch_first ? (bi * seq + t) * input + i
                                           : (t * batch + bi) * input + i);
  }
  /// initial_h / Y_h / Y_c index.
  size_t state_at(int64_t d, int64_t bi, int64_t k) const {
    return static_cast<size_t>(batch_first ? (bi * dirs() + d) * hidden + k
                                           : (d * batch + bi) * hidden + k);
  }
  size_t y_at(int64_t t, int64_t d, int64_t bi, int64_t k) const {
    return static_cast<size_t>(batch_first ? ((bi * seq + t) * dirs() + d) * hidden + k
                                           : ((t * dirs() + d) * batch + bi) * hidden + k);
  }
  std::vector<Act> activations() const {
    if (!acts.empty()) return acts;
    std::vector<Act> per = op == "LSTM"  ? std::vector<Act>{{"Sigmoid"}, {"Tanh"}, {"Tanh"}}
                           : op == "GRU" ? std::vector<Act>{{"Sigmoid"}, {"Tanh"}}
                                         : std::vector<Act>{{"Tanh"}};
    std::vector<Act> all;
    for (int64_t d = 0; d < dirs(); ++d) all.insert(all.end(), per.begin(), per.end());
    return all;
  }
};

struct Outputs {
  std::vector<float> y, y_h, y_c;
};

Outputs reference(const Case& c) {
  const int64_t D = c.dirs(), H = c.hidden, G = c.gates();
  Outputs o;
  o.y.assign(static_cast<size_t>(c.seq * D * c.batch * H), 0.0f);
  o.y_h.assign(static_cast<size_t>(D * c.batch * H), 0.0f);
  o.y_c = o.y_h;
  const std::vector<Act> acts = c.activations();
  const size_t per = acts.size() / static_cast<size_t>(D);
  auto clip = [&](double v) {
    return c.clip > 0 ? std::min<double>(c.clip, std::max<double>(-c.clip, v)) : v;
  };
  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = c.direction == "reverse" || d == 1;
    const Act* f = &acts[static_cast<size_t>(d) * per];
    auto W = [&](int64_t row, int64_t i) {
      return c.w[static_cast<size_t>((d * G * H + row) * c.input + i)];
    };
    auto R = [&](int64_t row, int64_t k) {
      return c.r[static_cast<size_t>((d * G * H + row) * H + k)];
    };
    auto Wb = [&](int64_t row) {
      return c.b.empty() ? 0.0 : c.b[static_cast<size_t>(d * 2 * G * H + row)];
    };
    auto Rb = [&](int64_t row) {
      return c.b.empty() ? 0.0 : c.b[static_cast<size_t>(d * 2 * G * H + G * H + row)];
    };
    auto P = [&](int64_t row) {
      return c.p.empty() ? 0.0 : c.p[static_cast<size_t>(d * 3 * H + row)];
    };
    for (int64_t bi = 0; bi < c.batch; ++bi) {
      std::vector<double> h(static_cast<size_t>(H), 0.0), cell(static_cast<size_t>(H), 0.0);
      for (int64_t k = 0; k < H; ++k) {
        if (!c.h0.empty()) h[static_cast<size_t>(k)] = c.h0[c.state_at(d, bi, k)];
        if (!c.c0.empty()) cell[static_cast<size_t>(k)] = c.c0[c.state_at(d, bi, k)];
      }
      const int64_t len = c.lens.empty() ? c.seq : c.lens[static_cast<size_t>(bi)];
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = reverse ? len - 1 - s : s;
        // xw[row] = W x + Wb; hr[row] = R h + Rb.
        std::vector<double> xw(static_cast<size_t>(G * H)), hr(static_cast<size_t>(G * H));
        for (int64_t row = 0; row < G * H; ++row) {
          double a = Wb(row), bsum = Rb(row);
          for (int64_t i = 0; i < c.input; ++i) a += W(row, i) * c.x[c.x_at(t, bi, i)];
          for (int64_t k = 0; k < H; ++k) bsum += R(row, k) * h[static_cast<size_t>(k)];
          xw[static_cast<size_t>(row)] = a;
          hr[static_cast<size_t>(row)] = bsum;
        }
        std::vector<double> next(static_cast<size_t>(H));
        if (c.op == "RNN") {
          for (int64_t k = 0; k < H; ++k) {
            const size_t j = static_cast<size_t>(k);
            next[j] = apply(f[0], clip(xw[j] + hr[j]));
          }
        } else if (c.op == "GRU") {
          std::vector<double> z(static_cast<size_t>(H)), rg(static_cast<size_t>(H));
          for (int64_t k = 0; k < H; ++k) {
            const size_t j = static_cast<size_t>(k);
            z[j] = apply(f[0], clip(xw[j] + hr[j]));
            rg[j] =
                apply(f[0], clip(xw[j + static_cast<size_t>(H)] + hr[j + static_cast<size_t>(H)]));
          }
          for (int64_t k = 0; k < H; ++k) {
            const size_t j = static_cast<size_t>(k);
            const int64_t row = 2 * H + k;
            double pre = xw[static_cast<size_t>(row)];
            if (c.linear_before_reset) {
              pre += rg[j] * hr[static_cast<size_t>(row)];
            } else {
              double rh = Rb(row);
              for (int64_t m = 0; m < H; ++m)
                rh += R(row, m) * rg[static_cast<size_t>(m)] * h[static_cast<size_t>(m)];
              pre += rh;
            }
            const double hh = apply(f[1], clip(pre));
            next[j] = (1 - z[j]) * hh + z[j] * h[j];
          }
        } else {
          for (int64_t k = 0; k < H; ++k) {
            const size_t j = static_cast<size_t>(k), hs = static_cast<size_t>(H);
            const double i = apply(f[0], clip(xw[j] + hr[j] + P(k) * cell[j]));
            const double fg =
                c.input_forget
                    ? 1 - i
                    : apply(f[0], clip(xw[j + 2 * hs] + hr[j + 2 * hs] + P(2 * H + k) * cell[j]));
            const double cc = apply(f[1], clip(xw[j + 3 * hs] + hr[j + 3 * hs]));
            cell[j] = fg * cell[j] + i * cc;
            const double og = apply(f[0], clip(xw[j + hs] + hr[j + hs] + P(H + k) * cell[j]));
            next[j] = og * apply(f[2], cell[j]);
          }
        }
        h = next;
        for (int64_t k = 0; k < H; ++k)
          o.y[c.y_at(t, d, bi, k)] = static_cast<float>(h[static_cast<size_t>(k)]);
      }
      for (int64_t k = 0; k < H; ++k) {
        o.y_h[c.state_at(d, bi, k)] = static_cast<float>(h[static_cast<size_t>(k)]);
        o.y_c[c.state_at(d, bi, k)] = static_cast<float>(cell[static_cast<size_t>(k)]);
      }
    }
  }
  return o;
}

// --- the model ---------------------------------------------------------------------------------

void set_floats(onnx::NodeProto& n, const std::string& name, const std::vector<float>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float x : v) a->add_floats(x);
}
void set_strings(onnx::NodeProto& n, const std::string& name, const std::vector<std::string>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const std::string& x : v) a->add_strings(x);
}

std::vector<int64_t> sizes_of(std::initializer_list<int64_t> s) { return s; }

/// The model of `c`: X is a graph input; W, R, B, sequence_lens, initial_h, initial_c, P are
/// initializers, or graph inputs too when `weights_as_inputs`. Outputs Y, Y_h (and Y_c).
ModelBuilder build(const Case& c, bool weights_as_inputs, int64_t opset = 14) {
  ModelBuilder b(opset);
  const int64_t D = c.dirs(), G = c.gates(), H = c.hidden;
  b.input("X", c.batch_first ? std::vector<Dim>{c.batch, c.seq, c.input}
                             : std::vector<Dim>{c.seq, c.batch, c.input});
  auto tensor = [&](const std::string& name, const std::vector<int64_t>& dims,
                    const std::vector<float>& v) {
    if (v.empty()) return std::string();
    if (weights_as_inputs) {
      b.input(name, std::vector<Dim>(dims.begin(), dims.end()));
    } else {
      b.init_float(name, dims, v);
    }
    return name;
  };
  const std::vector<int64_t> state =
      c.batch_first ? sizes_of({c.batch, D, H}) : sizes_of({D, c.batch, H});
  std::vector<std::string> inputs = {"X", tensor("W", {D, G * H, c.input}, c.w),
                                     tensor("R", {D, G * H, H}, c.r),
                                     tensor("B", {D, 2 * G * H}, c.b), ""};
  if (!c.lens.empty()) {
    onnx::TensorProto* t = b.graph().add_initializer();
    t->set_name("lens");
    t->set_data_type(onnx::TensorProto::INT32);
    t->add_dims(c.batch);
    for (int32_t l : c.lens) t->add_int32_data(l);
    inputs[4] = "lens";
  }
  inputs.push_back(tensor("h0", state, c.h0));
  if (c.op == "LSTM") {
    inputs.push_back(tensor("c0", state, c.c0));
    inputs.push_back(tensor("P", {D, 3 * H}, c.p));
  }
  while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
  std::vector<std::string> outputs = {"Y", "Y_h"};
  if (c.op == "LSTM") outputs.push_back("Y_c");
  onnx::NodeProto& n = b.node(c.op, inputs, outputs, "rnn0");
  set_attr(n, "hidden_size", H);
  set_attr(n, "direction", c.direction);
  if (opset >= 14) set_attr(n, "layout", int64_t{c.batch_first ? 1 : 0});
  if (c.linear_before_reset) set_attr(n, "linear_before_reset", int64_t{1});
  if (c.input_forget) set_attr(n, "input_forget", int64_t{1});
  if (c.clip > 0) set_attr(n, "clip", c.clip);
  if (!c.acts.empty()) {
    std::vector<std::string> names;
    std::vector<float> alphas, betas;
    const size_t listed = c.acts_once ? c.acts.size() / 2 : c.acts.size();
    for (size_t k = 0; k < listed; ++k) {
      const Act& a = c.acts[k];
      names.push_back(a.name);
      const bool beta = a.name == "ScaledTanh" || a.name == "HardSigmoid" || a.name == "Affine";
      if (beta || a.name == "LeakyRelu" || a.name == "Elu" || a.name == "ThresholdedRelu") {
        alphas.push_back(static_cast<float>(a.alpha));
      }
      if (beta) betas.push_back(static_cast<float>(a.beta));
    }
    set_strings(n, "activations", names);
    if (!alphas.empty()) set_floats(n, "activation_alpha", alphas);
    if (!betas.empty()) set_floats(n, "activation_beta", betas);
  }
  for (const std::string& o : outputs) b.output(o);
  return b;
}

/// Imports, lowers, emits and runs `b` on `inputs`; the outputs as floats.
std::vector<std::vector<float>> run(ModelBuilder& b, std::vector<runtime::OwnedTensor>& inputs,
                                    ir::ExportedProgram* aten_out = nullptr,
                                    const OnnxImportOptions& options = {}) {
  ir::ExportedProgram aten = import(b, options);
  if (aten_out != nullptr) *aten_out = aten;
  ir::ExportedProgram edge = program::to_edge(aten);
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) /
       (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".pte"))
          .string();
  emit::export_pte({{"forward", edge}}, emit::EmitConfig{}, path);
  EXPECT_EQ(kernels::register_portable_kernels(), Error::Ok);
  runtime::Module module(path);
  std::vector<runtime::EValue> args;
  for (runtime::OwnedTensor& t : inputs) args.push_back(t.evalue());
  Result<std::vector<runtime::EValue>> out = module.forward(args);
  std::vector<std::vector<float>> result;
  EXPECT_TRUE(out.ok());
  if (!out.ok()) return result;
  for (const runtime::EValue& v : *out) {
    const runtime::Tensor& t = v.to_tensor();
    const float* p = t.const_data_ptr<float>();
    result.emplace_back(p, p + t.numel());
  }
  std::filesystem::remove(path);
  return result;
}

std::vector<int32_t> i32(std::initializer_list<int64_t> s) { return {s.begin(), s.end()}; }

void expect_near(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 2e-5) << what << " element " << i;
  }
}

/// Runs `c` with X (and, when `weights_as_inputs`, the weights) as inputs and compares every
/// output with the reference.
ir::ExportedProgram check(const Case& c, bool weights_as_inputs = false, int64_t opset = 14) {
  ModelBuilder b = build(c, weights_as_inputs, opset);
  std::vector<runtime::OwnedTensor> inputs;
  const int32_t S = static_cast<int32_t>(c.seq), B = static_cast<int32_t>(c.batch);
  const int32_t I = static_cast<int32_t>(c.input), H = static_cast<int32_t>(c.hidden);
  const int32_t D = static_cast<int32_t>(c.dirs()), GH = static_cast<int32_t>(c.gates() * c.hidden);
  inputs.push_back(runtime::OwnedTensor::from<float>(
      DType::Float, c.batch_first ? std::vector<int32_t>{B, S, I} : std::vector<int32_t>{S, B, I},
      c.x));
  if (weights_as_inputs) {
    inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {D, GH, I}, c.w));
    inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {D, GH, H}, c.r));
    if (!c.b.empty())
      inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {D, 2 * GH}, c.b));
    const std::vector<int32_t> state =
        c.batch_first ? std::vector<int32_t>{B, D, H} : std::vector<int32_t>{D, B, H};
    if (!c.h0.empty())
      inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, state, c.h0));
    if (!c.c0.empty())
      inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, state, c.c0));
    if (!c.p.empty())
      inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {D, 3 * H}, c.p));
  }
  ir::ExportedProgram aten;
  const std::vector<std::vector<float>> got = run(b, inputs, &aten);
  const Outputs want = reference(c);
  EXPECT_EQ(got.size(), c.op == "LSTM" ? 3u : 2u);
  if (got.size() >= 2) {
    expect_near(got[0], want.y, "Y");
    expect_near(got[1], want.y_h, "Y_h");
  }
  if (got.size() >= 3) expect_near(got[2], want.y_c, "Y_c");
  return aten;
}

Case make(const std::string& op, int64_t seq, int64_t batch, int64_t input, int64_t hidden,
          const std::string& direction, bool batch_first) {
  Case c;
  c.op = op;
  c.seq = seq;
  c.batch = batch;
  c.input = input;
  c.hidden = hidden;
  c.direction = direction;
  c.batch_first = batch_first;
  const size_t D = static_cast<size_t>(c.dirs()), GH = static_cast<size_t>(c.gates() * hidden);
  const size_t state = D * static_cast<size_t>(batch * hidden);
  c.x = values(static_cast<size_t>(seq * batch * input), 1, 1.0f);
  c.w = values(D * GH * static_cast<size_t>(input), 2);
  c.r = values(D * GH * static_cast<size_t>(hidden), 3);
  c.b = values(D * 2 * GH, 4, 0.3f);
  c.h0 = values(state, 5);
  if (op == "LSTM") {
    c.c0 = values(state, 6);
    c.p = values(D * 3 * static_cast<size_t>(hidden), 7);
  }
  return c;
}

size_t count(const ir::ExportedProgram& p, const std::string& target) {
  size_t n = 0;
  for (const std::string& t : calls(p)) n += t == target ? 1 : 0;
  return n;
}

// --- tests -------------------------------------------------------------------------------------

TEST(Recurrent, LstmBidirectionalBatchFirstSequenceLens) {
  Case c = make("LSTM", 4, 3, 5, 3, "bidirectional", true);
  c.lens = i32({4, 1, 3});
  const ir::ExportedProgram p = check(c);
  // Initializer weights are sliced and transposed at import: no permute / select of W or R.
  EXPECT_EQ(count(p, "aten::permute_copy"), 0u);
  // The reverse direction of the shorter entries reads X through a gather (and maps Y back).
  EXPECT_EQ(count(p, "aten::gather"), 2u);
}

TEST(Recurrent, LstmReverseInputForgetClipZeroLength) {
  Case c = make("LSTM", 3, 2, 2, 4, "reverse", false);
  c.lens = i32({0, 2});
  c.input_forget = true;
  c.clip = 0.6f;
  c.p.clear();
  check(c);
}

TEST(Recurrent, GruBidirectionalBatchFirstLinearBeforeReset) {
  Case c = make("GRU", 4, 3, 2, 3, "bidirectional", true);
  c.lens = i32({3, 0, 4});
  c.linear_before_reset = true;
  check(c);
}

TEST(Recurrent, GruBidirectionalRunTimeWeights) {
  Case c = make("GRU", 3, 2, 4, 3, "bidirectional", false);
  c.h0.clear();
  const ir::ExportedProgram p = check(c, /*weights_as_inputs=*/true);
  EXPECT_GT(count(p, "aten::permute_copy"), 0u);  // W, R transposed at run time
}

TEST(Recurrent, LstmRunTimeWeightsBatchFirstSequenceLens) {
  Case c = make("LSTM", 3, 2, 2, 2, "bidirectional", true);
  c.lens = i32({2, 3});
  check(c, /*weights_as_inputs=*/true);
}

TEST(Recurrent, RnnActivationsAlphaBeta) {
  Case c = make("RNN", 3, 2, 3, 4, "bidirectional", true);
  c.lens = i32({1, 3});
  // alpha / beta are consumed in order by the activations that take them.
  c.acts = {{"LeakyRelu", 0.1, 0}, {"ScaledTanh", 0.8, 1.5}};
  check(c);
}

TEST(Recurrent, GruBidirectionalOneActivationList) {
  // One direction's activations (with their alpha / beta) serve both directions.
  Case c = make("GRU", 3, 2, 2, 3, "bidirectional", false);
  c.acts = {{"HardSigmoid", 0.3, 0.45},
            {"LeakyRelu", 0.2, 0},
            {"HardSigmoid", 0.3, 0.45},
            {"LeakyRelu", 0.2, 0}};
  c.acts_once = true;
  check(c);
}

TEST(Recurrent, LstmHardSigmoidSoftsignNoBias) {
  Case c = make("LSTM", 2, 2, 3, 2, "forward", false);
  c.b.clear();
  c.acts = {{"HardSigmoid", 0.3, 0.4}, {"Softsign"}, {"Tanh"}};
  check(c);
}

TEST(Recurrent, RnnEluSoftplusOpset7) {
  Case c = make("RNN", 3, 2, 3, 4, "bidirectional", false);
  c.lens = i32({3, 2});
  c.acts = {{"Elu", 0.7, 0}, {"Softplus"}};
  check(c, false, 7);
}

TEST(Recurrent, LstmAffineThresholdedReluRelu) {
  Case c = make("LSTM", 3, 2, 3, 2, "forward", false);
  c.acts = {{"Affine", 0.5, 0.2}, {"ThresholdedRelu", 0.1, 0}, {"Relu"}};
  check(c);
}

TEST(Recurrent, GruSymbolicBatch) {
  // A symbolic batch: the input projection is one addmm per step; the program runs at a batch
  // below the bound.
  Case c = make("GRU", 3, 2, 3, 4, "bidirectional", true);
  c.h0.clear();
  ModelBuilder b = build(c, false);
  b.graph()
      .mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_param("batch");
  OnnxImportOptions options;
  options.dynamic_dims.push_back(DynamicDim{"X", 0, "batch", 1, 4});
  std::vector<runtime::OwnedTensor> inputs;
  inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {2, 3, 3}, c.x));
  ir::ExportedProgram aten;
  const std::vector<std::vector<float>> got = run(b, inputs, &aten, options);
  // Per direction: the x projection at each of 3 steps, and H·R_zrᵀ, (r ⊙ H)·R_hᵀ at the 2
  // steps after the first (the initial state is zero).
  EXPECT_EQ(count(aten, "aten::addmm"), 2u * (3u + 2u * 2u));
  const Outputs want = reference(c);
  ASSERT_EQ(got.size(), 2u);
  expect_near(got[0], want.y, "Y");
  expect_near(got[1], want.y_h, "Y_h");
}

TEST(Recurrent, DynamicSequenceLengthFails) {
  ModelBuilder b(14);
  b.input("X", {std::string("seq"), 2, 3});
  b.init_float("W", {1, 4, 3}, values(12, 1));
  b.init_float("R", {1, 4, 4}, values(16, 2));
  onnx::NodeProto& n = b.node("RNN", {"X", "W", "R"}, {"Y"}, "rnn_dyn");
  set_attr(n, "hidden_size", int64_t{4});
  b.output("Y");
  OnnxImportOptions options;
  options.dynamic_dims.push_back(DynamicDim{"X", 0, "seq", 1, 8});
  try {
    import(b, options);
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("rnn_dyn"), std::string::npos) << what;
    EXPECT_NE(what.find("X ('X') has a dynamic sequence length"), std::string::npos) << what;
  }
}

TEST(Recurrent, RunTimeSequenceLensFails) {
  ModelBuilder b(14);
  b.input("X", {3, 2, 3});
  b.input("lens", {2}, onnx::TensorProto::INT32);
  b.init_float("W", {1, 4, 3}, values(12, 1));
  b.init_float("R", {1, 4, 4}, values(16, 2));
  onnx::NodeProto& n = b.node("RNN", {"X", "W", "R", "", "lens"}, {"Y"}, "rnn_lens");
  set_attr(n, "hidden_size", int64_t{4});
  b.output("Y");
  try {
    import(b);
    FAIL() << "expected an error";
  } catch (const Exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("rnn_lens"), std::string::npos) << what;
    EXPECT_NE(what.find("('lens') is computed at run time"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace ptec::onnx_import::testing
