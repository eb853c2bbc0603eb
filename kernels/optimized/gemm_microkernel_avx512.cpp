// AVX-512F microkernels, 8 x 32 (sixteen 16-wide accumulators), 7 x 32 for the offsets kernels
// and 6 x 64 (24) for wide weights. Built with -mavx512f (kernels/optimized/CMakeLists.txt); keep
// includes to <immintrin.h> so that no inline library function is compiled for AVX-512 here.

#include <immintrin.h>

#include "kernels/optimized/gemm_microkernel.h"
#include "kernels/optimized/vector_math_avx512.h"

namespace ptec::kernels::optimized::detail {

namespace {

// Where the microkernel reads column p of its A panel: a packed panel (mr floats per column) or
// the rows of a row-major A in place (row r is rows[r]).
struct PackedA {
  const float* a;
  const float* at(int64_t p, int64_t r) const { return a + p * kAvx512Mr + r; }
};
struct RowsA {
  const float* const* rows;
  const float* at(int64_t p, int64_t r) const { return rows[r] + p; }
};
// A read through per-row offsets: element (r, p) is cols[p][off[r]] (a convolution's output pixel
// r and tap p, in place in the input; the offsets are copied so that they stay in registers).
struct OffsetsA {
  const float* const* cols;
  int64_t off[kAvx512Mr];
  OffsetsA(const float* const* c, const int64_t* offsets) : cols(c) {
    for (int64_t r = 0; r < kAvx512Mr; ++r) off[r] = offsets[r];
  }
  const float* at(int64_t p, int64_t r) const { return cols[p] + off[r]; }
};

// Where the microkernel reads row p of its B panel: a packed panel (aligned, nr floats per row)
// or row pointers (an implicit im2col: row p is rows[p] + j, unaligned).
struct PackedB {
  const float* b;
  const float* row(int64_t p) const { return b + p * kAvx512Nr; }
  static __m512 load(const float* x) { return _mm512_load_ps(x); }
};
struct IndirectB {
  const float* const* rows;
  int64_t j;
  const float* row(int64_t p) const { return rows[p] + j; }
  static __m512 load(const float* x) { return _mm512_loadu_ps(x); }
};

// Row r of a tile (v[h]: columns 16 h to 16 h + 15, of which the bias and the residual are read
// only where mask[h] says) through the epilogue, in activate()'s order and NaN rules: max(v, 0)
// gives 0 for NaN (Relu), max(lo, v) and min(hi, v) pass it (Clamp).
template <int NV>
__attribute__((always_inline)) inline void finish(const TileEpilogue& e, int64_t r, __m512 (&v)[NV],
                                                  const __mmask16 (&mask)[NV]) {
  if (e.row_bias != nullptr) {
    const __m512 bias = _mm512_set1_ps(e.row_bias[r]);
    for (int h = 0; h < NV; ++h) v[h] = _mm512_add_ps(v[h], bias);
  }
  if (e.col_bias != nullptr) {
    for (int h = 0; h < NV; ++h) {
      v[h] = _mm512_add_ps(v[h], _mm512_maskz_loadu_ps(mask[h], e.col_bias + 16 * h));
    }
  }
  if (e.residual != nullptr) {
    const float* res = e.residual + r * e.ldr;
    for (int h = 0; h < NV; ++h) {
      v[h] = _mm512_add_ps(v[h], _mm512_maskz_loadu_ps(mask[h], res + 16 * h));
    }
  }
  const __m512 lo = _mm512_set1_ps(e.lo);
  const __m512 hi = _mm512_set1_ps(e.hi);
  for (int h = 0; h < NV; ++h) {
    v[h] = e.relu ? _mm512_max_ps(v[h], lo) : _mm512_min_ps(hi, _mm512_max_ps(lo, v[h]));
  }
}

// acc = A_panel * B_panel over kc steps, for the panel's first R rows; `prefetch` steps with them.
template <int64_t R, typename A, typename B, typename P = NoPrefetch>
__attribute__((always_inline)) inline void multiply(int64_t kc, A a, B b, __m512 (&acc)[R][2],
                                                    P prefetch = {}) {
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r) {
    acc[r][0] = _mm512_setzero_ps();
    acc[r][1] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    prefetch.step(p);
    const float* row = b.row(p);
    const __m512 b0 = B::load(row);
    const __m512 b1 = B::load(row + 16);
    for (int64_t r = 0; r < R; ++r) {  // unrolled by the compiler (constant trip count)
      const __m512 av = _mm512_set1_ps(*a.at(p, r));
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
  }
}

// The masks of a whole row of an 8 x 32 tile (those kernels store whole tiles).
constexpr __mmask16 kWhole[2] = {0xffff, 0xffff};

// The tile's first R rows (R < kAvx512Mr: a shorter panel, see the 7 x 32 kernels).
template <int64_t R = kAvx512Mr, typename A, typename B, typename P = NoPrefetch>
inline void kernel(int64_t kc, A a, B b, float* c, int64_t ldc, bool accumulate,
                   const TileEpilogue* epilogue, P prefetch = {}) {
  __m512 acc[R][2];
  multiply(kc, a, b, acc, prefetch);
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r) {
    float* row = c + r * ldc;
    if (accumulate) {
      acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_loadu_ps(row));
      acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_loadu_ps(row + 16));
    }
    if (epilogue != nullptr) finish(*epilogue, r, acc[r], kWhole);
    _mm512_storeu_ps(row, acc[r][0]);
    _mm512_storeu_ps(row + 16, acc[r][1]);
  }
}

// Columns [c0, c0 + 16) of the tile (rows v[r], r < 8) transposed: column c0 + j's 8 values
// (rows 0-7) into `store(j, half)`, j < 16, as the 256-bit halves of 8 vectors. Within each
// 128-bit lane, interleave row pairs and then pairs of pairs (a 4x4 transpose per lane: u[k]
// and u[4 + k], lane l, hold rows 0-3 and 4-7 of column 4 l + k); then each 256-bit half takes
// lane l of u[k] next to lane l of u[4 + k] (one two-source permute per two columns). Written
// as vector shuffles: the intrinsics for these instructions pass an undefined vector that
// -Wuninitialized reports under the sanitizers.
template <typename F>
__attribute__((always_inline)) inline void transpose_8x16(const __m512 (&v)[8], F store) {
  __m512 t[8], u[8];
#pragma GCC unroll 4
  for (int i = 0; i < 8; i += 2) {  // vunpcklps, vunpckhps
    t[i] = __builtin_shufflevector(v[i], v[i + 1], 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28,
                                   13, 29);
    t[i + 1] = __builtin_shufflevector(v[i], v[i + 1], 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27,
                                       14, 30, 15, 31);
  }
#pragma GCC unroll 2
  for (int g = 0; g < 8; g += 4) {  // vshufps 0x44 and 0xee
    u[g] = __builtin_shufflevector(t[g], t[g + 2], 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13,
                                   28, 29);
    u[g + 1] = __builtin_shufflevector(t[g], t[g + 2], 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27,
                                       14, 15, 30, 31);
    u[g + 2] = __builtin_shufflevector(t[g + 1], t[g + 3], 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25,
                                       12, 13, 28, 29);
    u[g + 3] = __builtin_shufflevector(t[g + 1], t[g + 3], 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26,
                                       27, 14, 15, 30, 31);
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    const __m512 x = __builtin_shufflevector(u[k], u[4 + k], 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7,
                                             20, 21, 22, 23);  // columns k, 4 + k
    const __m512 y = __builtin_shufflevector(u[k], u[4 + k], 8, 9, 10, 11, 24, 25, 26, 27, 12, 13,
                                             14, 15, 28, 29, 30, 31);  // columns 8 + k, 12 + k
    store(k, __builtin_shufflevector(x, x, 0, 1, 2, 3, 4, 5, 6, 7));
    store(4 + k, __builtin_shufflevector(x, x, 8, 9, 10, 11, 12, 13, 14, 15));
    store(8 + k, __builtin_shufflevector(y, y, 0, 1, 2, 3, 4, 5, 6, 7));
    store(12 + k, __builtin_shufflevector(y, y, 8, 9, 10, 11, 12, 13, 14, 15));
  }
}

// acc[r] += bias (columns along the lanes, masked past `cols`), then, when `clamp`, the clamp of
// TransposedStore's rules: on the 16 accumulators, before any transpose or store.
template <int64_t R>
__attribute__((always_inline)) inline void bias_and_clamp(__m512 (&acc)[R][2], const float* bias,
                                                          int64_t cols, bool clamp, bool relu,
                                                          float lo_value, float hi_value) {
  if (bias != nullptr) {
    const __mmask16 m0 = cols >= 16 ? 0xffff : static_cast<__mmask16>((1u << cols) - 1);
    const __mmask16 m1 =
        cols >= 32 ? 0xffff : static_cast<__mmask16>(cols > 16 ? (1u << (cols - 16)) - 1 : 0);
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, bias);
    const __m512 b1 = _mm512_maskz_loadu_ps(m1, bias + 16);
#pragma GCC unroll 8
    for (int64_t r = 0; r < R; ++r) {
      acc[r][0] = _mm512_add_ps(acc[r][0], b0);
      acc[r][1] = _mm512_add_ps(acc[r][1], b1);
    }
  }
  if (!clamp) return;
  const __m512 lo = _mm512_set1_ps(lo_value), hi = _mm512_set1_ps(hi_value);
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r) {
    for (int64_t h = 0; h < 2; ++h) {
      acc[r][h] =
          relu ? _mm512_max_ps(acc[r][h], lo) : _mm512_min_ps(hi, _mm512_max_ps(lo, acc[r][h]));
    }
  }
}

// SiLU on every accumulator (after the bias).
template <int64_t R>
__attribute__((always_inline)) inline void silu_all(__m512 (&acc)[R][2]) {
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r) {
    acc[r][0] = silu512(acc[r][0]);
    acc[r][1] = silu512(acc[r][1]);
  }
}

// Earlier k slices' sums (MR x NR floats, leading dimension NR, 64-byte aligned) into acc.
template <int64_t R>
__attribute__((always_inline)) inline void add_partial(__m512 (&acc)[R][2], const float* partial) {
  if (partial == nullptr) return;
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r) {
    acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_load_ps(partial + r * kAvx512Nr));
    acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_load_ps(partial + r * kAvx512Nr + 16));
  }
}

// The TileEnd's epilogue on the accumulators: earlier slices' sums, the bias, then the clamp
// (where `clamp`: not when a residual comes after it) or SiLU.
template <int64_t R>
__attribute__((always_inline)) inline void finish_tile(__m512 (&acc)[R][2], const TileEnd& t,
                                                       bool clamp) {
  add_partial(acc, t.partial);
  bias_and_clamp(acc, t.bias, t.cols, clamp && !t.silu, t.relu, t.lo, t.hi);
  if (t.silu) silu_all(acc);
}

// The offsets kernel for the first R rows of the panel, its tile stored in channel blocks
// (BlockedStore): each row's two 16-column halves are whole vectors of their blocks, so nothing is
// transposed.
template <int64_t R>
__attribute__((always_inline)) inline void offsets_blocked(int64_t kc, const float* const* a_cols,
                                                           const int64_t* a_offsets, const float* b,
                                                           const BlockedStore& t) {
  __m512 acc[R][2];
  multiply(kc, OffsetsA(a_cols, a_offsets), PackedB{b}, acc);
  finish_tile(acc, t, true);
  const bool second = t.cols > 16;
#pragma GCC unroll 8
  for (int64_t r = 0; r < R; ++r) {
    if (r >= t.rows) break;
    _mm512_storeu_ps(t.c + r * 16, acc[r][0]);
    if (second) _mm512_storeu_ps(t.c + t.block_stride + r * 16, acc[r][1]);
  }
}

// The offsets kernel for the first R rows of the panel, its tile stored transposed (rows past
// R are zeros in the transpose and never stored: t.rows <= R).
template <int64_t R>
__attribute__((always_inline)) inline void offsets_transposed(int64_t kc,
                                                              const float* const* a_cols,
                                                              const int64_t* a_offsets,
                                                              const float* b,
                                                              const TransposedStore& t) {
  __m512 acc[R][2];
  multiply(kc, OffsetsA(a_cols, a_offsets), PackedB{b}, acc);
  // The bias runs along the accumulators' lanes (columns), so it is added before the transpose,
  // 16 columns per instruction, and so is the clamp where no residual comes after it (and SiLU,
  // which has none): half the epilogue's vector operations of doing both per stored column.
  const bool clamped = t.residual == nullptr;
  finish_tile(acc, t, clamped);
  // Rows past t.rows are neither loaded (residual) nor stored: a lane mask.
  const bool whole = t.rows == kAvx512Mr;
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(t.rows)),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256 lo = _mm256_set1_ps(t.lo), hi = _mm256_set1_ps(t.hi);
  auto store = [&](int64_t j, __m256 v) {
    if (j >= t.cols) return;
    if (!clamped) {
      const float* res = t.residual + j * t.ldr;
      v = _mm256_add_ps(v, whole ? _mm256_loadu_ps(res) : _mm256_maskload_ps(res, mask));
      v = t.relu ? _mm256_max_ps(v, lo) : _mm256_min_ps(hi, _mm256_max_ps(lo, v));
    }
    float* out = t.c + j * t.ldc;
    if (whole) {
      _mm256_storeu_ps(out, v);
    } else {
      _mm256_maskstore_ps(out, mask, v);
    }
  };
  __m512 half[8];
#pragma GCC unroll 8
  for (int64_t r = 0; r < kAvx512Mr; ++r) half[r] = r < R ? acc[r][0] : _mm512_setzero_ps();
  transpose_8x16(half, [&](int64_t j, __m256 v) { store(j, v); });
#pragma GCC unroll 8
  for (int64_t r = 0; r < kAvx512Mr; ++r) half[r] = r < R ? acc[r][1] : _mm512_setzero_ps();
  transpose_8x16(half, [&](int64_t j, __m256 v) { store(16 + j, v); });
}

// The wide kernel's own prefetch: its panel's rows this many k steps ahead, every line of them.
// Each row is four lines that arrive from L2 (a wide panel is 64 KiB every 256 rows), and the L2
// streamer alone left the FMAs waiting (6 x 64 over 512^3: 79% of peak without, 82% with).
constexpr int64_t kWideAhead = 8;

// C's R x 64 tile (R <= kAvx512WideMr) of the wide kernel, columns past `cols` masked.
template <int64_t R, typename P>
__attribute__((always_inline)) inline void wide(int64_t kc, const float* a, int64_t lda,
                                                const float* b, float* c, int64_t ldc, int64_t cols,
                                                bool accumulate, const TileEpilogue* epilogue,
                                                P prefetch) {
  constexpr int64_t kVectors = kAvx512WideNr / 16;
  __m512 acc[R][kVectors];
  const float* rows[R];
#pragma GCC unroll 6
  for (int64_t r = 0; r < R; ++r) {
    rows[r] = a + r * lda;
#pragma GCC unroll 4
    for (int64_t h = 0; h < kVectors; ++h) acc[r][h] = _mm512_setzero_ps();
  }
  // Addresses past the panel's end are prefetched too (a prefetch never faults): an integer.
  const std::uintptr_t ahead = reinterpret_cast<std::uintptr_t>(b + kWideAhead * kAvx512WideNr);
  for (int64_t p = 0; p < kc; ++p) {
    prefetch.step(p);
    const float* row = b + p * kAvx512WideNr;
    __m512 bv[kVectors];
#pragma GCC unroll 4
    for (int64_t h = 0; h < kVectors; ++h) {
      __builtin_prefetch(
          reinterpret_cast<const void*>(ahead + sizeof(float) * (p * kAvx512WideNr + 16 * h)));
      bv[h] = _mm512_load_ps(row + 16 * h);
    }
#pragma GCC unroll 6
    for (int64_t r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(rows[r][p]);
#pragma GCC unroll 4
      for (int64_t h = 0; h < kVectors; ++h) acc[r][h] = _mm512_fmadd_ps(av, bv[h], acc[r][h]);
    }
  }
  __mmask16 mask[kVectors];
#pragma GCC unroll 4
  for (int64_t h = 0; h < kVectors; ++h) {
    const int64_t left = cols - 16 * h;
    mask[h] = left >= 16 ? 0xffff : left > 0 ? static_cast<__mmask16>((1u << left) - 1) : 0;
  }
#pragma GCC unroll 6
  for (int64_t r = 0; r < R; ++r) {
    float* out = c + r * ldc;
    if (accumulate) {
#pragma GCC unroll 4
      for (int64_t h = 0; h < kVectors; ++h) {
        acc[r][h] = _mm512_add_ps(acc[r][h], _mm512_maskz_loadu_ps(mask[h], out + 16 * h));
      }
    }
    if (epilogue != nullptr) finish(*epilogue, r, acc[r], mask);
#pragma GCC unroll 4
    for (int64_t h = 0; h < kVectors; ++h) _mm512_mask_storeu_ps(out + 16 * h, mask[h], acc[r][h]);
  }
}

}  // namespace

__attribute__((flatten)) void microkernel_avx512_8x32_offsets_a_transposed(
    int64_t kc, const float* const* a_cols, const int64_t* a_offsets, const float* b,
    const TransposedStore& t) {
  offsets_transposed<kAvx512Mr>(kc, a_cols, a_offsets, b, t);
}

__attribute__((flatten)) void microkernel_avx512_8x32_offsets_a_blocked(int64_t kc,
                                                                        const float* const* a_cols,
                                                                        const int64_t* a_offsets,
                                                                        const float* b,
                                                                        const BlockedStore& t) {
  offsets_blocked<kAvx512Mr>(kc, a_cols, a_offsets, b, t);
}

__attribute__((flatten)) void microkernel_avx512_8x32(int64_t kc, const float* a, const float* b,
                                                      float* c, int64_t ldc, bool accumulate,
                                                      const TileEpilogue* epilogue,
                                                      const void* prefetch) {
  with_prefetch(prefetch, [&](auto p) {
    kernel(kc, PackedA{a}, PackedB{b}, c, ldc, accumulate, epilogue, p);
  });
}

void microkernel_avx512_8x32_indirect(int64_t kc, const float* a, const float* const* b_rows,
                                      int64_t j, float* c, int64_t ldc, bool accumulate,
                                      const TileEpilogue* epilogue) {
  kernel(kc, PackedA{a}, IndirectB{b_rows, j}, c, ldc, accumulate, epilogue);
}

__attribute__((flatten)) void microkernel_avx512_8x32_rows_a(int64_t kc, const float* const* a_rows,
                                                             const float* b, float* c, int64_t ldc,
                                                             bool accumulate,
                                                             const TileEpilogue* epilogue,
                                                             const void* prefetch) {
  with_prefetch(prefetch, [&](auto p) {
    kernel(kc, RowsA{a_rows}, PackedB{b}, c, ldc, accumulate, epilogue, p);
  });
}

// (flatten: the offsets are copied into registers, not passed through memory)
__attribute__((flatten)) void microkernel_avx512_8x32_offsets_a(
    int64_t kc, const float* const* a_cols, const int64_t* a_offsets, const float* b, float* c,
    int64_t ldc, bool accumulate, const TileEpilogue* epilogue, const void* prefetch) {
  with_prefetch(prefetch, [&](auto p) {
    kernel(kc, OffsetsA(a_cols, a_offsets), PackedB{b}, c, ldc, accumulate, epilogue, p);
  });
}

// 7 x 32: the offsets kernels for panels of 7 pixels (7 x 7 and 14 x 14 outputs are 7 and 28 such
// panels, where 8-row panels compute 56 and 200 rows).
__attribute__((flatten)) void microkernel_avx512_7x32_offsets_a_transposed(
    int64_t kc, const float* const* a_cols, const int64_t* a_offsets, const float* b,
    const TransposedStore& t) {
  offsets_transposed<7>(kc, a_cols, a_offsets, b, t);
}

__attribute__((flatten)) void microkernel_avx512_7x32_offsets_a(
    int64_t kc, const float* const* a_cols, const int64_t* a_offsets, const float* b, float* c,
    int64_t ldc, bool accumulate, const TileEpilogue* epilogue, const void* prefetch) {
  with_prefetch(prefetch, [&](auto p) {
    kernel<7>(kc, OffsetsA(a_cols, a_offsets), PackedB{b}, c, ldc, accumulate, epilogue, p);
  });
}

__attribute__((flatten)) void microkernel_avx512_7x32_offsets_a_blocked(int64_t kc,
                                                                        const float* const* a_cols,
                                                                        const int64_t* a_offsets,
                                                                        const float* b,
                                                                        const BlockedStore& t) {
  offsets_blocked<7>(kc, a_cols, a_offsets, b, t);
}

// 6 x 64, fewer rows for a block's last ones.
__attribute__((flatten)) void microkernel_avx512_6x64_wide(
    int64_t kc, const float* a, int64_t lda, int64_t rows, const float* b, float* c, int64_t ldc,
    int64_t cols, bool accumulate, const TileEpilogue* epilogue, const void* prefetch) {
  static_assert(kAvx512WideMr == 6);
  with_prefetch(prefetch, [&](auto p) {
    switch (rows) {
      case 6: wide<6>(kc, a, lda, b, c, ldc, cols, accumulate, epilogue, p); break;
      case 5: wide<5>(kc, a, lda, b, c, ldc, cols, accumulate, epilogue, p); break;
      case 4: wide<4>(kc, a, lda, b, c, ldc, cols, accumulate, epilogue, p); break;
      case 3: wide<3>(kc, a, lda, b, c, ldc, cols, accumulate, epilogue, p); break;
      case 2: wide<2>(kc, a, lda, b, c, ldc, cols, accumulate, epilogue, p); break;
      default: wide<1>(kc, a, lda, b, c, ldc, cols, accumulate, epilogue, p); break;
    }
  });
}

}  // namespace ptec::kernels::optimized::detail
