// Portable microkernel, 4 x 8: plain C++ whose inner loops the compiler vectorizes for the
// baseline ISA. Used on CPUs without AVX2 + FMA, and by tests to check the packing paths.

#include "kernels/optimized/gemm_microkernel.h"

#include <algorithm>

namespace ptec::kernels::optimized::detail {

namespace {

// Column p of the A panel: packed (mr floats per column) or the rows of a row-major A in place.
struct PackedA {
  const float* a;
  float at(int64_t p, int64_t r) const { return a[p * kGenericMr + r]; }
};
struct RowsA {
  const float* const* rows;
  float at(int64_t p, int64_t r) const { return rows[r][p]; }
};
// A read through per-row offsets: element (r, p) is cols[p][off[r]] (a convolution's output pixel
// r and tap p, in place in the input; the offsets are copied so that they stay in registers).
struct OffsetsA {
  const float* const* cols;
  int64_t off[kGenericMr];
  OffsetsA(const float* const* c, const int64_t* offsets) : cols(c) {
    for (int64_t r = 0; r < kGenericMr; ++r) off[r] = offsets[r];
  }
  float at(int64_t p, int64_t r) const { return cols[p][off[r]]; }
};

// Row p of the B panel: packed (nr floats per row) or through row pointers (rows[p] + j).
struct PackedB {
  const float* b;
  const float* row(int64_t p) const { return b + p * kGenericNr; }
};
struct IndirectB {
  const float* const* rows;
  int64_t j;
  const float* row(int64_t p) const { return rows[p] + j; }
};

template <typename A, typename B, typename P = NoPrefetch>
inline void kernel(int64_t kc, A a, B b, float* c, int64_t ldc, bool accumulate,
                   const TileEpilogue* epilogue, P prefetch = {}) {
  constexpr int64_t kMr = kGenericMr;
  constexpr int64_t kNr = kGenericNr;
  float acc[kMr][kNr] = {};
  for (int64_t p = 0; p < kc; ++p) {
    prefetch.step(p);
    const float* row = b.row(p);
    for (int64_t r = 0; r < kMr; ++r) {
      const float av = a.at(p, r);
      for (int64_t j = 0; j < kNr; ++j) acc[r][j] += av * row[j];
    }
  }
  for (int64_t r = 0; r < kMr; ++r) {
    float* out = c + r * ldc;
    for (int64_t j = 0; j < kNr; ++j) {
      float v = accumulate ? out[j] + acc[r][j] : acc[r][j];
      if (epilogue != nullptr) {
        if (epilogue->row_bias != nullptr) v += epilogue->row_bias[r];
        if (epilogue->col_bias != nullptr) v += epilogue->col_bias[j];
        if (epilogue->residual != nullptr) v += epilogue->residual[r * epilogue->ldr + j];
        v = epilogue->relu ? (v > 0.0f ? v : 0.0f)
                           : std::min(std::max(v, epilogue->lo), epilogue->hi);
      }
      out[j] = v;
    }
  }
}

}  // namespace

void microkernel_generic_4x8(int64_t kc, const float* a, const float* b, float* c, int64_t ldc,
                             bool accumulate, const TileEpilogue* epilogue, const void* prefetch) {
  with_prefetch(prefetch, [&](auto p) {
    kernel(kc, PackedA{a}, PackedB{b}, c, ldc, accumulate, epilogue, p);
  });
}

void microkernel_generic_4x8_indirect(int64_t kc, const float* a, const float* const* b_rows,
                                      int64_t j, float* c, int64_t ldc, bool accumulate,
                                      const TileEpilogue* epilogue) {
  kernel(kc, PackedA{a}, IndirectB{b_rows, j}, c, ldc, accumulate, epilogue);
}

void microkernel_generic_4x8_rows_a(int64_t kc, const float* const* a_rows, const float* b,
                                    float* c, int64_t ldc, bool accumulate,
                                    const TileEpilogue* epilogue, const void* prefetch) {
  with_prefetch(prefetch, [&](auto p) {
    kernel(kc, RowsA{a_rows}, PackedB{b}, c, ldc, accumulate, epilogue, p);
  });
}

// (flatten: the offsets are copied into registers, not passed through memory)
__attribute__((flatten)) void microkernel_generic_4x8_offsets_a(
    int64_t kc, const float* const* a_cols, const int64_t* a_offsets, const float* b, float* c,
    int64_t ldc, bool accumulate, const TileEpilogue* epilogue, const void* prefetch) {
  with_prefetch(prefetch, [&](auto p) {
    kernel(kc, OffsetsA(a_cols, a_offsets), PackedB{b}, c, ldc, accumulate, epilogue, p);
  });
}

}  // namespace ptec::kernels::optimized::detail
