#include "kernels/optimized/layer_norm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace ptec::kernels::optimized {
namespace {

// Against a double-precision layer norm: rows shorter and longer than the lanes, with and without
// weight and bias, a mean far larger than the spread (two passes keep the variance), in place.
TEST(LayerNormRow, MatchesDoublePrecision) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t n : {1, 7, 16, 33, 192, 768, 4099}) {
    for (float offset : {0.0f, 1000.0f}) {
      std::vector<float> x(static_cast<size_t>(n)), w(x.size()), b(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        x[i] = offset + dist(rng);
        w[i] = dist(rng);
        b[i] = dist(rng);
      }
      double mean = 0.0, var = 0.0;
      for (float v : x) mean += v;
      mean /= static_cast<double>(n);
      for (float v : x) var += (v - mean) * (v - mean);
      var /= static_cast<double>(n);
      const double rstd = 1.0 / std::sqrt(var + 1e-5);
      for (int affine = 0; affine < 4; ++affine) {
        const bool has_w = (affine & 1) != 0, has_b = (affine & 2) != 0;
        for (bool in_place : {false, true}) {
          std::vector<float> y(x.size() + 1, 5.0f);  // y[n] must stay
          if (in_place) std::copy(x.begin(), x.end(), y.begin());
          layer_norm_row(in_place ? y.data() : x.data(), y.data(), n, has_w ? w.data() : nullptr,
                         has_b ? b.data() : nullptr, 1e-5f);
          ASSERT_EQ(y[x.size()], 5.0f);
          // A mean of 1000 leaves 2^-14 of float resolution in x itself: the tolerance scales.
          const double tol = offset == 0.0f ? 2e-5 : 2e-3;
          for (size_t i = 0; i < x.size(); ++i) {
            double want = (x[i] - mean) * rstd;
            if (has_w) want *= w[i];
            if (has_b) want += b[i];
            ASSERT_NEAR(y[i], want, tol) << "n=" << n << " offset=" << offset << " i=" << i;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace ptec::kernels::optimized
