#include "kernels/optimized/activation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace ptec::kernels::optimized {
namespace {

TEST(ExpApprox, WithinTwoUlpOfStdExpOverItsRange) {
  for (float v = -87.0f; v <= 88.0f; v += 0.01173f) {
    const float want = std::exp(v);
    ASSERT_NEAR(exp_approx(v), want, 2.5e-7f * want) << v;
  }
}

TEST(ExpApprox, ExtremesAndNaN) {
  EXPECT_GT(exp_approx(200.0f), 1e38f);  // saturates instead of overflowing
  EXPECT_LT(exp_approx(-200.0f), 2e-38f);
  EXPECT_GE(exp_approx(-200.0f), 0.0f);
  EXPECT_TRUE(std::isnan(exp_approx(std::numeric_limits<float>::quiet_NaN())));
}

TEST(Activation, InPlaceLoopsMatchTheScalarDefinitions) {
  std::vector<float> x;
  for (float v = -30.0f; v <= 30.0f; v += 0.37f) x.push_back(v);
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  for (Activation a : {Activation::Sigmoid, Activation::Silu}) {
    std::vector<float> y = x;
    activate_in_place(y.data(), static_cast<int64_t>(y.size()), a, 0.0f, 0.0f);
    for (size_t i = 0; i + 1 < x.size(); ++i) {
      const float s = 1.0f / (1.0f + std::exp(-x[i]));
      const float want = a == Activation::Sigmoid ? s : x[i] * s;
      ASSERT_NEAR(y[i], want, 1e-6f * std::max(1.0f, std::fabs(want))) << x[i];
    }
    EXPECT_TRUE(std::isnan(y.back()));
  }
}

}  // namespace
}  // namespace ptec::kernels::optimized
