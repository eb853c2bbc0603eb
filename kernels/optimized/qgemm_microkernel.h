#pragma once

// The int8 GEMM microkernels: tile[MR x NR] (int32, row-major, leading dimension NR) = A panel *
// B panel over kq quads of k. The A panel holds kq groups of MR x 4 int8 (four consecutive k of
// each row), the B panel kq groups of NR x 4 uint8. Internal to kernels/optimized.

#include <cstdint>

namespace ptec::kernels::optimized::detail {

using QMicroKernel = void (*)(int64_t kq, const int8_t* a, const uint8_t* b, int32_t* tile);
using QRequantRow = void (*)(const int32_t* acc, int64_t n, int32_t offset, int32_t a_zp,
                             const int32_t* colsum, float scale, float bias, int32_t zp, int32_t lo,
                             int32_t hi, bool out_signed, void* out);

inline constexpr int64_t kQGenericMr = 4;
inline constexpr int64_t kQGenericNr = 8;
void qmicrokernel_generic_4x8(int64_t kq, const int8_t* a, const uint8_t* b, int32_t* tile);
void qrequant_row_generic(const int32_t* acc, int64_t n, int32_t offset, int32_t a_zp,
                          const int32_t* colsum, float scale, float bias, int32_t zp, int32_t lo,
                          int32_t hi, bool out_signed, void* out);

// AVX2 (vpmaddubsw / vpmaddwd with B split into 7 low bits and the top bit), 4 x 16.
inline constexpr int64_t kQAvx2Mr = 4;
inline constexpr int64_t kQAvx2Nr = 16;
void qmicrokernel_avx2_4x16(int64_t kq, const int8_t* a, const uint8_t* b, int32_t* tile);

// AVX-512 VNNI (vpdpbusd), 8 x 32; its requantization is vectorized too (AVX-512 BW/VL).
inline constexpr int64_t kQAvx512Mr = 8;
inline constexpr int64_t kQAvx512Nr = 32;
void qmicrokernel_avx512vnni_8x32(int64_t kq, const int8_t* a, const uint8_t* b, int32_t* tile);
void qrequant_row_avx512(const int32_t* acc, int64_t n, int32_t offset, int32_t a_zp,
                         const int32_t* colsum, float scale, float bias, int32_t zp, int32_t lo,
                         int32_t hi, bool out_signed, void* out);

}  // namespace ptec::kernels::optimized::detail
