// mm, bmm and addmm: reference cases plus error paths.

#include <gtest/gtest.h>

#include "kernels/test/test_util.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(Linalg, "linalg.bin");

constexpr DType f32 = DType::Float;

TEST(LinalgErrors, MmInnerSizesDiffer) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).t(make_zeros(pool, f32, {4, 2}));
  s.t(make_zeros(pool, f32, {2, 2}));
  EXPECT_TRUE(fails_with(s, "aten::mm.out", Error::InvalidArgument, "cannot be multiplied"));
}

TEST(LinalgErrors, MmDtypesDiffer) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3})).t(make_zeros(pool, DType::Double, {3, 2}));
  s.t(make_zeros(pool, f32, {2, 2}));
  EXPECT_TRUE(fails_with(s, "aten::mm.out", Error::InvalidArgument, "same dtype"));
}

TEST(LinalgErrors, BmmBatchDiffers) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 2, 3})).t(make_zeros(pool, f32, {3, 3, 2}));
  s.t(make_zeros(pool, f32, {2, 2, 2}));
  EXPECT_TRUE(fails_with(s, "aten::bmm.out", Error::InvalidArgument, "batch sizes differ"));
}

TEST(LinalgErrors, AddmmSelfDoesNotBroadcast) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {4})).t(make_zeros(pool, f32, {2, 3}));
  s.t(make_zeros(pool, f32, {3, 5})).i(1).i(1).t(make_zeros(pool, f32, {2, 5}));
  EXPECT_TRUE(fails_with(s, "aten::addmm.out", Error::InvalidArgument, "does not broadcast"));
}

TEST(LinalgErrors, MmRank) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f32, {2, 3, 1})).t(make_zeros(pool, f32, {3, 2}));
  s.t(make_zeros(pool, f32, {2, 2}));
  EXPECT_TRUE(fails_with(s, "aten::mm.out", Error::InvalidArgument, "rank 2"));
}

}  // namespace
}  // namespace ptec::kernels::test
