// Half, BFloat16 and the barebones unsigned types (UInt16/32/64) in the portable kernels, and the
// bit shifts: reference cases (torch) plus hand-written unsigned cases, which torch 1.13 lacks.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "kernels/test/test_util.h"
#include "runtime/core/bfloat16.h"
#include "runtime/core/half.h"

namespace ptec::kernels::test {
namespace {

PTEC_REF_SUITE(Dtypes, "dtypes.bin");

constexpr DType u16 = DType::UInt16;
constexpr DType u32 = DType::UInt32;
constexpr DType u64 = DType::UInt64;
constexpr DType f32 = DType::Float;
constexpr DType f16 = DType::Half;
constexpr DType i32 = DType::Int;

template <typename T>
std::vector<T> values(const Tensor& t) {
  const T* p = t.const_data_ptr<T>();
  return std::vector<T>(p, p + t.numel());
}

// Runs `op` with the arguments of `s` (the last pushed tensor is the out) and expects success.
void run_ok(ArgStack& s, const char* op) {
  ensure_kernels_registered();
  ASSERT_EQ(s.call_out(op), Error::Ok) << op;
}

TEST(Unsigned, MaximumMinimumUInt64) {
  std::deque<OwnedTensor> pool;
  constexpr uint64_t kBig = std::numeric_limits<uint64_t>::max();
  const std::vector<uint64_t> a = {kBig, 3, 1ull << 63}, b = {1, kBig - 1, (1ull << 63) + 1};
  for (bool max : {true, false}) {
    ArgStack s;
    Tensor& out = make_zeros(pool, u64, {3});
    s.t(make_tensor<uint64_t>(pool, u64, {3}, a)->tensor())
        .t(make_tensor<uint64_t>(pool, u64, {3}, b)->tensor())
        .t(out);
    run_ok(s, max ? "aten::maximum.out" : "aten::minimum.out");
    const std::vector<uint64_t> want = max ? std::vector<uint64_t>{kBig, kBig - 1, (1ull << 63) + 1}
                                           : std::vector<uint64_t>{1, 3, 1ull << 63};
    EXPECT_EQ(values<uint64_t>(out), want);
  }
}

TEST(Unsigned, RemainderUInt32) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  Tensor& out = make_zeros(pool, u32, {3});
  s.t(make_tensor<uint32_t>(pool, u32, {3}, {4000000000u, 7, 9})->tensor())
      .t(make_tensor<uint32_t>(pool, u32, {3}, {3000000000u, 3, 10})->tensor())
      .t(out);
  run_ok(s, "aten::remainder.Tensor_out");
  EXPECT_EQ(values<uint32_t>(out), (std::vector<uint32_t>{1000000000u, 1, 9}));
}

TEST(Unsigned, RemainderByZeroFails) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_tensor<uint16_t>(pool, u16, {2}, {4, 5})->tensor())
      .t(make_tensor<uint16_t>(pool, u16, {2}, {2, 0})->tensor())
      .t(make_zeros(pool, u16, {2}));
  EXPECT_TRUE(fails_with(s, "aten::remainder.Tensor_out", Error::InvalidArgument,
                         "integer division by zero"));
}

TEST(Unsigned, PowFloatBaseUInt32Exponent) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  Tensor& out = make_zeros(pool, f32, {3});
  s.t(make_tensor<float>(pool, f32, {3}, {2.0f, -1.5f, 10.0f})->tensor())
      .t(make_tensor<uint32_t>(pool, u32, {3}, {10, 3, 0})->tensor())
      .t(out);
  run_ok(s, "aten::pow.Tensor_Tensor_out");
  EXPECT_EQ(values<float>(out), (std::vector<float>{1024.0f, -3.375f, 1.0f}));
}

TEST(Unsigned, ShiftsUInt16To64) {
  std::deque<OwnedTensor> pool;
  {
    ArgStack s;
    Tensor& out = make_zeros(pool, u16, {4});
    s.t(make_tensor<uint16_t>(pool, u16, {4}, {0x8001, 1, 3, 0xffff})->tensor())
        .t(make_tensor<uint16_t>(pool, u16, {4}, {1, 15, 16, 40})->tensor())
        .t(out);
    run_ok(s, "aten::bitwise_left_shift.Tensor_out");
    EXPECT_EQ(values<uint16_t>(out), (std::vector<uint16_t>{2, 0x8000, 0, 0}));
  }
  {
    ArgStack s;
    Tensor& out = make_zeros(pool, u32, {3});
    s.t(make_tensor<uint32_t>(pool, u32, {3}, {0x80000000u, 0xffffffffu, 64})->tensor())
        .t(make_tensor<uint32_t>(pool, u32, {3}, {31, 32, 3})->tensor())
        .t(out);
    run_ok(s, "aten::bitwise_right_shift.Tensor_out");
    EXPECT_EQ(values<uint32_t>(out), (std::vector<uint32_t>{1, 0, 8}));
  }
  {
    ArgStack s;
    Tensor& out = make_zeros(pool, u64, {3});
    s.t(make_tensor<uint64_t>(pool, u64, {3}, {1, 1ull << 63, 5})->tensor()).i(63).t(out);
    run_ok(s, "aten::bitwise_left_shift.Tensor_Scalar_out");
    EXPECT_EQ(values<uint64_t>(out), (std::vector<uint64_t>{1ull << 63, 0, 1ull << 63}));
  }
  {
    ArgStack s;
    Tensor& out = make_zeros(pool, u64, {2});
    s.t(make_tensor<uint64_t>(pool, u64, {2}, {~0ull, 1ull << 63})->tensor())
        .t(make_tensor<uint64_t>(pool, u64, {2}, {64, 1ull << 63})->tensor())
        .t(out);
    run_ok(s, "aten::bitwise_right_shift.Tensor_out");
    EXPECT_EQ(values<uint64_t>(out), (std::vector<uint64_t>{0, 0}));
  }
}

TEST(Shift, SignedCountsBeyondWidth) {
  std::deque<OwnedTensor> pool;
  const std::vector<int32_t> a = {-8, 8, -1, 0x40000000};
  const std::vector<int32_t> cnt = {32, 40, -1, 1};
  {
    ArgStack s;
    Tensor& out = make_zeros(pool, i32, {4});
    s.t(make_tensor<int32_t>(pool, i32, {4}, a)->tensor())
        .t(make_tensor<int32_t>(pool, i32, {4}, cnt)->tensor())
        .t(out);
    run_ok(s, "aten::bitwise_left_shift.Tensor_out");
    EXPECT_EQ(values<int32_t>(out), (std::vector<int32_t>{0, 0, 0, INT32_MIN}));
  }
  {
    ArgStack s;
    Tensor& out = make_zeros(pool, i32, {4});
    s.t(make_tensor<int32_t>(pool, i32, {4}, a)->tensor())
        .t(make_tensor<int32_t>(pool, i32, {4}, cnt)->tensor())
        .t(out);
    run_ok(s, "aten::bitwise_right_shift.Tensor_out");
    EXPECT_EQ(values<int32_t>(out), (std::vector<int32_t>{-1, 0, -1, 0x20000000}));
  }
  {
    ArgStack s;
    Tensor& out = make_zeros(pool, DType::Long, {2});
    s.t(make_tensor<int64_t>(pool, DType::Long, {2}, {-5, 5})->tensor()).i(64).t(out);
    run_ok(s, "aten::bitwise_right_shift.Tensor_Scalar_out");
    EXPECT_EQ(values<int64_t>(out), (std::vector<int64_t>{-1, 0}));
  }
}

TEST(Unsigned, ToCopyRoundTrips) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  Tensor& out = make_zeros(pool, f16, {3});
  s.t(make_tensor<uint32_t>(pool, u32, {3}, {1, 2049, 70000})->tensor())
      .i(static_cast<int64_t>(f16))
      .none()
      .none()
      .none()
      .b(false)
      .none()
      .t(out);
  run_ok(s, "aten::_to_copy.out");
  const auto* h = out.const_data_ptr<runtime::Half>();
  EXPECT_EQ(static_cast<float>(h[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(h[1]), 2048.0f);  // tie to even
  EXPECT_EQ(h[2].x, 0x7c00);                     // overflow to inf
  ArgStack back;
  Tensor& out64 = make_zeros(pool, u64, {2});
  back.t(make_tensor<float>(pool, f32, {2}, {3.9f, 4294967296.0f})->tensor())
      .i(static_cast<int64_t>(u64))
      .none()
      .none()
      .none()
      .b(false)
      .none()
      .t(out64);
  run_ok(back, "aten::_to_copy.out");
  EXPECT_EQ(values<uint64_t>(out64), (std::vector<uint64_t>{3, 4294967296ull}));
}

TEST(Unsigned, MixedPromotionFails) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, u32, {2})).t(make_zeros(pool, i32, {2})).t(make_zeros(pool, i32, {2}));
  EXPECT_TRUE(fails_with(s, "aten::maximum.out", Error::InvalidArgument,
                         "type promotion of u32 and i32 is not supported"));
}

TEST(Unsigned, NotAcceptedByOtherKernels) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, u32, {2})).t(make_zeros(pool, u32, {2})).i(1).t(make_zeros(pool, u32, {2}));
  EXPECT_TRUE(fails_with(s, "aten::add.out", Error::InvalidArgument, "unsupported dtype"));
}

TEST(ReducedFloat, NotAcceptedByKernelsWithoutIt) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, f16, {2})).none().b(false).none().t(make_zeros(pool, f16, {}));
  EXPECT_TRUE(fails_with(s, "aten::sum.IntList_out", Error::InvalidArgument, "unsupported dtype"));
}

TEST(Shift, BoolRejected) {
  std::deque<OwnedTensor> pool;
  ArgStack s;
  s.t(make_zeros(pool, DType::Bool, {2}))
      .t(make_zeros(pool, DType::Bool, {2}))
      .t(make_zeros(pool, DType::Bool, {2}));
  EXPECT_TRUE(fails_with(s, "aten::bitwise_left_shift.Tensor_out", Error::InvalidArgument,
                         "expected integral inputs"));
}

}  // namespace
}  // namespace ptec::kernels::test
