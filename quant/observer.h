#pragma once

// Observers (DESIGN.md §8): they see the values a tensor takes during calibration (or a weight's
// values once) and choose its quantization parameters.
//
//   MinMaxObserver               running min / max (per tensor)
//   MovingAverageMinMaxObserver  min / max averaged over batches (averaging_constant)
//   PerChannelMinMaxObserver     min / max per index of ch_axis
//   PerGroupMinMaxObserver       min / max per row and group of group_size columns (2-D weights)
//   HistogramObserver            a 2048-bin histogram whose range grows with the data; the range
//                                is its percentile / 100 - percentile quantiles, or the range with
//                                the smallest expected squared quantization error (MSE)
//
// Parameters from a range [lo, hi] (PyTorch's _calculate_qparams): the range is extended to
// contain 0; affine: scale = (hi - lo) / (quant_max - quant_min), zero_point = quant_min -
// round(lo / scale) clamped to the range; symmetric: scale = max(-lo, hi) / ((quant_max -
// quant_min) / 2), zero_point = 0 (128 for uint8). Scales are at least float32's epsilon.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "quant/quantization_spec.h"

namespace ptec::quant {

/// Chosen quantization parameters: one scale and zero point (per tensor), or one per channel
/// (`axis`), or one per channel and group (row-major [channels, groups], `group_size`).
struct QParams {
  QDType dtype = QDType::Int8;
  int64_t quant_min = -128;
  int64_t quant_max = 127;
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
  std::optional<int64_t> axis;
  int64_t group_size = 0;

  bool per_tensor() const { return !axis.has_value(); }
  /// Quantizes one value with parameter set `i`: clamp(round_half_even(x / scale) + zero_point).
  int64_t quantize(double x, size_t i = 0) const;
  /// (q - zero_point) * scale with parameter set `i`.
  double dequantize(int64_t q, size_t i = 0) const;
};

/// Parameters of `spec` (per tensor) for the range [lo, hi] (extended to contain 0).
QParams qparams_from_range(const QuantizationSpec& spec, double lo, double hi);

/// The base of every observer.
class Observer {
 public:
  explicit Observer(QuantizationSpec spec) : spec_(std::move(spec)) {}
  virtual ~Observer() = default;
  Observer(const Observer&) = delete;
  Observer& operator=(const Observer&) = delete;

  /// Sees one tensor of `sizes` (contiguous floats). NaNs are ignored; infinities are errors
  /// (InvalidArgument) since no finite range holds them.
  virtual void observe(const float* data, const std::vector<int64_t>& sizes) = 0;
  /// True once a tensor with at least one element was observed.
  bool has_data() const { return has_data_; }
  /// The parameters; InvalidState before any data was observed.
  virtual QParams calculate_qparams() const = 0;
  const QuantizationSpec& spec() const { return spec_; }

 protected:
  QuantizationSpec spec_;
  bool has_data_ = false;
};

class MinMaxObserver final : public Observer {
 public:
  using Observer::Observer;
  void observe(const float* data, const std::vector<int64_t>& sizes) override;
  QParams calculate_qparams() const override;
  double min() const { return min_; }
  double max() const { return max_; }

 private:
  double min_ = 0, max_ = 0;
};

class MovingAverageMinMaxObserver final : public Observer {
 public:
  using Observer::Observer;
  void observe(const float* data, const std::vector<int64_t>& sizes) override;
  QParams calculate_qparams() const override;
  double min() const { return min_; }
  double max() const { return max_; }

 private:
  double min_ = 0, max_ = 0;
};

class PerChannelMinMaxObserver final : public Observer {
 public:
  /// InvalidArgument unless spec.ch_axis is set.
  explicit PerChannelMinMaxObserver(QuantizationSpec spec);
  void observe(const float* data, const std::vector<int64_t>& sizes) override;
  QParams calculate_qparams() const override;

 private:
  std::vector<double> min_, max_;
};

class PerGroupMinMaxObserver final : public Observer {
 public:
  /// InvalidArgument unless spec.group_size > 0 and spec.ch_axis is 0.
  explicit PerGroupMinMaxObserver(QuantizationSpec spec);
  /// `sizes` must be [channels, K] with K a multiple of group_size.
  void observe(const float* data, const std::vector<int64_t>& sizes) override;
  QParams calculate_qparams() const override;

 private:
  std::vector<double> min_, max_;
  int64_t channels_ = 0;
};

class HistogramObserver final : public Observer {
 public:
  static constexpr int64_t kBins = 2048;
  using Observer::Observer;
  void observe(const float* data, const std::vector<int64_t>& sizes) override;
  QParams calculate_qparams() const override;
  /// The range the parameters are computed from (before it is extended to contain 0).
  std::pair<double, double> chosen_range() const;
  /// Expected squared error of quantizing the histogrammed values onto [lo, hi] (per value).
  double expected_error(double lo, double hi) const;

 private:
  void rebin(double lo, double hi);
  std::pair<double, double> mse_range() const;
  std::pair<double, double> percentile_range() const;
  double bin_center(int64_t b) const { return lo_ + (static_cast<double>(b) + 0.5) * width(); }
  double width() const { return (hi_ - lo_) / static_cast<double>(kBins); }

  std::vector<double> counts_;
  double lo_ = 0, hi_ = 0;
  double total_ = 0;
};

/// The observer `spec` names. InvalidArgument for a dynamic spec (it has none).
std::unique_ptr<Observer> make_observer(const QuantizationSpec& spec);

}  // namespace ptec::quant
