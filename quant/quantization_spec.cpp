#include "quant/quantization_spec.h"

#include <fmt/format.h>

#include "ir/exception.h"

namespace ptec::quant {

const char* to_string(QDType dtype) {
  switch (dtype) {
    case QDType::Int8: return "int8";
    case QDType::UInt8: return "uint8";
    case QDType::Int4: return "int4";
  }
  return "unknown";
}

DType storage_dtype(QDType dtype) { return dtype == QDType::UInt8 ? DType::Byte : DType::Char; }

const char* to_string(QScheme scheme) {
  switch (scheme) {
    case QScheme::PerTensorAffine: return "per_tensor_affine";
    case QScheme::PerTensorSymmetric: return "per_tensor_symmetric";
    case QScheme::PerChannelSymmetric: return "per_channel_symmetric";
    case QScheme::PerGroupSymmetric: return "per_group_symmetric";
  }
  return "unknown";
}

bool is_symmetric(QScheme scheme) { return scheme != QScheme::PerTensorAffine; }

const char* to_string(ObserverKind kind) {
  switch (kind) {
    case ObserverKind::MinMax: return "MinMax";
    case ObserverKind::MovingAverageMinMax: return "MovingAverageMinMax";
    case ObserverKind::PerChannelMinMax: return "PerChannelMinMax";
    case ObserverKind::PerGroupMinMax: return "PerGroupMinMax";
    case ObserverKind::HistogramMse: return "HistogramMse";
    case ObserverKind::HistogramPercentile: return "HistogramPercentile";
  }
  return "unknown";
}

std::string QuantizationSpec::to_string() const {
  std::string s = fmt::format("{}[{},{}] {}", quant::to_string(dtype), quant_min, quant_max,
                              quant::to_string(qscheme));
  if (ch_axis) s += fmt::format(" axis={}", *ch_axis);
  if (group_size > 0) s += fmt::format(" group_size={}", group_size);
  s += is_dynamic ? " dynamic" : fmt::format(" {}", quant::to_string(observer));
  return s;
}

QuantizationConfig get_symmetric_quantization_config(bool is_per_channel, bool is_dynamic) {
  QuantizationConfig c;
  QuantizationSpec act;
  act.dtype = QDType::Int8;
  act.quant_min = -128;
  act.quant_max = 127;
  act.qscheme = QScheme::PerTensorAffine;
  act.observer = ObserverKind::HistogramMse;
  act.is_dynamic = is_dynamic;
  c.input_activation = act;
  if (!is_dynamic) c.output_activation = act;
  QuantizationSpec w;
  w.dtype = QDType::Int8;
  w.quant_min = -127;
  w.quant_max = 127;
  w.qscheme = is_per_channel ? QScheme::PerChannelSymmetric : QScheme::PerTensorSymmetric;
  w.observer = is_per_channel ? ObserverKind::PerChannelMinMax : ObserverKind::MinMax;
  w.ch_axis = is_per_channel ? std::optional<int64_t>(0) : std::nullopt;
  c.weight = w;
  return c;
}

QuantizationConfig get_int4_weight_only_config(int64_t group_size) {
  PTEC_ENFORCE(group_size > 0, InvalidArgument,
               "int4 weight-only quantization: group_size must be positive, got {}", group_size);
  QuantizationConfig c;
  QuantizationSpec w;
  w.dtype = QDType::Int4;
  w.quant_min = -8;
  w.quant_max = 7;
  w.qscheme = QScheme::PerGroupSymmetric;
  w.observer = ObserverKind::PerGroupMinMax;
  w.ch_axis = 0;
  w.group_size = group_size;
  c.weight = w;
  return c;
}

}  // namespace ptec::quant
