#pragma once

// How one tensor is quantized (DESIGN.md §8), PT2E's QuantizationSpec: the integer type and its
// range, the scheme (per tensor / per channel / per group, affine or symmetric), the observer
// that picks the range, and whether the parameters are chosen at run time (dynamic).

#include <cstdint>
#include <optional>
#include <string>

#include "core/dtype.h"

namespace ptec::quant {

/// The quantized integer type. Int4 is stored in int8 tensors holding values in [-8, 7].
enum class QDType { Int8, UInt8, Int4 };
const char* to_string(QDType dtype);
/// The storage dtype of a quantized tensor (Char for Int8 and Int4, Byte for UInt8).
DType storage_dtype(QDType dtype);

/// Affine: zero point chosen so that [min, max] maps onto [quant_min, quant_max]. Symmetric: zero
/// point 0 (int8) or 128 (uint8), scale from max(|min|, |max|).
enum class QScheme { PerTensorAffine, PerTensorSymmetric, PerChannelSymmetric, PerGroupSymmetric };
const char* to_string(QScheme scheme);
bool is_symmetric(QScheme scheme);

/// Which observer picks the range of a tensor.
enum class ObserverKind {
  MinMax,               ///< running min and max
  MovingAverageMinMax,  ///< exponential moving average of each batch's min and max
  PerChannelMinMax,     ///< min and max per index of `ch_axis`
  PerGroupMinMax,       ///< min and max per channel and group of `group_size` along the last axis
  HistogramMse,         ///< histogram; the range with the smallest expected squared error
  HistogramPercentile,  ///< histogram; the `percentile` / 100 - `percentile` quantiles
};
const char* to_string(ObserverKind kind);

/// How one tensor is quantized.
struct QuantizationSpec {
  QDType dtype = QDType::Int8;
  /// The integer range used (e.g. [-127, 127] for symmetric int8 weights).
  int64_t quant_min = -128;
  int64_t quant_max = 127;
  QScheme qscheme = QScheme::PerTensorAffine;
  /// The channel axis of per-channel and per-group schemes (of the tensor as it is stored).
  std::optional<int64_t> ch_axis;
  /// Elements of one group along the reduction axis (PerGroupSymmetric).
  int64_t group_size = 0;
  ObserverKind observer = ObserverKind::MinMax;
  /// HistogramPercentile: the upper quantile in percent (the lower one is 100 - percentile).
  double percentile = 99.99;
  /// MovingAverageMinMax: weight of the newest batch.
  double averaging_constant = 0.01;
  /// Parameters chosen at run time from each input (choose_qparams); no observer.
  bool is_dynamic = false;

  bool operator==(const QuantizationSpec&) const = default;
  /// One line, e.g. "int8[-128,127] per_tensor_affine HistogramMse".
  std::string to_string() const;
};

/// What a quantizer wants for the operands and result of one kind of op: the activations that
/// flow in, the weight, the activation that comes out. An absent spec leaves that tensor float
/// (e.g. the output of dynamically quantized ops, or activations of weight-only schemes).
struct QuantizationConfig {
  std::optional<QuantizationSpec> input_activation;
  std::optional<QuantizationSpec> output_activation;
  std::optional<QuantizationSpec> weight;
  bool operator==(const QuantizationConfig&) const = default;
};

/// XNNPACKQuantizer's get_symmetric_quantization_config: activations int8 affine ([-128, 127],
/// histogram / MSE range; dynamic: chosen per run and no output quantization), weights int8
/// symmetric in [-127, 127], per output channel (axis set by the annotator) or per tensor.
QuantizationConfig get_symmetric_quantization_config(bool is_per_channel = true,
                                                     bool is_dynamic = false);
/// Weight-only int4: linear weights symmetric in [-8, 7] per `group_size` input channels;
/// activations stay float. InvalidArgument unless group_size > 0.
QuantizationConfig get_int4_weight_only_config(int64_t group_size);

}  // namespace ptec::quant
