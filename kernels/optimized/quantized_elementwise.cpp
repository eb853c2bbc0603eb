#include "kernels/optimized/quantized_elementwise.h"

#include <algorithm>
#include <limits>

#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

// Elements per work item of the element-wise loops (a few per thread on the large planes).
constexpr int64_t kChunk = 16384;
// Columns of one pooled row's column maxima and their phases, on the stack (wider planes go tap
// by tap).
constexpr int64_t kMaxPoolColumns = 4096;

// 1.5 * 2^23: for |v| < 2^22, (v + kRound) - kRound is v rounded half to even in the default
// rounding mode, in two vector additions (no libm call, unlike nearbyint without SSE4.1).
constexpr float kRound = 12582912.0f;

// round_half_even(v) + zero_point clamped to [lo, hi], as the real bounds lo - zero_point and
// hi - zero_point (a NaN v fails the first comparison and takes the lower bound). Clamping before
// rounding gives the same value: the bounds are integers and rounding keeps order.
struct Store {
  float lo, hi;
  int32_t zero_point;
  explicit Store(const QuantOutput& o)
      : lo(static_cast<float>(o.lo - o.q.zero_point)),
        hi(static_cast<float>(o.hi - o.q.zero_point)),
        zero_point(o.q.zero_point) {}
  template <typename T>
  __attribute__((always_inline)) T operator()(float v) const {
    v = v > lo ? v : lo;
    v = v < hi ? v : hi;
    const float r = (v + kRound) - kRound;
    return static_cast<T>(static_cast<int32_t>(r) + zero_point);
  }
};

template <typename T>
__attribute__((always_inline)) inline float real(T q, const QuantParams& p) {
  return static_cast<float>(static_cast<int32_t>(q) - p.zero_point) * p.scale;
}

// Runs body(begin, end) over [0, n) in chunks spread over the threads.
template <typename F>
void chunks(int64_t n, F body) {
  parallel_for((n + kChunk - 1) / kChunk,
               [&](int64_t c) { body(c * kChunk, std::min(n, (c + 1) * kChunk)); });
}

template <typename TO>
__attribute__((always_inline)) inline void quantize_range(const float* x, int64_t begin,
                                                          int64_t end, bool reciprocal,
                                                          const QuantOutput& o, TO* out) {
  const Store store(o);
  if (reciprocal) {
    const float inv = 1.0f / o.q.scale;
    for (int64_t i = begin; i < end; ++i) out[i] = store.operator()<TO>(x[i] * inv);
  } else {
    const float scale = o.q.scale;
    for (int64_t i = begin; i < end; ++i) out[i] = store.operator()<TO>(x[i] / scale);
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void quantize_chunk(
    const float* x, int64_t begin, int64_t end, bool reciprocal, const QuantOutput& o, void* out) {
  if (o.is_signed) {
    quantize_range(x, begin, end, reciprocal, o, static_cast<int8_t*>(out));
  } else {
    quantize_range(x, begin, end, reciprocal, o, static_cast<uint8_t*>(out));
  }
}

template <typename TI>
__attribute__((always_inline)) inline void dequantize_range(const TI* q, int64_t begin, int64_t end,
                                                            const QuantParams& p, float* out) {
  for (int64_t i = begin; i < end; ++i) out[i] = real(q[i], p);
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void dequantize_chunk(
    const void* q, bool q_signed, int64_t begin, int64_t end, const QuantParams& p, float* out) {
  if (q_signed) {
    dequantize_range(static_cast<const int8_t*>(q), begin, end, p, out);
  } else {
    dequantize_range(static_cast<const uint8_t*>(q), begin, end, p, out);
  }
}

template <typename TI, typename TO>
__attribute__((always_inline)) inline void requantize_range(const TI* q, int64_t begin, int64_t end,
                                                            const QuantParams& p,
                                                            const QuantOutput& o, TO* out) {
  const Store store(o);
  const float scale = o.q.scale;
  for (int64_t i = begin; i < end; ++i) out[i] = store.operator()<TO>(real(q[i], p) / scale);
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void requantize_chunk(
    const void* q, bool q_signed, int64_t begin, int64_t end, const QuantParams& p,
    const QuantOutput& o, void* out) {
  const auto* s8 = static_cast<const int8_t*>(q);
  const auto* u8 = static_cast<const uint8_t*>(q);
  auto* o8 = static_cast<int8_t*>(out);
  auto* ou8 = static_cast<uint8_t*>(out);
  if (q_signed) {
    o.is_signed ? requantize_range(s8, begin, end, p, o, o8)
                : requantize_range(s8, begin, end, p, o, ou8);
  } else {
    o.is_signed ? requantize_range(u8, begin, end, p, o, o8)
                : requantize_range(u8, begin, end, p, o, ou8);
  }
}

template <typename TA, typename TB, typename TO>
__attribute__((always_inline)) inline void add_range(const TA* a, const QuantParams& pa,
                                                     const TB* b, const QuantParams& pb,
                                                     int64_t begin, int64_t end,
                                                     const QuantOutput& o, TO* out) {
  const Store store(o);
  const float scale = o.q.scale;
  for (int64_t i = begin; i < end; ++i) {
    out[i] = store.operator()<TO>((real(a[i], pa) + real(b[i], pb)) / scale);
  }
}

template <typename TA, typename TB>
__attribute__((always_inline)) inline void add_to(const TA* a, const QuantParams& pa, const TB* b,
                                                  const QuantParams& pb, int64_t begin, int64_t end,
                                                  const QuantOutput& o, void* out) {
  if (o.is_signed) {
    add_range(a, pa, b, pb, begin, end, o, static_cast<int8_t*>(out));
  } else {
    add_range(a, pa, b, pb, begin, end, o, static_cast<uint8_t*>(out));
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void add_chunk(
    const void* a, bool a_signed, const QuantParams& pa, const void* b, bool b_signed,
    const QuantParams& pb, int64_t begin, int64_t end, const QuantOutput& o, void* out) {
  const auto* as8 = static_cast<const int8_t*>(a);
  const auto* au8 = static_cast<const uint8_t*>(a);
  const auto* bs8 = static_cast<const int8_t*>(b);
  const auto* bu8 = static_cast<const uint8_t*>(b);
  if (a_signed) {
    b_signed ? add_to(as8, pa, bs8, pb, begin, end, o, out)
             : add_to(as8, pa, bu8, pb, begin, end, o, out);
  } else {
    b_signed ? add_to(au8, pa, bs8, pb, begin, end, o, out)
             : add_to(au8, pa, bu8, pb, begin, end, o, out);
  }
}

// The larger of two values, by value (std::max returns a reference to one of them, and the
// loops `x = std::max(x, y)` become conditional stores the compiler does not vectorize).
template <typename T>
__attribute__((always_inline)) inline T larger(T a, T b) {
  return a > b ? a : b;
}

// One plane, an output row at a time: the maxima over the window's rows of every input column
// (contiguous, vectorized); those columns split by phase (column x at x % sw, x / sw), so that
// each tap reads a contiguous run of them; then each tap's run into the row's maxima. Planes
// wider than the stack buffers go tap by tap.
template <typename T>
__attribute__((always_inline)) inline void max_pool_plane(const MaxPool2dShape& s, const T* in,
                                                          T* out) {
  constexpr T kLowest = std::numeric_limits<T>::lowest();
  T columns[kMaxPoolColumns];
  T phases[kMaxPoolColumns];
  const int64_t pitch = (s.w + s.sw - 1) / s.sw;  // columns per phase
  const bool buffered = s.w <= kMaxPoolColumns;
  for (int64_t oy = 0; oy < s.oh; ++oy) {
    T* dst = out + oy * s.ow;
    const int64_t top = oy * s.sh - s.ph;
    int64_t rows = 0;
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      const int64_t iy = top + ky * s.dh;
      if (iy < 0 || iy >= s.h) continue;
      const T* row = in + iy * s.w;
      if (!buffered) {
        for (int64_t ox = 0; ox < s.ow; ++ox) {
          T best = rows == 0 ? kLowest : dst[ox];
          for (int64_t kx = 0; kx < s.kw; ++kx) {
            const int64_t ix = ox * s.sw - s.pw + kx * s.dw;
            if (ix >= 0 && ix < s.w) best = std::max(best, row[ix]);
          }
          dst[ox] = best;
        }
      } else if (rows == 0) {
        std::copy(row, row + s.w, columns);
      } else {
        for (int64_t x = 0; x < s.w; ++x) columns[x] = larger(columns[x], row[x]);
      }
      ++rows;
    }
    std::fill(dst, dst + (rows == 0 || buffered ? s.ow : 0), kLowest);
    if (rows == 0 || !buffered) continue;
    const T* by_phase = columns;
    if (s.sw > 1) {
      for (int64_t r = 0; r < s.sw; ++r) {
        for (int64_t j = 0; j * s.sw + r < s.w; ++j) phases[r * pitch + j] = columns[j * s.sw + r];
      }
      by_phase = phases;
    }
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      // Tap kx of output ox reads column ox sw + off = (ox + q) sw + r, inside for ox in
      // [first, last).
      const int64_t off = kx * s.dw - s.pw;
      const int64_t r = (off % s.sw + s.sw) % s.sw, q = (off - r) / s.sw;
      const int64_t first = std::max<int64_t>(0, -q);
      const int64_t last = std::min(s.ow, (s.w - 1 - r) / s.sw - q + 1);
      const T* tap = by_phase + r * pitch + q;
      for (int64_t ox = first; ox < last; ++ox) dst[ox] = larger(dst[ox], tap[ox]);
    }
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void max_pool_plane_any(
    const MaxPool2dShape& s, const void* in, bool is_signed, void* out) {
  if (is_signed) {
    max_pool_plane(s, static_cast<const int8_t*>(in), static_cast<int8_t*>(out));
  } else {
    max_pool_plane(s, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out));
  }
}

}  // namespace

void quantize(const float* x, int64_t n, bool reciprocal, const QuantOutput& o, void* out) {
  chunks(n, [&](int64_t begin, int64_t end) { quantize_chunk(x, begin, end, reciprocal, o, out); });
}

void dequantize(const void* q, bool q_signed, int64_t n, const QuantParams& p, float* out) {
  chunks(n, [&](int64_t begin, int64_t end) { dequantize_chunk(q, q_signed, begin, end, p, out); });
}

void requantize(const void* q, bool q_signed, int64_t n, const QuantParams& p, const QuantOutput& o,
                void* out) {
  chunks(n,
         [&](int64_t begin, int64_t end) { requantize_chunk(q, q_signed, begin, end, p, o, out); });
}

void quantized_add(const void* a, bool a_signed, const QuantParams& pa, const void* b,
                   bool b_signed, const QuantParams& pb, int64_t n, const QuantOutput& o,
                   void* out) {
  chunks(n, [&](int64_t begin, int64_t end) {
    add_chunk(a, a_signed, pa, b, b_signed, pb, begin, end, o, out);
  });
}

bool quantized_max_pool2d(const MaxPool2dShape& s, const void* in, bool is_signed, void* out) {
  if (!s.valid()) return false;
  const int64_t in_plane = s.h * s.w, out_plane = s.oh * s.ow;
  const auto* src = static_cast<const uint8_t*>(in);  // (one byte per value either way)
  auto* dst = static_cast<uint8_t*>(out);
  parallel_for(s.planes, [&](int64_t p) {
    max_pool_plane_any(s, src + p * in_plane, is_signed, dst + p * out_plane);
  });
  return true;
}

}  // namespace ptec::kernels::optimized
