#include "kernels/optimized/row_sum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace ptec::kernels::optimized {
namespace {

// Against a double-precision sum: rows shorter and longer than the 16 lanes, with a tail, and a
// 112 x 112 plane; nothing past n is read (the guard is NaN).
TEST(RowSum, MatchesDoublePrecision) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t n : {0, 1, 15, 16, 17, 49, 196, 4099, 12544}) {
    std::vector<float> x(static_cast<size_t>(n) + 1, std::numeric_limits<float>::quiet_NaN());
    double want = 0.0, magnitude = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      x[i] = 0.5f + dist(rng);
      want += x[i];
      magnitude += std::fabs(x[i]);
    }
    EXPECT_NEAR(row_sum(x.data(), n), want, 1e-6 * magnitude + 1e-7) << "n = " << n;
  }
}

// Element i goes to lane i % 16 and the lanes are added pairwise: a value far larger than the
// others cancels exactly against its negation in the same lane, where a running sum would have
// lost the small values added in between.
TEST(RowSum, AddsInSixteenLanes) {
  std::vector<float> x(64, 1.0f);
  x[0] = 1e8f;
  x[16] = -1e8f;
  EXPECT_EQ(row_sum(x.data(), 64), 62.0f);
}

TEST(RowSum, PropagatesNaNAndInfinity) {
  std::vector<float> x(40, 1.0f);
  x[21] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(row_sum(x.data(), 40), std::numeric_limits<float>::infinity());
  x[33] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(row_sum(x.data(), 40)));
}

}  // namespace
}  // namespace ptec::kernels::optimized
