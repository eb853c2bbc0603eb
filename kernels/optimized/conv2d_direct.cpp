#include "kernels/optimized/conv2d_direct.h"

#include <algorithm>
#include <cstring>

#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

constexpr size_t kAlign = 64;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

struct Geometry {
  int64_t pitch, plane;  // padded row pitch and plane size
  int64_t flat;          // flat outputs: (oh - 1) * pitch + ow
  int64_t slack;         // zeros after the last plane: the last panel's reads past `flat`
};

Geometry geometry(const Conv2dShape& s) {
  Geometry g{};
  g.pitch = s.w + 2 * s.pw;
  g.plane = (s.h + 2 * s.ph) * g.pitch;
  g.flat = (s.oh() - 1) * g.pitch + s.ow();
  g.slack = gemm_tile(active_gemm_isa()).nr;
  return g;
}

}  // namespace

bool conv2d_direct_applies(const Conv2dShape& s) {
  return s.valid() && !s.depthwise() && !s.pointwise() && s.sh == 1 && s.sw == 1;
}

size_t conv2d_direct_scratch_bytes(const Conv2dShape& s) {
  const Geometry g = geometry(s);
  const size_t padded = align_up(static_cast<size_t>(s.c_per_group() * g.plane + g.slack) * 4);
  const size_t rows = align_up(static_cast<size_t>(s.k()) * sizeof(const float*));
  const size_t flat = align_up(static_cast<size_t>(s.oc_per_group() * g.flat) * sizeof(float));
  return padded + rows + flat;
}

bool conv2d_direct(const Conv2dShape& s, const float* input, const float* packed_weights,
                   const GemmEpilogue& epilogue, float* output, void* scratch,
                   const float* input_scale) {
  if (!conv2d_direct_applies(s) || scratch == nullptr || packed_weights == nullptr) return false;
  const Geometry g = geometry(s);
  const int64_t cg = s.c_per_group(), ocg = s.oc_per_group(), k = s.k();
  const int64_t oh = s.oh(), ow = s.ow(), ohw = oh * ow;
  auto* bytes = static_cast<unsigned char*>(scratch);
  auto* padded = reinterpret_cast<float*>(bytes);
  bytes += align_up(static_cast<size_t>(cg * g.plane + g.slack) * 4);
  auto** rows = reinterpret_cast<const float**>(bytes);
  bytes += align_up(static_cast<size_t>(k) * sizeof(const float*));
  auto* flat = reinterpret_cast<float*>(bytes);

  // Row p = (c, ky, kx) of B starts at the tap's offset in channel c's padded plane.
  const int64_t taps = s.kh * s.kw;
  for (int64_t c = 0; c < cg; ++c) {
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        rows[c * taps + ky * s.kw + kx] = padded + c * g.plane + ky * s.dh * g.pitch + kx * s.dw;
      }
    }
  }
  std::fill(padded + cg * g.plane, padded + cg * g.plane + g.slack, 0.0f);
  const int64_t mr = gemm_tile(active_gemm_isa()).mr;
  const size_t per_group = packed_a_bytes(ocg, k) / sizeof(float);
  for (int64_t b = 0; b < s.n; ++b) {
    for (int64_t grp = 0; grp < s.groups; ++grp) {
      const float* in = input + (b * s.c + grp * cg) * s.h * s.w;
      const float* scale = input_scale != nullptr ? input_scale + b * s.c + grp * cg : nullptr;
      parallel_for(cg, [&](int64_t c) {
        float* plane = padded + c * g.plane;
        const float* src = in + c * s.h * s.w;
        const float sc = scale != nullptr ? scale[c] : 1.0f;
        std::fill(plane, plane + s.ph * g.pitch, 0.0f);
        for (int64_t y = 0; y < s.h; ++y) {
          float* dst = plane + (y + s.ph) * g.pitch;
          std::fill(dst, dst + s.pw, 0.0f);
          if (scale == nullptr) {
            std::memcpy(dst + s.pw, src + y * s.w, static_cast<size_t>(s.w) * sizeof(float));
          } else {
            for (int64_t x = 0; x < s.w; ++x) dst[s.pw + x] = src[y * s.w + x] * sc;
          }
          std::fill(dst + s.pw + s.w, dst + g.pitch, 0.0f);
        }
        std::fill(plane + (s.h + s.ph) * g.pitch, plane + g.plane, 0.0f);
      });
      const PackedMatrix a{packed_weights + static_cast<size_t>(grp) * per_group, ocg, k, mr};
      if (!gemm_indirect(ocg, g.flat, k, a, rows, flat, g.flat)) return false;
      // Copy the valid columns out with bias, residual and activation.
      float* out = output + (b * s.oc + grp * ocg) * ohw;
      const float* residual =
          epilogue.residual != nullptr ? epilogue.residual + (b * s.oc + grp * ocg) * ohw : nullptr;
      parallel_for(ocg, [&](int64_t o) {
        const float bias = epilogue.bias != nullptr ? epilogue.bias[grp * ocg + o] : 0.0f;
        float* dst = out + o * ohw;
        const float* res = residual != nullptr ? residual + o * ohw : nullptr;
        for (int64_t oy = 0; oy < oh; ++oy) {
          const float* src = flat + o * g.flat + oy * g.pitch;
          float* d = dst + oy * ow;
          if (res != nullptr) {
            const float* r = res + oy * ow;
            for (int64_t x = 0; x < ow; ++x) d[x] = src[x] + bias + r[x];
          } else {
            for (int64_t x = 0; x < ow; ++x) d[x] = src[x] + bias;
          }
        }
        activate_in_place(dst, ohw, epilogue.activation, epilogue.clamp_min, epilogue.clamp_max);
      });
    }
  }
  return true;
}

}  // namespace ptec::kernels::optimized
