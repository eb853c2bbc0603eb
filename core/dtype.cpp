#include "core/dtype.h"

#include <array>

namespace ptec {
namespace {

struct DTypeInfo {
  DType dtype;
  size_t size;
  const char* short_name;
  const char* aten_name;
};

// The single table every DType query reads.
constexpr std::array<DTypeInfo, 23> kDTypes = {{
    {DType::Byte, 1, "u8", "uint8"},
    {DType::Char, 1, "i8", "int8"},
    {DType::Short, 2, "i16", "int16"},
    {DType::Int, 4, "i32", "int32"},
    {DType::Long, 8, "i64", "int64"},
    {DType::Half, 2, "f16", "float16"},
    {DType::Float, 4, "f32", "float32"},
    {DType::Double, 8, "f64", "float64"},
    {DType::Bool, 1, "bool", "bool"},
    {DType::QInt8, 1, "qi8", "qint8"},
    {DType::QUInt8, 1, "qu8", "quint8"},
    {DType::QInt32, 4, "qi32", "qint32"},
    {DType::BFloat16, 2, "bf16", "bfloat16"},
    {DType::QUInt4x2, 1, "qu4x2", "quint4x2"},
    {DType::QUInt2x4, 1, "qu2x4", "quint2x4"},
    {DType::Bits16, 2, "bits16", "bits16"},
    {DType::Float8_e5m2, 1, "f8e5m2", "float8_e5m2"},
    {DType::Float8_e4m3fn, 1, "f8e4m3fn", "float8_e4m3fn"},
    {DType::Float8_e5m2fnuz, 1, "f8e5m2fnuz", "float8_e5m2fnuz"},
    {DType::Float8_e4m3fnuz, 1, "f8e4m3fnuz", "float8_e4m3fnuz"},
    {DType::UInt16, 2, "u16", "uint16"},
    {DType::UInt32, 4, "u32", "uint32"},
    {DType::UInt64, 8, "u64", "uint64"},
}};

const DTypeInfo* find(DType dtype) {
  for (const auto& info : kDTypes) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

}  // namespace

bool is_valid_dtype(int64_t value) {
  for (const auto& info : kDTypes) {
    if (static_cast<int64_t>(info.dtype) == value) return true;
  }
  return false;
}

size_t element_size(DType dtype) {
  const DTypeInfo* info = find(dtype);
  return info == nullptr ? 0 : info->size;
}

const char* to_string(DType dtype) {
  const DTypeInfo* info = find(dtype);
  return info == nullptr ? "invalid" : info->short_name;
}

std::optional<DType> dtype_from_string(std::string_view name) {
  for (const auto& info : kDTypes) {
    if (name == info.short_name || name == info.aten_name) return info.dtype;
  }
  if (name == "float") return DType::Float;
  if (name == "double") return DType::Double;
  if (name == "long") return DType::Long;
  if (name == "int") return DType::Int;
  if (name == "half") return DType::Half;
  return std::nullopt;
}

bool is_floating_point(DType dtype) {
  switch (dtype) {
    case DType::Half:
    case DType::Float:
    case DType::Double:
    case DType::BFloat16:
    case DType::Float8_e5m2:
    case DType::Float8_e4m3fn:
    case DType::Float8_e5m2fnuz:
    case DType::Float8_e4m3fnuz: return true;
    default: return false;
  }
}

bool is_integral(DType dtype, bool include_bool) {
  switch (dtype) {
    case DType::Byte:
    case DType::Char:
    case DType::Short:
    case DType::Int:
    case DType::Long:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64: return true;
    case DType::Bool: return include_bool;
    default: return false;
  }
}

bool is_quantized(DType dtype) {
  switch (dtype) {
    case DType::QInt8:
    case DType::QUInt8:
    case DType::QInt32:
    case DType::QUInt4x2:
    case DType::QUInt2x4: return true;
    default: return false;
  }
}

}  // namespace ptec
