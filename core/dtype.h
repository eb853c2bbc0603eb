#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ptec {

/// Element types, numbered as ExecuTorch's ScalarType (schema/scalar_type.fbs, c10::ScalarType).
enum class DType : int8_t {
  Byte = 0,    // uint8
  Char = 1,    // int8
  Short = 2,   // int16
  Int = 3,     // int32
  Long = 4,    // int64
  Half = 5,    // float16
  Float = 6,   // float32
  Double = 7,  // float64
  Bool = 11,
  QInt8 = 12,
  QUInt8 = 13,
  QInt32 = 14,
  BFloat16 = 15,
  QUInt4x2 = 16,
  QUInt2x4 = 17,
  Bits16 = 22,
  Float8_e5m2 = 23,
  Float8_e4m3fn = 24,
  Float8_e5m2fnuz = 25,
  Float8_e4m3fnuz = 26,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
};

/// True when `value` is one of the numbers above.
bool is_valid_dtype(int64_t value);

/// Bytes per element (QUInt4x2 and QUInt2x4 pack several values in one byte and report 1).
/// Returns 0 for a value that is not a valid DType.
size_t element_size(DType dtype);

/// Short name used by the printer and the CLI: "f32", "i64", "bool", "u8", ...
const char* to_string(DType dtype);

/// Inverse of to_string; also accepts ATen names ("float32", "int64", "float", "long").
std::optional<DType> dtype_from_string(std::string_view name);

bool is_floating_point(DType dtype);  // Half, Float, Double, BFloat16, Float8*
bool is_integral(DType dtype, bool include_bool);
bool is_quantized(DType dtype);  // QInt8, QUInt8, QInt32, QUInt4x2, QUInt2x4

}  // namespace ptec
