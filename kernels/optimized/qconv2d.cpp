#include "kernels/optimized/qconv2d.h"

#include <algorithm>
#include <cstring>

#include "kernels/optimized/qconv2d_depthwise.h"
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

// A zero point the depthwise kernel takes: within [-128, 255], the 8-bit types' together.
bool depthwise_zero_point(int32_t z) { return z >= -128 && z <= 255; }

// Whether a depthwise convolution runs channel-interleaved, 16 channels at a time
// (qconv2d_depthwise_avx512.cpp): on AVX-512 VNNI, one output channel per input channel.
bool depthwise_interleaved(const Conv2dShape& s) {
#if defined(PTEC_GEMM_HAVE_AVX2)
  return s.oc == s.c && active_qgemm_isa() == QGemmIsa::Avx512Vnni;
#else
  (void)s;
  return false;
#endif
}

// A depthwise convolution's items: one channel of one image, or one block of 16 channels.
int64_t depthwise_items(const Conv2dShape& s) {
  return depthwise_interleaved(s) ? s.n * ((s.oc + 15) / 16) : s.n * s.oc;
}

// The workers depthwise items are spread over, and each one's scratch.
int64_t depthwise_workers(const Conv2dShape& s, int64_t workers) {
  return std::clamp<int64_t>(depthwise_items(s), 1, workers);
}
size_t depthwise_slot_bytes(const Conv2dShape& s) {
#if defined(PTEC_GEMM_HAVE_AVX2)  // (qconv2d_depthwise_avx512.cpp is built on x86 only)
  if (depthwise_interleaved(s)) return detail::qdepthwise16_scratch_bytes(s);
#endif
  return detail::QDepthwise(s).slot_bytes();
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
    // The items spread over the workers, each worker's in turn on its own scratch.
    const int64_t used = depthwise_workers(s, workers), items = depthwise_items(s);
    // x - zx and w - zw must fit 16 bits (detail::QDepthwise).
    if (!depthwise_zero_point(x_zero_point)) return false;
    if (epilogue.a_zero_points != nullptr) {
      for (int64_t o = 0; o < s.oc; ++o) {
        if (!depthwise_zero_point(epilogue.a_zero_points[o])) return false;
      }
    }
    const size_t slot = depthwise_slot_bytes(s);
#if defined(PTEC_GEMM_HAVE_AVX2)
    if (depthwise_interleaved(s)) {
      const int64_t blocks = (s.oc + 15) / 16;
      parallel_for(used, [&](int64_t wk) {
        auto* mine = static_cast<unsigned char*>(scratch) + static_cast<size_t>(wk) * slot;
        for (int64_t item = wk; item < items; item += used) {
          const int64_t c0 = item % blocks * 16;
          detail::qdepthwise16_avx512(s, in, x_signed, x_zero_point, weights, epilogue, out,
                                      item / blocks, c0, std::min<int64_t>(16, s.oc - c0), mine);
        }
      });
      return true;
    }
#endif
    const detail::QDepthwise depthwise(s);
    parallel_for(used, [&](int64_t wk) {
      auto* mine = static_cast<unsigned char*>(scratch) + static_cast<size_t>(wk) * slot;
      for (int64_t item = wk; item < items; item += used) {
        depthwise.run(in, x_signed, x_zero_point, weights, epilogue, out, item / s.oc, item % s.oc,
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
