// Portable int8 microkernel (4 x 8) and requantization: plain C++ for CPUs without AVX2, and
// the reference the ISA kernels are tested against.

#include <cmath>

#include "kernels/optimized/qgemm_microkernel.h"

namespace ptec::kernels::optimized::detail {

void qmicrokernel_generic_4x8(int64_t kq, const int8_t* a, const uint8_t* b, int32_t* tile) {
  constexpr int64_t kMr = kQGenericMr;
  constexpr int64_t kNr = kQGenericNr;
  int32_t acc[kMr][kNr] = {};
  for (int64_t p = 0; p < kq; ++p) {
    for (int64_t r = 0; r < kMr; ++r) {
      const int8_t* av = a + r * 4;
      for (int64_t j = 0; j < kNr; ++j) {
        const uint8_t* bv = b + j * 4;
        acc[r][j] += av[0] * bv[0] + av[1] * bv[1] + av[2] * bv[2] + av[3] * bv[3];
      }
    }
    a += kMr * 4;
    b += kNr * 4;
  }
  for (int64_t r = 0; r < kMr; ++r) {
    for (int64_t j = 0; j < kNr; ++j) tile[r * kNr + j] = acc[r][j];
  }
}

void qrequant_row_generic(const int32_t* acc, int64_t n, int32_t offset, int32_t a_zp,
                          const int32_t* colsum, float scale, float bias, int32_t zp, int32_t lo,
                          int32_t hi, bool out_signed, void* out) {
  for (int64_t j = 0; j < n; ++j) {
    int32_t v = acc[j] + offset;
    if (colsum != nullptr) v -= a_zp * colsum[j];
    // Bounded before the conversion so that no float outside int32 is converted.
    const float f = std::fmin(std::fmax(static_cast<float>(v) * scale + bias, -1e9f), 1e9f);
    int32_t q = static_cast<int32_t>(std::nearbyint(f)) + zp;
    q = q < lo ? lo : (q > hi ? hi : q);
    if (out_signed) {
      static_cast<int8_t*>(out)[j] = static_cast<int8_t>(q);
    } else {
      static_cast<uint8_t*>(out)[j] = static_cast<uint8_t>(q);
    }
  }
}

}  // namespace ptec::kernels::optimized::detail
