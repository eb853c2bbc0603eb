#include "kernels/optimized/conv2d_winograd.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "kernels/optimized/activation.h"
#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

constexpr size_t kAlign = 64;
// Transformed inputs plus products of one pass (see winograd_default_chunk).
constexpr int64_t kPassBytes = int64_t{2} << 20;
constexpr int64_t kPositions = 16;  // 4 x 4 transform positions

size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }
int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

struct Tiles {
  int64_t rows, cols;  // 2x2 output tiles per image
  int64_t count() const { return rows * cols; }
};
Tiles tiles_of(const Conv2dShape& s) { return Tiles{(s.oh() + 1) / 2, (s.ow() + 1) / 2}; }

// Tiles per pass are a multiple of both nr (whole B panels) and the transforms' block.
int64_t chunk_unit() { return std::max<int64_t>(gemm_tile(active_gemm_isa()).nr, 16); }

int64_t resolve_chunk(const Conv2dShape& s, int64_t chunk) {
  const int64_t unit = chunk_unit();
  if (chunk == 0) return winograd_default_chunk(s);
  return std::min(round_up(chunk, unit), round_up(tiles_of(s).count(), unit));
}

// Tiles are transformed kBlock at a time, lane j of each array being tile t0 + j, so that the
// arithmetic vectorizes across tiles and the packed-B stores are contiguous.
constexpr int64_t kBlock = 16;
using Lanes = float[kPositions][kBlock];

// d[4 r + q][j] = the input at row r, column q of tile t0 + j's 4x4 patch (zero outside the
// image, and for lanes j >= valid).
__attribute__((target_clones("avx2", "default"))) void gather_patches(const Conv2dShape& s,
                                                                      const Tiles& tiles,
                                                                      const float* plane,
                                                                      int64_t t0, int64_t valid,
                                                                      Lanes& d) {
  const int64_t ty = t0 / tiles.cols, tx = t0 % tiles.cols;
  const int64_t y0 = 2 * ty - s.ph, x0 = 2 * tx - s.pw;
  if (valid == kBlock && tx + kBlock <= tiles.cols && y0 >= 0 && y0 + 4 <= s.h && x0 >= 0 &&
      x0 + 2 * kBlock + 2 <= s.w) {  // one tile row, inside the image
    for (int64_t r = 0; r < 4; ++r) {
      const float* row = plane + (y0 + r) * s.w + x0;
      for (int64_t q = 0; q < 4; ++q) {
        for (int64_t j = 0; j < kBlock; ++j) d[4 * r + q][j] = row[q + 2 * j];
      }
    }
    return;
  }
  for (int64_t j = 0; j < kBlock; ++j) {
    const int64_t t = t0 + j, py = 2 * (t / tiles.cols) - s.ph, px = 2 * (t % tiles.cols) - s.pw;
    for (int64_t r = 0; r < 4; ++r) {
      const int64_t y = py + r;
      for (int64_t q = 0; q < 4; ++q) {
        const int64_t x = px + q;
        d[4 * r + q][j] =
            j < valid && y >= 0 && y < s.h && x >= 0 && x < s.w ? plane[y * s.w + x] : 0.0f;
      }
    }
  }
}

// v = B^T d B, lane by lane.
__attribute__((target_clones("avx2", "default"))) void input_transform(const Lanes& d, Lanes& v) {
  Lanes e;  // B^T d
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

// The transformed inputs of tiles [t0, t0 + padded) of input channel `c` (plane) into the 16
// packed-B matrices (position xi at v + xi * v_stride: C x padded in panels of nr tile
// columns). Tiles past `count` are zero.
void transform_inputs(const Conv2dShape& s, const Tiles& tiles, const float* plane, int64_t c,
                      int64_t t0, int64_t count, int64_t padded, int64_t nr, int64_t v_stride,
                      float scale, float* v) {
  const int64_t run = std::min(nr, kBlock);  // lanes contiguous in one panel
  for (int64_t i0 = 0; i0 < padded; i0 += kBlock) {
    Lanes d, out;
    gather_patches(s, tiles, plane, t0 + i0, std::clamp<int64_t>(count - i0, 0, kBlock), d);
    input_transform(d, out);
    if (scale != 1.0f) {  // B^T (s d) B = s (B^T d B)
      for (int64_t xi = 0; xi < kPositions; ++xi) {
        for (int64_t j = 0; j < kBlock; ++j) out[xi][j] *= scale;
      }
    }
    for (int64_t j = 0; j < kBlock; j += run) {
      const int64_t i = i0 + j;
      float* dst = v + (i / nr) * nr * s.c + c * nr + i % nr;
      for (int64_t xi = 0; xi < kPositions; ++xi) {
        std::memcpy(dst + xi * v_stride, &out[xi][j], static_cast<size_t>(run) * sizeof(float));
      }
    }
  }
}

// y = A^T M A of the tiles [i0, i0 + kBlock) of one output channel's products (row: position
// xi's at row + xi * m_stride), lane by lane; y[2 r + q] is output (r, q) of each tile.
__attribute__((target_clones("avx2", "default"))) void output_transform(const float* row,
                                                                        int64_t m_stride,
                                                                        float (&y)[4][kBlock]) {
  Lanes m;
  for (int64_t xi = 0; xi < kPositions; ++xi) {
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

// Output channel `o` of the tiles [t0, t0 + count): A^T M A, bias, residual and activation;
// writes the plane `out` (products: position xi's OC x m_ld matrix at m + xi * m_stride).
void transform_outputs(const Conv2dShape& s, const Tiles& tiles, const float* m, int64_t o,
                       int64_t t0, int64_t count, int64_t m_ld, int64_t m_stride, float bias,
                       const float* residual, const GemmEpilogue& e, float* out) {
  const int64_t oh = s.oh(), ow = s.ow();
  for (int64_t i0 = 0; i0 < count; i0 += kBlock) {
    float y[4][kBlock];
    output_transform(m + o * m_ld + i0, m_stride, y);
    const int64_t valid = std::min(kBlock, count - i0);
    for (int64_t j = 0; j < valid; ++j) {
      const int64_t t = t0 + i0 + j, oy = 2 * (t / tiles.cols), ox = 2 * (t % tiles.cols);
      for (int64_t r = 0; r < 2 && oy + r < oh; ++r) {
        for (int64_t q = 0; q < 2 && ox + q < ow; ++q) {
          const int64_t at = (oy + r) * ow + ox + q;
          float value = y[2 * r + q][j] + bias;
          if (residual != nullptr) value += residual[at];
          out[at] = activate(value, e.activation, e.clamp_min, e.clamp_max);
        }
      }
    }
  }
}

}  // namespace

bool winograd_applies(const Conv2dShape& s) {
  return s.valid() && s.kh == 3 && s.kw == 3 && s.sh == 1 && s.sw == 1 && s.dh == 1 && s.dw == 1 &&
         s.groups == 1;
}

bool winograd_preferred(const Conv2dShape& s) {
  return winograd_applies(s) && s.c >= 128 && s.oc >= 128 && tiles_of(s).count() >= 32;
}

size_t winograd_packed_weights_bytes(const Conv2dShape& s) {
  return static_cast<size_t>(kPositions) * packed_a_bytes(s.oc, s.c);
}

void winograd_pack_weights(const Conv2dShape& s, const float* weights, float* out) {
  const size_t per_position = packed_a_bytes(s.oc, s.c) / sizeof(float);
  std::fill(out, out + kPositions * per_position, 0.0f);  // rows past OC in the last panel
  for (int64_t o = 0; o < s.oc; ++o) {
    for (int64_t c = 0; c < s.c; ++c) {
      const float* g = weights + (o * s.c + c) * 9;
      float t[4][3];  // G g
      for (int q = 0; q < 3; ++q) {
        t[0][q] = g[q];
        t[1][q] = 0.5f * (g[q] + g[3 + q] + g[6 + q]);
        t[2][q] = 0.5f * (g[q] - g[3 + q] + g[6 + q]);
        t[3][q] = g[6 + q];
      }
      const size_t at = packed_a_offset(s.oc, s.c, o, c);
      for (int r = 0; r < 4; ++r) {  // (G g) G^T
        const float u[4] = {t[r][0], 0.5f * (t[r][0] + t[r][1] + t[r][2]),
                            0.5f * (t[r][0] - t[r][1] + t[r][2]), t[r][2]};
        for (int q = 0; q < 4; ++q) out[static_cast<size_t>(4 * r + q) * per_position + at] = u[q];
      }
    }
  }
}

int64_t winograd_default_chunk(const Conv2dShape& s) {
  const int64_t unit = chunk_unit();
  const int64_t per_tile = kPositions * (s.c + s.oc) * static_cast<int64_t>(sizeof(float));
  const int64_t chunk = std::max(unit, kPassBytes / per_tile / unit * unit);
  return std::min(chunk, round_up(tiles_of(s).count(), unit));
}

size_t winograd_scratch_bytes(const Conv2dShape& s, int64_t chunk) {
  if (!winograd_applies(s) || chunk < 0) return 0;
  const auto padded = static_cast<size_t>(resolve_chunk(s, chunk));
  const auto positions = static_cast<size_t>(kPositions);
  return align_up(positions * static_cast<size_t>(s.c) * padded * sizeof(float)) +
         align_up(positions * static_cast<size_t>(s.oc) * padded * sizeof(float));
}

bool conv2d_winograd(const Conv2dShape& s, const float* input, const float* packed_weights,
                     const GemmEpilogue& epilogue, float* output, int64_t chunk, void* scratch,
                     const float* input_scale) {
  if (!winograd_applies(s) || chunk < 0 || scratch == nullptr || packed_weights == nullptr) {
    return false;
  }
  const GemmTile tile = gemm_tile(active_gemm_isa());
  const Tiles tiles = tiles_of(s);
  const int64_t padded_chunk = resolve_chunk(s, chunk);
  const int64_t v_stride = s.c * padded_chunk;
  auto* v = static_cast<float*>(scratch);
  float* m =
      v + align_up(static_cast<size_t>(kPositions * v_stride) * sizeof(float)) / sizeof(float);
  const size_t per_position = packed_a_bytes(s.oc, s.c) / sizeof(float);
  const int64_t in_image = s.c * s.h * s.w, out_plane = s.oh() * s.ow();
  const int64_t out_image = s.oc * out_plane;

  for (int64_t b = 0; b < s.n; ++b) {
    const float* in = input + b * in_image;
    float* out = output + b * out_image;
    const float* residual =
        epilogue.residual != nullptr ? epilogue.residual + b * out_image : nullptr;
    for (int64_t t0 = 0; t0 < tiles.count(); t0 += padded_chunk) {
      const int64_t count = std::min(padded_chunk, tiles.count() - t0);
      const int64_t padded = round_up(count, chunk_unit());
      // The panels of a shorter last pass are laid out for its own width (padded).
      const int64_t vs = s.c * padded, ms = s.oc * padded;
      parallel_for(s.c, [&](int64_t c) {
        transform_inputs(s, tiles, in + c * s.h * s.w, c, t0, count, padded, tile.nr, vs,
                         input_scale != nullptr ? input_scale[b * s.c + c] : 1.0f, v);
      });
      std::atomic<bool> ok{true};
      parallel_for(kPositions, [&](int64_t xi) {
        PackedMatrix a{packed_weights + static_cast<size_t>(xi) * per_position, s.oc, s.c, tile.mr};
        a.slice_major = true;
        a.depth = gemm_slice_depth();  // as packed_a_offset laid them out
        const PackedMatrix bm{v + xi * vs, s.c, count, tile.nr};
        if (!gemm(s.oc, count, s.c, GemmOperand::prepacked(a), GemmOperand::prepacked(bm),
                  m + xi * ms, padded, GemmEpilogue{}, nullptr)) {
          ok.store(false, std::memory_order_relaxed);
        }
      });
      if (!ok.load()) return false;
      parallel_for(s.oc, [&](int64_t o) {
        transform_outputs(s, tiles, m, o, t0, count, padded, ms,
                          epilogue.bias != nullptr ? epilogue.bias[o] : 0.0f,
                          residual != nullptr ? residual + o * out_plane : nullptr, epilogue,
                          out + o * out_plane);
      });
    }
  }
  return true;
}

}  // namespace ptec::kernels::optimized
