#include "kernels/optimized/conv2d_winograd.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "kernels/optimized/activation.h"
#include "kernels/optimized/lane_vectors.h"
#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

constexpr size_t kAlign = 64;
// Transformed inputs plus products of one pass, F(4x4) and F(2x2) (see winograd_default_chunk).
constexpr int64_t kPassBytes4x4 = int64_t{1} << 20;
constexpr int64_t kPassBytes2x2 = int64_t{2} << 20;
// Floats left between consecutive positions' matrices (transformed inputs and products): at
// sizes that are multiples of 4 KiB (C x 64 tiles) every position's row falls in the same L1 set,
// and the transforms, which read or write all 16 or 36 positions of a tile, missed L1 on most of
// them. One cache line of skew spreads them over the sets.
constexpr int64_t kPositionSkew = 16;
// F(2x2)'s transformed weights above this many bytes make it slower than a direct convolution
// in a model, where each layer's weights arrive from memory (see winograd_preferred).
constexpr size_t kMaxF2x2WeightBytes = size_t{6} << 20;

size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }
int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// A variant's sizes: t x t output tiles from patch x patch input patches, one GEMM per position
// of the patch x patch transforms.
struct Sizes {
  int64_t t, patch, positions;
};
Sizes sizes_of(WinogradVariant v) {
  return v == WinogradVariant::F4x4 ? Sizes{4, 6, 36} : Sizes{2, 4, 16};
}
constexpr int64_t kMaxPositions = 36;

struct Tiles {
  int64_t rows, cols;  // output tiles per image
  int64_t count() const { return rows * cols; }
};
Tiles tiles_of(const Conv2dShape& s, const Sizes& z) {
  return Tiles{(s.oh() + z.t - 1) / z.t, (s.ow() + z.t - 1) / z.t};
}

// Tiles per pass are a multiple of both nr (whole B panels) and the transforms' block.
int64_t chunk_unit() { return std::max<int64_t>(gemm_tile(active_gemm_isa()).nr, 16); }

int64_t resolve_chunk(const Conv2dShape& s, WinogradVariant v, int64_t chunk, int64_t workers) {
  const int64_t unit = chunk_unit();
  if (chunk == 0) return winograd_default_chunk(s, v, workers);
  return std::min(round_up(chunk, unit), round_up(tiles_of(s, sizes_of(v)).count(), unit));
}

// Floats of one worker's pass: its transformed inputs (positions x (C x chunk + skew)), then its
// products (positions x (OC x chunk + skew)), each 64-byte aligned.
size_t inputs_floats(const Conv2dShape& s, const Sizes& z, int64_t chunk) {
  return align_up(static_cast<size_t>(z.positions * (s.c * chunk + kPositionSkew)) *
                  sizeof(float)) /
         sizeof(float);
}
size_t products_floats(const Conv2dShape& s, const Sizes& z, int64_t chunk) {
  return align_up(static_cast<size_t>(z.positions * (s.oc * chunk + kPositionSkew)) *
                  sizeof(float)) /
         sizeof(float);
}

// Tiles are transformed kBlock at a time, lane j of each array being tile t0 + j, so that the
// arithmetic vectorizes across tiles and the packed-B stores are contiguous. Position
// patch * r + q of an array is row r, column q of the patch (or of its transform).
constexpr int64_t kBlock = 16;
using TileLanes = float[kMaxPositions][kBlock];

// The planes patches are read from: the image itself where every patch lies inside it (no
// padding, and tiles that end at its edges), else a zero-padded copy (fill_patch_plane) of
// (T tiles.rows + 2) x (T tiles.cols + 2) floats, input pixel (y, x) at (y + ph, x + pw), so that
// every patch is read without bounds checks.
struct PatchPlanes {
  int64_t rows, pitch;
  bool copied;
  int64_t floats() const { return rows * pitch; }
};
PatchPlanes patch_planes(const Conv2dShape& s, const Sizes& z, const Tiles& tiles) {
  const int64_t rows = z.t * tiles.rows + 2, pitch = z.t * tiles.cols + 2;
  if (s.ph == 0 && s.pw == 0 && rows == s.h && pitch == s.w) return {s.h, s.w, false};
  return {rows, pitch, true};
}

// One input plane (h x w) into its zero-padded patch plane.
void fill_patch_plane(const Conv2dShape& s, const PatchPlanes& p, const float* src, float* dst) {
  std::fill(dst, dst + s.ph * p.pitch, 0.0f);
  for (int64_t y = 0; y < s.h; ++y) {
    float* row = dst + (s.ph + y) * p.pitch;
    std::fill(row, row + s.pw, 0.0f);
    std::memcpy(row + s.pw, src + y * s.w, static_cast<size_t>(s.w) * sizeof(float));
    std::fill(row + s.pw + s.w, row + p.pitch, 0.0f);
  }
  std::fill(dst + (s.ph + s.h) * p.pitch, dst + p.floats(), 0.0f);
}

// d[patch * r + q][j] = row r, column q of tile t0 + j's patch in `plane` (a patch plane of row
// pitch `pitch`); lanes of tiles past `last` repeat tile `last` (their products are never
// stored). Per patch row and 4 tiles, 4-float rows are loaded and transposed into lanes (columns
// 0-3; for T = 4 also 2-5, of which 4 and 5 are kept).
template <int64_t T>
void gather_patches(const Tiles& tiles, const float* plane, int64_t pitch, int64_t t0, int64_t last,
                    TileLanes& d) {
  using Vec = Lanes<4>::Vec;
  constexpr int64_t kPatch = T + 2;
  const float* at[kBlock];
  for (int64_t j = 0; j < kBlock; ++j) {
    const int64_t t = std::min(t0 + j, last);
    at[j] = plane + T * (t / tiles.cols) * pitch + T * (t % tiles.cols);
  }
  for (int64_t r = 0; r < kPatch; ++r) {
    for (int64_t j = 0; j < kBlock; j += 4) {
      Vec v[4];
      for (int64_t i = 0; i < 4; ++i) std::memcpy(&v[i], at[j + i] + r * pitch, sizeof(Vec));
      transpose<4>(v);  // v[q]: column q of the 4 tiles
      for (int64_t q = 0; q < 4; ++q) std::memcpy(&d[kPatch * r + q][j], &v[q], sizeof(Vec));
      if constexpr (T == 4) {
        for (int64_t i = 0; i < 4; ++i) std::memcpy(&v[i], at[j + i] + r * pitch + 2, sizeof(Vec));
        transpose<4>(v);  // v[q]: column 2 + q
        std::memcpy(&d[kPatch * r + 4][j], &v[2], sizeof(Vec));
        std::memcpy(&d[kPatch * r + 5][j], &v[3], sizeof(Vec));
      }
    }
  }
}

// F(2x2, 3x3): v = B^T d B, lane by lane, with
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1].
__attribute__((target_clones("avx2", "default"))) void input_transform_2(const TileLanes& d,
                                                                         TileLanes& v) {
  TileLanes e;  // B^T d
  for (int64_t q = 0; q < 4; ++q) {
    for (int64_t j = 0; j < kBlock; ++j) {
      e[q][j] = d[q][j] - d[8 + q][j];
      e[4 + q][j] = d[4 + q][j] + d[8 + q][j];
      e[8 + q][j] = d[8 + q][j] - d[4 + q][j];
      e[12 + q][j] = d[4 + q][j] - d[12 + q][j];
    }
  }
  for (int64_t r = 0; r < 4; ++r) {  // (B^T d) B
    for (int64_t j = 0; j < kBlock; ++j) {
      v[4 * r][j] = e[4 * r][j] - e[4 * r + 2][j];
      v[4 * r + 1][j] = e[4 * r + 1][j] + e[4 * r + 2][j];
      v[4 * r + 2][j] = e[4 * r + 2][j] - e[4 * r + 1][j];
      v[4 * r + 3][j] = e[4 * r + 1][j] - e[4 * r + 3][j];
    }
  }
}

// F(4x4, 3x3): v = B^T d B, lane by lane, with (Lavin & Gray, interpolation points 0, +-1, +-2)
//   B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0;
//          0 4 0 -5 0 1].
// x0..x5 at stride `step` from `in` -> out0..out5 at the same stride.
inline void bt6(const float* in, float* out, int64_t step) {
  const float x0 = in[0], x1 = in[step], x2 = in[2 * step], x3 = in[3 * step], x4 = in[4 * step],
              x5 = in[5 * step];
  out[0] = 4.0f * x0 - 5.0f * x2 + x4;
  out[step] = (x3 + x4) - 4.0f * (x1 + x2);
  out[2 * step] = (x4 - x3) + 4.0f * (x1 - x2);
  out[3 * step] = (x4 - x2) + 2.0f * (x3 - x1);
  out[4 * step] = (x4 - x2) - 2.0f * (x3 - x1);
  out[5 * step] = 4.0f * x1 - 5.0f * x3 + x5;
}

__attribute__((target_clones("avx2", "default"))) void input_transform_4(const TileLanes& d,
                                                                         TileLanes& v) {
  TileLanes e;  // B^T d: each column q of the patch
  for (int64_t q = 0; q < 6; ++q) {
    for (int64_t j = 0; j < kBlock; ++j) bt6(&d[q][j], &e[q][j], 6 * kBlock);
  }
  for (int64_t r = 0; r < 6; ++r) {  // (B^T d) B: each row r
    for (int64_t j = 0; j < kBlock; ++j) bt6(&e[6 * r][j], &v[6 * r][j], kBlock);
  }
}

// The transformed inputs of tiles [t0, t0 + padded) of input channel `c` (its patch plane, row
// pitch `pitch`) into the packed-B matrices, one per position (position xi at v + xi * v_stride:
// C x padded in panels of nr tile columns). Tiles past `count` repeat the last one.
void transform_inputs(const Conv2dShape& s, const Sizes& z, const Tiles& tiles, const float* plane,
                      int64_t pitch, int64_t c, int64_t t0, int64_t count, int64_t padded,
                      int64_t nr, int64_t v_stride, float scale, float* v) {
  const int64_t run = std::min(nr, kBlock);  // lanes contiguous in one panel
  for (int64_t i0 = 0; i0 < padded; i0 += kBlock) {
    TileLanes d, out;
    if (z.t == 4) {
      gather_patches<4>(tiles, plane, pitch, t0 + i0, t0 + count - 1, d);
      input_transform_4(d, out);
    } else {
      gather_patches<2>(tiles, plane, pitch, t0 + i0, t0 + count - 1, d);
      input_transform_2(d, out);
    }
    if (scale != 1.0f) {  // B^T (s d) B = s (B^T d B)
      for (int64_t xi = 0; xi < z.positions; ++xi) {
        for (int64_t j = 0; j < kBlock; ++j) out[xi][j] *= scale;
      }
    }
    for (int64_t j = 0; j < kBlock; j += run) {
      const int64_t i = i0 + j;
      float* dst = v + (i / nr) * nr * s.c + c * nr + i % nr;
      for (int64_t xi = 0; xi < z.positions; ++xi) {
        std::memcpy(dst + xi * v_stride, &out[xi][j], static_cast<size_t>(run) * sizeof(float));
      }
    }
  }
}

// F(2x2, 3x3): y = A^T M A of the tiles [i0, i0 + kBlock) of one output channel's products (row:
// position xi's at row + xi * m_stride), lane by lane, A^T = [1 1 1 0; 0 1 -1 -1]; y[2 r + q]
// is output (r, q) of each tile.
__attribute__((target_clones("avx2", "default"))) void output_transform_2(const float* row,
                                                                          int64_t m_stride,
                                                                          TileLanes& y) {
  float m[16][kBlock];
  for (int64_t xi = 0; xi < 16; ++xi) {
    for (int64_t j = 0; j < kBlock; ++j) m[xi][j] = row[xi * m_stride + j];
  }
  float a[2][4][kBlock];  // A^T M
  for (int64_t q = 0; q < 4; ++q) {
    for (int64_t j = 0; j < kBlock; ++j) {
      a[0][q][j] = m[q][j] + m[4 + q][j] + m[8 + q][j];
      a[1][q][j] = m[4 + q][j] - m[8 + q][j] - m[12 + q][j];
    }
  }
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t j = 0; j < kBlock; ++j) {
      y[2 * r][j] = a[r][0][j] + a[r][1][j] + a[r][2][j];
      y[2 * r + 1][j] = a[r][1][j] - a[r][2][j] - a[r][3][j];
    }
  }
}

// F(4x4, 3x3): x0..x5 at stride `in_step` from `in` -> y0..y3 at stride `out_step`, with
//   A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1].
inline void at6(const float* in, int64_t in_step, float* out, int64_t out_step) {
  const float x1 = in[in_step], x2 = in[2 * in_step], x3 = in[3 * in_step], x4 = in[4 * in_step];
  const float s12 = x1 + x2, d12 = x1 - x2, s34 = x3 + x4, d34 = x3 - x4;
  out[0] = in[0] + s12 + s34;
  out[out_step] = d12 + 2.0f * d34;
  out[2 * out_step] = s12 + 4.0f * s34;
  out[3 * out_step] = d12 + 8.0f * d34 + in[5 * in_step];
}

// As output_transform_2 for F(4x4, 3x3): y[4 r + q] is output (r, q) of each tile.
__attribute__((target_clones("avx2", "default"))) void output_transform_4(const float* row,
                                                                          int64_t m_stride,
                                                                          TileLanes& y) {
  float a[4][6][kBlock];  // A^T M: each column q of the products
  for (int64_t q = 0; q < 6; ++q) {
    for (int64_t j = 0; j < kBlock; ++j) {
      at6(row + q * m_stride + j, 6 * m_stride, &a[0][q][j], 6 * kBlock);
    }
  }
  for (int64_t r = 0; r < 4; ++r) {  // (A^T M) A: each row r
    for (int64_t j = 0; j < kBlock; ++j) at6(&a[r][0][j], kBlock, &y[4 * r][j], kBlock);
  }
}

// rows[r][T j + q] = y[T r + q][j]: output row r of the kBlock tiles side by side, so that the
// tiles of one tile row give one contiguous run of outputs per row. Built from 4-float vectors
// (native on every x86 CPU): a 4x4 transpose per 4 tiles (T = 4), pairs interleaved (T = 2).
template <int64_t T>
void interleave_rows(const TileLanes& y, float (&rows)[T][T * kBlock]) {
  using Vec = Lanes<4>::Vec;
  for (int64_t r = 0; r < T; ++r) {
    for (int64_t j = 0; j < kBlock; j += 4) {
      if constexpr (T == 4) {
        Vec v[4];
        for (int64_t q = 0; q < 4; ++q) std::memcpy(&v[q], &y[4 * r + q][j], sizeof(Vec));
        transpose<4>(v);  // v[i]: outputs (r, 0..3) of tile j + i
        for (int64_t i = 0; i < 4; ++i) std::memcpy(&rows[r][4 * (j + i)], &v[i], sizeof(Vec));
      } else {
        Vec a, b;
        std::memcpy(&a, &y[2 * r][j], sizeof(Vec));
        std::memcpy(&b, &y[2 * r + 1][j], sizeof(Vec));
        const Vec lo = __builtin_shufflevector(a, b, 0, 4, 1, 5);
        const Vec hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
        std::memcpy(&rows[r][2 * j], &lo, sizeof(Vec));
        std::memcpy(&rows[r][2 * j + 4], &hi, sizeof(Vec));
      }
    }
  }
}

// Writes the outputs y of the tiles [t0 + i0, t0 + i0 + valid) into the plane `out` with bias,
// residual and activation `act` (value -> activated value), then `finish` (pointer, count) on
// each stored row: per run of tiles in one tile row, each output row is one contiguous loop (cut
// at the plane's right and bottom edges).
template <int64_t T, typename Act, typename Finish>
void store_tiles(const Conv2dShape& s, const Tiles& tiles, const TileLanes& y, int64_t t0,
                 int64_t i0, int64_t valid, float bias, const float* residual, Act act,
                 Finish finish, float* out) {
  const int64_t oh = s.oh(), ow = s.ow();
  alignas(64) float rows[T][T * kBlock];
  interleave_rows<T>(y, rows);
  for (int64_t j = 0; j < valid;) {
    const int64_t t = t0 + i0 + j, tx = t % tiles.cols;
    const int64_t run = std::min(valid - j, tiles.cols - tx);
    const int64_t oy = T * (t / tiles.cols), ox = T * tx;
    const int64_t height = std::min(T, oh - oy), width = std::min(T * run, ow - ox);
    for (int64_t r = 0; r < height; ++r) {
      const float* src = &rows[r][T * j];
      float* o = out + (oy + r) * ow + ox;
      if (residual != nullptr) {
        const float* res = residual + (oy + r) * ow + ox;
        for (int64_t x = 0; x < width; ++x) o[x] = act(src[x] + bias + res[x]);
      } else {
        for (int64_t x = 0; x < width; ++x) o[x] = act(src[x] + bias);
      }
      finish(o, width);
    }
    j += run;
  }
}

// Output channel `o` of the tiles [t0, t0 + count): A^T M A, bias, residual and activation;
// writes the plane `out` (products: position xi's OC x m_ld matrix at m + xi * m_stride).
template <int64_t T>
void transform_outputs(const Conv2dShape& s, const Tiles& tiles, const float* m, int64_t o,
                       int64_t t0, int64_t count, int64_t m_ld, int64_t m_stride, float bias,
                       const float* residual, const GemmEpilogue& e, float* out) {
  // The clamps are applied inline as the tiles are stored; the other activations run over each
  // stored row with activate_in_place (vectorized), while it is in L1.
  const float lo = e.clamp_min, hi = e.clamp_max;
  auto none = [](float*, int64_t) {};
  auto run = [&](auto act, auto finish) {
    for (int64_t i0 = 0; i0 < count; i0 += kBlock) {
      TileLanes y;
      if constexpr (T == 4) {
        output_transform_4(m + o * m_ld + i0, m_stride, y);
      } else {
        output_transform_2(m + o * m_ld + i0, m_stride, y);
      }
      store_tiles<T>(s, tiles, y, t0, i0, std::min(kBlock, count - i0), bias, residual, act, finish,
                     out);
    }
  };
  auto identity = [](float v) { return v; };
  switch (e.activation) {
    case Activation::None: run(identity, none); return;
    case Activation::Relu: run([](float v) { return v > 0.0f ? v : 0.0f; }, none); return;
    case Activation::Clamp:
      run([lo, hi](float v) { return std::min(std::max(v, lo), hi); }, none);
      return;
    default:
      run(identity, [&e](float* row, int64_t n) {
        activate_in_place(row, n, e.activation, e.clamp_min, e.clamp_max);
      });
  }
}

// u = G g G^T of one 3x3 filter g, patch x patch values (row-major).
void filter_transform(const Sizes& z, const float* g, float* u) {
  // G g: rows of the patch from the filter's rows, per column q; then the same along each row.
  auto g3 = [&](float x0, float x1, float x2, float* out, int64_t step) {
    if (z.t == 4) {  // G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6;
                     //      0 0 1]
      out[0] = x0 / 4.0f;
      out[step] = -(x0 + x1 + x2) / 6.0f;
      out[2 * step] = -(x0 - x1 + x2) / 6.0f;
      out[3 * step] = x0 / 24.0f + x1 / 12.0f + x2 / 6.0f;
      out[4 * step] = x0 / 24.0f - x1 / 12.0f + x2 / 6.0f;
      out[5 * step] = x2;
    } else {  // G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
      out[0] = x0;
      out[step] = 0.5f * (x0 + x1 + x2);
      out[2 * step] = 0.5f * (x0 - x1 + x2);
      out[3 * step] = x2;
    }
  };
  float t[6 * 3] = {};  // G g: patch x 3
  for (int64_t q = 0; q < 3; ++q) g3(g[q], g[3 + q], g[6 + q], t + q, 3);
  for (int64_t r = 0; r < z.patch; ++r)
    g3(t[3 * r], t[3 * r + 1], t[3 * r + 2], u + z.patch * r, 1);
}

}  // namespace

const char* to_string(WinogradVariant v) {
  return v == WinogradVariant::F4x4 ? "F(4x4, 3x3)" : "F(2x2, 3x3)";
}

bool winograd_applies(const Conv2dShape& s) {
  return s.valid() && s.kh == 3 && s.kw == 3 && s.sh == 1 && s.sw == 1 && s.dh == 1 && s.dw == 1 &&
         s.groups == 1;
}

bool winograd_preferred(const Conv2dShape& s, WinogradVariant* variant) {
  if (!winograd_applies(s)) return false;
  WinogradVariant v;
  // The transforms cost per input and per output channel, the saving is per channel pair: the
  // channels' harmonic half c oc / (c + oc) (64 for 128 -> 128) measures what a tile gains.
  const int64_t pair_share = s.c * s.oc / (s.c + s.oc);
  if (pair_share >= 14 && tiles_of(s, sizes_of(WinogradVariant::F4x4)).count() >= 49) {
    v = WinogradVariant::F4x4;
  } else if (pair_share >= 64 && tiles_of(s, sizes_of(WinogradVariant::F2x2)).count() >= 32 &&
             winograd_packed_weights_bytes(s, WinogradVariant::F2x2) <= kMaxF2x2WeightBytes) {
    v = WinogradVariant::F2x2;
  } else {
    return false;
  }
  if (variant != nullptr) *variant = v;
  return true;
}

size_t winograd_packed_weights_bytes(const Conv2dShape& s, WinogradVariant v) {
  return static_cast<size_t>(sizes_of(v).positions) * packed_a_bytes(s.oc, s.c);
}

void winograd_pack_weights(const Conv2dShape& s, WinogradVariant v, const float* weights,
                           float* out) {
  const Sizes z = sizes_of(v);
  const size_t per_position = packed_a_bytes(s.oc, s.c) / sizeof(float);
  std::fill(out, out + z.positions * per_position, 0.0f);  // rows past OC in the last panel
  for (int64_t o = 0; o < s.oc; ++o) {
    for (int64_t c = 0; c < s.c; ++c) {
      float u[kMaxPositions];
      filter_transform(z, weights + (o * s.c + c) * 9, u);
      const size_t at = packed_a_offset(s.oc, s.c, o, c);
      for (int64_t xi = 0; xi < z.positions; ++xi) {
        out[static_cast<size_t>(xi) * per_position + at] = u[xi];
      }
    }
  }
}

int64_t winograd_default_chunk(const Conv2dShape& s, WinogradVariant v, int64_t workers) {
  const Sizes z = sizes_of(v);
  const int64_t unit = chunk_unit();
  const int64_t per_tile = z.positions * (s.c + s.oc) * static_cast<int64_t>(sizeof(float));
  const int64_t pass_bytes = v == WinogradVariant::F4x4 ? kPassBytes4x4 : kPassBytes2x2;
  const int64_t chunk = std::max(unit, pass_bytes / per_tile / unit * unit);
  // At least one pass per worker where the tiles allow it.
  const int64_t tiles = tiles_of(s, z).count(), w = std::max<int64_t>(workers, 1);
  const int64_t per_worker = (tiles + w - 1) / w;
  return std::min({chunk, round_up(per_worker, unit), round_up(tiles, unit)});
}

size_t winograd_scratch_bytes(const Conv2dShape& s, WinogradVariant v, int64_t chunk,
                              int64_t workers) {
  if (!winograd_applies(s) || chunk < 0 || workers < 1) return 0;
  const Sizes z = sizes_of(v);
  const int64_t padded = resolve_chunk(s, v, chunk, workers);
  const PatchPlanes planes = patch_planes(s, z, tiles_of(s, z));
  const size_t copy = planes.copied ? static_cast<size_t>(s.c * planes.floats()) : 0;
  return static_cast<size_t>(workers) *
             (inputs_floats(s, z, padded) + products_floats(s, z, padded)) * sizeof(float) +
         align_up(copy * sizeof(float));
}

bool conv2d_winograd(const Conv2dShape& s, WinogradVariant variant, const float* input,
                     const float* packed_weights, const GemmEpilogue& epilogue, float* output,
                     int64_t chunk, void* scratch, const float* input_scale, int64_t workers) {
  if (!winograd_applies(s) || chunk < 0 || workers < 1 || scratch == nullptr ||
      packed_weights == nullptr) {
    return false;
  }
  const Sizes z = sizes_of(variant);
  const GemmTile tile = gemm_tile(active_gemm_isa());
  const Tiles tiles = tiles_of(s, z);
  const int64_t padded_chunk = resolve_chunk(s, variant, chunk, workers);
  const int64_t passes = (tiles.count() + padded_chunk - 1) / padded_chunk;
  const int64_t used = std::min(workers, passes);
  // Worker w's transformed inputs and products, then the padded copy of the input.
  const size_t slot = inputs_floats(s, z, padded_chunk) + products_floats(s, z, padded_chunk);
  auto* slots = static_cast<float*>(scratch);
  float* copy = slots + static_cast<size_t>(workers) * slot;
  const PatchPlanes planes = patch_planes(s, z, tiles);
  const size_t per_position = packed_a_bytes(s.oc, s.c) / sizeof(float);
  const int64_t in_image = s.c * s.h * s.w, out_plane = s.oh() * s.ow();
  const int64_t out_image = s.oc * out_plane;

  for (int64_t b = 0; b < s.n; ++b) {
    const float* in = input + b * in_image;
    float* out = output + b * out_image;
    const float* residual =
        epilogue.residual != nullptr ? epilogue.residual + b * out_image : nullptr;
    if (planes.copied) {
      parallel_for(s.c, [&](int64_t c) {
        fill_patch_plane(s, planes, in + c * s.h * s.w, copy + c * planes.floats());
      });
    }
    const float* base = planes.copied ? copy : in;
    // Each worker runs whole passes (every pass = used-th one) in its own slot: one parallel
    // region per image instead of three per pass, whose wake-ups cost more than a small pass.
    std::atomic<bool> ok{true};
    parallel_for(used, [&](int64_t w) {
      float* v = slots + static_cast<size_t>(w) * slot;
      float* m = v + inputs_floats(s, z, padded_chunk);
      for (int64_t pass = w; pass < passes; pass += used) {
        const int64_t t0 = pass * padded_chunk;
        const int64_t count = std::min(padded_chunk, tiles.count() - t0);
        const int64_t padded = round_up(count, chunk_unit());
        // The panels of a shorter last pass are laid out for its own width (padded).
        const int64_t vs = s.c * padded + kPositionSkew, ms = s.oc * padded + kPositionSkew;
        for (int64_t c = 0; c < s.c; ++c) {
          transform_inputs(s, z, tiles, base + c * planes.floats(), planes.pitch, c, t0, count,
                           padded, tile.nr, vs,
                           input_scale != nullptr ? input_scale[b * s.c + c] : 1.0f, v);
        }
        for (int64_t xi = 0; xi < z.positions; ++xi) {
          PackedMatrix a{packed_weights + static_cast<size_t>(xi) * per_position, s.oc, s.c,
                         tile.mr};
          a.slice_major = true;
          a.depth = gemm_slice_depth();  // as packed_a_offset laid them out
          const PackedMatrix bm{v + xi * vs, s.c, count, tile.nr};
          if (!gemm(s.oc, count, s.c, GemmOperand::prepacked(a), GemmOperand::prepacked(bm),
                    m + xi * ms, padded, GemmEpilogue{}, nullptr)) {
            ok.store(false, std::memory_order_relaxed);
            return;
          }
        }
        for (int64_t o = 0; o < s.oc; ++o) {
          const float bias = epilogue.bias != nullptr ? epilogue.bias[o] : 0.0f;
          const float* res = residual != nullptr ? residual + o * out_plane : nullptr;
          if (z.t == 4) {
            transform_outputs<4>(s, tiles, m, o, t0, count, padded, ms, bias, res, epilogue,
                                 out + o * out_plane);
          } else {
            transform_outputs<2>(s, tiles, m, o, t0, count, padded, ms, bias, res, epilogue,
                                 out + o * out_plane);
          }
        }
      }
    });
    if (!ok.load()) return false;
  }
  return true;
}

}  // namespace ptec::kernels::optimized
