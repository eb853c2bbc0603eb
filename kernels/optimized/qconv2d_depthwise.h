#pragma once

// qconv2d's depthwise case (one input channel per group), one output channel at a time. Internal
// to kernels/optimized.
//
// The channel's input plane is copied once, shifted by the zero point to 16-bit x - zx (0 in
// the padding), into "pair planes": element (y, x) holds the int32 pair (x'[y][x], x'[y + dh][x]),
// the values two vertically adjacent taps multiply. Kernel rows ky and ky + 1 then take one
// vpmaddwd per 16 outputs: both products and their sum, against the weight pair (w[ky][kx],
// w[ky + 1][kx]) (an odd last row pairs with 0). Strided convolutions split the plane by stride
// phase (rows y = ry + sh * i, columns x = rx + sw * i in phase (ry, rx)), so that every tap reads
// a contiguous run. The outputs are laid out flat at the phase planes' pitch (output (oy, ox) at
// oy * pitch + ox; the columns past ow are computed and dropped): one run per tap over the whole
// plane, however short its rows.

#include <cstddef>
#include <cstdint>

#include "kernels/optimized/conv2d.h"
#include "kernels/optimized/qgemm.h"

namespace ptec::kernels::optimized::detail {

/// A depthwise convolution (s.depthwise()), set up once and run one output channel at a time,
/// each worker on its own scratch slot.
class QDepthwise {
 public:
  explicit QDepthwise(const Conv2dShape& s);
  /// Scratch of one channel's run (64-byte aligned): its pair planes, int32 sums and taps.
  size_t slot_bytes() const;
  /// Output channel `oc` of image `b` into `out` ([N, OC, OH, OW]), reading input channel
  /// oc / (OC / C) of `in` (uint8, or int8 when `x_signed`) with zero point `zx`, and the int8
  /// weights `w` ([OC, 1, KH, KW]); requantized as qconv2d(). `slot`: slot_bytes() of scratch.
  /// The zero points zx and the weights' must lie in [-128, 255] (so that x - zx and w - zw fit
  /// 16 bits): qconv2d() checks them.
  void run(const uint8_t* in, bool x_signed, int32_t zx, const int8_t* w, const QEpilogue& e,
           uint8_t* out, int64_t b, int64_t oc, unsigned char* slot) const;

  /// The pair planes' layout: sh * sw phase planes (phase (ry, rx) at ry * sw + rx) of `rows`
  /// rows of `pitch` pairs (plane(): with the slack the tap loops read past the end), and the
  /// flat outputs.
  struct Geometry {
    int64_t oh, ow;
    int64_t phases;  // sh * sw
    int64_t rows;    // ceil(padded rows / sh)
    int64_t pitch;   // ceil(padded columns / sw)
    int64_t flat;    // (oh - 1) * pitch + ow
    int64_t taps;    // pair taps: ceil(kh / 2) * kw
    int64_t plane() const;
    int64_t sums() const;
  };

 private:
  Conv2dShape s_;
  Geometry g_;
  QGemmIsa isa_;
};

/// The channel-interleaved path (qconv2d_depthwise_avx512.cpp; AVX-512 BW and VNNI, channel
/// multiplier 1): channels [c0, c0 + count) of image `b`, count <= 16, with `scratch` of
/// qdepthwise16_scratch_bytes(s); the arguments as QDepthwise::run's.
size_t qdepthwise16_scratch_bytes(const Conv2dShape& s);
void qdepthwise16_avx512(const Conv2dShape& s, const uint8_t* in, bool x_signed, int32_t zx,
                         const int8_t* w, const QEpilogue& e, uint8_t* out, int64_t b, int64_t c0,
                         int64_t count, unsigned char* scratch);

}  // namespace ptec::kernels::optimized::detail
