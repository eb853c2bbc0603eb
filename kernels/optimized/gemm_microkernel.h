#pragma once

// The GEMM microkernels: C[MR x NR] (=|+=) A_panel * B_panel over kc steps, where the A panel
// holds kc groups of MR values (one column of A per step) and the B panel kc groups of NR values
// (one row of B per step). Internal to kernels/optimized.

#include <cstdint>

namespace ptec::kernels::optimized::detail {

/// What a microkernel applies to its whole tile before storing it, in the GEMM's last k slice
/// (gemm.h's epilogue for bias, residual and the activations that are a clamp): per element,
/// v = c + row_bias[r] (or + col_bias[j]) + residual[r * ldr + j], then clamped to [lo, hi].
/// Null pointers are skipped. `relu`: v > 0 ? v : 0 (NaN gives 0, as activate()); otherwise
/// min(max(v, lo), hi) with NaN passing through (Clamp; lo = -inf, hi = +inf for none).
struct TileEpilogue {
  const float* row_bias = nullptr;  // mr values
  const float* col_bias = nullptr;  // nr values
  const float* residual = nullptr;  // the tile's first element
  int64_t ldr = 0;
  bool relu = false;
  float lo = 0.0f;
  float hi = 0.0f;
};

/// Prefetches as a microkernel multiplies: step p of kc prefetches the cache line at byte 32 p from
/// `next` when p is even, kc / 2 lines in all, under the FMAs. gemm() points it at a share of the
/// next B slice, so that weights arriving from memory stream in while this slice is multiplied (a
/// burst of prefetches before the call instead waited on the L1's few line-fill buffers). The
/// lines may run past the end of the data (a prefetch never faults); the address is therefore an
/// integer. One register: the rows-of-A kernel has none left for more.
struct StreamPrefetch {
  std::uintptr_t next;
  void step(int64_t p) const {
    if ((p & 1) == 0) __builtin_prefetch(reinterpret_cast<const void*>(next + 32 * p));
  }
};
/// No prefetches.
struct NoPrefetch {
  void step(int64_t) const {}
};
/// run(StreamPrefetch) where `prefetch` is given, else run(NoPrefetch): a kernel without a target
/// carries no prefetch step at all.
template <typename F>
__attribute__((always_inline)) inline void with_prefetch(const void* prefetch, F run) {
  if (prefetch != nullptr) {
    run(StreamPrefetch{reinterpret_cast<std::uintptr_t>(prefetch)});
  } else {
    run(NoPrefetch{});
  }
}

/// `accumulate`: add the product to C instead of overwriting it. `epilogue` (may be null): applied
/// to the tile (after the accumulation) before it is stored. `prefetch` (may be null): see
/// StreamPrefetch.
using MicroKernel = void (*)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             bool accumulate, const TileEpilogue* epilogue, const void* prefetch);
/// The same with B given by rows: step p reads b_rows[p][j, j + NR) (unaligned), an implicit
/// im2col for direct convolutions (gemm_indirect).
using IndirectMicroKernel = void (*)(int64_t kc, const float* a, const float* const* b_rows,
                                     int64_t j, float* c, int64_t ldc, bool accumulate,
                                     const TileEpilogue* epilogue);
/// The same with A read in place: step p reads a_rows[r][p] for the MR rows r (a row-major A,
/// e.g. a linear layer's activations, never packed).
using RowsAMicroKernel = void (*)(int64_t kc, const float* const* a_rows, const float* b, float* c,
                                  int64_t ldc, bool accumulate, const TileEpilogue* epilogue,
                                  const void* prefetch);
/// The same with A read through per-row offsets: step p reads a_cols[p][a_offsets[r]] for the MR
/// rows r (a convolution's output pixels as rows, each tap a column: conv2d_pixels.h).
using OffsetsAMicroKernel = void (*)(int64_t kc, const float* const* a_cols,
                                     const int64_t* a_offsets, const float* b, float* c,
                                     int64_t ldc, bool accumulate, const TileEpilogue* epilogue,
                                     const void* prefetch);

// Portable C++: 4 x 8 (vectorized by the compiler for the baseline ISA).
inline constexpr int64_t kGenericMr = 4;
inline constexpr int64_t kGenericNr = 8;
void microkernel_generic_4x8(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             bool accumulate, const TileEpilogue* epilogue, const void* prefetch);
void microkernel_generic_4x8_indirect(int64_t kc, const float* a, const float* const* b_rows,
                                      int64_t j, float* c, int64_t ldc, bool accumulate,
                                      const TileEpilogue* epilogue);
void microkernel_generic_4x8_rows_a(int64_t kc, const float* const* a_rows, const float* b,
                                    float* c, int64_t ldc, bool accumulate,
                                    const TileEpilogue* epilogue, const void* prefetch);
void microkernel_generic_4x8_offsets_a(int64_t kc, const float* const* a_cols,
                                       const int64_t* a_offsets, const float* b, float* c,
                                       int64_t ldc, bool accumulate, const TileEpilogue* epilogue,
                                       const void* prefetch);

// AVX2 + FMA: 6 x 16 (twelve 8-wide accumulators). Only called when the CPU has AVX2 and FMA;
// its translation unit is the only one built with -mavx2 -mfma and includes no inline library
// code, so nothing compiled for AVX2 can be picked up by other code at link time.
inline constexpr int64_t kAvx2Mr = 6;
inline constexpr int64_t kAvx2Nr = 16;
void microkernel_avx2_6x16(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                           bool accumulate, const TileEpilogue* epilogue, const void* prefetch);
void microkernel_avx2_6x16_indirect(int64_t kc, const float* a, const float* const* b_rows,
                                    int64_t j, float* c, int64_t ldc, bool accumulate,
                                    const TileEpilogue* epilogue);
void microkernel_avx2_6x16_rows_a(int64_t kc, const float* const* a_rows, const float* b, float* c,
                                  int64_t ldc, bool accumulate, const TileEpilogue* epilogue,
                                  const void* prefetch);
void microkernel_avx2_6x16_offsets_a(int64_t kc, const float* const* a_cols,
                                     const int64_t* a_offsets, const float* b, float* c,
                                     int64_t ldc, bool accumulate, const TileEpilogue* epilogue,
                                     const void* prefetch);
/// The offsets kernel for the panel's first 5 rows (C gets 5 rows; a_offsets holds 6): panels of 5
/// pixels, where that computes 5% fewer rows than panels of 6 (7 x 7 outputs: 50 rows, not 54).
inline constexpr int64_t kAvx2ShortMr = 5;
void microkernel_avx2_5x16_offsets_a(int64_t kc, const float* const* a_cols,
                                     const int64_t* a_offsets, const float* b, float* c,
                                     int64_t ldc, bool accumulate, const TileEpilogue* epilogue,
                                     const void* prefetch);

/// What the storing offsets kernels (TransposedStore, BlockedStore) apply to a tile of rows < rows
/// and columns j < cols before storing it: act(sum + partial + bias[j]) with the clamp of
/// TileEpilogue (relu, lo, hi), or SiLU instead where `silu` (the AVX-512 kernels only).
/// `partial` (may be null): earlier k slices' sums, MR x NR floats, leading dimension NR, 64-byte
/// aligned.
struct TileEnd {
  int64_t rows = 0;
  int64_t cols = 0;
  const float* partial = nullptr;
  const float* bias = nullptr;
  bool relu = false;
  float lo = 0.0f;
  float hi = 0.0f;
  bool silu = false;
};

/// Where a transposing microkernel stores its tile: element (r, j) at c[j * ldc + r], with the
/// TileEnd's epilogue and residual[j * ldr + r] added before the clamp (no SiLU with a residual).
/// A convolution's output pixels as rows, stored into its NCHW output (conv2d_pixels).
struct TransposedStore : TileEnd {
  float* c = nullptr;
  int64_t ldc = 0;
  const float* residual = nullptr;
  int64_t ldr = 0;
};

/// Where an offsets kernel stores its tile in channel blocks (conv2d.h's blocked layout, 16
/// channels per block): row r, columns 0-15 at c + r * 16, columns 16-31 (when cols > 16) at
/// c + block_stride + r * 16, with the TileEnd's epilogue.
struct BlockedStore : TileEnd {
  float* c = nullptr;
  int64_t block_stride = 0;
};

// AVX-512F: 8 x 32 (sixteen 16-wide accumulators), same rules as the AVX2 kernel.
inline constexpr int64_t kAvx512Mr = 8;
inline constexpr int64_t kAvx512Nr = 32;
void microkernel_avx512_8x32(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             bool accumulate, const TileEpilogue* epilogue, const void* prefetch);
void microkernel_avx512_8x32_indirect(int64_t kc, const float* a, const float* const* b_rows,
                                      int64_t j, float* c, int64_t ldc, bool accumulate,
                                      const TileEpilogue* epilogue);
void microkernel_avx512_8x32_rows_a(int64_t kc, const float* const* a_rows, const float* b,
                                    float* c, int64_t ldc, bool accumulate,
                                    const TileEpilogue* epilogue, const void* prefetch);
/// The offsets kernel storing its tile transposed, with the epilogue (TransposedStore).
void microkernel_avx512_8x32_offsets_a_transposed(int64_t kc, const float* const* a_cols,
                                                  const int64_t* a_offsets, const float* b,
                                                  const TransposedStore& t);
void microkernel_avx512_8x32_offsets_a(int64_t kc, const float* const* a_cols,
                                       const int64_t* a_offsets, const float* b, float* c,
                                       int64_t ldc, bool accumulate, const TileEpilogue* epilogue,
                                       const void* prefetch);
/// The offsets kernel storing its tile in channel blocks, with bias and clamp (BlockedStore).
void microkernel_avx512_8x32_offsets_a_blocked(int64_t kc, const float* const* a_cols,
                                               const int64_t* a_offsets, const float* b,
                                               const BlockedStore& t);
/// The wide kernel: C[rows x cols] (=|+=) A * B over kc steps for rows <= MR and cols <= NR, A read
/// in place (row r at a + r * lda, element p at a[r * lda + p]), B a wide panel: kc rows of NR
/// floats, 64-byte aligned. C, the epilogue's bias and its residual are read and written only
/// within rows x cols (masked), so edge tiles need no copy. Besides `prefetch` (StreamPrefetch),
/// the kernel prefetches its own panel a few rows ahead: wide panels are too big for L1 and stream
/// from L2 (only AVX-512 has one: gemm.h's pack_weights).
using WideMicroKernel = void (*)(int64_t kc, const float* a, int64_t lda, int64_t rows,
                                 const float* b, float* c, int64_t ldc, int64_t cols,
                                 bool accumulate, const TileEpilogue* epilogue,
                                 const void* prefetch);
inline constexpr int64_t kAvx512WideMr = 6;
inline constexpr int64_t kAvx512WideNr = 64;
void microkernel_avx512_6x64_wide(int64_t kc, const float* a, int64_t lda, int64_t rows,
                                  const float* b, float* c, int64_t ldc, int64_t cols,
                                  bool accumulate, const TileEpilogue* epilogue,
                                  const void* prefetch);

/// The two offsets kernels for the panel's first 7 rows (C gets 7 rows; a_offsets holds 8): panels
/// of 7 pixels, where the pixel count is a multiple of 7 and not of 8 (7 x 7 and 14 x 14 outputs).
inline constexpr int64_t kAvx512ShortMr = 7;
void microkernel_avx512_7x32_offsets_a_transposed(int64_t kc, const float* const* a_cols,
                                                  const int64_t* a_offsets, const float* b,
                                                  const TransposedStore& t);
void microkernel_avx512_7x32_offsets_a(int64_t kc, const float* const* a_cols,
                                       const int64_t* a_offsets, const float* b, float* c,
                                       int64_t ldc, bool accumulate, const TileEpilogue* epilogue,
                                       const void* prefetch);
void microkernel_avx512_7x32_offsets_a_blocked(int64_t kc, const float* const* a_cols,
                                               const int64_t* a_offsets, const float* b,
                                               const BlockedStore& t);

}  // namespace ptec::kernels::optimized::detail
