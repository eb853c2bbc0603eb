#include "quant/observer.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "ir/exception.h"

namespace ptec::quant {
namespace {

int64_t numel(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Min and max of the finite values of data[0..n) (NaNs skipped). False when there is none.
bool finite_range(const float* data, int64_t n, const QuantizationSpec& spec, double* lo,
                  double* hi) {
  bool any = false;
  float mn = std::numeric_limits<float>::max(), mx = std::numeric_limits<float>::lowest();
  for (int64_t i = 0; i < n; ++i) {
    const float x = data[i];
    if (std::isnan(x)) continue;
    PTEC_ENFORCE(std::isfinite(x), InvalidArgument,
                 "observer {} ({}): the tensor holds an infinity; it cannot be quantized",
                 to_string(spec.observer), spec.to_string());
    mn = std::min(mn, x);
    mx = std::max(mx, x);
    any = true;
  }
  *lo = mn;
  *hi = mx;
  return any;
}

// Scale rounded to float32 (the kernels compute in float) and at least float32's epsilon.
double clean_scale(double scale) {
  const auto f = static_cast<float>(scale);
  return std::max(static_cast<double>(f), static_cast<double>(FLT_EPSILON));
}

void params_into(const QuantizationSpec& spec, double lo, double hi, QParams* q) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  const auto qmin = static_cast<double>(spec.quant_min), qmax = static_cast<double>(spec.quant_max);
  double scale = 0;
  int64_t zp = 0;
  if (is_symmetric(spec.qscheme)) {
    const double max_abs = std::max(-lo, hi);
    scale = clean_scale(max_abs / ((qmax - qmin) / 2.0));
    zp = spec.dtype == QDType::UInt8 ? (spec.quant_min + spec.quant_max + 1) / 2 : 0;
  } else {
    scale = clean_scale((hi - lo) / (qmax - qmin));
    const double z = qmin - std::nearbyint(lo / scale);
    zp = static_cast<int64_t>(std::clamp(z, qmin, qmax));
  }
  q->scales.push_back(scale);
  q->zero_points.push_back(zp);
}

QParams empty_params(const QuantizationSpec& spec) {
  QParams q;
  q.dtype = spec.dtype;
  q.quant_min = spec.quant_min;
  q.quant_max = spec.quant_max;
  return q;
}

void require_data(const Observer& o) {
  PTEC_ENFORCE(o.has_data(), InvalidState,
               "observer {} ({}) has seen no data: calibration did not reach this tensor",
               to_string(o.spec().observer), o.spec().to_string());
}

}  // namespace

int64_t QParams::quantize(double x, size_t i) const {
  const double q = std::nearbyint(x / scales.at(i)) + static_cast<double>(zero_points.at(i));
  return static_cast<int64_t>(
      std::clamp(q, static_cast<double>(quant_min), static_cast<double>(quant_max)));
}

double QParams::dequantize(int64_t q, size_t i) const {
  return static_cast<double>(q - zero_points.at(i)) * scales.at(i);
}

QParams qparams_from_range(const QuantizationSpec& spec, double lo, double hi) {
  QParams q = empty_params(spec);
  params_into(spec, lo, hi, &q);
  return q;
}

// --- MinMax -------------------------------------------------------------------------------

void MinMaxObserver::observe(const float* data, const std::vector<int64_t>& sizes) {
  double lo = 0, hi = 0;
  if (!finite_range(data, numel(sizes), spec_, &lo, &hi)) return;
  min_ = has_data_ ? std::min(min_, lo) : lo;
  max_ = has_data_ ? std::max(max_, hi) : hi;
  has_data_ = true;
}

QParams MinMaxObserver::calculate_qparams() const {
  require_data(*this);
  return qparams_from_range(spec_, min_, max_);
}

void MovingAverageMinMaxObserver::observe(const float* data, const std::vector<int64_t>& sizes) {
  double lo = 0, hi = 0;
  if (!finite_range(data, numel(sizes), spec_, &lo, &hi)) return;
  if (!has_data_) {
    min_ = lo;
    max_ = hi;
  } else {
    const double c = spec_.averaging_constant;
    min_ += c * (lo - min_);
    max_ += c * (hi - max_);
  }
  has_data_ = true;
}

QParams MovingAverageMinMaxObserver::calculate_qparams() const {
  require_data(*this);
  return qparams_from_range(spec_, min_, max_);
}

// --- Per channel / per group --------------------------------------------------------------

PerChannelMinMaxObserver::PerChannelMinMaxObserver(QuantizationSpec spec)
    : Observer(std::move(spec)) {
  PTEC_ENFORCE(spec_.ch_axis.has_value(), InvalidArgument,
               "PerChannelMinMaxObserver needs a channel axis ({})", spec_.to_string());
}

void PerChannelMinMaxObserver::observe(const float* data, const std::vector<int64_t>& sizes) {
  const auto rank = static_cast<int64_t>(sizes.size());
  int64_t axis = *spec_.ch_axis;
  if (axis < 0) axis += rank;
  PTEC_ENFORCE(axis >= 0 && axis < rank, InvalidArgument,
               "PerChannelMinMaxObserver: axis {} is out of range for a tensor of rank {}",
               *spec_.ch_axis, rank);
  const int64_t channels = sizes[static_cast<size_t>(axis)];
  int64_t inner = 1;
  for (auto d = static_cast<size_t>(axis) + 1; d < sizes.size(); ++d) inner *= sizes[d];
  if (has_data_) {
    PTEC_ENFORCE(static_cast<int64_t>(min_.size()) == channels, InvalidArgument,
                 "PerChannelMinMaxObserver: {} channels after {}", channels, min_.size());
  } else {
    min_.assign(static_cast<size_t>(channels), std::numeric_limits<double>::infinity());
    max_.assign(static_cast<size_t>(channels), -std::numeric_limits<double>::infinity());
  }
  const int64_t n = numel(sizes);
  for (int64_t i = 0; i < n; ++i) {
    const float x = data[i];
    if (std::isnan(x)) continue;
    PTEC_ENFORCE(std::isfinite(x), InvalidArgument,
                 "PerChannelMinMaxObserver: the tensor holds an infinity");
    const auto c = static_cast<size_t>((i / inner) % channels);
    min_[c] = std::min(min_[c], static_cast<double>(x));
    max_[c] = std::max(max_[c], static_cast<double>(x));
  }
  has_data_ = has_data_ || n > 0;
}

QParams PerChannelMinMaxObserver::calculate_qparams() const {
  require_data(*this);
  QParams q = empty_params(spec_);
  q.axis = spec_.ch_axis;
  for (size_t c = 0; c < min_.size(); ++c) {
    // A channel of NaNs only: range [0, 0].
    const bool seen = min_[c] <= max_[c];
    params_into(spec_, seen ? min_[c] : 0.0, seen ? max_[c] : 0.0, &q);
  }
  return q;
}

PerGroupMinMaxObserver::PerGroupMinMaxObserver(QuantizationSpec spec) : Observer(std::move(spec)) {
  PTEC_ENFORCE(spec_.group_size > 0 && spec_.ch_axis.value_or(0) == 0, InvalidArgument,
               "PerGroupMinMaxObserver needs group_size > 0 and channel axis 0 ({})",
               spec_.to_string());
}

void PerGroupMinMaxObserver::observe(const float* data, const std::vector<int64_t>& sizes) {
  PTEC_ENFORCE(sizes.size() == 2, InvalidArgument,
               "PerGroupMinMaxObserver: expected a 2-D [channels, K] tensor, got rank {}",
               sizes.size());
  const int64_t channels = sizes[0], k = sizes[1], g = spec_.group_size;
  PTEC_ENFORCE(k % g == 0, InvalidArgument,
               "PerGroupMinMaxObserver: K = {} is not a multiple of group_size {}", k, g);
  const int64_t groups = channels * (k / g);
  if (!has_data_) {
    channels_ = channels;
    min_.assign(static_cast<size_t>(groups), std::numeric_limits<double>::infinity());
    max_.assign(static_cast<size_t>(groups), -std::numeric_limits<double>::infinity());
  }
  PTEC_ENFORCE(static_cast<int64_t>(min_.size()) == groups, InvalidArgument,
               "PerGroupMinMaxObserver: {} groups after {}", groups, min_.size());
  for (int64_t i = 0; i < channels * k; ++i) {
    const float x = data[i];
    if (std::isnan(x)) continue;
    PTEC_ENFORCE(std::isfinite(x), InvalidArgument,
                 "PerGroupMinMaxObserver: the tensor holds an infinity");
    const auto gi = static_cast<size_t>(i / g);  // row-major [channels, K / g]
    min_[gi] = std::min(min_[gi], static_cast<double>(x));
    max_[gi] = std::max(max_[gi], static_cast<double>(x));
  }
  has_data_ = has_data_ || channels * k > 0;
}

QParams PerGroupMinMaxObserver::calculate_qparams() const {
  require_data(*this);
  QParams q = empty_params(spec_);
  q.axis = 0;
  q.group_size = spec_.group_size;
  for (size_t i = 0; i < min_.size(); ++i) {
    const bool seen = min_[i] <= max_[i];
    params_into(spec_, seen ? min_[i] : 0.0, seen ? max_[i] : 0.0, &q);
  }
  return q;
}

// --- Histogram ----------------------------------------------------------------------------

void HistogramObserver::rebin(double lo, double hi) {
  std::vector<double> next(static_cast<size_t>(kBins), 0.0);
  const double old_w = width();
  const double new_w = (hi - lo) / static_cast<double>(kBins);
  for (int64_t b = 0; b < kBins; ++b) {
    const double c = counts_[static_cast<size_t>(b)];
    if (c == 0) continue;
    // Spread the old bin [a0, a1) over the new bins it overlaps, by overlap.
    const double a0 = lo_ + static_cast<double>(b) * old_w, a1 = a0 + old_w;
    auto first = static_cast<int64_t>(std::floor((a0 - lo) / new_w));
    first = std::clamp<int64_t>(first, 0, kBins - 1);
    for (int64_t nb = first; nb < kBins; ++nb) {
      const double n0 = lo + static_cast<double>(nb) * new_w, n1 = n0 + new_w;
      if (n0 >= a1) break;
      const double overlap = std::min(a1, n1) - std::max(a0, n0);
      if (overlap > 0) next[static_cast<size_t>(nb)] += c * overlap / old_w;
    }
  }
  counts_ = std::move(next);
  lo_ = lo;
  hi_ = hi;
}

void HistogramObserver::observe(const float* data, const std::vector<int64_t>& sizes) {
  const int64_t n = numel(sizes);
  double lo = 0, hi = 0;
  if (!finite_range(data, n, spec_, &lo, &hi)) return;
  if (!has_data_) {
    // A constant tensor still gets a range of positive width.
    if (hi - lo < 1e-12) hi = lo + std::max(std::abs(lo) * 1e-6, 1e-12);
    counts_.assign(static_cast<size_t>(kBins), 0.0);
    lo_ = lo;
    hi_ = hi;
    has_data_ = true;
  } else if (lo < lo_ || hi > hi_) {
    rebin(std::min(lo, lo_), std::max(hi, hi_));
  }
  const double inv_w = 1.0 / width();
  for (int64_t i = 0; i < n; ++i) {
    const float x = data[i];
    if (std::isnan(x)) continue;
    auto b = static_cast<int64_t>((x - lo_) * inv_w);
    b = std::clamp<int64_t>(b, 0, kBins - 1);
    counts_[static_cast<size_t>(b)] += 1.0;
    total_ += 1.0;
  }
}

double HistogramObserver::expected_error(double lo, double hi) const {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  const double step = (hi - lo) / static_cast<double>(spec_.quant_max - spec_.quant_min);
  double err = 0;
  for (int64_t b = 0; b < kBins; ++b) {
    const double c = counts_[static_cast<size_t>(b)];
    if (c == 0) continue;
    const double x = bin_center(b);
    if (x < lo) {
      err += c * (lo - x) * (lo - x);
    } else if (x > hi) {
      err += c * (x - hi) * (x - hi);
    } else {
      err += c * step * step / 12.0;
    }
  }
  return total_ > 0 ? err / total_ : 0.0;
}

std::pair<double, double> HistogramObserver::mse_range() const {
  // Prefix sums of count, count * x and count * x^2 over the bin centres make the error of any
  // range O(1): clipping below lo costs sum c (lo - x)^2 = lo^2 N - 2 lo S1 + S2, inside the
  // range each value costs step^2 / 12 (uniform rounding noise).
  const auto nb = static_cast<size_t>(kBins);
  std::vector<double> n(nb + 1, 0.0), s1(nb + 1, 0.0), s2(nb + 1, 0.0);
  for (size_t b = 0; b < nb; ++b) {
    const double c = counts_[b], x = bin_center(static_cast<int64_t>(b));
    n[b + 1] = n[b] + c;
    s1[b + 1] = s1[b] + c * x;
    s2[b + 1] = s2[b] + c * x * x;
  }
  const double levels = static_cast<double>(spec_.quant_max - spec_.quant_min);
  const double w = width();
  // Candidate edges every `stride` bins; the low edge at or below 0, the high edge at or above.
  constexpr int64_t kStride = 4;
  auto edge = [&](int64_t i) { return lo_ + static_cast<double>(i) * w; };
  double best = std::numeric_limits<double>::infinity();
  std::pair<double, double> range{lo_, hi_};
  for (int64_t i = 0; i <= kBins; i += kStride) {
    const double a = std::min(edge(i), 0.0);
    if (edge(i) > 0 && i > 0) break;  // every larger low edge clips to the same 0
    for (int64_t j = kBins; j > i; j -= kStride) {
      if (edge(j) < 0 && j < kBins) break;  // the high edge must not clip positive values
      const double b = std::max(edge(j), 0.0);
      if (b <= a) break;
      // Bins i.. j-1 lie inside (when a is an edge); bins below i / from j on are clipped.
      const auto li = static_cast<size_t>(edge(i) > 0 ? 0 : i);
      const auto hj = static_cast<size_t>(edge(j) < 0 ? kBins : j);
      const double left = a * a * n[li] - 2 * a * s1[li] + s2[li];
      const double rn = n[nb] - n[hj], rs1 = s1[nb] - s1[hj], rs2 = s2[nb] - s2[hj];
      const double right = b * b * rn - 2 * b * rs1 + rs2;
      const double step = (b - a) / levels;
      const double inside = (n[hj] - n[li]) * step * step / 12.0;
      const double err = left + right + inside;
      if (err < best) {
        best = err;
        range = {edge(i), edge(j)};
      }
    }
  }
  return range;
}

std::pair<double, double> HistogramObserver::percentile_range() const {
  const double p = std::clamp(spec_.percentile, 50.0, 100.0) / 100.0;
  auto quantile = [&](double q) {
    const double target = q * total_;
    double cum = 0;
    for (int64_t b = 0; b < kBins; ++b) {
      const double c = counts_[static_cast<size_t>(b)];
      if (cum + c >= target && c > 0) {
        const double frac = std::clamp((target - cum) / c, 0.0, 1.0);
        return lo_ + (static_cast<double>(b) + frac) * width();
      }
      cum += c;
    }
    return hi_;
  };
  return {quantile(1.0 - p), quantile(p)};
}

std::pair<double, double> HistogramObserver::chosen_range() const {
  require_data(*this);
  return spec_.observer == ObserverKind::HistogramPercentile ? percentile_range() : mse_range();
}

QParams HistogramObserver::calculate_qparams() const {
  const auto [lo, hi] = chosen_range();
  return qparams_from_range(spec_, lo, hi);
}

std::unique_ptr<Observer> make_observer(const QuantizationSpec& spec) {
  PTEC_ENFORCE(!spec.is_dynamic, InvalidArgument,
               "a dynamic quantization spec ({}) has no observer: its parameters are chosen at "
               "run time",
               spec.to_string());
  switch (spec.observer) {
    case ObserverKind::MinMax: return std::make_unique<MinMaxObserver>(spec);
    case ObserverKind::MovingAverageMinMax:
      return std::make_unique<MovingAverageMinMaxObserver>(spec);
    case ObserverKind::PerChannelMinMax: return std::make_unique<PerChannelMinMaxObserver>(spec);
    case ObserverKind::PerGroupMinMax: return std::make_unique<PerGroupMinMaxObserver>(spec);
    case ObserverKind::HistogramMse:
    case ObserverKind::HistogramPercentile: return std::make_unique<HistogramObserver>(spec);
  }
  raise(Error::InvalidArgument, "unknown observer kind {}", static_cast<int>(spec.observer));
}

}  // namespace ptec::quant
