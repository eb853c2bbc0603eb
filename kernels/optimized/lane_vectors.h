#pragma once

// Vectors of L floats (L = 4, 8 or 16) for code that runs one instantiation per instruction set,
// each in a function compiled for it (target attribute) whose registers are L floats wide, so
// that every operation below is native: transposes of L x L floats and clamps (VecClamp, also
// used inside target_clones functions, on vectors that the narrower ISAs' clones split: clamps,
// unlike shuffles, split lane by register). Internal to kernels/optimized (the channel-interleaved
// depthwise convolution, the pixel-major one's transposed stores, the flat and row depthwise
// stencils, max pooling, gemm_indirect's column-mapped stores).

#include <cstdint>

#include "kernels/optimized/activation.h"

namespace ptec::kernels::optimized {

// L floats as one GCC vector, L = 16 (one AVX-512 register), 8 (one AVX register) or 4 (SSE):
// each instantiation runs only in a function compiled for an ISA whose registers are that wide,
// so that every operation (and every shuffle below) is native. Passed by reference only.
template <int L>
struct Lanes;
template <>
struct Lanes<4> {
  using Vec = float __attribute__((vector_size(16)));
  using Index = int __attribute__((vector_size(16)));
};
template <>
struct Lanes<8> {
  using Vec = float __attribute__((vector_size(32)));
  using Index = int __attribute__((vector_size(32)));
};
template <>
struct Lanes<16> {
  using Vec = float __attribute__((vector_size(64)));
  using Index = int __attribute__((vector_size(64)));
};

// v[i][j] <-> v[j][i] for L x L floats, built from two-source shuffles that are one instruction
// each: within each 128-bit lane, interleave row pairs, then pairs of pairs (a 4x4 transpose per
// lane); then, for L > 4, the grid of lanes (L / 4 x L / 4 lanes of 4 x 4 blocks).
template <int L>
__attribute__((always_inline)) inline void transpose(typename Lanes<L>::Vec* v) {
  using Vec = typename Lanes<L>::Vec;
  using Index = typename Lanes<L>::Index;
  Index unpack_lo, unpack_hi, pairs_lo, pairs_hi;
  if constexpr (L == 4) {
    unpack_lo = Index{0, 4, 1, 5};
    unpack_hi = Index{2, 6, 3, 7};
    pairs_lo = Index{0, 1, 4, 5};
    pairs_hi = Index{2, 3, 6, 7};
  } else if constexpr (L == 8) {
    unpack_lo = Index{0, 8, 1, 9, 4, 12, 5, 13};
    unpack_hi = Index{2, 10, 3, 11, 6, 14, 7, 15};
    pairs_lo = Index{0, 1, 8, 9, 4, 5, 12, 13};
    pairs_hi = Index{2, 3, 10, 11, 6, 7, 14, 15};
  } else {
    unpack_lo = Index{0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29};
    unpack_hi = Index{2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31};
    pairs_lo = Index{0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29};
    pairs_hi = Index{2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31};
  }
  Vec t[L];
  for (int i = 0; i < L; i += 2) {  // rows i and i + 1 interleaved
    t[i] = __builtin_shuffle(v[i], v[i + 1], unpack_lo);
    t[i + 1] = __builtin_shuffle(v[i], v[i + 1], unpack_hi);
  }
  // u[4 g + k], lane l: column 4 l + k of rows 4 g .. 4 g + 3.
  Vec u[L];
  for (int i = 0; i < L; i += 4) {
    u[i] = __builtin_shuffle(t[i], t[i + 2], pairs_lo);
    u[i + 1] = __builtin_shuffle(t[i], t[i + 2], pairs_hi);
    u[i + 2] = __builtin_shuffle(t[i + 1], t[i + 3], pairs_lo);
    u[i + 3] = __builtin_shuffle(t[i + 1], t[i + 3], pairs_hi);
  }
  // Column 4 l + k: lane l of u[k], u[4 + k], ... (one 4x4 block per row group).
  if constexpr (L == 4) {
    for (int k = 0; k < 4; ++k) v[k] = u[k];
  } else if constexpr (L == 8) {
    constexpr Index kLane0 = {0, 1, 2, 3, 8, 9, 10, 11};
    constexpr Index kLane1 = {4, 5, 6, 7, 12, 13, 14, 15};
    for (int k = 0; k < 4; ++k) {
      v[k] = __builtin_shuffle(u[k], u[4 + k], kLane0);
      v[4 + k] = __builtin_shuffle(u[k], u[4 + k], kLane1);
    }
  } else {
    constexpr Index kLanes01 = {0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23};
    constexpr Index kLanes23 = {8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31};
    constexpr Index kEven = {0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27};
    constexpr Index kOdd = {4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31};
    for (int k = 0; k < 4; ++k) {
      const Vec x0 = __builtin_shuffle(u[k], u[4 + k], kLanes01);
      const Vec x1 = __builtin_shuffle(u[k], u[4 + k], kLanes23);
      const Vec y0 = __builtin_shuffle(u[8 + k], u[12 + k], kLanes01);
      const Vec y1 = __builtin_shuffle(u[8 + k], u[12 + k], kLanes23);
      v[k] = __builtin_shuffle(x0, y0, kEven);
      v[4 + k] = __builtin_shuffle(x0, y0, kOdd);
      v[8 + k] = __builtin_shuffle(x1, y1, kEven);
      v[12 + k] = __builtin_shuffle(x1, y1, kOdd);
    }
  }
}

// A ClampBounds as vectors, built once before a loop (the bounds are floats that the loop's float
// stores could alias, so reading them per vector would reload and broadcast them each time):
// apply(v) clamps v in ClampBounds' NaN rules (Relu gives 0 for NaN, Clamp passes it).
template <typename Vec>
struct VecClamp {
  __attribute__((always_inline)) explicit VecClamp(const ClampBounds& b)
      : relu(b.relu), lo(Vec{} + b.lo), hi(Vec{} + b.hi) {}
  __attribute__((always_inline)) void apply(Vec& v) const {
    if (relu) {
      const Vec zero = {};
      v = v > zero ? v : zero;
      return;
    }
    v = v < lo ? lo : v;  // max(v, lo): NaN passes
    v = hi < v ? hi : v;  // min(v, hi)
  }
  bool relu;
  Vec lo, hi;
};

}  // namespace ptec::kernels::optimized
