// A GPT-style prefill/decode pair exported into one .pte: both methods run with outputs that
// match a reference computed here, the weights the methods share are stored once, and a
// constant method is exposed.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "program/edge_program_manager.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"
#include "tests/delegate/nested_backend.h"
#include "tests/delegate/test_models.h"

namespace ptec::test {
namespace {

namespace fs = std::filesystem;
using builder::GraphBuilder;
using builder::Value;

constexpr int64_t kVocab = 16;
constexpr int64_t kDim = 8;
constexpr int64_t kSeq = 4;

using Matrix = std::vector<float>;  // row-major

struct Weights {
  Matrix embedding, wq, wk, wv, wo, wout;  // [V,D], [D,D] x4, [D,V]
};

Weights make_weights() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  auto fill = [&](size_t n) {
    Matrix m(n);
    for (float& v : m) v = dist(rng);
    return m;
  };
  return {fill(kVocab * kDim), fill(kDim * kDim), fill(kDim * kDim),
          fill(kDim * kDim),   fill(kDim * kDim), fill(kDim * kVocab)};
}

/// Parameters with the same payload objects in every method (as an importer sharing one file).
struct SharedParams {
  ir::TensorData embedding, wq, wk, wv, wo, wout;
  explicit SharedParams(const Weights& w)
      : embedding(float_tensor({kVocab, kDim}, w.embedding)),
        wq(float_tensor({kDim, kDim}, w.wq)),
        wk(float_tensor({kDim, kDim}, w.wk)),
        wv(float_tensor({kDim, kDim}, w.wv)),
        wo(float_tensor({kDim, kDim}, w.wo)),
        wout(float_tensor({kDim, kVocab}, w.wout)) {}
};

struct Layer {
  Value embedding, wq, wk, wv, wo, wout;
};

Layer add_params(GraphBuilder& b, const SharedParams& p) {
  return {b.parameter("tok_embeddings.weight", p.embedding),
          b.parameter("attn.wq", p.wq),
          b.parameter("attn.wk", p.wk),
          b.parameter("attn.wv", p.wv),
          b.parameter("attn.wo", p.wo),
          b.parameter("output.weight", p.wout)};
}

/// Attention of q [n,D] over keys/values [m,D] (+ an additive mask [n,m] when given), the
/// output projection, the residual and the logits [n,V].
Value attend(GraphBuilder& b, const Layer& l, Value h, Value q, Value k, Value v,
             std::optional<Value> mask) {
  Value kt = b.call("aten::permute_copy", {k, std::vector<int64_t>{1, 0}});
  Value scores = b.call("aten::mm", {q, kt});
  scores = b.call("aten::mul.Scalar", {scores, 1.0 / std::sqrt(static_cast<double>(kDim))});
  if (mask) scores = b.call("aten::add.Tensor", {scores, *mask});
  Value probs = b.call("aten::_softmax", {scores, -1, false});
  Value ctx = b.call("aten::mm", {probs, v});
  Value o = b.call("aten::add.Tensor", {h, b.call("aten::mm", {ctx, l.wo})});
  return b.call("aten::mm", {o, l.wout}, {}, "logits");
}

/// prefill(tokens i64[S]) -> (logits [S,V], k [S,D], v [S,D]), causal.
ir::ExportedProgram prefill(const SharedParams& p) {
  GraphBuilder b("prefill");
  Value tokens = b.input("tokens", DType::Long, {kSeq});
  Layer l = add_params(b, p);
  Matrix mask(kSeq * kSeq, 0.0f);
  for (int64_t i = 0; i < kSeq; ++i) {
    for (int64_t j = i + 1; j < kSeq; ++j) mask[i * kSeq + j] = -1e9f;
  }
  Value m = b.constant("causal_mask", float_tensor({kSeq, kSeq}, mask));
  Value h = b.call("aten::embedding", {l.embedding, tokens});
  Value q = b.call("aten::mm", {h, l.wq});
  Value k = b.call("aten::mm", {h, l.wk}, {}, "k");
  Value v = b.call("aten::mm", {h, l.wv}, {}, "v");
  b.output({attend(b, l, h, q, k, v, m), k, v});
  return b.build();
}

/// decode(token i64[1], k_cache [S,D], v_cache [S,D]) -> logits [1,V].
ir::ExportedProgram decode(const SharedParams& p) {
  GraphBuilder b("decode");
  Value token = b.input("token", DType::Long, {1});
  Value k_cache = b.input("k_cache", DType::Float, {kSeq, kDim});
  Value v_cache = b.input("v_cache", DType::Float, {kSeq, kDim});
  Layer l = add_params(b, p);
  Value h = b.call("aten::embedding", {l.embedding, token});
  Value q = b.call("aten::mm", {h, l.wq});
  Value k = b.call("aten::cat", {std::vector<Value>{k_cache, b.call("aten::mm", {h, l.wk})}, 0});
  Value v = b.call("aten::cat", {std::vector<Value>{v_cache, b.call("aten::mm", {h, l.wv})}, 0});
  b.output({attend(b, l, h, q, k, v, std::nullopt)});
  return b.build();
}

// ---- reference ----

Matrix matmul(const Matrix& a, const Matrix& b, int64_t n, int64_t k, int64_t m) {
  Matrix out(n * m, 0.0f);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double s = 0;
      for (int64_t t = 0; t < k; ++t) s += double(a[i * k + t]) * b[t * m + j];
      out[i * m + j] = static_cast<float>(s);
    }
  return out;
}

/// Logits of the last `n` positions of `tokens` with causal attention over all of them.
Matrix reference_logits(const Weights& w, const std::vector<int64_t>& tokens, Matrix* k_out,
                        Matrix* v_out) {
  const auto s = static_cast<int64_t>(tokens.size());
  Matrix h(s * kDim);
  for (int64_t i = 0; i < s; ++i)
    for (int64_t d = 0; d < kDim; ++d) h[i * kDim + d] = w.embedding[tokens[i] * kDim + d];
  const Matrix q = matmul(h, w.wq, s, kDim, kDim), k = matmul(h, w.wk, s, kDim, kDim),
               v = matmul(h, w.wv, s, kDim, kDim);
  Matrix ctx(s * kDim, 0.0f);
  for (int64_t i = 0; i < s; ++i) {
    std::vector<double> p(i + 1);
    double mx = -1e30, sum = 0;
    for (int64_t j = 0; j <= i; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < kDim; ++d) dot += double(q[i * kDim + d]) * k[j * kDim + d];
      p[j] = dot / std::sqrt(double(kDim));
      mx = std::max(mx, p[j]);
    }
    for (double& x : p) sum += (x = std::exp(x - mx));
    for (int64_t j = 0; j <= i; ++j)
      for (int64_t d = 0; d < kDim; ++d) ctx[i * kDim + d] += float(p[j] / sum) * v[j * kDim + d];
  }
  Matrix o = matmul(ctx, w.wo, s, kDim, kDim);
  for (size_t i = 0; i < o.size(); ++i) o[i] += h[i];
  if (k_out) *k_out = k;
  if (v_out) *v_out = v;
  return matmul(o, w.wout, s, kDim, kVocab);
}

std::vector<float> values(const runtime::EValue& v) {
  const runtime::Tensor& t = v.to_tensor();
  return {t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel()};
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4f) << "at " << i;
}

TEST(PrefillDecodeTest, OneProgramTwoMethodsSharedWeightsAndAConstantMethod) {
  register_nested_backend();  // and the portable kernels
  const Weights w = make_weights();
  const SharedParams params(w);
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("prefill", prefill(params));
  programs.emplace("decode", decode(params));
  program::ToEdgeOptions options;
  options.constant_methods["max_seq_len"] = int64_t{kSeq};
  const auto et = program::to_edge(programs, options).to_executorch();
  EXPECT_EQ(et.methods(), (std::vector<std::string>{"decode", "prefill"}));
  EXPECT_EQ(et.config_methods(), (std::vector<std::string>{"max_seq_len"}));

  const fs::path dir = fs::path(PTEC_BINARY_DIR) / "tests" / "delegate" / "out" / "lm";
  fs::create_directories(dir);
  et.write_to_file((dir / "lm.pte").string());

  // Shared weights are stored once: the constant bytes are those of one copy of the weights
  // plus the mask, and the two-method file is smaller than the two single-method files.
  const uint64_t weight_bytes = (kVocab * kDim + 4 * kDim * kDim + kDim * kVocab) * sizeof(float);
  const uint64_t mask_bytes = kSeq * kSeq * sizeof(float);
  EXPECT_EQ(et.emitted().constant_bytes(), weight_bytes + mask_bytes);
  uint64_t separate = 0;
  for (const auto& [name, program] : programs) {
    std::map<std::string, ir::ExportedProgram> one;
    one.emplace(name, program);
    const auto single = program::to_edge(one, program::ToEdgeOptions{}).to_executorch();
    single.write_to_file((dir / (name + ".pte")).string());
    separate += fs::file_size(dir / (name + ".pte"));
  }
  const uint64_t both = fs::file_size(dir / "lm.pte");
  EXPECT_LT(both + weight_bytes / 2, separate);
  std::printf("[sizes] lm.pte %llu bytes; prefill.pte + decode.pte %llu bytes; weights %llu\n",
              static_cast<unsigned long long>(both), static_cast<unsigned long long>(separate),
              static_cast<unsigned long long>(weight_bytes));

  runtime::Module module((dir / "lm.pte").string());
  const std::vector<int64_t> prompt = {3, 1, 4, 1};
  Matrix k_ref, v_ref;
  const Matrix prefill_ref = reference_logits(w, prompt, &k_ref, &v_ref);
  auto tokens = runtime::OwnedTensor::from(DType::Long, {kSeq}, prompt);
  auto out = module.execute("prefill", {tokens.evalue()});
  ASSERT_TRUE(out.ok()) << to_string(out.error());
  ASSERT_EQ(out->size(), 3u);
  expect_near(values((*out)[0]), prefill_ref);
  expect_near(values((*out)[1]), k_ref);
  expect_near(values((*out)[2]), v_ref);

  // decode the next token against the cache prefill returned.
  std::vector<int64_t> full = prompt;
  full.push_back(5);
  const Matrix all = reference_logits(w, full, nullptr, nullptr);
  const Matrix decode_ref(all.end() - kVocab, all.end());
  auto k_cache = runtime::OwnedTensor::from(DType::Float, {kSeq, kDim}, values((*out)[1]));
  auto v_cache = runtime::OwnedTensor::from(DType::Float, {kSeq, kDim}, values((*out)[2]));
  auto token = runtime::OwnedTensor::from(DType::Long, {1}, std::vector<int64_t>{5});
  auto logits = module.execute("decode", {token.evalue(), k_cache.evalue(), v_cache.evalue()});
  ASSERT_TRUE(logits.ok()) << to_string(logits.error());
  expect_near(values((*logits)[0]), decode_ref);

  auto max_seq_len = module.execute("max_seq_len", {});
  ASSERT_TRUE(max_seq_len.ok());
  EXPECT_EQ((*max_seq_len)[0].to_int(), kSeq);
}

TEST(PrefillDecodeTest, IdenticalWeightBytesInSeparateBuffersAreStoredOnce) {
  // Two imports of the same weights (different Buffer objects, same bytes).
  const Weights w = make_weights();
  std::map<std::string, ir::ExportedProgram> programs;
  programs.emplace("prefill", prefill(SharedParams(w)));
  programs.emplace("decode", decode(SharedParams(w)));
  const auto et = program::to_edge(programs, program::ToEdgeOptions{}).to_executorch();
  const uint64_t weight_bytes = (kVocab * kDim + 4 * kDim * kDim + kDim * kVocab) * sizeof(float);
  EXPECT_EQ(et.emitted().constant_bytes(), weight_bytes + kSeq * kSeq * sizeof(float));
}

}  // namespace
}  // namespace ptec::test
