// The quantized_decomposed kernels through the operator registry. Expected values: torch 1.13
// (torch.quantize_per_tensor / quantize_per_channel(...).int_repr(),
// torch._choose_qparams_per_tensor) where noted, else computed by hand from the formulas in
// kernels/quantized/functions.h.

#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/quantized/register.h"
#include "kernels/test/test_util.h"

namespace ptec::kernels::test {
// test_util.cpp defines the reference-case suite that this binary does not use.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RefTest);

namespace {

constexpr int64_t kByte = static_cast<int64_t>(DType::Byte);
constexpr int64_t kChar = static_cast<int64_t>(DType::Char);
constexpr int64_t kShort = static_cast<int64_t>(DType::Short);
constexpr int64_t kInt = static_cast<int64_t>(DType::Int);
constexpr int64_t kFloat = static_cast<int64_t>(DType::Float);
constexpr int64_t kDouble = static_cast<int64_t>(DType::Double);

class QuantizedTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(register_quantized_kernels(), Error::Ok); }

  template <typename T>
  Tensor& make(DType dtype, std::vector<SizesType> sizes, const std::vector<T>& values) {
    return make_tensor(pool_, dtype, std::move(sizes), values)->tensor();
  }
  Tensor& zeros(DType dtype, std::vector<SizesType> sizes) {
    return make_zeros(pool_, dtype, std::move(sizes));
  }
  template <typename T>
  static std::vector<T> values(const Tensor& t) {
    const T* p = t.const_data_ptr<T>();
    return std::vector<T>(p, p + t.numel());
  }

  std::deque<OwnedTensor> pool_;
};

TEST_F(QuantizedTest, RegistersOnce) {
  EXPECT_EQ(register_quantized_kernels(), Error::Ok);
  EXPECT_EQ(quantized_kernels().size(), 7u);
}

TEST_F(QuantizedTest, QuantizePerTensorMatchesTorch) {
  const std::vector<float> x = {-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 100.0f, -100.0f, 0.26f, 3.9f};
  Tensor& in = make(DType::Float, {9}, x);
  {
    Tensor& out = zeros(DType::Byte, {9});
    ArgStack s;
    s.t(in).d(0.5).i(3).i(0).i(255).i(kByte).t(out);
    ASSERT_EQ(s.call_out("quantized_decomposed::quantize_per_tensor.out"), Error::Ok);
    EXPECT_EQ(values<uint8_t>(out), (std::vector<uint8_t>{0, 2, 4, 6, 8, 203, 0, 4, 11}));
  }
  {
    Tensor& out = zeros(DType::Char, {9});
    ArgStack s;
    s.t(in).d(0.5).i(-3).i(-128).i(127).i(kChar).t(out);
    ASSERT_EQ(s.call_out("quantized_decomposed::quantize_per_tensor.out"), Error::Ok);
    EXPECT_EQ(values<int8_t>(out), (std::vector<int8_t>{-6, -4, -2, 0, 2, 127, -128, -2, 5}));
  }
  {
    std::vector<double> x100;
    for (float v : x) x100.push_back(static_cast<double>(v) * 100);
    Tensor& in64 = make(DType::Double, {9}, x100);
    Tensor& out = zeros(DType::Int, {9});
    ArgStack s;
    s.t(in64)
        .d(0.1)
        .i(7)
        .i(std::numeric_limits<int32_t>::min())
        .i(std::numeric_limits<int32_t>::max())
        .i(kInt)
        .t(out);
    ASSERT_EQ(s.call_out("quantized_decomposed::quantize_per_tensor.out"), Error::Ok);
    EXPECT_EQ(values<int32_t>(out),
              (std::vector<int32_t>{-1493, -493, 507, 1507, 2507, 100007, -99993, 267, 3907}));
  }
}

TEST_F(QuantizedTest, QuantizeRoundsHalfToEvenAndClampsToQuantRange) {
  // scale 2: x / 2 = 0.5, 1.5, 2.5, -0.5, -1.5 round to 0, 2, 2, -0, -2.
  Tensor& in = make(DType::Float, {7}, std::vector<float>{1, 3, 5, -1, -3, 1e30f, -1e30f});
  Tensor& out = zeros(DType::Short, {7});
  ArgStack s;
  s.t(in).d(2.0).i(10).i(-100).i(100).i(kShort).t(out);
  ASSERT_EQ(s.call_out("quantized_decomposed::quantize_per_tensor.out"), Error::Ok);
  EXPECT_EQ(values<int16_t>(out), (std::vector<int16_t>{10, 12, 12, 10, 8, 100, -100}));
}

TEST_F(QuantizedTest, QuantizeMultipliesByTheFloatReciprocal) {
  // ExecuTorch computes x * (1.0f / scale), not x / scale: for scale 5/255 (stored as float) and
  // x = -2.5 the product is exactly -127.5 (rounds to -128), the quotient -127.49999 (-127).
  const float scale = 0.019607844f;
  Tensor& in = make(DType::Float, {1}, std::vector<float>{-2.5f});
  Tensor& out = zeros(DType::Byte, {1});
  ArgStack s;
  s.t(in).d(scale).i(153).i(0).i(255).i(kByte).t(out);
  ASSERT_EQ(s.call_out("quantized_decomposed::quantize_per_tensor.out"), Error::Ok);
  EXPECT_EQ(values<uint8_t>(out), (std::vector<uint8_t>{25}));
}

TEST_F(QuantizedTest, QuantizeTensorArgs) {
  Tensor& in = make(DType::Float, {2, 2}, std::vector<float>{0.f, 1.f, -1.f, 0.25f});
  Tensor& scale = make(DType::Double, {1}, std::vector<double>{0.25});
  Tensor& zp = make(DType::Long, {}, std::vector<int64_t>{-1});
  Tensor& out = zeros(DType::Char, {2, 2});
  ArgStack s;
  s.t(in).t(scale).t(zp).i(-128).i(127).i(kChar).t(out);
  ASSERT_EQ(s.call_out("quantized_decomposed::quantize_per_tensor.Tensor_out"), Error::Ok);
  EXPECT_EQ(values<int8_t>(out), (std::vector<int8_t>{-1, 3, -5, 0}));

  Tensor& float_scale = make(DType::Float, {1}, std::vector<float>{0.25f});
  ArgStack bad;
  bad.t(in).t(float_scale).t(zp).i(-128).i(127).i(kChar).t(out);
  EXPECT_TRUE(fails_with(bad, "quantized_decomposed::quantize_per_tensor.Tensor_out",
                         Error::InvalidArgument, "scale must be a f64 tensor"));
  Tensor& two_zps = make(DType::Long, {2}, std::vector<int64_t>{0, 0});
  ArgStack bad2;
  bad2.t(in).t(scale).t(two_zps).i(-128).i(127).i(kChar).t(out);
  EXPECT_TRUE(fails_with(bad2, "quantized_decomposed::quantize_per_tensor.Tensor_out",
                         Error::InvalidArgument, "zero_point must have 1 element"));
}

TEST_F(QuantizedTest, QuantizePerChannelMatchesTorch) {
  // torch.quantize_per_channel(x, scales=[0.5, 0.25, 2], zero_points=[0, 10, -5], axis=1,
  // dtype=torch.qint8) of x = arange(-6, 6).reshape(2, 3, 2) * 0.75.
  std::vector<float> x;
  for (int i = -6; i < 6; ++i) x.push_back(static_cast<float>(i) * 0.75f);
  Tensor& in = make(DType::Float, {2, 3, 2}, x);
  Tensor& scales = make(DType::Double, {3}, std::vector<double>{0.5, 0.25, 2.0});
  Tensor& zps = make(DType::Long, {3}, std::vector<int64_t>{0, 10, -5});
  Tensor& out = zeros(DType::Char, {2, 3, 2});
  ArgStack s;
  s.t(in).t(scales).t(zps).i(1).i(-128).i(127).i(kChar).t(out);
  ASSERT_EQ(s.call_out("quantized_decomposed::quantize_per_channel.out"), Error::Ok);
  EXPECT_EQ(values<int8_t>(out),
            (std::vector<int8_t>{-9, -8, -2, 1, -6, -5, 0, 2, 16, 19, -3, -3}));
  // axis -2 is the same dim.
  Tensor& out2 = zeros(DType::Char, {2, 3, 2});
  ArgStack s2;
  s2.t(in).t(scales).t(zps).i(-2).i(-128).i(127).i(kChar).t(out2);
  ASSERT_EQ(s2.call_out("quantized_decomposed::quantize_per_channel.out"), Error::Ok);
  EXPECT_EQ(values<int8_t>(out2), values<int8_t>(out));

  ArgStack bad;
  bad.t(in).t(scales).t(zps).i(0).i(-128).i(127).i(kChar).t(out);
  EXPECT_TRUE(fails_with(bad, "quantized_decomposed::quantize_per_channel.out",
                         Error::InvalidArgument, "scales must have 2 element"));
  ArgStack bad_axis;
  bad_axis.t(in).t(scales).t(zps).i(3).i(-128).i(127).i(kChar).t(out);
  EXPECT_TRUE(fails_with(bad_axis, "quantized_decomposed::quantize_per_channel.out",
                         Error::InvalidArgument, ""));
}

TEST_F(QuantizedTest, QuantizeValidatesArguments) {
  Tensor& in = make(DType::Float, {2}, std::vector<float>{0, 1});
  Tensor& out = zeros(DType::Byte, {2});
  const char* op = "quantized_decomposed::quantize_per_tensor.out";
  {
    ArgStack s;
    s.t(in).d(1.0).i(0).i(0).i(255).i(kChar).t(out);
    EXPECT_TRUE(
        fails_with(s, op, Error::InvalidArgument, "out has dtype u8 but the dtype argument is i8"));
  }
  {
    ArgStack s;
    s.t(in).d(1.0).i(0).i(-1).i(255).i(kByte).t(out);
    EXPECT_TRUE(fails_with(s, op, Error::InvalidArgument, "quant_min -1 is below"));
  }
  {
    ArgStack s;
    s.t(in).d(1.0).i(0).i(0).i(256).i(kByte).t(out);
    EXPECT_TRUE(fails_with(s, op, Error::InvalidArgument, "quant_max 256 is above"));
  }
  {
    Tensor& ints = make(DType::Int, {2}, std::vector<int32_t>{0, 1});
    ArgStack s;
    s.t(ints).d(1.0).i(0).i(0).i(255).i(kByte).t(out);
    EXPECT_TRUE(fails_with(s, op, Error::InvalidArgument, "expected Float or Double"));
  }
  {
    Tensor& long_out = zeros(DType::Long, {2});
    ArgStack s;
    s.t(in).d(1.0).i(0).i(0).i(255).i(static_cast<int64_t>(DType::Long)).t(long_out);
    EXPECT_TRUE(fails_with(s, op, Error::InvalidArgument, "expected Byte, Char, Short or Int"));
  }
  {
    Tensor& small = zeros(DType::Byte, {3});
    ArgStack s;
    s.t(in).d(1.0).i(0).i(0).i(255).i(kByte).t(small);
    EXPECT_EQ(s.call_out(op), Error::InvalidArgument);
  }
}

TEST_F(QuantizedTest, DequantizePerTensor) {
  Tensor& in = make(DType::Byte, {4}, std::vector<uint8_t>{0, 3, 128, 255});
  Tensor& out = zeros(DType::Float, {4});
  ArgStack s;
  s.t(in).d(2.0).i(128).i(0).i(255).i(kByte).none().t(out);
  ASSERT_EQ(s.call_out("quantized_decomposed::dequantize_per_tensor.out"), Error::Ok);
  EXPECT_EQ(values<float>(out), (std::vector<float>{-256, -250, 0, 254}));

  // Double out: the product is still taken in float (0.1f, not 0.1).
  Tensor& q = make(DType::Int, {2}, std::vector<int32_t>{3, -2147483647});
  Tensor& d = zeros(DType::Double, {2});
  ArgStack s2;
  s2.t(q)
      .d(0.1)
      .i(0)
      .i(std::numeric_limits<int32_t>::min())
      .i(std::numeric_limits<int32_t>::max())
      .i(kInt)
      .i(kDouble)
      .t(d);
  ASSERT_EQ(s2.call_out("quantized_decomposed::dequantize_per_tensor.out"), Error::Ok);
  EXPECT_EQ(values<double>(d)[0], static_cast<double>(3.0f * 0.1f));
  EXPECT_EQ(values<double>(d)[1], static_cast<double>(-2147483647.0f * 0.1f));
}

TEST_F(QuantizedTest, DequantizeTensorArgsAndErrors) {
  Tensor& in = make(DType::Char, {3}, std::vector<int8_t>{-128, 0, 127});
  Tensor& scale = make(DType::Double, {1}, std::vector<double>{0.5});
  Tensor& zp = make(DType::Long, {1}, std::vector<int64_t>{-1});
  Tensor& out = zeros(DType::Float, {3});
  const char* op = "quantized_decomposed::dequantize_per_tensor.Tensor_out";
  ArgStack s;
  s.t(in).t(scale).t(zp).i(-128).i(127).i(kChar).i(kFloat).t(out);
  ASSERT_EQ(s.call_out(op), Error::Ok);
  EXPECT_EQ(values<float>(out), (std::vector<float>{-63.5f, 0.5f, 64.0f}));
  {
    ArgStack b;
    b.t(in).t(scale).t(zp).i(-128).i(127).i(kByte).none().t(out);
    EXPECT_TRUE(fails_with(b, op, Error::InvalidArgument,
                           "input has dtype i8 but the dtype argument is u8"));
  }
  {
    ArgStack b;
    b.t(in).t(scale).t(zp).i(-128).i(127).i(kChar).i(kDouble).t(out);
    EXPECT_TRUE(
        fails_with(b, op, Error::InvalidArgument, "out has dtype f32 but out_dtype is f64"));
  }
  {
    ArgStack b;
    b.t(in).t(scale).t(zp).i(5).i(4).i(kChar).none().t(out);
    EXPECT_TRUE(fails_with(b, op, Error::InvalidArgument, "greater than quant_max"));
  }
  {
    Tensor& int_out = zeros(DType::Int, {3});
    ArgStack b;
    b.t(in).t(scale).t(zp).i(-128).i(127).i(kChar).none().t(int_out);
    EXPECT_TRUE(fails_with(b, op, Error::InvalidArgument, "expected Float or Double"));
  }
  {
    Tensor& long_zp = make(DType::Int, {1}, std::vector<int32_t>{0});
    ArgStack b;
    b.t(in).t(scale).t(long_zp).i(-128).i(127).i(kChar).none().t(out);
    EXPECT_TRUE(fails_with(b, op, Error::InvalidArgument, "zero_point must be a i64 tensor"));
  }
}

TEST_F(QuantizedTest, DequantizePerChannel) {
  // The ONNX DequantizeLinear axis test: [1, 3, 3, 2] uint8, axis 1.
  const std::vector<uint8_t> x = {3,  89, 34, 200, 74, 59, 5,   24,  24,
                                  87, 32, 13, 245, 99, 4,  142, 121, 102};
  Tensor& in = make(DType::Byte, {1, 3, 3, 2}, x);
  Tensor& scales = make(DType::Double, {3}, std::vector<double>{2, 4, 5});
  Tensor& zps = make(DType::Long, {3}, std::vector<int64_t>{84, 24, 196});
  Tensor& out = zeros(DType::Float, {1, 3, 3, 2});
  const char* op = "quantized_decomposed::dequantize_per_channel.out";
  ArgStack s;
  s.t(in).t(scales).t(zps).i(1).i(0).i(255).i(kByte).none().t(out);
  ASSERT_EQ(s.call_out(op), Error::Ok);
  EXPECT_EQ(values<float>(out), (std::vector<float>{-162, 10, -100, 232, -20, -50, -76, 0, 0, 252,
                                                    32, -44, 245, -485, -960, -270, -375, -470}));
  // No zero points: 0.
  Tensor& out2 = zeros(DType::Double, {1, 3, 3, 2});
  ArgStack s2;
  s2.t(in).t(scales).none().i(1).i(0).i(255).i(kByte).i(kDouble).t(out2);
  ASSERT_EQ(s2.call_out(op), Error::Ok);
  EXPECT_EQ(values<double>(out2)[0], 6.0);
  EXPECT_EQ(values<double>(out2)[17], 510.0);

  ArgStack bad;
  bad.t(in).t(scales).t(zps).i(3).i(0).i(255).i(kByte).none().t(out);
  EXPECT_TRUE(fails_with(bad, op, Error::InvalidArgument, "scales must have 2 element"));
}

TEST_F(QuantizedTest, RoundTripPerChannelIsTheIdentityOnTheGrid) {
  std::vector<int16_t> q;
  for (int i = 0; i < 24; ++i) q.push_back(static_cast<int16_t>(i * 997 - 12000));
  Tensor& qin = make(DType::Short, {2, 3, 4}, q);
  Tensor& scales = make(DType::Double, {4}, std::vector<double>{0.5, 0.25, 2, 1});
  Tensor& zps = make(DType::Long, {4}, std::vector<int64_t>{0, 7, -7, 100});
  Tensor& deq = zeros(DType::Float, {2, 3, 4});
  ArgStack a;
  a.t(qin).t(scales).t(zps).i(-1).i(-32768).i(32767).i(kShort).none().t(deq);
  ASSERT_EQ(a.call_out("quantized_decomposed::dequantize_per_channel.out"), Error::Ok);
  Tensor& back = zeros(DType::Short, {2, 3, 4});
  ArgStack b;
  b.t(deq).t(scales).t(zps).i(2).i(-32768).i(32767).i(kShort).t(back);
  ASSERT_EQ(b.call_out("quantized_decomposed::quantize_per_channel.out"), Error::Ok);
  EXPECT_EQ(values<int16_t>(back), q);
}

TEST_F(QuantizedTest, ChooseQparamsMatchesTorch) {
  struct Case {
    std::vector<float> x;
    double scale;
    int64_t zero_point;
  };
  // torch._choose_qparams_per_tensor(x, reduce_range=False) (quant range [0, 255]).
  const Case cases[] = {
      {{0.f, 2.f, -3.f, -2.5f, 1.34f, 0.5f}, 0.0196078431372549, 153},
      {{1.f, 2.1f, 1.3f, 2.5f}, 0.00980392156862745, 0},
      {{-1.f, -4.f}, 0.01568627450980392, 255},
      {{0.f, 0.f}, 0.1, 0},
      {{1e-6f, -2e-6f}, static_cast<double>(6.1e-5f), 170},
  };
  for (const Case& c : cases) {
    Tensor& in = make(DType::Float, {static_cast<SizesType>(c.x.size())}, c.x);
    Tensor& scale = zeros(DType::Double, {1});
    Tensor& zp = zeros(DType::Long, {1});
    ArgStack s;
    s.t(in).i(0).i(255).d(1e-7).i(kByte).t(scale).t(zp);
    ASSERT_EQ(s.call("quantized_decomposed::choose_qparams.Tensor_out", -1, {5, 6}), Error::Ok);
    EXPECT_DOUBLE_EQ(values<double>(scale)[0], c.scale);
    EXPECT_EQ(values<int64_t>(zp)[0], c.zero_point);
  }
}

TEST_F(QuantizedTest, ChooseQparamsSignedRange) {
  // [-1, 3] over [-128, 127]: scale 4 / 255, zero point from min: -128 + 63.75 = -64.25 -> -64.
  Tensor& in = make(DType::Float, {2}, std::vector<float>{-1.f, 3.f});
  Tensor& scale = zeros(DType::Double, {1});
  Tensor& zp = zeros(DType::Long, {1});
  ArgStack s;
  s.t(in).i(-128).i(127).d(1e-7).i(kChar).t(scale).t(zp);
  ASSERT_EQ(s.call("quantized_decomposed::choose_qparams.Tensor_out", -1, {5, 6}), Error::Ok);
  EXPECT_DOUBLE_EQ(values<double>(scale)[0], 4.0 / 255);
  EXPECT_EQ(values<int64_t>(zp)[0], -64);
}

TEST_F(QuantizedTest, ChooseQparamsErrors) {
  const char* op = "quantized_decomposed::choose_qparams.Tensor_out";
  Tensor& in = make(DType::Float, {2}, std::vector<float>{-1.f, 3.f});
  Tensor& scale = zeros(DType::Double, {1});
  Tensor& zp = zeros(DType::Long, {1});
  {
    ArgStack s;
    s.t(in).i(5).i(5).d(1e-7).i(kByte).t(scale).t(zp);
    EXPECT_EQ(s.call(op, -1, {5, 6}), Error::InvalidArgument);
  }
  {
    Tensor& d = make(DType::Double, {2}, std::vector<double>{-1, 3});
    ArgStack s;
    s.t(d).i(0).i(255).d(1e-7).i(kByte).t(scale).t(zp);
    EXPECT_EQ(s.call(op, -1, {5, 6}), Error::InvalidArgument);
  }
  {
    Tensor& float_scale = zeros(DType::Float, {1});
    ArgStack s;
    s.t(in).i(0).i(255).d(1e-7).i(kByte).t(float_scale).t(zp);
    EXPECT_EQ(s.call(op, -1, {5, 6}), Error::InvalidArgument);
  }
  {
    Tensor& nan =
        make(DType::Float, {2}, std::vector<float>{std::numeric_limits<float>::quiet_NaN(), 1.f});
    ArgStack s;
    s.t(nan).i(0).i(255).d(1e-7).i(kByte).t(scale).t(zp);
    EXPECT_EQ(s.call(op, -1, {5, 6}), Error::InvalidArgument);
  }
  {
    Tensor& empty = zeros(DType::Float, {0});
    ArgStack s;
    s.t(empty).i(0).i(255).d(1e-7).i(kByte).t(scale).t(zp);
    EXPECT_EQ(s.call(op, -1, {5, 6}), Error::InvalidArgument);
  }
}

}  // namespace
}  // namespace ptec::kernels::test
