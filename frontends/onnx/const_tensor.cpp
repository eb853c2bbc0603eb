#include "frontends/onnx/const_tensor.h"

#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ir/exception.h"

namespace ptec::onnx_import {
namespace {

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits = 0;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while ((mantissa & 0x400u) == 0);
      bits = sign | static_cast<uint32_t>(127 - 15 - e) << 23 | (mantissa & 0x3ffu) << 13;
    }
  } else if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | mantissa << 13;
  } else {
    bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  return std::bit_cast<float>(bits);
}

uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (abs < 0x38800000u) {  // subnormal or zero: round to nearest even
    const float magnitude = std::bit_cast<float>(abs);
    const auto scaled = static_cast<uint32_t>(std::nearbyint(magnitude * 16777216.0f));
    return static_cast<uint16_t>(sign | scaled);
  }
  const uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);  // round to nearest even
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

float bf16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t float_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

template <typename T>
T load(const uint8_t* base, int64_t i) {
  T v;
  std::memcpy(&v, base + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
void store(uint8_t* base, int64_t i, T v) {
  std::memcpy(base + static_cast<size_t>(i) * sizeof(T), &v, sizeof(T));
}

[[noreturn]] void unsupported_dtype(DType dtype) {
  raise(Error::NotSupported, "import-time evaluation does not support dtype {}", to_string(dtype));
}

}  // namespace

bool is_numeric(DType dtype) {
  switch (dtype) {
    case DType::Byte:
    case DType::Char:
    case DType::Short:
    case DType::Int:
    case DType::Long:
    case DType::Half:
    case DType::Float:
    case DType::Double:
    case DType::Bool:
    case DType::BFloat16:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64: return true;
    default: return false;
  }
}

int64_t element_count(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    PTEC_ENFORCE(s >= 0, InvalidArgument, "negative size in {}", sizes_to_string(sizes));
    PTEC_ENFORCE(s == 0 || n <= INT64_MAX / s, InvalidArgument, "element count of {} overflows",
                 sizes_to_string(sizes));
    n *= s;
  }
  return n;
}

std::string sizes_to_string(const std::vector<int64_t>& sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ", "));
}

int64_t ConstTensor::numel() const { return element_count(sizes); }

size_t ConstTensor::nbytes() const { return static_cast<size_t>(numel()) * element_size(dtype); }

int64_t ConstTensor::int_at(int64_t i) const {
  const uint8_t* p = data->data();
  switch (dtype) {
    case DType::Byte: return load<uint8_t>(p, i);
    case DType::Char: return load<int8_t>(p, i);
    case DType::Short: return load<int16_t>(p, i);
    case DType::Int: return load<int32_t>(p, i);
    case DType::Long: return load<int64_t>(p, i);
    case DType::Bool: return load<uint8_t>(p, i) != 0 ? 1 : 0;
    case DType::UInt16: return load<uint16_t>(p, i);
    case DType::UInt32: return load<uint32_t>(p, i);
    case DType::UInt64: return static_cast<int64_t>(load<uint64_t>(p, i));
    case DType::Half:
    case DType::Float:
    case DType::Double:
    case DType::BFloat16: {
      const double d = double_at(i);
      // Float → int conversion truncates toward zero (as ONNX Cast does); NaN/inf saturate.
      if (std::isnan(d)) return 0;
      if (d >= 9.2233720368547758e18) return INT64_MAX;
      if (d <= -9.2233720368547758e18) return INT64_MIN;
      return static_cast<int64_t>(d);
    }
    default: unsupported_dtype(dtype);
  }
}

double ConstTensor::double_at(int64_t i) const {
  const uint8_t* p = data->data();
  switch (dtype) {
    case DType::Half: return half_to_float(load<uint16_t>(p, i));
    case DType::BFloat16: return bf16_to_float(load<uint16_t>(p, i));
    case DType::Float: return load<float>(p, i);
    case DType::Double: return load<double>(p, i);
    case DType::UInt64: return static_cast<double>(load<uint64_t>(p, i));
    default: return static_cast<double>(int_at(i));
  }
}

std::vector<int64_t> ConstTensor::to_int64() const {
  std::vector<int64_t> out(static_cast<size_t>(numel()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = int_at(static_cast<int64_t>(i));
  return out;
}

std::vector<double> ConstTensor::to_double() const {
  std::vector<double> out(static_cast<size_t>(numel()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = double_at(static_cast<int64_t>(i));
  return out;
}

ConstTensor ConstTensor::reshaped(std::vector<int64_t> new_sizes) const {
  PTEC_ENFORCE(element_count(new_sizes) == numel(), InvalidArgument,
               "cannot reshape {} elements to {}", numel(), sizes_to_string(new_sizes));
  return ConstTensor{dtype, std::move(new_sizes), data};
}

ConstTensor ConstTensor::from_int64(DType dtype, std::vector<int64_t> sizes,
                                    const std::vector<int64_t>& values) {
  const int64_t n = element_count(sizes);
  PTEC_ENFORCE(n == static_cast<int64_t>(values.size()), InvalidArgument,
               "{} values for a tensor of sizes {}", values.size(), sizes_to_string(sizes));
  if (is_floating_point(dtype)) {
    return from_double(dtype, std::move(sizes), std::vector<double>(values.begin(), values.end()));
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(n) * element_size(dtype));
  uint8_t* p = bytes.data();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = values[static_cast<size_t>(i)];
    switch (dtype) {
      case DType::Byte: store<uint8_t>(p, i, static_cast<uint8_t>(v)); break;
      case DType::Char: store<int8_t>(p, i, static_cast<int8_t>(v)); break;
      case DType::Short: store<int16_t>(p, i, static_cast<int16_t>(v)); break;
      case DType::Int: store<int32_t>(p, i, static_cast<int32_t>(v)); break;
      case DType::Long: store<int64_t>(p, i, v); break;
      case DType::Bool: store<uint8_t>(p, i, v != 0 ? 1 : 0); break;
      case DType::UInt16: store<uint16_t>(p, i, static_cast<uint16_t>(v)); break;
      case DType::UInt32: store<uint32_t>(p, i, static_cast<uint32_t>(v)); break;
      case DType::UInt64: store<uint64_t>(p, i, static_cast<uint64_t>(v)); break;
      default: unsupported_dtype(dtype);
    }
  }
  return ConstTensor{dtype, std::move(sizes), ir::Buffer::from_vector(std::move(bytes))};
}

ConstTensor ConstTensor::from_double(DType dtype, std::vector<int64_t> sizes,
                                     const std::vector<double>& values) {
  const int64_t n = element_count(sizes);
  PTEC_ENFORCE(n == static_cast<int64_t>(values.size()), InvalidArgument,
               "{} values for a tensor of sizes {}", values.size(), sizes_to_string(sizes));
  if (!is_floating_point(dtype)) {
    std::vector<int64_t> ints(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const double d = values[i];
      ints[i] = dtype == DType::Bool          ? (d != 0.0 ? 1 : 0)
                : std::isnan(d)               ? 0
                : d >= 9.2233720368547758e18  ? INT64_MAX
                : d <= -9.2233720368547758e18 ? INT64_MIN
                                              : static_cast<int64_t>(d);
    }
    return from_int64(dtype, std::move(sizes), ints);
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(n) * element_size(dtype));
  uint8_t* p = bytes.data();
  for (int64_t i = 0; i < n; ++i) {
    const double v = values[static_cast<size_t>(i)];
    switch (dtype) {
      case DType::Float: store<float>(p, i, static_cast<float>(v)); break;
      case DType::Double: store<double>(p, i, v); break;
      case DType::Half: store<uint16_t>(p, i, float_to_half(static_cast<float>(v))); break;
      case DType::BFloat16: store<uint16_t>(p, i, float_to_bf16(static_cast<float>(v))); break;
      default: unsupported_dtype(dtype);
    }
  }
  return ConstTensor{dtype, std::move(sizes), ir::Buffer::from_vector(std::move(bytes))};
}

ConstTensor ConstTensor::int64_vector(const std::vector<int64_t>& values) {
  return from_int64(DType::Long, {static_cast<int64_t>(values.size())}, values);
}

}  // namespace ptec::onnx_import
