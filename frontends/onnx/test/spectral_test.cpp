// DFT, STFT and MelWeightMatrix (frontends/onnx/ops/spectral.cpp) against direct evaluations of
// their definitions, through the portable kernels.

#include <cmath>
#include <complex>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frontends/onnx/test/run_util.h"

namespace ptec::onnx_import::testing {
namespace {

using Complex = std::complex<double>;

std::vector<float> signal(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v[i] = static_cast<float>(seed >> 8) / static_cast<float>(1u << 24) - 0.5f;
  }
  return v;
}

/// sum_t x[t] e^{-+2 pi i k t / n} (divided by n for the inverse), k < bins.
std::vector<Complex> direct_dft(const std::vector<Complex>& x, size_t n, size_t bins,
                                bool inverse) {
  std::vector<Complex> out(bins);
  for (size_t k = 0; k < bins; ++k) {
    for (size_t t = 0; t < n && t < x.size(); ++t) {
      const double angle =
          2 * std::numbers::pi * static_cast<double>(k * t) / static_cast<double>(n);
      out[k] += x[t] * std::polar(1.0, inverse ? angle : -angle);
    }
    if (inverse) out[k] /= static_cast<double>(n);
  }
  return out;
}

void expect_near(const std::vector<float>& got, const std::vector<Complex>& want) {
  ASSERT_EQ(got.size(), 2 * want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_NEAR(got[2 * k], want[k].real(), 1e-4) << "bin " << k << " (re)";
    EXPECT_NEAR(got[2 * k + 1], want[k].imag(), 1e-4) << "bin " << k << " (im)";
  }
}

std::vector<PortableProgram::Output> run_with(ModelBuilder& b, std::vector<int64_t> sizes,
                                              const std::vector<float>& x) {
  PortableProgram program(b);
  std::vector<runtime::OwnedTensor> inputs;
  std::vector<int32_t> s(sizes.begin(), sizes.end());
  inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, s, x));
  return program.run(inputs);
}

// A real signal [1, 8, 1] zero-padded to 10 points, one-sided: 6 bins.
TEST(Spectral, RealDftPaddedAndOneSided) {
  ModelBuilder b(17);
  b.input("x", {1, 8, 1});
  b.init_int64("len", {}, {10});
  set_attr(b.node("DFT", {"x", "len"}, {"y"}), "onesided", int64_t{1});
  b.output("y", onnx::TensorProto::FLOAT, {1, 6, 2});
  const std::vector<float> x = signal(8, 1);
  const auto out = run_with(b, {1, 8, 1}, x);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].sizes, (std::vector<int32_t>{1, 6, 2}));
  expect_near(out[0].values, direct_dft(std::vector<Complex>(x.begin(), x.end()), 10, 6, false));
}

// A complex signal [1, 2, 5, 2] transformed along axis 2, then back: the inverse scales by 1/n.
TEST(Spectral, ComplexDftAlongAnAxisAndItsInverse) {
  ModelBuilder b(17);
  b.input("x", {1, 2, 5, 2});
  set_attr(b.node("DFT", {"x"}, {"f"}), "axis", int64_t{2});
  onnx::NodeProto& inv = b.node("DFT", {"f"}, {"y"});
  set_attr(inv, "axis", int64_t{2});
  set_attr(inv, "inverse", int64_t{1});
  b.output("f", onnx::TensorProto::FLOAT, {1, 2, 5, 2});
  b.output("y", onnx::TensorProto::FLOAT, {1, 2, 5, 2});
  const std::vector<float> x = signal(20, 2);
  const auto out = run_with(b, {1, 2, 5, 2}, x);
  ASSERT_EQ(out.size(), 2u);
  for (size_t row = 0; row < 2; ++row) {
    std::vector<Complex> z(5);
    for (size_t t = 0; t < 5; ++t) z[t] = {x[row * 10 + 2 * t], x[row * 10 + 2 * t + 1]};
    const std::vector<float> got(out[0].values.begin() + static_cast<long>(row * 10),
                                 out[0].values.begin() + static_cast<long>(row * 10 + 10));
    expect_near(got, direct_dft(z, 5, 5, false));
  }
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(out[1].values[i], x[i], 1e-5) << i;
}

// Frames of 8 every 3 samples of a 20-sample signal (5 frames), times a window, one-sided.
TEST(Spectral, StftMatchesFramedDft) {
  ModelBuilder b(17);
  b.input("x", {1, 20, 1});
  b.init_int64("step", {}, {3});
  std::vector<float> window(8);
  for (size_t i = 0; i < 8; ++i)
    window[i] = 0.5f - 0.5f * std::cos(2 * std::numbers::pi_v<float> * i / 8);
  b.init_float("window", {8}, window);
  b.node("STFT", {"x", "step", "window"}, {"y"});
  b.output("y", onnx::TensorProto::FLOAT, {1, 5, 5, 2});
  const std::vector<float> x = signal(20, 3);
  const auto out = run_with(b, {1, 20, 1}, x);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].sizes, (std::vector<int32_t>{1, 5, 5, 2}));
  for (size_t f = 0; f < 5; ++f) {
    std::vector<Complex> frame(8);
    for (size_t j = 0; j < 8; ++j) frame[j] = x[f * 3 + j] * window[j];
    const std::vector<float> got(out[0].values.begin() + static_cast<long>(f * 10),
                                 out[0].values.begin() + static_cast<long>(f * 10 + 10));
    expect_near(got, direct_dft(frame, 8, 5, false));
  }
}

// 4 mel filters over a 16-point DFT at 8 kHz: triangles of peak 1 that touch their neighbours'
// centers, every weight in [0, 1].
TEST(Spectral, MelWeightMatrixIsEvaluatedAtImport) {
  auto make = [] {
    ModelBuilder b(17);
    b.input("x", {1, 9});
    b.init_int64("mels", {}, {4});
    b.init_int64("dft", {}, {16});
    b.init_int64("rate", {}, {8000});
    b.init_float("lo_hz", {1}, {20.0f});
    b.init_float("hi_hz", {1}, {4000.0f});
    b.node("MelWeightMatrix", {"mels", "dft", "rate", "lo_hz", "hi_hz"}, {"w"});
    b.node("MatMul", {"x", "w"}, {"y"});
    b.output("y", onnx::TensorProto::FLOAT, {1, 4});
    return b;
  };
  ModelBuilder first = make();
  EXPECT_EQ(calls(import(first)), (std::vector<std::string>{"aten::mm"}));  // a constant matrix
  // A one-hot spectrum picks a row of the matrix: each filter's peak bin gives 1 there.
  ModelBuilder b = make();
  PortableProgram program(b);
  std::vector<float> peaks(4, 0.0f);
  for (int32_t bin = 0; bin < 9; ++bin) {
    std::vector<float> onehot(9, 0.0f);
    onehot[static_cast<size_t>(bin)] = 1.0f;
    std::vector<runtime::OwnedTensor> inputs;
    inputs.push_back(runtime::OwnedTensor::from<float>(DType::Float, {1, 9}, onehot));
    const auto out = program.run(inputs);
    ASSERT_EQ(out.size(), 1u);
    for (size_t m = 0; m < 4; ++m) {
      EXPECT_GE(out[0].values[m], 0.0f);
      EXPECT_LE(out[0].values[m], 1.0f);
      peaks[m] = std::max(peaks[m], out[0].values[m]);
    }
  }
  EXPECT_EQ(peaks, (std::vector<float>{1, 1, 1, 1}));
}

}  // namespace
}  // namespace ptec::onnx_import::testing
