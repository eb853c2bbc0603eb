#include "core/dtype.h"

#include <gtest/gtest.h>

namespace ptec {
namespace {

TEST(DTypeTest, NumberingMatchesExecuTorchScalarType) {
  EXPECT_EQ(static_cast<int>(DType::Byte), 0);
  EXPECT_EQ(static_cast<int>(DType::Char), 1);
  EXPECT_EQ(static_cast<int>(DType::Short), 2);
  EXPECT_EQ(static_cast<int>(DType::Int), 3);
  EXPECT_EQ(static_cast<int>(DType::Long), 4);
  EXPECT_EQ(static_cast<int>(DType::Half), 5);
  EXPECT_EQ(static_cast<int>(DType::Float), 6);
  EXPECT_EQ(static_cast<int>(DType::Double), 7);
  EXPECT_EQ(static_cast<int>(DType::Bool), 11);
  EXPECT_EQ(static_cast<int>(DType::QInt8), 12);
  EXPECT_EQ(static_cast<int>(DType::QUInt8), 13);
  EXPECT_EQ(static_cast<int>(DType::QInt32), 14);
  EXPECT_EQ(static_cast<int>(DType::BFloat16), 15);
  EXPECT_EQ(static_cast<int>(DType::QUInt4x2), 16);
  EXPECT_EQ(static_cast<int>(DType::QUInt2x4), 17);
  EXPECT_EQ(static_cast<int>(DType::Bits16), 22);
  EXPECT_EQ(static_cast<int>(DType::Float8_e5m2), 23);
  EXPECT_EQ(static_cast<int>(DType::Float8_e4m3fnuz), 26);
  EXPECT_EQ(static_cast<int>(DType::UInt16), 27);
  EXPECT_EQ(static_cast<int>(DType::UInt64), 29);
}

TEST(DTypeTest, ElementSizes) {
  EXPECT_EQ(element_size(DType::Byte), 1u);
  EXPECT_EQ(element_size(DType::Char), 1u);
  EXPECT_EQ(element_size(DType::Short), 2u);
  EXPECT_EQ(element_size(DType::Int), 4u);
  EXPECT_EQ(element_size(DType::Long), 8u);
  EXPECT_EQ(element_size(DType::Half), 2u);
  EXPECT_EQ(element_size(DType::Float), 4u);
  EXPECT_EQ(element_size(DType::Double), 8u);
  EXPECT_EQ(element_size(DType::Bool), 1u);
  EXPECT_EQ(element_size(DType::BFloat16), 2u);
  EXPECT_EQ(element_size(DType::QInt32), 4u);
  EXPECT_EQ(element_size(DType::UInt32), 4u);
  EXPECT_EQ(element_size(static_cast<DType>(9)), 0u);  // complex types are not supported
}

TEST(DTypeTest, ValidityAndNames) {
  EXPECT_TRUE(is_valid_dtype(6));
  EXPECT_FALSE(is_valid_dtype(8));
  EXPECT_FALSE(is_valid_dtype(18));
  EXPECT_FALSE(is_valid_dtype(-1));
  EXPECT_FALSE(is_valid_dtype(30));
  EXPECT_STREQ(to_string(DType::Float), "f32");
  EXPECT_STREQ(to_string(DType::Long), "i64");
  EXPECT_EQ(dtype_from_string("f32"), DType::Float);
  EXPECT_EQ(dtype_from_string("int64"), DType::Long);
  EXPECT_EQ(dtype_from_string("bogus"), std::nullopt);
  for (int v = 0; v < 32; ++v) {
    if (!is_valid_dtype(v)) continue;
    auto dtype = static_cast<DType>(v);
    EXPECT_EQ(dtype_from_string(to_string(dtype)), dtype) << v;
  }
}

TEST(DTypeTest, Categories) {
  EXPECT_TRUE(is_floating_point(DType::Float));
  EXPECT_TRUE(is_floating_point(DType::BFloat16));
  EXPECT_FALSE(is_floating_point(DType::Long));
  EXPECT_TRUE(is_integral(DType::Long, false));
  EXPECT_FALSE(is_integral(DType::Bool, false));
  EXPECT_TRUE(is_integral(DType::Bool, true));
  EXPECT_TRUE(is_quantized(DType::QUInt8));
  EXPECT_FALSE(is_quantized(DType::Byte));
}

}  // namespace
}  // namespace ptec
