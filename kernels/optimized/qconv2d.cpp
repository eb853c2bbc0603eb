#include "kernels/optimized/qconv2d.h"

#include <algorithm>
#include <cstring>

#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

constexpr size_t kAlign = 64;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

size_t group_packed_bytes(const Conv2dShape& s) { return qpacked_a_bytes(s.oc_per_group(), s.k()); }

// im2col of one image and group: rows (c, ky, kx), columns the output pixels; positions in the
// padding hold `pad` (the input's zero point, as stored).
void im2col(const Conv2dShape& s, const uint8_t* in, uint8_t pad, uint8_t* cols) {
  const int64_t oh = s.oh(), ow = s.ow();
  const int64_t cg = s.c_per_group();
  uint8_t* dst = cols;
  for (int64_t c = 0; c < cg; ++c) {
    const uint8_t* plane = in + c * s.h * s.w;
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const int64_t off = kx * s.dw - s.pw;
        // Output columns whose input column ox * sw + off lies in [0, w).
        const int64_t x_lo = std::min(ow, off >= 0 ? 0 : (-off + s.sw - 1) / s.sw);
        const int64_t x_hi =
            std::max(x_lo, std::min(ow, s.w - off <= 0 ? 0 : (s.w - off + s.sw - 1) / s.sw));
        for (int64_t oy = 0; oy < oh; ++oy, dst += ow) {
          const int64_t iy = oy * s.sh - s.ph + ky * s.dh;
          if (iy < 0 || iy >= s.h) {
            std::memset(dst, pad, static_cast<size_t>(ow));
            continue;
          }
          std::memset(dst, pad, static_cast<size_t>(x_lo));
          const uint8_t* src = plane + iy * s.w + off;
          if (s.sw == 1) {
            std::memcpy(dst + x_lo, src + x_lo, static_cast<size_t>(x_hi - x_lo));
          } else {
            for (int64_t ox = x_lo; ox < x_hi; ++ox) dst[ox] = src[ox * s.sw];
          }
          std::memset(dst + x_hi, pad, static_cast<size_t>(ow - x_hi));
        }
      }
    }
  }
}

// Convolutions with a kernel larger than 1x1 (and strides up to kMaxDirectStride) read their input
// in place instead of through im2col: B's rows are shifted views of a copy of the group's channels
// padded with the zero point and split by stride phase (phase (py, px) holds padded rows py,
// py + sh, ... and columns px, px + sw, ..., rows of q columns), so that tap (ky, kx) of output
// (oy, ox) is element (oy + ky dh / sh, ox + kx dw / sw) of phase (ky dh % sh, kx dw % sw). The
// GEMM computes each output row over the phase pitch q, and the extra columns are dropped as C is
// stored (QColumnRows). This saves writing and rereading K x pixels bytes of columns.
constexpr int64_t kMaxDirectStride = 4;

bool direct_applies(const Conv2dShape& s) {
  return !s.depthwise() && s.kh * s.kw > 1 && s.sh <= kMaxDirectStride && s.sw <= kMaxDirectStride;
}

struct Phases {
  int64_t sh, sw;   // phases per dimension (the strides)
  int64_t rows, q;  // one phase: rows x q
  int64_t phase() const { return rows * q; }
  int64_t plane() const { return sh * sw * phase(); }  // one channel: all phases
  int64_t columns(const Conv2dShape& s) const { return (s.oh() - 1) * q + s.ow(); }
};
Phases phases_of(const Conv2dShape& s) {
  return {s.sh, s.sw, (s.h + 2 * s.ph + s.sh - 1) / s.sh, (s.w + 2 * s.pw + s.sw - 1) / s.sw};
}

// The group's cg channels into `dst` by phase, the padding (and the phases' edges past it) `pad`:
// the zero point as stored.
void fill_phases(const Conv2dShape& s, const Phases& g, const uint8_t* in, uint8_t pad,
                 uint8_t* dst) {
  const int64_t cg = s.c_per_group();
  parallel_for(cg, [&](int64_t c) {
    const uint8_t* src = in + c * s.h * s.w;
    for (int64_t py = 0; py < g.sh; ++py) {
      for (int64_t px = 0; px < g.sw; ++px) {
        uint8_t* phase = dst + c * g.plane() + (py * g.sw + px) * g.phase();
        for (int64_t i = 0; i < g.rows; ++i) {
          uint8_t* row = phase + i * g.q;
          const int64_t y = i * g.sh + py - s.ph;  // input row
          if (y < 0 || y >= s.h) {
            std::memset(row, pad, static_cast<size_t>(g.q));
            continue;
          }
          const uint8_t* line = src + y * s.w;
          if (g.sw == 1) {
            std::memset(row, pad, static_cast<size_t>(s.pw));
            std::memcpy(row + s.pw, line, static_cast<size_t>(s.w));
            std::memset(row + s.pw + s.w, pad, static_cast<size_t>(g.q - s.pw - s.w));
            continue;
          }
          for (int64_t j = 0; j < g.q; ++j) {
            const int64_t x = j * g.sw + px - s.pw;  // input column
            row[j] = x >= 0 && x < s.w ? line[x] : pad;
          }
        }
      }
    }
  });
}

// The epilogue of group g's GEMM (ocg output channels each): its rows' scales, biases and weight
// zero points, and the input's zero point as B's.
QEpilogue group_epilogue(const QEpilogue& epilogue, int32_t x_zero_point, int64_t g, int64_t ocg) {
  QEpilogue e = epilogue;
  e.b_zero_point = x_zero_point;
  if (e.scale_per_row) e.scale += g * ocg;
  if (e.bias != nullptr) e.bias += g * ocg;
  if (e.a_zero_points != nullptr) e.a_zero_points += g * ocg;
  return e;
}

// Depthwise: each output channel oc reads input channel oc / multiplier, through a copy of that
// plane padded and shifted to 16-bit values x - zx (the padding then holds 0), so that each tap
// adds (w - zw) times runs of it into the channel's int32 sums with no bounds to check, in loops
// the compiler vectorizes (the scalar loop with a bounds check per product ran MobileNet-V2's
// depthwise layers at 2 GOP/s). At stride 1 the outputs are laid out flat at the padded pitch
// (output (oy, ox) at oy * pitch + ox, the columns past ow unused), one run per tap instead of
// one per output row and tap: small planes' rows are shorter than a few vectors. Other strides
// go row by row.
struct DepthwisePlane {
  int64_t rows, pitch;
  int64_t size() const { return rows * pitch; }
};
DepthwisePlane depthwise_plane(const Conv2dShape& s) { return {s.h + 2 * s.ph, s.w + 2 * s.pw}; }

bool depthwise_flat(const Conv2dShape& s) { return s.sh == 1 && s.sw == 1; }

// Bytes of one channel's shifted input plane (int16, padded).
size_t depthwise_shifted_bytes(const Conv2dShape& s) {
  return align_up(static_cast<size_t>(depthwise_plane(s).size()) * sizeof(int16_t));
}

// Bytes of one channel's int32 sums: the output plane, or its flat layout at the padded pitch.
size_t depthwise_sums_bytes(const Conv2dShape& s) {
  const int64_t sums = depthwise_flat(s) ? s.oh() * depthwise_plane(s).pitch : s.oh() * s.ow();
  return align_up(static_cast<size_t>(sums) * sizeof(int32_t));
}

template <typename T>
__attribute__((always_inline)) inline void shifted_plane(const Conv2dShape& s,
                                                         const DepthwisePlane& g, const T* plane,
                                                         int32_t zx, int16_t* dst) {
  std::fill(dst, dst + g.size(), int16_t{0});
  for (int64_t y = 0; y < s.h; ++y) {
    int16_t* row = dst + (s.ph + y) * g.pitch + s.pw;
    const T* src = plane + y * s.w;
    for (int64_t x = 0; x < s.w; ++x) row[x] = static_cast<int16_t>(src[x] - zx);
  }
}

__attribute__((always_inline)) inline void depthwise_taps(const Conv2dShape& s,
                                                          const DepthwisePlane& g, const int16_t* x,
                                                          const int32_t* wv, int32_t* acc) {
  const int64_t oh = s.oh(), ow = s.ow();
  if (depthwise_flat(s)) {
    const int64_t flat = (oh - 1) * g.pitch + ow;
    std::fill(acc, acc + flat, 0);
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const int32_t w = wv[ky * s.kw + kx];
        const int16_t* src = x + ky * s.dh * g.pitch + kx * s.dw;
        for (int64_t j = 0; j < flat; ++j) acc[j] += w * src[j];
      }
    }
    return;
  }
  for (int64_t oy = 0; oy < oh; ++oy) {
    int32_t* out = acc + oy * ow;
    std::fill(out, out + ow, 0);
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      const int16_t* row = x + (oy * s.sh + ky * s.dh) * g.pitch;
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const int32_t w = wv[ky * s.kw + kx];
        const int16_t* src = row + kx * s.dw;
        if (s.sw == 2) {
          for (int64_t ox = 0; ox < ow; ++ox) out[ox] += w * src[2 * ox];
        } else {
          for (int64_t ox = 0; ox < ow; ++ox) out[ox] += w * src[ox * s.sw];
        }
      }
    }
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void depthwise_channel(
    const Conv2dShape& s, const void* plane, bool x_signed, int32_t zx, const int32_t* wv,
    int16_t* shifted, int32_t* acc) {
  const DepthwisePlane g = depthwise_plane(s);
  if (x_signed) {
    shifted_plane(s, g, static_cast<const int8_t*>(plane), zx, shifted);
  } else {
    shifted_plane(s, g, static_cast<const uint8_t*>(plane), zx, shifted);
  }
  depthwise_taps(s, g, shifted, wv, acc);
}

// One worker's scratch for depthwise: a channel's sums and its shifted plane.
// One worker's depthwise scratch: the sums, the shifted plane, then the channel's taps (int32).
size_t depthwise_slot_bytes(const Conv2dShape& s) {
  return depthwise_sums_bytes(s) + depthwise_shifted_bytes(s) +
         align_up(static_cast<size_t>(s.kh * s.kw) * sizeof(int32_t));
}

// The workers depthwise channels are spread over: one channel (of one image) per item.
int64_t depthwise_workers(const Conv2dShape& s, int64_t workers) {
  return std::clamp<int64_t>(s.n * s.oc, 1, workers);
}

// Output channel oc of image b into `out`, with one worker's scratch `slot`.
void depthwise(const Conv2dShape& s, const uint8_t* in, bool x_signed, int32_t zx, const int8_t* w,
               const QEpilogue& e, uint8_t* out, int64_t b, int64_t oc, unsigned char* slot) {
  const int64_t oh = s.oh(), ow = s.ow(), taps = s.kh * s.kw;
  const int64_t mult = s.oc / s.c, pitch = depthwise_plane(s).pitch;
  auto* acc = reinterpret_cast<int32_t*>(slot);
  auto* shifted = reinterpret_cast<int16_t*>(slot + depthwise_sums_bytes(s));
  auto* wv =
      reinterpret_cast<int32_t*>(slot + depthwise_sums_bytes(s) + depthwise_shifted_bytes(s));
  const int32_t zw = e.a_zero_points != nullptr ? e.a_zero_points[oc] : 0;
  for (int64_t t = 0; t < taps; ++t) wv[t] = w[oc * taps + t] - zw;
  depthwise_channel(s, in + (b * s.c + oc / mult) * s.h * s.w, x_signed, zx, wv, shifted, acc);
  QRow row;
  row.scale = e.scale_per_row ? e.scale[oc] : e.scale[0];
  row.bias = e.bias != nullptr ? e.bias[oc] : 0.0f;
  row.zero_point = e.out_zero_point;
  row.lo = e.out_min;
  row.hi = e.out_max;
  row.out_signed = e.out_signed;
  uint8_t* dst = out + (b * s.oc + oc) * oh * ow;
  if (depthwise_flat(s)) {  // the flat sums' first ow columns of each row
    for (int64_t oy = 0; oy < oh; ++oy) {
      requantize_row(acc + oy * pitch, ow, row, nullptr, dst + oy * ow);
    }
  } else {
    requantize_row(acc, oh * ow, row, nullptr, dst);
  }
}

}  // namespace

size_t qconv2d_packed_weights_bytes(const Conv2dShape& s) {
  if (s.depthwise()) return 0;
  return group_packed_bytes(s) * static_cast<size_t>(s.groups);
}

void qconv2d_pack_weights(const Conv2dShape& s, const int8_t* weights, void* out) {
  if (s.depthwise()) return;
  const int64_t ocg = s.oc_per_group();
  const size_t bytes = group_packed_bytes(s);
  for (int64_t g = 0; g < s.groups; ++g) {
    qpack_a(ocg, s.k(), weights + g * ocg * s.k(), s.k(),
            static_cast<unsigned char*>(out) + g * bytes);
  }
}

size_t qconv2d_scratch_bytes(const Conv2dShape& s, int64_t workers) {
  const int64_t pixels = s.oh() * s.ow();
  if (s.depthwise()) {
    return depthwise_slot_bytes(s) * static_cast<size_t>(depthwise_workers(s, workers));
  }
  if (direct_applies(s)) {
    const Phases g = phases_of(s);
    return align_up(static_cast<size_t>(s.c_per_group() * g.plane())) +
           align_up(static_cast<size_t>(s.k()) * sizeof(const uint8_t*)) +
           qgemm_scratch_bytes(g.columns(s), s.k());
  }
  return align_up(static_cast<size_t>(s.k() * pixels)) + qgemm_scratch_bytes(pixels, s.k());
}

bool qconv2d(const Conv2dShape& s, const void* input, bool x_signed, int32_t x_zero_point,
             const int8_t* weights, const void* packed, const QEpilogue& epilogue, void* output,
             void* scratch, int64_t workers) {
  if (!s.valid() || scratch == nullptr || workers < 1) return false;
  const int64_t pixels = s.oh() * s.ow();
  const auto* in = static_cast<const uint8_t*>(input);
  auto* out = static_cast<uint8_t*>(output);
  if (s.depthwise()) {
    // The channels spread over the workers, each worker's in turn on its own scratch.
    const int64_t used = depthwise_workers(s, workers), items = s.n * s.oc;
    const size_t slot = depthwise_slot_bytes(s);
    parallel_for(used, [&](int64_t wk) {
      auto* mine = static_cast<unsigned char*>(scratch) + static_cast<size_t>(wk) * slot;
      for (int64_t item = wk; item < items; item += used) {
        depthwise(s, in, x_signed, x_zero_point, weights, epilogue, out, item / s.oc, item % s.oc,
                  mine);
      }
    });
    return true;
  }
  const int64_t ocg = s.oc_per_group(), cg = s.c_per_group(), k = s.k();
  const size_t group_bytes = group_packed_bytes(s);
  if (direct_applies(s)) {
    const Phases g = phases_of(s);
    auto* planes = static_cast<uint8_t*>(scratch);
    auto** rows =
        reinterpret_cast<const uint8_t**>(planes + align_up(static_cast<size_t>(cg * g.plane())));
    void* gemm_scratch = reinterpret_cast<unsigned char*>(rows) +
                         align_up(static_cast<size_t>(k) * sizeof(const uint8_t*));
    for (int64_t c = 0; c < cg; ++c) {
      for (int64_t ky = 0; ky < s.kh; ++ky) {
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          const int64_t ry = ky * s.dh, rx = kx * s.dw;
          rows[(c * s.kh + ky) * s.kw + kx] = planes + c * g.plane() +
                                              (ry % s.sh * s.sw + rx % s.sw) * g.phase() +
                                              ry / s.sh * g.q + rx / s.sw;
        }
      }
    }
    const QColumnRows map{g.q, s.ow()};
    for (int64_t b = 0; b < s.n; ++b) {
      for (int64_t grp = 0; grp < s.groups; ++grp) {
        fill_phases(s, g, in + (b * s.c + grp * cg) * s.h * s.w, static_cast<uint8_t>(x_zero_point),
                    planes);
        const QPackedA a =
            qpacked_a_view(ocg, k, static_cast<const unsigned char*>(packed) + grp * group_bytes);
        const QEpilogue e = group_epilogue(epilogue, x_zero_point, grp, ocg);
        if (!qgemm_rows(ocg, g.columns(s), k, a, rows, x_signed, e,
                        out + (b * s.oc + grp * ocg) * pixels, pixels, &map, gemm_scratch)) {
          return false;
        }
      }
    }
    return true;
  }
  auto* cols = static_cast<uint8_t*>(scratch);
  void* gemm_scratch = cols + align_up(static_cast<size_t>(k * pixels));
  const bool direct = s.pointwise();
  for (int64_t b = 0; b < s.n; ++b) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const uint8_t* x = in + (b * s.c + g * cg) * s.h * s.w;
      if (!direct) im2col(s, x, static_cast<uint8_t>(x_zero_point), cols);
      const QPackedA a =
          qpacked_a_view(ocg, k, static_cast<const unsigned char*>(packed) + g * group_bytes);
      const QEpilogue e = group_epilogue(epilogue, x_zero_point, g, ocg);
      if (!qgemm(ocg, pixels, k, a, direct ? static_cast<const void*>(x) : cols, pixels, false,
                 x_signed, e, out + (b * s.oc + g * ocg) * pixels, pixels, false, gemm_scratch)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace ptec::kernels::optimized
