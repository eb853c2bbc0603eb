#include "kernels/optimized/gemm.h"
#include "kernels/optimized/threadpool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

namespace ptec::kernels::optimized {
namespace {

// 64-byte aligned float storage for packed operands and scratch.
struct Aligned {
  explicit Aligned(size_t bytes)
      : ptr(static_cast<float*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64))) {}
  ~Aligned() { std::free(ptr); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
  float* ptr;
};

std::vector<float> random_matrix(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// Reference in double: C = A * B with A (m x k) and B (k x n) in their stored layouts.
std::vector<double> reference(int64_t m, int64_t n, int64_t k, const std::vector<float>& a,
                              int64_t lda, bool ta, const std::vector<float>& b, int64_t ldb,
                              bool tb) {
  std::vector<double> c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t p = 0; p < k; ++p) {
        const double av = ta ? a[p * lda + i] : a[i * lda + p];
        const double bv = tb ? b[j * ldb + p] : b[p * ldb + j];
        s += av * bv;
      }
      c[i * n + j] = s;
    }
  }
  return c;
}

// Runs every case once per ISA this CPU has.
class Gemm : public ::testing::TestWithParam<GemmIsa> {
 protected:
  void SetUp() override {
    if (!set_gemm_isa(GetParam())) GTEST_SKIP() << "this CPU has no " << to_string(GetParam());
  }
  void TearDown() override { set_gemm_isa(detected_gemm_isa()); }
};

struct Shape {
  int64_t m, n, k;
};

TEST_P(Gemm, MatchesDoubleReferenceForEveryLayoutAndEdgeShape) {
  // Shapes straddle the tile sizes (4x8, 6x16, 8x32, 6x64) and the k blocks (512, 256, 128),
  // including 1 and primes. With AVX-512, N of 64, 100 and 33 take wide panels (packed per call),
  // 1100 of K in three slices.
  const Shape shapes[] = {{1, 1, 1},    {6, 16, 8},  {7, 17, 3},   {5, 9, 300},  {13, 31, 257},
                          {64, 64, 64}, {3, 100, 1}, {97, 5, 513}, {9, 33, 129}, {11, 100, 1100}};
  for (const Shape& s : shapes) {
    for (int ta = 0; ta < 2; ++ta) {
      for (int tb = 0; tb < 2; ++tb) {
        const int64_t lda = (ta ? s.m : s.k) + 3;  // padded leading dimensions
        const int64_t ldb = (tb ? s.k : s.n) + 2;
        const int64_t ldc = s.n + 5;
        const auto a = random_matrix((ta ? s.k : s.m) * lda, 1);
        const auto b = random_matrix((tb ? s.n : s.k) * ldb, 2);
        std::vector<float> c(static_cast<size_t>(s.m * ldc), 42.0f);
        Aligned scratch(gemm_scratch_bytes(s.m, s.n, s.k, false, false));
        ASSERT_TRUE(gemm(s.m, s.n, s.k, GemmOperand::matrix(a.data(), lda, ta),
                         GemmOperand::matrix(b.data(), ldb, tb), c.data(), ldc, {}, scratch.ptr));
        const auto ref = reference(s.m, s.n, s.k, a, lda, ta, b, ldb, tb);
        for (int64_t i = 0; i < s.m; ++i) {
          for (int64_t j = 0; j < s.n; ++j) {
            ASSERT_NEAR(c[i * ldc + j], ref[i * s.n + j], 1e-4 * std::sqrt(double(s.k)) + 1e-5)
                << s.m << "x" << s.n << "x" << s.k << " ta=" << ta << " tb=" << tb << " at (" << i
                << ", " << j << ")";
          }
          for (int64_t j = s.n; j < ldc; ++j) {
            ASSERT_EQ(c[i * ldc + j], 42.0f) << "wrote past column n";
          }
        }
      }
    }
  }
}

// gemm_indirect reads row p of B at rows[p]: here shifted, overlapping views of one buffer (as a
// direct convolution's taps are; the last row ends where the buffer does, so that a read past
// column N is an overflow under AddressSanitizer), for edge shapes in M and N, K over several
// slices, on one and two threads, with and without an epilogue. Columns past N are left alone.
TEST_P(Gemm, IndirectRowsMatchTheReference) {
  const Shape shapes[] = {{1, 1, 1}, {7, 17, 3}, {13, 31, 257}, {64, 70, 600}, {9, 33, 129}};
  for (int threads : {1, 2}) {
    ptec::set_num_threads(threads);
    for (const Shape& s : shapes) {
      const auto pool = random_matrix(3 * s.k + s.n, 12);
      std::vector<const float*> rows(static_cast<size_t>(s.k));
      std::vector<float> b(static_cast<size_t>(s.k * s.n));  // the same B, stored plainly
      for (int64_t p = 0; p < s.k; ++p) {
        rows[p] = p + 1 == s.k ? pool.data() + 3 * s.k : pool.data() + (p * 7) % (3 * s.k + 1);
        for (int64_t j = 0; j < s.n; ++j) b[p * s.n + j] = rows[p][j];
      }
      const auto a = random_matrix(s.m * s.k, 13);
      Aligned pa(packed_a_bytes(s.m, s.k));
      const PackedMatrix packed = pack_a(s.m, s.k, a.data(), s.k, false, pa.ptr);
      const int64_t ldc = s.n + 3;
      const auto bias = random_matrix(s.m, 16);
      const auto ref = reference(s.m, s.n, s.k, a, s.k, false, b, s.n, false);
      for (bool relu_bias : {false, true}) {
        GemmEpilogue e;
        if (relu_bias) {
          e.bias = bias.data();
          e.bias_per_row = true;
          e.activation = Activation::Relu;
        }
        std::vector<float> c(static_cast<size_t>(s.m * ldc), 42.0f);
        ASSERT_TRUE(gemm_indirect(s.m, s.n, s.k, packed, rows.data(), c.data(), ldc, e));
        for (int64_t i = 0; i < s.m; ++i) {
          for (int64_t j = 0; j < s.n; ++j) {
            double want = ref[i * s.n + j];
            if (relu_bias) want = std::max(0.0, want + bias[i]);
            ASSERT_NEAR(c[i * ldc + j], want, 1e-4 * std::sqrt(double(s.k)) + 1e-5)
                << s.m << "x" << s.n << "x" << s.k << " at (" << i << ", " << j << "), " << threads
                << " threads" << (relu_bias ? ", bias + relu" : "");
          }
          for (int64_t j = s.n; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], 42.0f) << "past column n";
        }
      }
    }
  }
  ptec::set_num_threads(0);
  // A packed for other shapes is refused.
  const auto a = random_matrix(8 * 8, 14);
  Aligned pa(packed_a_bytes(8, 8));
  const PackedMatrix packed = pack_a(8, 8, a.data(), 8, false, pa.ptr);
  std::vector<const float*> rows(9, a.data());
  std::vector<float> c(64);
  EXPECT_FALSE(gemm_indirect(8, 4, 9, packed, rows.data(), c.data(), 8));
  EXPECT_FALSE(gemm_indirect(7, 4, 8, packed, rows.data(), c.data(), 8));
  GemmEpilogue accumulate;
  accumulate.beta_one = true;
  EXPECT_FALSE(gemm_indirect(8, 4, 8, packed, rows.data(), c.data(), 8, accumulate));
}

// With a column map, gemm_indirect stores column j at (j / pitch) * width + j % pitch of C's row
// when j % pitch < width and drops it otherwise, applying bias, residual (C's layout) and every
// activation as the plain product would have them; nothing outside the kept positions is written.
// Edge tiles in M and N, one and two threads. Where it does not apply, it is refused.
TEST_P(Gemm, IndirectColumnMapStoresTheKeptColumns) {
  const int64_t m = 13, k = 20, pitch = 37, width = 30, image_rows = 5;
  const int64_t n = (image_rows - 1) * pitch + width;  // the last row's padding is not computed
  const int64_t kept = image_rows * width, ldc = kept + 5;
  const auto b = random_matrix(k * n, 30);
  std::vector<const float*> rows(static_cast<size_t>(k));
  for (int64_t p = 0; p < k; ++p) rows[p] = b.data() + p * n;
  const auto a = random_matrix(m * k, 31);
  Aligned pa(packed_a_bytes(m, k));
  const PackedMatrix packed = pack_a(m, k, a.data(), k, false, pa.ptr);
  const auto ref = reference(m, n, k, a, k, false, b, n, false);
  const auto bias = random_matrix(m, 32);
  const auto residual = random_matrix(m * ldc, 33);
  const GemmColumnRows map{pitch, width};
  for (int threads : {1, 2}) {
    ptec::set_num_threads(threads);
    for (Activation act : {Activation::None, Activation::Relu, Activation::Clamp, Activation::Silu,
                           Activation::Gelu}) {
      for (bool with_residual : {false, true}) {
        GemmEpilogue e;
        e.bias = bias.data();
        e.bias_per_row = true;
        e.residual = with_residual ? residual.data() : nullptr;
        e.ldr = ldc;
        e.activation = act;
        e.clamp_min = -0.3f;
        e.clamp_max = 0.4f;
        std::vector<float> c(static_cast<size_t>(m * ldc), 42.0f);
        ASSERT_TRUE(gemm_indirect(m, n, k, packed, rows.data(), c.data(), ldc, e, &map));
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t at = 0; at < kept; ++at) {
            const int64_t j = at / width * pitch + at % width;
            float v = static_cast<float>(ref[i * n + j]) + bias[i];
            if (with_residual) v += residual[i * ldc + at];
            ASSERT_NEAR(c[i * ldc + at], activate(v, act, e.clamp_min, e.clamp_max), 1e-4)
                << "activation " << int(act) << (with_residual ? " residual" : "") << " at " << i
                << ", " << at << ", " << threads << " threads";
          }
          for (int64_t at = kept; at < ldc; ++at) ASSERT_EQ(c[i * ldc + at], 42.0f);
        }
      }
    }
  }
  ptec::set_num_threads(0);
  std::vector<float> c(static_cast<size_t>(m * ldc));
  const GemmColumnRows too_wide{pitch, pitch + 1};
  EXPECT_FALSE(gemm_indirect(m, n, k, packed, rows.data(), c.data(), ldc, {}, &too_wide));
  GemmEpilogue column_bias;
  column_bias.bias = bias.data();
  EXPECT_FALSE(gemm_indirect(m, n, k, packed, rows.data(), c.data(), ldc, column_bias, &map));
  Aligned pa_shallow(packed_a_bytes(m, k));  // K in two slices
  const PackedMatrix shallow = pack_a(m, k, a.data(), k, false, pa_shallow.ptr, 8);
  EXPECT_FALSE(gemm_indirect(m, n, k, shallow, rows.data(), c.data(), ldc, {}, &map));
}

// packed_a_offset finds every element where pack_a put it, across several k slices and a partial
// last panel (whose extra rows are zero).
TEST_P(Gemm, PackedAOffsetLocatesEveryElement) {
  const int64_t m = 13, k = 600;
  const auto a = random_matrix(m * k, 15);
  Aligned pa(packed_a_bytes(m, k));
  pack_a(m, k, a.data(), k, false, pa.ptr);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < k; ++p) {
      ASSERT_EQ(pa.ptr[packed_a_offset(m, k, i, p)], a[i * k + p]) << i << ", " << p;
    }
  }
  const int64_t mr = gemm_tile(GetParam()).mr;
  for (int64_t i = m; i < (m + mr - 1) / mr * mr; ++i) {
    for (int64_t p = 0; p < k; ++p) ASSERT_EQ(pa.ptr[packed_a_offset(m, k, i, p)], 0.0f);
  }
}

// Prepacked operands (slice-major, both of them) give bit for bit what packing on the fly does,
// transposed or not, with K within one slice and across several.
TEST_P(Gemm, PrepackedOperandsGiveTheSameResult) {
  for (const Shape& s : {Shape{29, 45, 70}, Shape{29, 70, 600}}) {
    for (bool trans : {false, true}) {
      const int64_t m = s.m, n = s.n, k = s.k;
      const auto a = random_matrix(m * k, 3);
      const auto b = random_matrix(k * n, 4);  // K x N, or N x K when trans
      const int64_t ldb = trans ? k : n;
      Aligned pa(packed_a_bytes(m, k));
      Aligned pb(packed_b_bytes(k, n));
      const PackedMatrix packed_a = pack_a(m, k, a.data(), k, false, pa.ptr);
      const PackedMatrix packed_b = pack_b(k, n, b.data(), ldb, trans, pb.ptr);
      EXPECT_EQ(gemm_scratch_bytes(m, n, k, true, true), 0u);
      std::vector<float> c1(static_cast<size_t>(m * n)), c2(c1.size());
      ASSERT_TRUE(gemm(m, n, k, GemmOperand::prepacked(packed_a), GemmOperand::prepacked(packed_b),
                       c1.data(), n, {}, nullptr));
      Aligned scratch(gemm_scratch_bytes(m, n, k, false, false));
      ASSERT_TRUE(gemm(m, n, k, GemmOperand::matrix(a.data(), k),
                       GemmOperand::matrix(b.data(), ldb, trans), c2.data(), n, {}, scratch.ptr));
      EXPECT_EQ(c1, c2) << m << "x" << n << "x" << k << (trans ? " transposed" : "");
    }
  }
}

// One row of A against a prepacked B (a linear layer of one token) streams B once instead of
// running the microkernel: the same products for a row-major and a transposed A, K over several
// slices and N past the last whole panel, with bias (per column) and ReLU, accumulating into C
// (beta_one), on one and two threads, and with no scratch.
TEST_P(Gemm, OneRowAgainstPrepackedBMatchesTheReference) {
  const int64_t m = 1, n = 77, k = 301;  // an odd last slice
  const auto b = random_matrix(k * n, 40);
  Aligned pb(packed_b_bytes(k, n));
  const PackedMatrix packed_b = pack_b(k, n, b.data(), n, false, pb.ptr);
  const auto bias = random_matrix(n, 41);
  for (int threads : {1, 2}) {
    ptec::set_num_threads(threads);
    for (bool trans : {false, true}) {
      const int64_t lda = trans ? 3 : k;  // transposed: element p at a[p * 3]
      const auto a = random_matrix(k * 3, 42);
      const auto ref = reference(m, n, k, a, lda, trans, b, n, false);
      for (bool beta_one : {false, true}) {
        GemmEpilogue e;
        e.bias = bias.data();
        e.activation = Activation::Relu;
        e.beta_one = beta_one;
        std::vector<float> c(static_cast<size_t>(n) + 4, 0.5f);
        ASSERT_TRUE(gemm(m, n, k, GemmOperand::matrix(a.data(), lda, trans),
                         GemmOperand::prepacked(packed_b), c.data(), n, e, nullptr));
        for (int64_t j = 0; j < n; ++j) {
          const double want = std::max(0.0, ref[j] + bias[j] + (beta_one ? 0.5 : 0.0));
          ASSERT_NEAR(c[j], want, 1e-4 * std::sqrt(double(k)))
              << "column " << j << (trans ? " transposed" : "") << (beta_one ? " beta_one" : "")
              << ", " << threads << " threads";
        }
        for (int64_t j = n; j < n + 4; ++j) ASSERT_EQ(c[j], 0.5f) << "wrote past column n";
      }
    }
  }
  ptec::set_num_threads(0);
}

// A NaN in C meets the epilogue as activate() treats it, in whole tiles (where the microkernel
// applies the epilogue) and edge tiles alike, through gemm() and gemm_indirect(): Relu gives 0,
// Clamp and no activation pass the NaN.
TEST_P(Gemm, FusedEpilogueTreatsNaNAsActivateDoes) {
  const int64_t m = 19, n = 70, k = 9;  // whole tiles and edge tiles in both directions
  auto a = random_matrix(m * k, 19);
  const auto b = random_matrix(k * n, 20);
  const auto bias = random_matrix(m, 21);
  const int64_t nan_row = 2, nan_edge_row = m - 1;
  a[nan_row * k + 4] = std::numeric_limits<float>::quiet_NaN();
  a[nan_edge_row * k + 1] = std::numeric_limits<float>::quiet_NaN();
  const auto ref = reference(m, n, k, a, k, false, b, n, false);
  Aligned pa(packed_a_bytes(m, k));
  const PackedMatrix packed = pack_a(m, k, a.data(), k, false, pa.ptr);
  Aligned scratch(gemm_scratch_bytes(m, n, k, true, false));
  std::vector<const float*> rows(static_cast<size_t>(k));
  for (int64_t p = 0; p < k; ++p) rows[p] = b.data() + p * n;
  for (Activation act : {Activation::None, Activation::Relu, Activation::Clamp}) {
    GemmEpilogue e;
    e.bias = bias.data();
    e.bias_per_row = true;
    e.activation = act;
    e.clamp_min = -0.5f;
    e.clamp_max = 0.5f;
    for (bool indirect : {false, true}) {
      std::vector<float> c(static_cast<size_t>(m * n));
      ASSERT_TRUE(indirect ? gemm_indirect(m, n, k, packed, rows.data(), c.data(), n, e)
                           : gemm(m, n, k, GemmOperand::prepacked(packed),
                                  GemmOperand::matrix(b.data(), n), c.data(), n, e, scratch.ptr));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          const float got = c[i * n + j];
          const auto want =
              activate(static_cast<float>(ref[i * n + j] + bias[i]), act, e.clamp_min, e.clamp_max);
          if (std::isnan(want)) {
            ASSERT_TRUE(std::isnan(got)) << "activation " << int(act) << " at " << i << ", " << j
                                         << (indirect ? ", indirect" : "");
          } else {
            ASSERT_NEAR(got, want, 1e-4) << "activation " << int(act) << " at " << i << ", " << j
                                         << (indirect ? ", indirect" : "");
          }
        }
      }
    }
  }
}

// A linear layer's weights take deep slices only when K spans more than one of them (one deep
// slice would send K = 192 or 256 down the one-slice path, which was slower on ViT-Ti).
TEST_P(Gemm, WeightsTakeDeepSlicesOnlyForKOverSeveralOfThem) {
  const int64_t deep = gemm_slice_depth(true);
  EXPECT_EQ(gemm_weights_depth(deep), gemm_slice_depth());
  EXPECT_EQ(gemm_weights_depth(192), gemm_slice_depth());
  EXPECT_EQ(gemm_weights_depth(deep + 1), deep);
  EXPECT_EQ(gemm_weights_depth(1024), deep);
}

// Operands packed in slices of any depth (a few rows, the standard and the deep one, all of K)
// give the reference product through gemm() and gemm_indirect(), with K over several slices and
// a partial last one; packed_a_offset finds the elements for that depth. A product of operands
// packed with different depths, or an indirect one whose slice would not fit its edge copy, is
// refused.
TEST_P(Gemm, EveryPackingDepthGivesTheReferenceProduct) {
  const int64_t m = 21, n = 45, k = 600;
  const auto a = random_matrix(m * k, 17);
  const auto b = random_matrix(k * n, 18);
  const auto ref = reference(m, n, k, a, k, false, b, n, false);
  std::vector<const float*> rows(static_cast<size_t>(k));
  for (int64_t p = 0; p < k; ++p) rows[p] = b.data() + p * n;
  EXPECT_GE(gemm_slice_depth(true), gemm_slice_depth());
  for (int64_t depth : {int64_t{8}, gemm_slice_depth(), gemm_slice_depth(true), int64_t{256}, k}) {
    Aligned pa(packed_a_bytes(m, k));
    Aligned pb(packed_b_bytes(k, n));
    const PackedMatrix packed_a = pack_a(m, k, a.data(), k, false, pa.ptr, depth);
    const PackedMatrix packed_b = pack_b(k, n, b.data(), n, false, pb.ptr, depth);
    EXPECT_EQ(packed_a.depth, depth);
    EXPECT_EQ(packed_b.depth, depth);
    for (int64_t i = 0; i < m; i += 5) {
      for (int64_t p = 0; p < k; p += 7) {
        ASSERT_EQ(pa.ptr[packed_a_offset(m, k, i, p, depth)], a[i * k + p]) << i << ", " << p;
      }
    }
    std::vector<float> c1(static_cast<size_t>(m * n)), c2(c1.size());
    ASSERT_TRUE(gemm(m, n, k, GemmOperand::prepacked(packed_a), GemmOperand::prepacked(packed_b),
                     c1.data(), n, {}, nullptr));
    const bool indirect_fits = depth * gemm_tile(GetParam()).nr <= 256 * 32;
    EXPECT_EQ(gemm_indirect(m, n, k, packed_a, rows.data(), c2.data(), n), indirect_fits);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        ASSERT_NEAR(c1[i * n + j], ref[i * n + j], 1e-3)
            << "depth " << depth << " at " << i << ", " << j;
        if (indirect_fits) {
          ASSERT_NEAR(c2[i * n + j], ref[i * n + j], 1e-3)
              << "indirect, depth " << depth << " at " << i << ", " << j;
        }
      }
    }
  }
  Aligned pa(packed_a_bytes(m, k));
  Aligned pb(packed_b_bytes(k, n));
  const PackedMatrix packed_a = pack_a(m, k, a.data(), k, false, pa.ptr, 64);
  const PackedMatrix packed_b = pack_b(k, n, b.data(), n, false, pb.ptr, 128);
  std::vector<float> c(static_cast<size_t>(m * n));
  EXPECT_FALSE(gemm(m, n, k, GemmOperand::prepacked(packed_a), GemmOperand::prepacked(packed_b),
                    c.data(), n, {}, nullptr));
}

// A linear layer's weights packed by pack_weights (on AVX-512: wide panels, 6 x 64 tiles) against
// an A read in place, or transposed and copied, give the reference product with every epilogue
// the layer fuses: M, N and K off the tile sizes, K in one slice and over several (1025 and 1300
// cross the 512-row slices), one row (gemv), accumulating into C, on one and two threads. C is
// padded on the right (ldc) and bias and residual are exactly N and M x N floats: nothing past
// them is read (AddressSanitizer) or written.
TEST_P(Gemm, LinearWeightsMatchTheReference) {
  // (Products under 4 MFLOP with B under 2 MiB run on one thread whatever the setting: the
  // last shape is a row against 2.6 MB of weights, split over the threads.)
  const Shape shapes[] = {{1, 70, 33},     {5, 64, 7},    {6, 65, 100},    {13, 130, 64},
                          {61, 200, 1025}, {7, 31, 1300}, {100, 128, 256}, {1, 1100, 600}};
  for (int threads : {1, 2}) {
    ptec::set_num_threads(threads);
    for (const Shape& s : shapes) {
      for (bool trans_a : {false, true}) {
        const bool trans_b = s.m % 2 == 1;  // both layouts of the weights
        SCOPED_TRACE(testing::Message() << s.m << "x" << s.n << "x" << s.k << " trans_a=" << trans_a
                                        << " trans_b=" << trans_b << ", " << threads << " threads");
        const int64_t lda = (trans_a ? s.m : s.k) + 3;
        const auto a = random_matrix((trans_a ? s.k : s.m) * lda, 50);
        const auto b = random_matrix(s.k * s.n, 51);  // K x N, or N x K when trans_b
        const auto bias = random_matrix(s.n, 52);
        const auto residual = random_matrix(s.m * s.n, 53);
        const auto ref = reference(s.m, s.n, s.k, a, lda, trans_a, b, trans_b ? s.k : s.n, trans_b);
        Aligned pb(packed_weights_bytes(s.k, s.n));
        const PackedMatrix packed =
            pack_weights(s.k, s.n, b.data(), trans_b ? s.k : s.n, trans_b, pb.ptr);
        Aligned scratch(gemm_scratch_bytes(s.m, s.n, s.k, false, true));
        for (Activation act : {Activation::Relu, Activation::Clamp, Activation::Gelu}) {
          for (bool beta_one : {false, true}) {
            GemmEpilogue e;
            e.bias = bias.data();
            e.residual = act == Activation::Gelu ? nullptr : residual.data();
            e.ldr = s.n;
            e.activation = act;
            e.clamp_min = -0.5f;
            e.clamp_max = 0.75f;
            e.beta_one = beta_one;
            const int64_t ldc = s.n + 5;
            std::vector<float> c(static_cast<size_t>(s.m * ldc), 0.25f);
            ASSERT_TRUE(gemm(s.m, s.n, s.k, GemmOperand::matrix(a.data(), lda, trans_a),
                             GemmOperand::prepacked(packed), c.data(), ldc, e, scratch.ptr));
            for (int64_t i = 0; i < s.m; ++i) {
              for (int64_t j = 0; j < s.n; ++j) {
                double v = ref[i * s.n + j] + bias[j] + (beta_one ? 0.25 : 0.0);
                if (e.residual != nullptr) v += residual[i * s.n + j];
                v = act == Activation::Relu    ? std::max(v, 0.0)
                    : act == Activation::Clamp ? std::min(std::max(v, -0.5), 0.75)
                                               : 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
                ASSERT_NEAR(c[i * ldc + j], v, 1e-4 * std::sqrt(double(s.k)) + 1e-4)
                    << "activation " << int(act) << (beta_one ? " beta_one" : "") << " at (" << i
                    << ", " << j << ")";
              }
              for (int64_t j = s.n; j < ldc; ++j) {
                ASSERT_EQ(c[i * ldc + j], 0.25f) << "wrote past column n in row " << i;
              }
            }
          }
        }
      }
    }
  }
  ptec::set_num_threads(0);
}

// On AVX-512 the weights take wide panels, in one slice up to K = 1024 and in 512-row slices
// past it; a product with such a B and a prepacked A is refused. Elsewhere they are pack_b's.
TEST_P(Gemm, LinearWeightsTakeTheWidePanelsWhereTheIsaHasThem) {
  const int64_t n = 70;
  for (int64_t k : {int64_t{300}, int64_t{1024}, int64_t{1025}}) {
    const auto b = random_matrix(k * n, 54);
    Aligned pb(packed_weights_bytes(k, n));
    const PackedMatrix packed = pack_weights(k, n, b.data(), n, false, pb.ptr);
    if (GetParam() != GemmIsa::Avx512) {
      EXPECT_EQ(packed.panel, gemm_tile(GetParam()).nr);
      EXPECT_EQ(packed.depth, gemm_weights_depth(k));
      continue;
    }
    EXPECT_EQ(packed.panel, 64);
    EXPECT_EQ(packed.depth, k <= 1024 ? k : 512) << "K " << k;
    EXPECT_EQ(packed_weights_bytes(k, n), static_cast<size_t>(128 * k) * sizeof(float));
    const int64_t m = 9;
    const auto a = random_matrix(m * k, 55);
    Aligned pa(packed_a_bytes(m, k));
    const PackedMatrix packed_a = pack_a(m, k, a.data(), k, false, pa.ptr, packed.depth);
    std::vector<float> c(static_cast<size_t>(m * n));
    EXPECT_FALSE(gemm(m, n, k, GemmOperand::prepacked(packed_a), GemmOperand::prepacked(packed),
                      c.data(), n, {}, nullptr));
  }
}

void check_epilogues(int64_t m, int64_t n, int64_t k) {
  const auto a = random_matrix(m * k, 5);
  const auto b = random_matrix(k * n, 6);
  const auto row_bias = random_matrix(m, 7);
  const auto col_bias = random_matrix(n, 8);
  const auto residual = random_matrix(m * n, 9);
  const auto ref = reference(m, n, k, a, k, false, b, n, false);
  Aligned scratch(gemm_scratch_bytes(m, n, k, false, false));
  Aligned pa(packed_a_bytes(m, k));
  const PackedMatrix packed_a = pack_a(m, k, a.data(), k, false, pa.ptr);
  std::vector<const float*> rows(static_cast<size_t>(k));
  for (int64_t p = 0; p < k; ++p) rows[p] = b.data() + p * n;
  struct Case {
    Activation act;
    bool per_row;
    bool with_residual;
  };
  for (const Case& cs :
       {Case{Activation::None, true, false}, Case{Activation::Relu, false, true},
        Case{Activation::Clamp, true, true}, Case{Activation::Sigmoid, false, false},
        Case{Activation::HardSwish, true, false}, Case{Activation::Gelu, false, true},
        Case{Activation::Silu, true, true}, Case{Activation::Tanh, false, false},
        Case{Activation::LeakyRelu, false, true}}) {
    GemmEpilogue e;
    e.bias = cs.per_row ? row_bias.data() : col_bias.data();
    e.bias_per_row = cs.per_row;
    e.residual = cs.with_residual ? residual.data() : nullptr;
    e.ldr = n;
    e.activation = cs.act;
    e.clamp_min = -0.25f;
    e.clamp_max = 0.5f;
    std::vector<float> c(static_cast<size_t>(m * n));
    ASSERT_TRUE(gemm(m, n, k, GemmOperand::matrix(a.data(), k), GemmOperand::matrix(b.data(), n),
                     c.data(), n, e, scratch.ptr));
    std::vector<float> c_indirect(static_cast<size_t>(m * n));
    ASSERT_TRUE(gemm_indirect(m, n, k, packed_a, rows.data(), c_indirect.data(), n, e));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        ASSERT_NEAR(c_indirect[i * n + j], c[i * n + j], 1e-4)
            << "indirect, activation " << int(cs.act) << " at " << i << "," << j;
        double v = ref[i * n + j] + (cs.per_row ? row_bias[i] : col_bias[j]);
        if (cs.with_residual) v += residual[i * n + j];
        switch (cs.act) {
          case Activation::None: break;
          case Activation::Relu: v = std::max(v, 0.0); break;
          case Activation::Clamp: v = std::min(std::max(v, -0.25), 0.5); break;
          case Activation::Sigmoid: v = 1.0 / (1.0 + std::exp(-v)); break;
          case Activation::Tanh: v = std::tanh(v); break;
          case Activation::HardSwish: v = v * std::min(std::max(v + 3.0, 0.0), 6.0) / 6.0; break;
          case Activation::Gelu: v = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); break;
          case Activation::Silu: v = v / (1.0 + std::exp(-v)); break;
          case Activation::LeakyRelu: v = v > 0.0 ? v : v * -0.25; break;  // slope: clamp_min
        }
        ASSERT_NEAR(c[i * n + j], v, 1e-4)
            << "activation " << int(cs.act) << " at " << i << "," << j;
      }
    }
  }
}

// Small (one tile edge), and large enough for several row blocks, k slices and epilogue strips,
// on one and two threads, through gemm() and gemm_indirect(); then with few enough columns that
// gemm_indirect runs each A panel over all of them in turn, with K in one slice and columns
// in two chunks (one_slice_chunk: 256 KiB of B), and with one panel of columns (7 fits every
// ISA's, 13 all but the portable one) against an A read in place, whose panels each run
// through every k slice in turn.
TEST_P(Gemm, EpilogueAddsBiasResidualAndActivation) {
  struct Size {
    int64_t m, n, k, threads;
  };
  for (const Size& size : {Size{7, 19, 11, 1}, Size{329, 300, 260, 1}, Size{329, 300, 260, 2},
                           Size{41, 70, 300, 1}, Size{20, 1100, 100, 1}, Size{20, 1100, 100, 2},
                           Size{41, 7, 700, 1}, Size{329, 13, 600, 2}}) {
    SCOPED_TRACE(testing::Message()
                 << size.m << "x" << size.n << "x" << size.k << ", " << size.threads << " threads");
    ptec::set_num_threads(size.threads);
    check_epilogues(size.m, size.n, size.k);
  }
  ptec::set_num_threads(0);
}

TEST_P(Gemm, BetaOneAccumulatesIntoC) {
  const int64_t m = 10, n = 20, k = 600;  // several k blocks
  const auto a = random_matrix(m * k, 10);
  const auto b = random_matrix(k * n, 11);
  std::vector<float> c(static_cast<size_t>(m * n), 1.5f);
  GemmEpilogue e;
  e.beta_one = true;
  Aligned scratch(gemm_scratch_bytes(m, n, k, false, false));
  ASSERT_TRUE(gemm(m, n, k, GemmOperand::matrix(a.data(), k), GemmOperand::matrix(b.data(), n),
                   c.data(), n, e, scratch.ptr));
  const auto ref = reference(m, n, k, a, k, false, b, n, false);
  for (size_t i = 0; i < c.size(); ++i) ASSERT_NEAR(c[i], ref[i] + 1.5, 1e-3);
}

TEST_P(Gemm, ThreadsSplitTheWorkWithoutChangingTheResult) {
  // Several m blocks (mc = 40 panels) and n panels, so that every thread gets items.
  const int64_t m = 300, n = 70, k = 300;
  const auto a = random_matrix(m * k, 13);
  const auto b = random_matrix(k * n, 14);
  const auto bias = random_matrix(n, 15);
  GemmEpilogue e;
  e.bias = bias.data();
  e.activation = Activation::Relu;
  Aligned scratch(gemm_scratch_bytes(m, n, k, false, false));
  std::vector<float> one(static_cast<size_t>(m * n)), four(one.size());
  set_num_threads(1);
  ASSERT_TRUE(gemm(m, n, k, GemmOperand::matrix(a.data(), m, true),
                   GemmOperand::matrix(b.data(), n), one.data(), n, e, scratch.ptr));
  set_num_threads(4);
  ASSERT_TRUE(gemm(m, n, k, GemmOperand::matrix(a.data(), m, true),
                   GemmOperand::matrix(b.data(), n), four.data(), n, e, scratch.ptr));
  set_num_threads(0);
  EXPECT_EQ(one, four);  // each element is summed in the same order whatever the split
  const auto ref = reference(m, n, k, a, m, true, b, n, false);
  for (int64_t i = 0; i < m * n; ++i) {
    ASSERT_NEAR(four[i], std::max(0.0, ref[i] + bias[i % n]), 1e-3);
  }
}

TEST_P(Gemm, EmptyKGivesTheEpilogueOfZero) {
  std::vector<float> c(6, 7.0f);
  const float bias[2] = {1.0f, -2.0f};
  GemmEpilogue e;
  e.bias = bias;
  e.bias_per_row = true;
  e.activation = Activation::Relu;
  ASSERT_TRUE(gemm(2, 3, 0, GemmOperand::matrix(nullptr, 0), GemmOperand::matrix(nullptr, 3),
                   c.data(), 3, e, nullptr));
  EXPECT_EQ(c, (std::vector<float>{1, 1, 1, 0, 0, 0}));
}

// k_scale on an unpacked B multiplies its rows (plain and transposed layouts); it is refused on
// A and on a prepacked B.
void check_k_scale(int64_t k) {
  const int64_t m = 13, n = 37;
  const auto a = random_matrix(m * k, 5);
  const auto b = random_matrix(k * n, 6);
  const auto scale = random_matrix(k, 7);
  std::vector<float> scaled = b, bt(static_cast<size_t>(k * n));
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t j = 0; j < n; ++j) {
      scaled[static_cast<size_t>(p * n + j)] *= scale[static_cast<size_t>(p)];
      bt[static_cast<size_t>(j * k + p)] = b[static_cast<size_t>(p * n + j)];
    }
  }
  Aligned scratch(gemm_scratch_bytes(m, n, k, false, false));
  std::vector<float> want(static_cast<size_t>(m * n)), got(want.size());
  ASSERT_TRUE(gemm(m, n, k, GemmOperand::matrix(a.data(), k), GemmOperand::matrix(scaled.data(), n),
                   want.data(), n, {}, scratch.ptr));
  for (const bool trans : {false, true}) {
    GemmOperand bm =
        trans ? GemmOperand::matrix(bt.data(), k, true) : GemmOperand::matrix(b.data(), n);
    bm.k_scale = scale.data();
    ASSERT_TRUE(
        gemm(m, n, k, GemmOperand::matrix(a.data(), k), bm, got.data(), n, {}, scratch.ptr));
    EXPECT_EQ(got, want) << (trans ? "transposed" : "plain");
  }
  GemmOperand am = GemmOperand::matrix(a.data(), k);
  am.k_scale = scale.data();
  EXPECT_FALSE(gemm(m, n, k, am, GemmOperand::matrix(b.data(), n), got.data(), n, {}, scratch.ptr));
  Aligned pb(packed_b_bytes(k, n));
  const PackedMatrix packed_b = pack_b(k, n, b.data(), n, false, pb.ptr);
  GemmOperand pbm = GemmOperand::prepacked(packed_b);
  pbm.k_scale = scale.data();
  EXPECT_FALSE(
      gemm(m, n, k, GemmOperand::matrix(a.data(), k), pbm, got.data(), n, {}, scratch.ptr));
}

TEST_P(Gemm, KScaleMultipliesTheRowsOfB) {
  for (const int64_t k : {int64_t{21}, int64_t{1100}}) {  // one slice, several (wide panels)
    SCOPED_TRACE(testing::Message() << "K " << k);
    check_k_scale(k);
  }
}

TEST_P(Gemm, RefusesMismatchedPackingAndMissingScratch) {
  const int64_t m = 8, n = 8, k = 8;
  const auto a = random_matrix(m * k, 12);
  Aligned pa(packed_a_bytes(m, k));
  PackedMatrix packed = pack_a(m, k, a.data(), k, false, pa.ptr);
  std::vector<float> b(static_cast<size_t>(k * n), 1.0f), c(static_cast<size_t>(m * n));
  Aligned scratch(gemm_scratch_bytes(m, n, k, true, false));
  PackedMatrix wrong_shape = packed;
  wrong_shape.cols = k + 1;
  EXPECT_FALSE(gemm(m, n, k, GemmOperand::prepacked(wrong_shape), GemmOperand::matrix(b.data(), n),
                    c.data(), n, {}, scratch.ptr));
  PackedMatrix wrong_panel = packed;
  wrong_panel.panel += 1;
  EXPECT_FALSE(gemm(m, n, k, GemmOperand::prepacked(wrong_panel), GemmOperand::matrix(b.data(), n),
                    c.data(), n, {}, scratch.ptr));
  EXPECT_FALSE(gemm(m, n, k, GemmOperand::prepacked(packed), GemmOperand::matrix(b.data(), n),
                    c.data(), n, {}, nullptr));
  EXPECT_TRUE(gemm(m, n, k, GemmOperand::prepacked(packed), GemmOperand::matrix(b.data(), n),
                   c.data(), n, {}, scratch.ptr));
}

INSTANTIATE_TEST_SUITE_P(Isa, Gemm,
                         ::testing::Values(GemmIsa::Generic, GemmIsa::Avx2, GemmIsa::Avx512),
                         [](const auto& p) { return std::string(to_string(p.param)); });

TEST(GemmIsaSelection, GenericIsAlwaysAvailableAndTilesDiffer) {
  EXPECT_TRUE(set_gemm_isa(GemmIsa::Generic));
  EXPECT_EQ(active_gemm_isa(), GemmIsa::Generic);
  EXPECT_EQ(gemm_tile(GemmIsa::Generic).mr, 4);
  EXPECT_EQ(gemm_tile(GemmIsa::Generic).nr, 8);
  set_gemm_isa(detected_gemm_isa());
  EXPECT_EQ(active_gemm_isa(), detected_gemm_isa());
}

}  // namespace
}  // namespace ptec::kernels::optimized
