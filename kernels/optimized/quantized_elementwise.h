#pragma once

// The int8 element-wise kernels around quantized convolutions and linear layers: quantize,
// dequantize, requantize, the quantized add of residual blocks, and max pooling of stored values.
// Tensors are uint8, or int8 where `*_signed`; a value q stands for (q - zero_point) * scale.
// Every result is stored as clamp(round_half_even(v) + zero_point, lo, hi), where v is the real
// value divided by the output scale and [lo, hi] is the dtype's range narrowed by a fused ReLU or
// clamp; a NaN v stores lo. The arithmetic is the scalar definition's, term by term (the same
// products and one division by the output scale), so results are exact, not approximations; the
// loops are vectorized for AVX-512F and AVX2 where the CPU has them, and split among the threads.

#include <cstdint>

#include "kernels/optimized/max_pool2d.h"

namespace ptec::kernels::optimized {

/// Quantization parameters: a stored q stands for (q - zero_point) * scale.
struct QuantParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

/// Where results go: uint8 (or int8 when `is_signed`) values in [lo, hi].
struct QuantOutput {
  QuantParams q;
  int32_t lo = 0, hi = 255;
  bool is_signed = false;
};

/// out[i] = quantized x[i]: v = x[i] / scale, or x[i] * (1 / scale) where `reciprocal` (as the
/// exporter's quantize op asked).
void quantize(const float* x, int64_t n, bool reciprocal, const QuantOutput& o, void* out);

/// out[i] = (q[i] - zero_point) * scale.
void dequantize(const void* q, bool q_signed, int64_t n, const QuantParams& p, float* out);

/// out[i] = q[i] moved to o's parameters: v = (q[i] - zero_point) * scale / o.q.scale.
void requantize(const void* q, bool q_signed, int64_t n, const QuantParams& p, const QuantOutput& o,
                void* out);

/// out[i] = a[i] + b[i] in o's parameters: v = ((a[i] - za) sa + (b[i] - zb) sb) / o.q.scale.
void quantized_add(const void* a, bool a_signed, const QuantParams& pa, const void* b,
                   bool b_signed, const QuantParams& pb, int64_t n, const QuantOutput& o,
                   void* out);

/// Max pooling of stored values (a positive scale keeps their order, so this is the pooling of
/// the real values, in the same parameters): out[planes, oh, ow] of in[planes, h, w], each the
/// largest stored value of its window, padding never winning; a window with no input element
/// stores the dtype's lowest value. Returns false (and writes nothing) for an invalid shape.
bool quantized_max_pool2d(const MaxPool2dShape& s, const void* in, bool is_signed, void* out);

}  // namespace ptec::kernels::optimized
