#include "kernels/optimized/conv_transpose2d.h"

#include <algorithm>

#include "kernels/optimized/gemm.h"

namespace ptec::kernels::optimized {
namespace {

constexpr size_t kAlign = 64;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

// The GEMM of one group: M = input pixels, N = OCg KH KW, K = C / groups.
struct Dims {
  int64_t cg, ocg, taps, m, pixels;
};
Dims dims_of(const ConvTranspose2dShape& s) {
  const int64_t cg = s.c / s.groups, ocg = s.oc / s.groups, taps = s.kh * s.kw;
  return {cg, ocg, taps, ocg * taps, s.h * s.w};
}

size_t group_floats(const Dims& d) { return packed_b_bytes(d.cg, d.m) / sizeof(float); }

// Group g's packed weights, as conv_transpose2d_pack_weights laid them out.
PackedMatrix group_weights(const Dims& d, const float* packed, int64_t g) {
  return PackedMatrix{packed + static_cast<size_t>(g) * group_floats(d),
                      d.cg,
                      d.m,
                      gemm_tile(active_gemm_isa()).nr,
                      true,
                      gemm_slice_depth()};
}

}  // namespace

bool ConvTranspose2dShape::valid() const {
  return n >= 0 && c > 0 && h > 0 && w > 0 && oc > 0 && kh > 0 && kw > 0 && sh > 0 && sw > 0 &&
         dh > 0 && dw > 0 && ph >= 0 && pw >= 0 && oph >= 0 && opw >= 0 && oph < std::max(sh, dh) &&
         opw < std::max(sw, dw) && groups > 0 && c % groups == 0 && oc % groups == 0 && oh() > 0 &&
         ow() > 0;
}

size_t conv_transpose2d_packed_weights_bytes(const ConvTranspose2dShape& s) {
  return static_cast<size_t>(s.groups) * group_floats(dims_of(s)) * sizeof(float);
}

void conv_transpose2d_pack_weights(const ConvTranspose2dShape& s, const float* weights,
                                   float* out) {
  const Dims d = dims_of(s);
  for (int64_t g = 0; g < s.groups; ++g) {
    pack_b(d.cg, d.m, weights + g * d.cg * d.m, d.m, false,
           out + static_cast<size_t>(g) * group_floats(d), gemm_slice_depth());
  }
}

size_t conv_transpose2d_scratch_bytes(const ConvTranspose2dShape& s, bool weights_packed) {
  const Dims d = dims_of(s);
  return align_up(static_cast<size_t>(d.m * d.pixels) * sizeof(float)) +
         align_up(gemm_scratch_bytes(d.pixels, d.m, d.cg, false, true)) +
         (weights_packed ? 0 : align_up(conv_transpose2d_packed_weights_bytes(s)));
}

bool conv_transpose2d(const ConvTranspose2dShape& s, const float* x, const float* weights,
                      const float* packed_weights, const float* bias, Activation act, float lo,
                      float hi, float* y, void* scratch) {
  if (!s.valid() || scratch == nullptr) return false;
  const Dims d = dims_of(s);
  const int64_t oh = s.oh(), ow = s.ow();
  auto* bytes = static_cast<unsigned char*>(scratch);
  auto* cols = reinterpret_cast<float*>(bytes);
  bytes += align_up(static_cast<size_t>(d.m * d.pixels) * sizeof(float));
  void* gemm_scratch = bytes;
  bytes += align_up(gemm_scratch_bytes(d.pixels, d.m, d.cg, false, true));
  if (packed_weights == nullptr) {
    auto* packed = reinterpret_cast<float*>(bytes);
    conv_transpose2d_pack_weights(s, weights, packed);
    packed_weights = packed;
  }
  for (int64_t i = 0; i < s.n; ++i) {
    for (int64_t g = 0; g < s.groups; ++g) {
      float* planes = y + (i * s.oc + g * d.ocg) * oh * ow;
      for (int64_t o = 0; o < d.ocg; ++o) {
        std::fill(planes + o * oh * ow, planes + (o + 1) * oh * ow,
                  bias != nullptr ? bias[g * d.ocg + o] : 0.0f);
      }
      // A = X_g^T (X_g is [cg, H W]), B = W_g ([cg, ocg taps]).
      const PackedMatrix b = group_weights(d, packed_weights, g);
      if (!gemm(d.pixels, d.m, d.cg,
                GemmOperand::matrix(x + (i * s.c + g * d.cg) * d.pixels, d.pixels, true),
                GemmOperand::prepacked(b), cols, d.m, {}, gemm_scratch)) {
        return false;
      }
      for (int64_t iy = 0; iy < s.h; ++iy) {
        for (int64_t ix = 0; ix < s.w; ++ix) {
          const float* col = cols + (iy * s.w + ix) * d.m;
          for (int64_t o = 0; o < d.ocg; ++o) {
            float* plane = planes + o * oh * ow;
            for (int64_t ky = 0; ky < s.kh; ++ky) {
              const int64_t yy = iy * s.sh - s.ph + ky * s.dh;
              if (yy < 0 || yy >= oh) continue;
              for (int64_t kx = 0; kx < s.kw; ++kx) {
                const int64_t xx = ix * s.sw - s.pw + kx * s.dw;
                if (xx >= 0 && xx < ow) plane[yy * ow + xx] += col[(o * s.kh + ky) * s.kw + kx];
              }
            }
          }
        }
      }
      if (act != Activation::None) activate_in_place(planes, d.ocg * oh * ow, act, lo, hi);
    }
  }
  return true;
}

}  // namespace ptec::kernels::optimized
