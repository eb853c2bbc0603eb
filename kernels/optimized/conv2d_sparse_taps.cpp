#include "kernels/optimized/conv2d_sparse_taps.h"

#include <algorithm>

#include "kernels/optimized/activation.h"

namespace ptec::kernels::optimized {
namespace {

constexpr size_t kAlign = 64;
// conv2d_sparse_taps_preferred's limit on the live share (measured, see conv2d_sparse_taps.h).
constexpr double kMaxLiveShare = 0.6;

size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

// The outputs [first, last) along one dim whose input position o * stride - pad + k * dilation
// lies in [0, size).
struct Span {
  int64_t first = 0, last = 0;
  int64_t count() const { return last > first ? last - first : 0; }
};
Span span(int64_t size, int64_t out, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  const int64_t shift = pad - k * dilation;  // input = o * stride - shift
  Span s;
  s.first = std::max<int64_t>(0, ceil_div(shift, stride));
  s.last = std::min<int64_t>(out, floor_div(size - 1 + shift, stride) + 1);
  return s;
}

size_t per_tap_floats(const Conv2dShape& s) { return packed_a_bytes(s.oc, s.c) / sizeof(float); }

}  // namespace

double conv2d_live_share(const Conv2dShape& s) {
  if (!s.valid()) return 1.0;
  double live = 0;
  for (int64_t ky = 0; ky < s.kh; ++ky) {
    const int64_t rows = span(s.h, s.oh(), ky, s.sh, s.ph, s.dh).count();
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      live += static_cast<double>(rows * span(s.w, s.ow(), kx, s.sw, s.pw, s.dw).count());
    }
  }
  return live / static_cast<double>(s.oh() * s.ow() * s.kh * s.kw);
}

bool conv2d_sparse_taps_preferred(const Conv2dShape& s) {
  return s.valid() && s.groups == 1 && !s.depthwise() && s.kh * s.kw > 1 &&
         conv2d_live_share(s) <= kMaxLiveShare;
}

size_t conv2d_sparse_taps_packed_weights_bytes(const Conv2dShape& s) {
  return static_cast<size_t>(s.kh * s.kw) * per_tap_floats(s) * sizeof(float);
}

void conv2d_sparse_taps_pack_weights(const Conv2dShape& s, const float* weights, float* out) {
  const int64_t taps = s.kh * s.kw;
  const size_t per_tap = per_tap_floats(s);
  std::fill(out, out + static_cast<size_t>(taps) * per_tap, 0.0f);  // rows past OC
  for (int64_t o = 0; o < s.oc; ++o) {
    for (int64_t c = 0; c < s.c; ++c) {
      const size_t at = packed_a_offset(s.oc, s.c, o, c);
      for (int64_t t = 0; t < taps; ++t) {
        out[static_cast<size_t>(t) * per_tap + at] = weights[(o * s.c + c) * taps + t];
      }
    }
  }
}

size_t conv2d_sparse_taps_scratch_bytes(const Conv2dShape& s) {
  const int64_t pixels = s.oh() * s.ow();
  return align_up(static_cast<size_t>(s.c * pixels) * sizeof(float)) +   // gathered input
         align_up(static_cast<size_t>(s.oc * pixels) * sizeof(float)) +  // products
         align_up(gemm_scratch_bytes(s.oc, pixels, s.c, true, false));
}

bool conv2d_sparse_taps(const Conv2dShape& s, const float* input, const float* packed_weights,
                        const GemmEpilogue& epilogue, float* output, void* scratch,
                        const float* input_scale) {
  if (!s.valid() || s.groups != 1 || scratch == nullptr || packed_weights == nullptr) return false;
  const int64_t oh = s.oh(), ow = s.ow(), ohw = oh * ow, hw = s.h * s.w;
  auto* bytes = static_cast<unsigned char*>(scratch);
  auto* gathered = reinterpret_cast<float*>(bytes);
  bytes += align_up(static_cast<size_t>(s.c * ohw) * sizeof(float));
  auto* products = reinterpret_cast<float*>(bytes);
  bytes += align_up(static_cast<size_t>(s.oc * ohw) * sizeof(float));
  void* gemm_scratch = bytes;
  for (int64_t b = 0; b < s.n; ++b) {
    const float* x = input + b * s.c * hw;
    float* y = output + b * s.oc * ohw;
    for (int64_t o = 0; o < s.oc; ++o) {
      std::fill(y + o * ohw, y + (o + 1) * ohw, epilogue.bias != nullptr ? epilogue.bias[o] : 0.0f);
    }
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      const Span rows = span(s.h, oh, ky, s.sh, s.ph, s.dh);
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const Span cols = span(s.w, ow, kx, s.sw, s.pw, s.dw);
        const int64_t width = cols.count(), count = rows.count() * width;
        if (count == 0) continue;
        // The rectangle's input pixels, C x count (each scaled by its channel's input scale).
        for (int64_t c = 0; c < s.c; ++c) {
          const float scale = input_scale != nullptr ? input_scale[b * s.c + c] : 1.0f;
          float* dst = gathered + c * count;
          for (int64_t oy = rows.first; oy < rows.last; ++oy) {
            const float* src = x + c * hw + (oy * s.sh - s.ph + ky * s.dh) * s.w +
                               (cols.first * s.sw - s.pw + kx * s.dw);
            for (int64_t i = 0; i < width; ++i) *dst++ = src[i * s.sw] * scale;
          }
        }
        const PackedMatrix a{
            packed_weights + static_cast<size_t>(ky * s.kw + kx) * per_tap_floats(s),
            s.oc,
            s.c,
            gemm_tile(active_gemm_isa()).mr,
            true,
            gemm_slice_depth()};
        const GemmOperand bm = GemmOperand::matrix(gathered, count);
        if (width == ow) {  // whole output rows: accumulated into the output in place
          GemmEpilogue accumulate;
          accumulate.beta_one = true;
          if (!gemm(s.oc, count, s.c, GemmOperand::prepacked(a), bm, y + rows.first * ow, ohw,
                    accumulate, gemm_scratch)) {
            return false;
          }
          continue;
        }
        if (!gemm(s.oc, count, s.c, GemmOperand::prepacked(a), bm, products, count, {},
                  gemm_scratch)) {
          return false;
        }
        for (int64_t o = 0; o < s.oc; ++o) {
          const float* p = products + o * count;
          for (int64_t oy = rows.first; oy < rows.last; ++oy) {
            float* dst = y + o * ohw + oy * ow + cols.first;
            for (int64_t i = 0; i < width; ++i) dst[i] += *p++;
          }
        }
      }
    }
    if (epilogue.residual != nullptr) {
      const float* r = epilogue.residual + b * s.oc * ohw;
      for (int64_t i = 0; i < s.oc * ohw; ++i) y[i] += r[i];
    }
    activate_in_place(y, s.oc * ohw, epilogue.activation, epilogue.clamp_min, epilogue.clamp_max);
  }
  return true;
}

}  // namespace ptec::kernels::optimized
