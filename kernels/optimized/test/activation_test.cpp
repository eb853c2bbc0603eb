#include "kernels/optimized/activation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "kernels/optimized/gemm.h"

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

double reference(Activation a, double v) {
  switch (a) {
    case Activation::Sigmoid: return 1.0 / (1.0 + std::exp(-v));
    case Activation::Silu: return v / (1.0 + std::exp(-v));
    case Activation::Tanh: return std::tanh(v);
    case Activation::Gelu: return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    case Activation::HardSwish: return v * std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0;
    case Activation::LeakyRelu: return v > 0.0 ? v : v * 0.125;  // the slope passed below
    default: return v;
  }
}

// Tolerance of activation_simd.h (and of the scalar path, which is tighter).
double tolerance(Activation a, double v, double want) {
  switch (a) {
    case Activation::Tanh: return 2e-7;
    case Activation::Gelu: return 1e-6 * std::max(1.0, std::fabs(v));
    default: return 1e-6 * std::max(1.0, std::fabs(want));
  }
}

class ActivationIsa : public ::testing::TestWithParam<GemmIsa> {
 protected:
  void SetUp() override {
    if (!set_gemm_isa(GetParam())) GTEST_SKIP() << to_string(GetParam()) << " not on this CPU";
  }
  void TearDown() override { set_gemm_isa(detected_gemm_isa()); }
};

TEST_P(ActivationIsa, InPlaceLoopsMatchTheDefinitions) {
  std::vector<float> x;
  for (float v = -30.0f; v <= 30.0f; v += 0.0371f) x.push_back(v);
  for (float v : {0.0f, -0.0f, 1e-6f, -1e-6f, 0.6249f, 0.6251f, -0.6251f, 90.0f, -90.0f}) {
    x.push_back(v);
  }
  const size_t finite = x.size();
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-std::numeric_limits<float>::infinity());
  x.push_back(std::numeric_limits<float>::quiet_NaN());
  // Every length up to two vectors and then some: the loops' tails.
  for (Activation a : {Activation::Sigmoid, Activation::Silu, Activation::Tanh, Activation::Gelu,
                       Activation::HardSwish, Activation::LeakyRelu}) {
    for (size_t n :
         {x.size(), size_t{1}, size_t{7}, size_t{9}, size_t{15}, size_t{17}, size_t{33}}) {
      std::vector<float> y(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n));
      const float guard = 12345.0f;
      y.push_back(guard);  // past the end: must stay
      activate_in_place(y.data(), static_cast<int64_t>(n), a, 0.125f, 0.0f);
      ASSERT_EQ(y.back(), guard) << static_cast<int>(a) << " wrote past " << n;
      for (size_t i = 0; i < std::min(n, finite); ++i) {
        const double want = reference(a, x[i]);
        ASSERT_NEAR(y[i], want, tolerance(a, x[i], want))
            << "activation " << static_cast<int>(a) << " at " << x[i] << " (n=" << n << ")";
        if (a == Activation::HardSwish || a == Activation::LeakyRelu) {  // exact: as activate()
          ASSERT_EQ(y[i], activate(x[i], a, 0.125f, 0.0f)) << int(a) << " at " << x[i];
        }
      }
      if (n == x.size()) {
        EXPECT_TRUE(std::isnan(y[x.size() - 1])) << static_cast<int>(a);
        // +-inf as the definitions give them (-inf: SiLU, GELU and hard swish NaN).
        for (size_t i = finite; i < finite + 2; ++i) {
          const double want = reference(a, x[i]);
          if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(y[i])) << static_cast<int>(a) << " at " << x[i];
          } else if (std::isinf(want)) {
            EXPECT_EQ(y[i], static_cast<float>(want)) << static_cast<int>(a) << " at " << x[i];
          } else {  // sigmoid's 0 (a denormal from the saturated exponent), tanh's -1
            EXPECT_NEAR(y[i], want, tolerance(a, x[i], want))
                << static_cast<int>(a) << " at " << x[i];
          }
        }
      }
    }
  }
}

// softmax_row against a double-precision softmax: rows shorter and longer than a vector, a wide
// spread (terms that underflow), masked (-infinity) entries, in place; NaN anywhere or a row of
// only -infinity gives NaN.
TEST_P(ActivationIsa, SoftmaxRowMatchesTheDefinition) {
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t n : {1, 5, 16, 17, 40, 197, 1000}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      x[static_cast<size_t>(i)] = static_cast<float>((i * 37) % 23) * 5.5f - 60.0f;
    }
    if (n > 3) x[2] = -inf;
    for (bool in_place : {false, true}) {
      std::vector<float> y(x.size() + 1, 7.0f);  // y[n] must stay
      if (in_place) std::copy(x.begin(), x.end(), y.begin());
      softmax_row(in_place ? y.data() : x.data(), y.data(), n);
      double mx = -inf, sum = 0.0;
      for (float v : x) mx = std::max(mx, static_cast<double>(v));
      for (float v : x) sum += std::exp(v - mx);
      for (size_t i = 0; i < x.size(); ++i) {
        const double want = std::exp(x[i] - mx) / sum;
        EXPECT_NEAR(y[i], want, 1e-6 * want + 1e-30) << "n=" << n << " i=" << i;
      }
      ASSERT_EQ(y[x.size()], 7.0f) << n;
      if (n > 3) {
        EXPECT_EQ(y[2], 0.0f);
      }
    }
    for (size_t bad = 0; bad < x.size(); bad += 7) {
      std::vector<float> z = x, y(x.size());
      z[bad] = std::numeric_limits<float>::quiet_NaN();
      softmax_row(z.data(), y.data(), n);
      for (float v : y) ASSERT_TRUE(std::isnan(v)) << "n=" << n << " NaN at " << bad;
    }
    std::vector<float> masked(x.size(), -inf), y(x.size());
    softmax_row(masked.data(), y.data(), n);
    for (float v : y) ASSERT_TRUE(std::isnan(v)) << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, ActivationIsa,
                         ::testing::Values(GemmIsa::Generic, GemmIsa::Avx2, GemmIsa::Avx512),
                         [](const auto& param_info) {
                           return std::string(to_string(param_info.param));
                         });

}  // namespace
}  // namespace ptec::kernels::optimized
