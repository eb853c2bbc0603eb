// Portable microkernel, 4 x 8: plain C++ whose inner loops the compiler vectorizes for the
// baseline ISA. Used on CPUs without AVX2 + FMA, and by tests to check the packing paths.

#include "kernels/optimized/gemm_microkernel.h"

namespace ptec::kernels::optimized::detail {

void microkernel_generic_4x8(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             bool accumulate) {
  constexpr int64_t kMr = kGenericMr;
  constexpr int64_t kNr = kGenericNr;
  float acc[kMr][kNr] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int64_t r = 0; r < kMr; ++r) {
      const float av = a[r];
      for (int64_t j = 0; j < kNr; ++j) acc[r][j] += av * b[j];
    }
    a += kMr;
    b += kNr;
  }
  for (int64_t r = 0; r < kMr; ++r) {
    float* row = c + r * ldc;
    for (int64_t j = 0; j < kNr; ++j) row[j] = accumulate ? row[j] + acc[r][j] : acc[r][j];
  }
}

}  // namespace ptec::kernels::optimized::detail
