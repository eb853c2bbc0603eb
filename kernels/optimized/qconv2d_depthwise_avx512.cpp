// The int8 depthwise convolution channel-interleaved, 16 channels at a time (AVX-512 BW / VNNI):
// qconv2d's path for depthwise layers with one output channel per input channel. Built with
// -mavx512f -mavx512bw -mavx512vl -mavx512vnni (kernels/optimized/CMakeLists.txt); keep includes
// to <immintrin.h> so that no inline library function is compiled for AVX-512 here.
//
// The planes path (qconv2d_depthwise.cpp) runs each channel on its own plane, and on the small
// planes of a network's late layers (14 x 14, 7 x 7) its per-channel work outweighs the
// products. Here a block of 16 channels is transposed once into pixels of 16 int32 lanes
// (x - zx in each lane's low 16 bits, 0 in the padding), every tap of an output pixel is one
// vpdpwssd of such a pixel against the tap's 16 weights, the sums are requantized with each
// lane's own scale and bias, and the outputs are transposed back into the 16 planes.

#include <immintrin.h>

#include <algorithm>

#include "kernels/optimized/qconv2d_depthwise.h"

namespace ptec::kernels::optimized::detail {
namespace {

constexpr size_t kAlign = 64;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

struct Layout {
  int64_t rows, cols;  // the padded plane
  int64_t oh, ow;
  size_t pixels_bytes() const { return align_up(static_cast<size_t>(rows * cols) * 64); }
  size_t staged_bytes() const { return align_up(static_cast<size_t>(oh * ow) * 16); }
};

Layout layout_of(const Conv2dShape& s) { return {s.h + 2 * s.ph, s.w + 2 * s.pw, s.oh(), s.ow()}; }

// 16 rows of 16 bytes transposed in place: four rounds of interleaving pairs of rows at
// doubling widths. Column j of the input ends in r[kTransposed[j]] (the rounds leave the rows in
// bit-reversed order; read them through the table rather than move them, so that everything
// stays in registers).
constexpr int kTransposed[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};

__attribute__((always_inline)) inline void transpose_16x16(__m128i (&r)[16]) {
  __m128i t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm_unpacklo_epi8(r[i], r[i + 1]);
    t[i + 1] = _mm_unpackhi_epi8(r[i], r[i + 1]);
  }
  for (int g = 0; g < 16; g += 4) {
    for (int k = 0; k < 2; ++k) {
      r[g + k] = _mm_unpacklo_epi16(t[g + k], t[g + 2 + k]);
      r[g + 2 + k] = _mm_unpackhi_epi16(t[g + k], t[g + 2 + k]);
    }
  }
  for (int g = 0; g < 16; g += 8) {
    for (int k = 0; k < 4; ++k) {
      t[g + k] = _mm_unpacklo_epi32(r[g + k], r[g + 4 + k]);
      t[g + 4 + k] = _mm_unpackhi_epi32(r[g + k], r[g + 4 + k]);
    }
  }
  for (int k = 0; k < 8; ++k) {
    r[k] = _mm_unpacklo_epi64(t[k], t[8 + k]);
    r[8 + k] = _mm_unpackhi_epi64(t[k], t[8 + k]);
  }
}

// Pixel p of the 16-lane plane from 16 bytes (one per channel), widened and shifted.
__attribute__((always_inline)) inline void store_pixel(int32_t* dst, __m128i bytes, bool x_signed,
                                                       __m512i zx) {
  const __m512i v = x_signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
  _mm512_store_si512(dst, _mm512_sub_epi32(v, zx));
}

// Each lane's requantization (qrequant_row_avx512's arithmetic, with per-lane scale and bias).
struct Requant {
  __m512 scale, bias;
  __m512i zp, lo, hi;
};

void store_requantized(__m512i acc, const Requant& rq, uint8_t* dst) {
  __m512 f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc), rq.scale, rq.bias);
  f = _mm512_min_ps(_mm512_max_ps(f, _mm512_set1_ps(-1e9f)), _mm512_set1_ps(1e9f));
  __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), rq.zp);  // round half to even
  q = _mm512_min_epi32(_mm512_max_epi32(q, rq.lo), rq.hi);
  // In range for the output type: truncating to 8 bits keeps the value (u8 or s8 alike).
  _mm_store_si128(reinterpret_cast<__m128i*>(dst), _mm512_cvtepi32_epi8(q));
}

// The 3 x 3 kernel's output pixels with its nine weight vectors in registers.
void taps_3x3(const Conv2dShape& s, const Layout& l, const int32_t* pixels, const int32_t* tap_w,
              const Requant& rq, uint8_t* staged) {
  __m512i wv[9];
  for (int t = 0; t < 9; ++t) wv[t] = _mm512_load_si512(tap_w + t * 16);
  const int64_t dy = s.dh * l.cols * 16, dx = s.dw * 16;
  for (int64_t oy = 0; oy < l.oh; ++oy) {
    const int32_t* row = pixels + oy * s.sh * l.cols * 16;
    uint8_t* dst = staged + oy * l.ow * 16;
    for (int64_t ox = 0; ox < l.ow; ++ox) {
      const int32_t* p = row + ox * s.sw * 16;
      // One chain per kernel row: three short dependency chains instead of one of nine.
      __m512i acc[3];
      for (int ky = 0; ky < 3; ++ky) {
        acc[ky] = _mm512_madd_epi16(_mm512_load_si512(p + ky * dy), wv[ky * 3]);
        for (int kx = 1; kx < 3; ++kx) {
          acc[ky] = _mm512_dpwssd_epi32(acc[ky], _mm512_load_si512(p + ky * dy + kx * dx),
                                        wv[ky * 3 + kx]);
        }
      }
      store_requantized(_mm512_add_epi32(_mm512_add_epi32(acc[0], acc[1]), acc[2]), rq,
                        dst + ox * 16);
    }
  }
}

}  // namespace

size_t qdepthwise16_scratch_bytes(const Conv2dShape& s) {
  const Layout l = layout_of(s);
  return l.pixels_bytes() + l.staged_bytes() +
         align_up(static_cast<size_t>(s.kh * s.kw) * 16 * sizeof(int32_t));
}

void qdepthwise16_avx512(const Conv2dShape& s, const uint8_t* in, bool x_signed, int32_t zx,
                         const int8_t* w, const QEpilogue& e, uint8_t* out, int64_t b, int64_t c0,
                         int64_t count, unsigned char* scratch) {
  const Layout l = layout_of(s);
  auto* pixels = reinterpret_cast<int32_t*>(scratch);
  auto* staged = scratch + l.pixels_bytes();
  const int64_t plane = s.h * s.w;
  const uint8_t* src = in + (b * s.c + c0) * plane;
  const __m512i vzx = _mm512_set1_epi32(zx);

  // 1. The padded 16-lane plane: padding rows and columns 0; the input (each channel's plane is
  //    h * w contiguous bytes) transposed 16 pixels at a time whatever the row length, the last
  //    chunk masked.
  std::fill_n(pixels, s.ph * l.cols * 16, 0);
  std::fill_n(pixels + (s.ph + s.h) * l.cols * 16, (l.rows - s.ph - s.h) * l.cols * 16, 0);
  for (int64_t y = 0; y < s.h; ++y) {
    int32_t* row = pixels + (s.ph + y) * l.cols * 16;
    std::fill_n(row, s.pw * 16, 0);
    std::fill_n(row + (s.pw + s.w) * 16, (l.cols - s.pw - s.w) * 16, 0);
  }
  for (int64_t p = 0, y = 0, x = 0; p < plane; p += 16) {
    const int64_t n = std::min<int64_t>(16, plane - p);
    const __mmask16 mask = static_cast<__mmask16>(n == 16 ? 0xffff : (1u << n) - 1);
    __m128i r[16];
    for (int c = 0; c < 16; ++c) {
      r[c] = c < count ? _mm_maskz_loadu_epi8(mask, src + c * plane + p) : _mm_setzero_si128();
    }
    transpose_16x16(r);
    for (int k = 0; k < 16; ++k) {
      if (k == n) break;
      store_pixel(pixels + ((s.ph + y) * l.cols + s.pw + x) * 16, r[kTransposed[k]], x_signed, vzx);
      if (++x == s.w) x = 0, ++y;
    }
  }
  // Lanes past `count` hold 0 - zx: their outputs are never stored.

  // 2. Each tap's 16 weights (w - zw in the low halves), and each lane's requantization.
  const int64_t taps = s.kh * s.kw;
  auto* tap_w = reinterpret_cast<int32_t*>(staged + l.staged_bytes());
  for (int64_t c = 0; c < 16; ++c) {
    const int64_t oc = c0 + std::min<int64_t>(c, count - 1);
    const int32_t zw = e.a_zero_points != nullptr ? e.a_zero_points[oc] : 0;
    for (int64_t t = 0; t < taps; ++t) tap_w[t * 16 + c] = (w[oc * taps + t] - zw) & 0xffff;
  }
  alignas(64) float scale[16] = {}, bias[16] = {};
  for (int64_t c = 0; c < count; ++c) {
    scale[c] = e.scale_per_row ? e.scale[c0 + c] : e.scale[0];
    bias[c] = e.bias != nullptr ? e.bias[c0 + c] : 0.0f;
  }
  Requant rq;
  rq.scale = _mm512_load_ps(scale);
  rq.bias = _mm512_load_ps(bias);
  rq.zp = _mm512_set1_epi32(e.out_zero_point);
  rq.lo = _mm512_set1_epi32(e.out_min);
  rq.hi = _mm512_set1_epi32(e.out_max);

  // 3. Output pixels: one vpdpwssd per tap, requantized into 16 bytes per pixel.
  if (s.kh == 3 && s.kw == 3) {
    taps_3x3(s, l, pixels, tap_w, rq, staged);
  } else {
    for (int64_t oy = 0; oy < l.oh; ++oy) {
      for (int64_t ox = 0; ox < l.ow; ++ox) {
        const int32_t* base = pixels + (oy * s.sh * l.cols + ox * s.sw) * 16;
        __m512i acc = _mm512_setzero_si512();
        for (int64_t ky = 0, t = 0; ky < s.kh; ++ky) {
          const int32_t* row = base + ky * s.dh * l.cols * 16;
          for (int64_t kx = 0; kx < s.kw; ++kx, ++t) {
            acc = _mm512_dpwssd_epi32(acc, _mm512_load_si512(row + kx * s.dw * 16),
                                      _mm512_load_si512(tap_w + t * 16));
          }
        }
        store_requantized(acc, rq, staged + (oy * l.ow + ox) * 16);
      }
    }
  }

  // 4. The 16-byte pixels transposed back into the channels' output planes, the last chunk
  //    masked.
  const int64_t pixels_out = l.oh * l.ow;
  uint8_t* dst = out + (b * s.oc + c0) * pixels_out;
  for (int64_t p = 0; p < pixels_out; p += 16) {
    const int64_t n = std::min<int64_t>(16, pixels_out - p);
    const __mmask16 mask = static_cast<__mmask16>(n == 16 ? 0xffff : (1u << n) - 1);
    __m128i r[16];
    for (int k = 0; k < 16; ++k) {
      r[k] = k < n ? _mm_load_si128(reinterpret_cast<const __m128i*>(staged + (p + k) * 16))
                   : _mm_setzero_si128();
    }
    transpose_16x16(r);
    for (int c = 0; c < 16; ++c) {
      if (c == count) break;
      _mm_mask_storeu_epi8(dst + c * pixels_out + p, mask, r[kTransposed[c]]);
    }
  }
}

}  // namespace ptec::kernels::optimized::detail
