#include "kernels/optimized/qconv2d_depthwise.h"

#include <algorithm>
#include <type_traits>

#if defined(PTEC_GEMM_HAVE_AVX2)
#include <immintrin.h>
#endif

namespace ptec::kernels::optimized::detail {
namespace {

constexpr size_t kAlign = 64;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Outputs per step of the widest tap loop (AVX-512: 4 x 16). The sums are padded to it, and each
// phase plane by as many pairs past its end, so that no loop has a remainder and no read leaves
// the plane: the flat run of a tap ends at most a plane's last element.
constexpr int64_t kStep = 64;

// Output rows shorter than this are requantized together, in one call.
constexpr int64_t kShortRow = 32;

using PairGeometry = QDepthwise::Geometry;

PairGeometry geometry(const Conv2dShape& s) {
  PairGeometry g;
  g.oh = s.oh();
  g.ow = s.ow();
  g.phases = s.sh * s.sw;
  g.rows = ceil_div(s.h + 2 * s.ph, s.sh);
  g.pitch = ceil_div(s.w + 2 * s.pw, s.sw);
  g.flat = (g.oh - 1) * g.pitch + g.ow;
  g.taps = ceil_div(s.kh, 2) * s.kw;
  return g;
}

// Where a slot's parts start: pair planes, sums, tap weights, tap sources.
struct Slot {
  uint32_t* pairs;
  int32_t* sums;
  int32_t* weights;
  const uint32_t** sources;
};

size_t pairs_bytes(const PairGeometry& g) {
  return align_up(static_cast<size_t>(g.phases * g.plane()) * sizeof(uint32_t));
}
size_t sums_bytes(const PairGeometry& g) {
  return align_up(static_cast<size_t>(g.sums()) * sizeof(int32_t));
}
size_t weights_bytes(const PairGeometry& g) {
  return align_up(static_cast<size_t>(g.taps) * sizeof(int32_t));
}

Slot slot_parts(const PairGeometry& g, unsigned char* slot) {
  Slot p;
  p.pairs = reinterpret_cast<uint32_t*>(slot);
  slot += pairs_bytes(g);
  p.sums = reinterpret_cast<int32_t*>(slot);
  slot += sums_bytes(g);
  p.weights = reinterpret_cast<int32_t*>(slot);
  slot += weights_bytes(g);
  p.sources = reinterpret_cast<const uint32_t**>(slot);
  return p;
}

// Two 16-bit values as one int32 pair (lo, hi), as vpmaddwd reads them.
uint32_t pair(int32_t lo, int32_t hi) {
  return (static_cast<uint32_t>(lo) & 0xffffu) | (static_cast<uint32_t>(hi) << 16);
}

// One pair row: row[i] = (a[x] - zx, b[x] - zx) for x = x0 + sw * i, i < n, and 0 where x is
// outside [0, w): i < lo or i >= hi (the same for every row of a column phase). A row outside
// the plane (a or b null) reads as 0.
template <typename T>
struct PairRow {
  const T* a;
  const T* b;
  int32_t zx;
  int64_t x0, sw, w;
  int64_t lo, hi, n;
  // Lanes of the pairs' halves: all ones, or none for a row outside the plane.
  uint32_t mask_a() const { return a != nullptr ? 0xffffu : 0u; }
  uint32_t mask_b() const { return b != nullptr ? 0xffff0000u : 0u; }
  // a or b as read, from column x0: the other row where one is outside the plane (masked to 0).
  const T* from_a() const { return (a != nullptr ? a : b) + x0; }
  const T* from_b() const { return (b != nullptr ? b : a) + x0; }
};

// Pairs [from, r.hi) of `r` one at a time (the AVX2 loop's remainder, strides past 2, CPUs
// without AVX2).
template <typename T>
void pairs_scalar(const PairRow<T>& r, int64_t from, uint32_t* row) {
  const T* a = r.from_a();
  const T* b = r.from_b();
  const uint32_t ma = r.mask_a(), mb = r.mask_b();
  for (int64_t i = from; i < r.hi; ++i) {
    row[i] = (pair(a[r.sw * i] - r.zx, 0) & ma) | (pair(0, b[r.sw * i] - r.zx) & mb);
  }
}

#if defined(PTEC_GEMM_HAVE_AVX2)
// Stride 1 widens the values of each row to 32-bit lanes and joins them; stride 2 widens twice
// as many bytes to 16-bit, whose 32-bit lanes then hold (x[2 i], x[2 i + 1]): the even value is
// the lane's low half. The subtraction of zx is done in 16 bits, where x - zx fits.

// 16-bit x - zx of 16 (AVX2) or 32 (AVX-512) bytes, zero- or sign-extended.
template <typename T>
__attribute__((target("avx2"))) __m256i shifted_avx2(__m128i v, __m256i zx) {
  return _mm256_sub_epi16(std::is_signed_v<T> ? _mm256_cvtepi8_epi16(v) : _mm256_cvtepu8_epi16(v),
                          zx);
}
template <typename T>
__attribute__((target("avx512f,avx512bw"))) __m512i shifted_avx512(__m256i v, __m512i zx) {
  return _mm512_sub_epi16(std::is_signed_v<T> ? _mm512_cvtepi8_epi16(v) : _mm512_cvtepu8_epi16(v),
                          zx);
}

// Pairs [from, r.hi) of `r`, 8 at a time (stride 1 or 2) while the bytes read stay in the row;
// returns where it stopped.
template <typename T>
__attribute__((target("avx2"))) int64_t pairs_avx2(const PairRow<T>& r, int64_t from,
                                                   uint32_t* row) {
  if (r.sw > 2) return from;
  const __m256i ma = _mm256_set1_epi32(static_cast<int32_t>(r.mask_a()));
  const __m256i mb = _mm256_set1_epi32(static_cast<int32_t>(r.mask_b()));
  const __m256i zx = _mm256_set1_epi16(static_cast<int16_t>(r.zx));
  const T* a = r.from_a();
  const T* b = r.from_b();
  int64_t i = from;
  // Stride 1 reads 8 bytes per row, stride 2 16; the last vector must end within the row.
  const int64_t step_bytes = 8 * r.sw;
  for (; i + 8 <= r.hi && r.x0 + r.sw * i + step_bytes <= r.w; i += 8) {
    __m256i va, vb;
    if (r.sw == 1) {
      va = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(
          shifted_avx2<T>(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + i)), zx)));
      vb = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(
          shifted_avx2<T>(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + i)), zx)));
    } else {
      va = shifted_avx2<T>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 2 * i)), zx);
      vb = shifted_avx2<T>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2 * i)), zx);
    }
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(row + i),
        _mm256_or_si256(_mm256_and_si256(va, ma), _mm256_and_si256(_mm256_slli_epi32(vb, 16), mb)));
  }
  return i;
}

// The same with AVX-512 BW / VL, 16 pairs at a time and the last ones masked: all of [from,
// r.hi) at strides 1 and 2.
template <typename T>
__attribute__((target("avx512f,avx512bw,avx512vl"))) int64_t pairs_avx512(const PairRow<T>& r,
                                                                          int64_t from,
                                                                          uint32_t* row) {
  if (r.sw > 2) return from;
  const __m512i ma = _mm512_set1_epi32(static_cast<int32_t>(r.mask_a()));
  const __m512i mb = _mm512_set1_epi32(static_cast<int32_t>(r.mask_b()));
  const __m512i zx = _mm512_set1_epi16(static_cast<int16_t>(r.zx));
  const T* a = r.from_a();
  const T* b = r.from_b();
  for (int64_t i = from; i < r.hi; i += 16) {
    const int64_t pairs = std::min<int64_t>(16, r.hi - i);
    // The bytes read: `pairs` at stride 1; at stride 2 the odd ones too, within the row.
    const int64_t bytes = r.sw == 1 ? pairs : std::min(2 * pairs, r.w - (r.x0 + 2 * i));
    const __mmask32 m = static_cast<__mmask32>(bytes >= 32 ? ~0u : (1u << bytes) - 1);
    const __m512i xa = shifted_avx512<T>(_mm256_maskz_loadu_epi8(m, a + r.sw * i), zx);
    const __m512i xb = shifted_avx512<T>(_mm256_maskz_loadu_epi8(m, b + r.sw * i), zx);
    const __m512i va = r.sw == 1 ? _mm512_cvtepu16_epi32(_mm512_castsi512_si256(xa)) : xa;
    const __m512i vb = r.sw == 1 ? _mm512_cvtepu16_epi32(_mm512_castsi512_si256(xb)) : xb;
    const __m512i v =
        _mm512_or_si512(_mm512_and_si512(va, ma), _mm512_and_si512(_mm512_slli_epi32(vb, 16), mb));
    _mm512_mask_storeu_epi32(row + i, static_cast<__mmask16>((1u << pairs) - 1), v);
  }
  return r.hi;
}
#endif

// Pair row `r` into row[0, r.n).
template <typename T>
void pair_row(const PairRow<T>& r, QGemmIsa isa, uint32_t* row) {
  std::fill(row, row + r.lo, 0u);
  if (r.a != nullptr || r.b != nullptr) {
    int64_t i = r.lo;
#if defined(PTEC_GEMM_HAVE_AVX2)
    if (isa == QGemmIsa::Avx512Vnni) i = pairs_avx512(r, i, row);
    if (isa == QGemmIsa::Avx2) i = pairs_avx2(r, i, row);
#else
    (void)isa;
#endif
    pairs_scalar(r, i, row);
  } else {
    std::fill(row + r.lo, row + r.hi, 0u);
  }
  std::fill(row + r.hi, row + r.n, 0u);
}

// The pair planes of input plane `plane` (h x w) into `pairs`.
template <typename T>
void build_pairs(const Conv2dShape& s, const PairGeometry& g, QGemmIsa isa, const T* plane,
                 int32_t zx, uint32_t* pairs) {
  for (int64_t rx = 0; rx < s.sw; ++rx) {
    PairRow<T> r;
    r.zx = zx;
    r.x0 = rx - s.pw;
    r.sw = s.sw;
    r.w = s.w;
    r.n = g.pitch;
    // The pairs of a row that the input's columns cover (the others are padding).
    r.lo = std::min(r.n, r.x0 >= 0 ? 0 : ceil_div(-r.x0, r.sw));
    r.hi = std::clamp<int64_t>(ceil_div(r.w - r.x0, r.sw), r.lo, r.n);
    for (int64_t ry = 0; ry < s.sh; ++ry) {
      uint32_t* dst = pairs + (ry * s.sw + rx) * g.plane();
      for (int64_t i = 0, y = ry - s.ph; i < g.rows; ++i, y += s.sh) {
        // y: the input row of the pairs' first values
        r.a = y >= 0 && y < s.h ? plane + y * s.w : nullptr;
        r.b = y + s.dh >= 0 && y + s.dh < s.h ? plane + (y + s.dh) * s.w : nullptr;
        pair_row(r, isa, dst + i * g.pitch);
      }
      std::fill_n(dst + g.rows * g.pitch, kStep, 0u);
    }
  }
}

// sums[j] = sum over taps t of the pair products of sources[t][j] and weights[t], j < count
// (a multiple of kStep). Portable: per tap, a pass over the sums.
void taps_generic(const uint32_t* const* sources, const int32_t* weights, int64_t taps,
                  int64_t count, int32_t* sums) {
  std::fill(sums, sums + count, 0);
  for (int64_t t = 0; t < taps; ++t) {
    const uint32_t wp = static_cast<uint32_t>(weights[t]);
    const int32_t w0 = static_cast<int16_t>(wp & 0xffffu), w1 = static_cast<int16_t>(wp >> 16);
    const uint32_t* src = sources[t];
    for (int64_t j = 0; j < count; ++j) {
      sums[j] +=
          static_cast<int16_t>(src[j] & 0xffffu) * w0 + static_cast<int16_t>(src[j] >> 16) * w1;
    }
  }
}

#if defined(PTEC_GEMM_HAVE_AVX2)
// The same, 32 (AVX2) or 64 (AVX-512) sums at a time in registers over all taps: one vpmaddwd
// per 8 or 16 sums and pair tap.
__attribute__((target("avx2"))) void taps_avx2(const uint32_t* const* sources,
                                               const int32_t* weights, int64_t taps, int64_t count,
                                               int32_t* sums) {
  for (int64_t j = 0; j < count; j += 32) {
    __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                      _mm256_setzero_si256()};
    for (int64_t t = 0; t < taps; ++t) {
      const __m256i w = _mm256_set1_epi32(weights[t]);
      const uint32_t* src = sources[t] + j;
      for (int v = 0; v < 4; ++v) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + 8 * v));
        acc[v] = _mm256_add_epi32(acc[v], _mm256_madd_epi16(x, w));
      }
    }
    for (int v = 0; v < 4; ++v) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + j + 8 * v), acc[v]);
    }
  }
}

__attribute__((target("avx512f,avx512bw"))) void taps_avx512(const uint32_t* const* sources,
                                                             const int32_t* weights, int64_t taps,
                                                             int64_t count, int32_t* sums) {
  for (int64_t j = 0; j < count; j += 64) {
    __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                      _mm512_setzero_si512()};
    for (int64_t t = 0; t < taps; ++t) {
      const __m512i w = _mm512_set1_epi32(weights[t]);
      const uint32_t* src = sources[t] + j;
      for (int v = 0; v < 4; ++v) {
        acc[v] = _mm512_add_epi32(acc[v], _mm512_madd_epi16(_mm512_loadu_si512(src + 16 * v), w));
      }
    }
    for (int v = 0; v < 4; ++v) _mm512_storeu_si512(sums + j + 16 * v, acc[v]);
  }
}
#endif

void taps(QGemmIsa isa, const uint32_t* const* sources, const int32_t* weights, int64_t taps,
          int64_t count, int32_t* sums) {
#if defined(PTEC_GEMM_HAVE_AVX2)
  switch (isa) {
    case QGemmIsa::Avx512Vnni: taps_avx512(sources, weights, taps, count, sums); return;
    case QGemmIsa::Avx2: taps_avx2(sources, weights, taps, count, sums); return;
    case QGemmIsa::Generic: break;
  }
#else
  (void)isa;
#endif
  taps_generic(sources, weights, taps, count, sums);
}

}  // namespace

int64_t QDepthwise::Geometry::plane() const { return rows * pitch + kStep; }
int64_t QDepthwise::Geometry::sums() const { return ceil_div(flat, kStep) * kStep; }

QDepthwise::QDepthwise(const Conv2dShape& s) : s_(s), g_(geometry(s)), isa_(active_qgemm_isa()) {}

size_t QDepthwise::slot_bytes() const {
  return pairs_bytes(g_) + sums_bytes(g_) + weights_bytes(g_) +
         align_up(static_cast<size_t>(g_.taps) * sizeof(const uint32_t*));
}

void QDepthwise::run(const uint8_t* in, bool x_signed, int32_t zx, const int8_t* w,
                     const QEpilogue& e, uint8_t* out, int64_t b, int64_t oc,
                     unsigned char* slot) const {
  const Conv2dShape& s = s_;
  const PairGeometry& g = g_;
  const Slot p = slot_parts(g, slot);
  const uint8_t* plane = in + (b * s.c + oc / (s.oc / s.c)) * s.h * s.w;
  if (x_signed) {
    build_pairs(s, g, isa_, reinterpret_cast<const int8_t*>(plane), zx, p.pairs);
  } else {
    build_pairs(s, g, isa_, plane, zx, p.pairs);
  }
  // Pair tap (ky, kx), ky even: kernel rows ky and ky + 1 at column kx, read from the phase of
  // row ky * dh and column kx * dw, that many whole phase rows and columns on (the phases and
  // offsets stepped, not divided: this runs once per channel).
  const int32_t zw = e.a_zero_points != nullptr ? e.a_zero_points[oc] : 0;
  const int8_t* wc = w + oc * s.kh * s.kw;
  int64_t t = 0, ry = 0, dy = 0;
  for (int64_t ky = 0; ky < s.kh; ky += 2) {
    for (int64_t kx = 0, rx = 0, dx = 0; kx < s.kw; ++kx, ++t) {
      const int32_t w1 = ky + 1 < s.kh ? wc[(ky + 1) * s.kw + kx] - zw : 0;
      p.weights[t] = static_cast<int32_t>(pair(wc[ky * s.kw + kx] - zw, w1));
      p.sources[t] = p.pairs + (ry * s.sw + rx) * g.plane() + dy * g.pitch + dx;
      for (rx += s.dw; rx >= s.sw; rx -= s.sw) ++dx;
    }
    for (ry += 2 * s.dh; ry >= s.sh; ry -= s.sh) ++dy;
  }
  taps(isa_, p.sources, p.weights, g.taps, g.sums(), p.sums);
  QRow row;
  row.scale = e.scale_per_row ? e.scale[oc] : e.scale[0];
  row.bias = e.bias != nullptr ? e.bias[oc] : 0.0f;
  row.zero_point = e.out_zero_point;
  row.lo = e.out_min;
  row.hi = e.out_max;
  row.out_signed = e.out_signed;
  uint8_t* dst = out + (b * s.oc + oc) * g.oh * g.ow;
  if (g.ow >= kShortRow) {
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      requantize_row(p.sums + oy * g.pitch, g.ow, row, nullptr, dst + oy * g.ow);
    }
  } else {  // short rows: moved together (in place, forward) and requantized in one call
    for (int64_t oy = 1; oy < g.oh; ++oy) {
      std::copy_n(p.sums + oy * g.pitch, g.ow, p.sums + oy * g.ow);
    }
    requantize_row(p.sums, g.oh * g.ow, row, nullptr, dst);
  }
}

}  // namespace ptec::kernels::optimized::detail
