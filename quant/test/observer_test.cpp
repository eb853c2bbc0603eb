#include "quant/observer.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ir/exception.h"

namespace ptec::quant {
namespace {

QuantizationSpec act_spec(ObserverKind kind) {
  QuantizationSpec s = get_symmetric_quantization_config().input_activation.value();
  s.observer = kind;
  return s;
}

// Mean squared error of quantizing `x` with `q` (per tensor).
double quant_mse(const std::vector<float>& x, const QParams& q) {
  double e = 0;
  for (float v : x) {
    const double d = v - q.dequantize(q.quantize(v));
    e += d * d;
  }
  return e / static_cast<double>(x.size());
}

TEST(QParams, AffineAndSymmetricFromRange) {
  QuantizationSpec a = act_spec(ObserverKind::MinMax);
  QParams q = qparams_from_range(a, -1.0, 3.0);
  EXPECT_NEAR(q.scales[0], 4.0 / 255.0, 1e-7);
  EXPECT_EQ(q.zero_points[0], -128 - static_cast<int64_t>(std::nearbyint(-1.0 / q.scales[0])));
  EXPECT_EQ(q.quantize(0.0), q.zero_points[0]);  // zero is exact
  // The range is extended to contain 0.
  QParams pos = qparams_from_range(a, 2.0, 4.0);
  EXPECT_EQ(pos.zero_points[0], -128);
  EXPECT_NEAR(pos.scales[0], 4.0 / 255.0, 1e-7);

  QuantizationSpec w = get_symmetric_quantization_config(false).weight.value();
  QParams s = qparams_from_range(w, -0.5, 0.25);
  EXPECT_EQ(s.zero_points[0], 0);
  EXPECT_NEAR(s.scales[0], 0.5 / 127.0, 1e-8);
  EXPECT_EQ(s.quantize(-0.5), -127);
  EXPECT_EQ(s.quantize(10.0), 127);  // saturates
  // A range of zero still gives a positive scale.
  EXPECT_GT(qparams_from_range(a, 0.0, 0.0).scales[0], 0.0);
}

TEST(MinMaxObserver, RunningRangeAndMovingAverage) {
  MinMaxObserver mm(act_spec(ObserverKind::MinMax));
  EXPECT_THROW((void)mm.calculate_qparams(), Exception);  // nothing seen yet
  const std::vector<float> a = {-1.f, 0.5f, NAN}, b = {2.f, 0.f};
  mm.observe(a.data(), {3});
  mm.observe(b.data(), {2});
  EXPECT_EQ(mm.min(), -1.0);
  EXPECT_EQ(mm.max(), 2.0);
  const std::vector<float> inf = {INFINITY};
  EXPECT_THROW(mm.observe(inf.data(), {1}), Exception);

  QuantizationSpec s = act_spec(ObserverKind::MovingAverageMinMax);
  s.averaging_constant = 0.5;
  MovingAverageMinMaxObserver ma(s);
  ma.observe(a.data(), {3});
  ma.observe(b.data(), {2});
  EXPECT_DOUBLE_EQ(ma.min(), -0.5);  // -1 + 0.5 * (0 - -1)
  EXPECT_DOUBLE_EQ(ma.max(), 1.25);  // 0.5 + 0.5 * (2 - 0.5)
}

TEST(PerChannelMinMaxObserver, ChannelsAlongAxis) {
  QuantizationSpec w = get_symmetric_quantization_config(true).weight.value();
  w.ch_axis = 1;
  PerChannelMinMaxObserver o(w);
  // [2, 3]: column c holds c+1 and -(c+1)/2.
  const std::vector<float> x = {1.f, 2.f, 3.f, -0.5f, -1.f, -1.5f};
  o.observe(x.data(), {2, 3});
  QParams q = o.calculate_qparams();
  ASSERT_EQ(q.scales.size(), 3u);
  ASSERT_TRUE(q.axis.has_value());
  EXPECT_EQ(*q.axis, 1);
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_NEAR(q.scales[c], static_cast<double>(c + 1) / 127.0, 1e-7);
    EXPECT_EQ(q.zero_points[c], 0);
  }
}

TEST(PerGroupMinMaxObserver, Int4Groups) {
  QuantizationSpec w = get_int4_weight_only_config(2).weight.value();
  PerGroupMinMaxObserver o(w);
  const std::vector<float> x = {1.f, -2.f, 0.5f, 0.25f, 3.f, 3.f, -7.5f, 1.f};  // [2, 4]
  o.observe(x.data(), {2, 4});
  QParams q = o.calculate_qparams();
  ASSERT_EQ(q.scales.size(), 4u);  // 2 rows x 2 groups
  EXPECT_NEAR(q.scales[0], 2.0 / 7.5, 1e-7);
  EXPECT_NEAR(q.scales[3], 7.5 / 7.5, 1e-7);
  EXPECT_EQ(q.quantize(-7.5, 3), -8);
  EXPECT_EQ(q.quantize(7.5, 3), 7);
  const std::vector<float> odd = {1.f, 2.f, 3.f};
  PerGroupMinMaxObserver o2(w);
  EXPECT_THROW(o2.observe(odd.data(), {1, 3}), Exception);  // K not a multiple of 2
  EXPECT_THROW(get_int4_weight_only_config(0), Exception);
}

TEST(HistogramObserver, MseRangeOfALaplacian) {
  // A unit Laplacian: the 8-bit range with the smallest squared error is +-a with
  // a e^a = 255^2 * 3 (rounding noise a^2 / 195075 against clipping noise 2 e^-a): a = 9.9,
  // inside the sample's min / max (about +-12 for 200000 samples).
  std::mt19937 rng(7);
  std::exponential_distribution<float> exp(1.0f);
  std::bernoulli_distribution sign(0.5);
  std::vector<float> x(200000);
  for (float& v : x) v = sign(rng) ? exp(rng) : -exp(rng);
  HistogramObserver h(act_spec(ObserverKind::HistogramMse));
  // Fed in chunks whose ranges grow, so the histogram re-bins.
  std::sort(x.begin(), x.end(), [](float a, float b) { return std::abs(a) < std::abs(b); });
  h.observe(x.data(), {100000});
  h.observe(x.data() + 100000, {100000});
  const auto [lo, hi] = h.chosen_range();
  EXPECT_GT(hi, 8.5);
  EXPECT_LT(hi, 11.5);
  EXPECT_LT(lo, -8.5);
  EXPECT_GT(lo, -11.5);
  MinMaxObserver mm(act_spec(ObserverKind::MinMax));
  mm.observe(x.data(), {static_cast<int64_t>(x.size())});
  EXPECT_GT(mm.max(), hi);
  const double e_hist = quant_mse(x, h.calculate_qparams());
  const double e_minmax = quant_mse(x, mm.calculate_qparams());
  EXPECT_LT(e_hist, e_minmax * 0.9) << e_hist << " vs " << e_minmax;
  // The histogram's expected error agrees with the measured one (within 25%).
  EXPECT_NEAR(h.expected_error(lo, hi), e_hist, 0.25 * e_hist);
  // Clipping harder or not at all is worse.
  EXPECT_LT(h.expected_error(lo, hi), h.expected_error(lo / 2, hi / 2));
  EXPECT_LT(h.expected_error(lo, hi), h.expected_error(mm.min(), mm.max()));
}

TEST(HistogramObserver, MseRangeKeepsLoneOutliers) {
  // Two values at +-60 among 200000 of a unit Laplacian: clipping them would cost (60 - a)^2
  // each, more than the coarser rounding of a range that holds them.
  std::mt19937 rng(7);
  std::exponential_distribution<float> exp(1.0f);
  std::vector<float> x(200000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = i % 2 ? exp(rng) : -exp(rng);
  x[0] = 60.f;
  x[1] = -60.f;
  HistogramObserver h(act_spec(ObserverKind::HistogramMse));
  h.observe(x.data(), {static_cast<int64_t>(x.size())});
  const auto [lo, hi] = h.chosen_range();
  EXPECT_GT(hi, 30.0);
  EXPECT_LT(lo, -30.0);
  EXPECT_LT(h.expected_error(lo, hi), h.expected_error(-10, 10));
}

TEST(HistogramObserver, PercentileOfUniform) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> x(100000);
  for (float& v : x) v = u(rng);
  x[5] = 100.f;
  QuantizationSpec s = act_spec(ObserverKind::HistogramPercentile);
  s.percentile = 99.0;
  HistogramObserver h(s);
  h.observe(x.data(), {static_cast<int64_t>(x.size())});
  const auto [lo, hi] = h.chosen_range();
  EXPECT_NEAR(hi, 0.99, 0.06);  // bins are 100 / 2048 wide
  EXPECT_NEAR(lo, 0.01, 0.06);
  const QParams q = h.calculate_qparams();
  EXPECT_EQ(q.zero_points[0], -128);  // the range starts at 0
}

TEST(MakeObserver, KindsAndDynamic) {
  EXPECT_NE(dynamic_cast<HistogramObserver*>(
                make_observer(get_symmetric_quantization_config().input_activation.value()).get()),
            nullptr);
  EXPECT_NE(dynamic_cast<PerChannelMinMaxObserver*>(
                make_observer(get_symmetric_quantization_config().weight.value()).get()),
            nullptr);
  EXPECT_THROW(
      make_observer(get_symmetric_quantization_config(true, true).input_activation.value()),
      Exception);
}

}  // namespace
}  // namespace ptec::quant
