#include "kernels/optimized/gemm.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <optional>

#include <unistd.h>

#include "kernels/optimized/gemm_microkernel.h"
#include "kernels/optimized/lane_vectors.h"
#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

// Cache blocking: a kc-deep slice of one B panel (kc x nr floats, 16 KiB) stays in L1 while it
// meets every A panel of an mc-row block (40 panels x kc, 128-240 KiB) kept in L2.
constexpr int64_t kSliceBytes = 16 << 10;
// gemm_slice_depth(true): k rows per slice where that fits the L1 (see gemm.h).
constexpr int64_t kDeepSlice = 256;
// gemm_indirect's copy of one slice of its partial last B panel: depth x nr floats, room for
// either depth at every microkernel's nr.
constexpr int64_t kEdgeFloats = kDeepSlice * 32;
constexpr int64_t kMcPanels = 40;
// Column groups of at most this many B panels run A-panel-major in gemm_indirect (their slices,
// at most 4 x 32 KiB, stay in L2 while A streams past).
constexpr int64_t kFewPanels = 4;
constexpr int64_t kEpilogueColumns = 256;
constexpr size_t kAlign = 64;

// Wide weights (pack_weights) are packed in one slice up to this K, else in slices of kWideSlice.
constexpr int64_t kWideOneSlice = 1024;
constexpr int64_t kWideSlice = 512;

struct KernelInfo {
  int64_t mr;
  int64_t nr;
  detail::MicroKernel fn;
  detail::IndirectMicroKernel indirect;
  detail::RowsAMicroKernel rows_a;
  // The wide kernel for weights packed by pack_weights (null where the ISA has none).
  int64_t wide_mr = 0;
  int64_t wide_nr = 0;
  detail::WideMicroKernel wide = nullptr;
};

KernelInfo kernel_info(GemmIsa isa) {
#if defined(PTEC_GEMM_HAVE_AVX2)
  if (isa == GemmIsa::Avx512) {
    return {detail::kAvx512Mr,
            detail::kAvx512Nr,
            detail::microkernel_avx512_8x32,
            detail::microkernel_avx512_8x32_indirect,
            detail::microkernel_avx512_8x32_rows_a,
            detail::kAvx512WideMr,
            detail::kAvx512WideNr,
            detail::microkernel_avx512_6x64_wide};
  }
  if (isa == GemmIsa::Avx2) {
    return {detail::kAvx2Mr, detail::kAvx2Nr, detail::microkernel_avx2_6x16,
            detail::microkernel_avx2_6x16_indirect, detail::microkernel_avx2_6x16_rows_a};
  }
#else
  (void)isa;
#endif
  return {detail::kGenericMr, detail::kGenericNr, detail::microkernel_generic_4x8,
          detail::microkernel_generic_4x8_indirect, detail::microkernel_generic_4x8_rows_a};
}

GemmIsa detect() {
#if defined(PTEC_GEMM_HAVE_AVX2)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return GemmIsa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return GemmIsa::Avx2;
#endif
  return GemmIsa::Generic;
}

std::atomic<int> g_forced{-1};  // -1: use the detected ISA

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

// Element (i, p) of A / (p, j) of B in their unpacked layouts.
inline float a_at(const float* a, int64_t lda, bool trans, int64_t i, int64_t p) {
  return trans ? a[p * lda + i] : a[i * lda + p];
}

bool has_epilogue(const GemmEpilogue& e) {
  return e.bias != nullptr || e.residual != nullptr || e.activation != Activation::None;
}

// Bias, residual and activation over rows [i0, i0 + rows) and columns [j0, j0 + cols) of C.
void apply_epilogue(const GemmEpilogue& e, float* c, int64_t ldc, int64_t i0, int64_t rows,
                    int64_t j0, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = c + (i0 + r) * ldc + j0;
    if (e.bias != nullptr) {
      if (e.bias_per_row) {
        const float bv = e.bias[i0 + r];
        for (int64_t j = 0; j < cols; ++j) row[j] += bv;
      } else {
        const float* bias = e.bias + j0;
        for (int64_t j = 0; j < cols; ++j) row[j] += bias[j];
      }
    }
    if (e.residual != nullptr) {
      const float* res = e.residual + (i0 + r) * e.ldr + j0;
      for (int64_t j = 0; j < cols; ++j) row[j] += res[j];
    }
    activate_in_place(row, cols, e.activation, e.clamp_min, e.clamp_max);
  }
}

// Depth of a k slice: kc x nr floats of B fill kSliceBytes.
int64_t slice_depth(int64_t nr) { return kSliceBytes / static_cast<int64_t>(sizeof(float)) / nr; }

// The L1 data cache's bytes (0 when the system does not say).
int64_t l1_data_bytes() {
  static const int64_t bytes = std::max<int64_t>(0, sysconf(_SC_LEVEL1_DCACHE_SIZE));
  return bytes;
}

// Packed A (and B packed by pack_b) is slice-major: for each k slice [pc, pc + kc), the panels
// one after another, each kc groups of mr (nr) values. Panel i0 / mr of slice pc starts at
// pc * round_up(m, mr) + i0 * kc, so one slice of every panel (what a pass over the other operand
// meets) is one sequential stream, as weights arriving from memory should be.
int64_t slice_offset(int64_t m, int64_t mr, int64_t i0, int64_t pc, int64_t kc) {
  return pc * round_up(m, mr) + i0 * kc;
}

// The share of the next B slice that each row block of an item prefetches while it multiplies
// the current one (StreamPrefetch): weights arriving from memory then stream in under the FMAs.
// A call prefetches kc / 2 lines, all of its share where the item has at least nr / 8 blocks.
struct NextSlice {
  const float* data = nullptr;  // null: no slice follows
  int64_t floats = 0;
  int64_t share = 0;

  const float* for_block(int64_t block) const {
    const int64_t at = block * share;
    return data != nullptr && at < floats ? data + at : nullptr;
  }
};

NextSlice next_slice(const float* data, int64_t floats, int64_t blocks) {
  return NextSlice{data, floats, round_up((floats + blocks - 1) / blocks, 16)};
}

// How the product's C is cut into items for the threads: row blocks of mc rows (up to kMcPanels
// panels, which stay in L2) times groups of B panels, a few items per thread for balance. When B
// has too few panels for that (a deep layer's few pixels), the rows are cut finer instead.
struct Split {
  int64_t mc, m_blocks, group_panels, groups;
};

Split split_work(int64_t m, int64_t n_panels, int64_t mr) {
  Split s{};
  s.mc = kMcPanels * mr;
  s.m_blocks = (m + s.mc - 1) / s.mc;
  const int64_t threads = num_threads();
  const int64_t wanted = threads > 1 ? 4 * threads : 1;
  if (s.m_blocks * n_panels < wanted) {
    const int64_t blocks = std::min((m + mr - 1) / mr, (wanted + n_panels - 1) / n_panels);
    s.mc = round_up((m + blocks - 1) / blocks, mr);
    s.m_blocks = (m + s.mc - 1) / s.mc;
  }
  const int64_t n_groups =
      std::clamp<int64_t>((wanted + s.m_blocks - 1) / s.m_blocks, int64_t{1}, n_panels);
  s.group_panels = (n_panels + n_groups - 1) / n_groups;
  s.groups = (n_panels + s.group_panels - 1) / s.group_panels;
  return s;
}

// The wide path's split (gemm_wide): items of whole B panels, about 4 per thread and a multiple
// of the threads, so that no thread waits alone on a last item (split_work gave 197 x 192 x 768
// nine items on 2 threads). The rows are cut only as far as that needs, and far enough that an
// item's A slice (its rows x the depth) stays within kWideABytes of L2, which every panel of
// the item passes over.
constexpr int64_t kWideABytes = 1 << 20;

Split split_wide(int64_t m, int64_t k_depth, int64_t n_panels) {
  const int64_t threads = num_threads();
  const int64_t wanted = threads > 1 ? 4 * threads : 1;
  const int64_t row_bytes = k_depth * static_cast<int64_t>(sizeof(float));
  Split s{};
  s.groups = std::min(n_panels, wanted);
  s.group_panels = (n_panels + s.groups - 1) / s.groups;
  s.groups = (n_panels + s.group_panels - 1) / s.group_panels;
  s.m_blocks =
      std::max((wanted + s.groups - 1) / s.groups, (m * row_bytes + kWideABytes - 1) / kWideABytes);
  while ((s.m_blocks * s.groups) % threads != 0 && s.m_blocks < m) ++s.m_blocks;
  s.m_blocks = std::min(s.m_blocks, m);
  s.mc = (m + s.m_blocks - 1) / s.m_blocks;
  s.m_blocks = (m + s.mc - 1) / s.mc;
  return s;
}

// Columns per chunk of a one-slice product (K within one slice): B's K x chunk floats (at most
// kOneSliceBBytes, whole panels) stay in L2 while every A panel of the item sweeps them, instead
// of all of B passing once per A panel. ResNeXt-50's 128 -> 256 pointwise layers at 56x56 (a
// 1.6 MB B, 32 A panels) took 4.0, 3.0 and 2.8 ms without chunks, about 2.0 with them; the model
// 83.3 -> 78.1 ms (one thread, 5 alternating rounds), ResNet-50, MobileNet-V2 and EfficientNet-B0
// within 2%. A K of 24 still sweeps a 56x56 plane's whole rows.
constexpr int64_t kOneSliceBBytes = 256 << 10;
int64_t one_slice_chunk(int64_t k, int64_t nr) {
  return std::max<int64_t>(1, kOneSliceBBytes / (k * nr * static_cast<int64_t>(sizeof(float)))) *
         nr;
}

// The rows [ic, ic_end) and columns [jc, jc_end) of C that work item `item` computes.
struct Item {
  int64_t ic, ic_end, jc, jc_end;
};

Item item_bounds(const Split& split, int64_t m, int64_t n, int64_t nr, int64_t item) {
  Item it{};
  it.ic = item / split.groups * split.mc;
  it.ic_end = std::min(m, it.ic + split.mc);
  it.jc = item % split.groups * split.group_panels * nr;
  it.jc_end = std::min(n, it.jc + split.group_panels * nr);
  return it;
}

// Whether the microkernels apply `e` themselves (TileEpilogue): bias, residual and the
// activations that are a clamp. Other activations run over strips of finished rows.
bool fusable(const GemmEpilogue& e) { return is_clamp(e.activation); }

// `e` for the tile of C at (i0, j0), as the microkernels apply it.
detail::TileEpilogue tile_epilogue(const GemmEpilogue& e, int64_t i0, int64_t j0) {
  detail::TileEpilogue t;
  if (e.bias != nullptr && e.bias_per_row) t.row_bias = e.bias + i0;
  if (e.bias != nullptr && !e.bias_per_row) t.col_bias = e.bias + j0;
  if (e.residual != nullptr) {
    t.residual = e.residual + i0 * e.ldr + j0;
    t.ldr = e.ldr;
  }
  const ClampBounds b = clamp_bounds(e.activation, e.clamp_min, e.clamp_max);
  t.relu = b.relu;
  t.lo = b.lo;
  t.hi = b.hi;
  return t;
}

// One microkernel call for the rows x cols tile of C at (i0, j0): `multiply(out, ld, epilogue)`
// writes a whole mr x nr tile, straight into C when the tile is whole, else into `tile` (zeroed,
// then holding C's valid part when accumulating) whose valid part is copied back. `fused` (may be
// null, else fusable): the GEMM's epilogue, due on this tile; the microkernel applies it to a
// whole tile, apply_epilogue to the valid part of an edge tile (whose bias and residual end
// inside it).
template <typename F>
inline void multiply_tile(int64_t i0, int64_t j0, int64_t rows, int64_t cols, int64_t mr,
                          int64_t nr, bool accumulate, float* c, int64_t ldc, float* tile,
                          const GemmEpilogue* fused, F multiply) {
  float* c_tile = c + i0 * ldc + j0;
  if (rows == mr && cols == nr) {
    if (fused != nullptr) {
      const detail::TileEpilogue t = tile_epilogue(*fused, i0, j0);
      multiply(c_tile, ldc, &t);
    } else {
      multiply(c_tile, ldc, nullptr);
    }
    return;
  }
  if (accumulate) {
    std::fill(tile, tile + mr * nr, 0.0f);
    for (int64_t r = 0; r < rows; ++r) {
      std::memcpy(tile + r * nr, c_tile + r * ldc, static_cast<size_t>(cols) * sizeof(float));
    }
  }
  multiply(tile, nr, nullptr);
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(c_tile + r * ldc, tile + r * nr, static_cast<size_t>(cols) * sizeof(float));
  }
  if (fused != nullptr) apply_epilogue(*fused, c, ldc, i0, rows, j0, cols);
}

// The epilogue of an item's rows over strips of up to kEpilogueColumns finished columns: rows long
// enough for the vector loops to overlap (an 8 x 32 tile at a time was latency-bound: GELU cost
// 1.3 ns per element instead of 0.4), short enough to still be in cache.
struct EpilogueStrips {
  const GemmEpilogue& epilogue;
  float* c;
  int64_t ldc;
  Item item;
  int64_t from;  // first column whose epilogue is still to run

  // Columns up to `done` are final.
  void finished(int64_t done) {
    if (done - from >= kEpilogueColumns || done >= item.jc_end) {
      apply_epilogue(epilogue, c, ldc, item.ic, item.ic_end - item.ic, from, done - from);
      from = done;
    }
  }
};

// dst[t] = clamp(src[t] + bias) for t in [0, n), n >= L, L floats at a time, the last vector
// ending at n (it stores some values of the one before again: dst and src do not overlap)
// instead of a scalar tail, which would cost more than the run on a tile's short runs.
template <int L>
__attribute__((always_inline)) inline void store_run(float* dst, const float* src, float bias,
                                                     const ClampBounds& b, int64_t n) {
  using Vec = typename Lanes<L>::Vec;
  const VecClamp<Vec> clamped(b);
  const Vec biases = Vec{} + bias;
  for (int64_t t = 0;; t = std::min(t + L, n - L)) {
    Vec v;
    std::memcpy(&v, src + t, sizeof(v));
    v += biases;
    clamped.apply(v);
    std::memcpy(dst + t, &v, sizeof(v));
    if (t + L >= n) break;
  }
}

// Rows [i0, i0 + rows) and columns [j0, j0 + cols) of a product, held in `tile` (leading
// dimension ldt), into C through the column map: column j is position (j / pitch, j % pitch) of a
// flat image, kept when j % pitch < width and stored at (j / pitch) * width + j % pitch of its
// row of C, with the epilogue (bias per row, residual in C's layout, activation) applied to each
// run as it is stored. An activation that is not a clamp, without a residual, is applied to the
// tile's rows (bias first) before they are stored: per run (a tile row's part in one image row,
// often a few floats) its call cost more than its math (SiLU on a 3 -> 32 stem at 112x112).
__attribute__((target_clones("avx512f", "avx2", "default"))) void store_column_rows(
    const GemmEpilogue& epilogue, const GemmColumnRows& map, float* tile, int64_t ldt, float* c,
    int64_t ldc, int64_t i0, int64_t rows, int64_t j0, int64_t cols) {
  const GemmEpilogue plain;
  const bool on_tile = !is_clamp(epilogue.activation) && epilogue.residual == nullptr;
  for (int64_t r = 0; r < rows && on_tile; ++r) {
    float* row = tile + r * ldt;
    const float bias = epilogue.bias != nullptr ? epilogue.bias[i0 + r] : 0.0f;
    for (int64_t j = 0; j < cols; ++j) row[j] += bias;
    activate_in_place(row, cols, epilogue.activation, epilogue.clamp_min, epilogue.clamp_max);
  }
  const GemmEpilogue& e = on_tile ? plain : epilogue;
  const bool clamp = is_clamp(e.activation);
  const ClampBounds b =
      clamp_bounds(clamp ? e.activation : Activation::None, e.clamp_min, e.clamp_max);
  for (int64_t j = j0; j < j0 + cols;) {
    const int64_t y = j / map.pitch, x = j - y * map.pitch;
    const int64_t run_end = std::min(j0 + cols, j + (map.pitch - x));  // this image row's part
    const int64_t kept = std::min(run_end - j, map.width - x);
    for (int64_t r = 0; r < rows && kept > 0; ++r) {
      const float* src = tile + r * ldt + (j - j0);
      const int64_t at = y * map.width + x;
      float* dst = c + (i0 + r) * ldc + at;
      const float* res = e.residual != nullptr ? e.residual + (i0 + r) * e.ldr + at : nullptr;
      const float bias = e.bias != nullptr ? e.bias[i0 + r] : 0.0f;
      if (res != nullptr) {
        for (int64_t t = 0; t < kept; ++t) dst[t] = apply_clamp(src[t] + bias + res[t], b);
      } else if (kept >= 16) {
        store_run<16>(dst, src, bias, b, kept);
      } else if (kept >= 8) {
        store_run<8>(dst, src, bias, b, kept);
      } else if (kept >= 4) {
        store_run<4>(dst, src, bias, b, kept);
      } else {
        for (int64_t t = 0; t < kept; ++t) dst[t] = apply_clamp(src[t] + bias, b);
      }
      if (!clamp) activate_in_place(dst, kept, e.activation, e.clamp_min, e.clamp_max);
    }
    j = run_end;
  }
}

// y[j] (+)= sum_p x[p * stride] * B[p][j] for the panels [j_begin, j_end) of a slice-major packed
// B with panel width NR: each slice of a panel is nr floats per row, read once, two to four
// independent sums per column so that the additions overlap.
template <int64_t NR>
__attribute__((always_inline)) inline void gemv_panels(const PackedMatrix& b, const float* x,
                                                       int64_t stride, float* y, bool accumulate,
                                                       int64_t j_begin, int64_t j_end) {
  const int64_t k = b.rows, n = b.cols, depth = b.depth;
  for (int64_t j0 = j_begin * NR; j0 < std::min(n, j_end * NR); j0 += NR) {
    const int64_t cols = std::min(NR, n - j0);
    float even[NR] = {}, odd[NR] = {};
    for (int64_t pc = 0; pc < k; pc += depth) {
      const int64_t kc = std::min(depth, k - pc);
      const float* panel = b.data + slice_offset(n, NR, j0, pc, kc);
      int64_t p = 0;
      for (; p + 2 <= kc; p += 2) {
        const float x0 = x[(pc + p) * stride], x1 = x[(pc + p + 1) * stride];
        for (int64_t j = 0; j < NR; ++j) {
          even[j] += x0 * panel[p * NR + j];
          odd[j] += x1 * panel[(p + 1) * NR + j];
        }
      }
      if (p < kc) {
        const float x0 = x[(pc + p) * stride];
        for (int64_t j = 0; j < NR; ++j) even[j] += x0 * panel[p * NR + j];
      }
    }
    for (int64_t j = 0; j < cols; ++j) {
      y[j0 + j] = (accumulate ? y[j0 + j] : 0.0f) + (even[j] + odd[j]);
    }
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void gemv_range(
    const PackedMatrix& b, const float* x, int64_t stride, float* y, bool accumulate,
    int64_t j_begin, int64_t j_end) {
  switch (b.panel) {
    case 64: gemv_panels<64>(b, x, stride, y, accumulate, j_begin, j_end); break;
    case 32: gemv_panels<32>(b, x, stride, y, accumulate, j_begin, j_end); break;
    case 16: gemv_panels<16>(b, x, stride, y, accumulate, j_begin, j_end); break;
    default: gemv_panels<8>(b, x, stride, y, accumulate, j_begin, j_end); break;
  }
}

// y[0, N) (+)= x * B (one row of A, element p at x[p * stride]) for a slice-major packed B, the
// panels spread over the threads.
void gemv_rows(const PackedMatrix& b, const float* x, int64_t stride, float* y, bool accumulate) {
  const int64_t panels = (b.cols + b.panel - 1) / b.panel;
  const int64_t threads = num_threads();
  const int64_t per_item = threads > 1 ? (panels + 2 * threads - 1) / (2 * threads) : panels;
  parallel_for((panels + per_item - 1) / per_item, [&](int64_t item) {
    gemv_range(b, x, stride, y, accumulate, item * per_item,
               std::min(panels, (item + 1) * per_item));
  });
}

// Packs the row panels [panel_begin, panel_end) of A (M x K) into `out` (the whole packed A).
void pack_a_panels(int64_t m, int64_t k, const float* a, int64_t lda, bool trans, int64_t mr,
                   int64_t depth, int64_t panel_begin, int64_t panel_end, float* out) {
  for (int64_t pc = 0; pc < k; pc += depth) {
    const int64_t kc = std::min(depth, k - pc);
    for (int64_t i0 = panel_begin * mr; i0 < std::min(m, panel_end * mr); i0 += mr) {
      float* panel = out + slice_offset(m, mr, i0, pc, kc);
      const int64_t rows = std::min(mr, m - i0);
      for (int64_t p = 0; p < kc; ++p) {
        float* dst = panel + p * mr;
        for (int64_t r = 0; r < rows; ++r) dst[r] = a_at(a, lda, trans, i0 + r, pc + p);
        for (int64_t r = rows; r < mr; ++r) dst[r] = 0.0f;
      }
    }
  }
}

// `k_scale` (may be null) multiplies row p of B by k_scale[p].
PackedMatrix pack_b_impl(int64_t k, int64_t n, const float* b, int64_t ldb, bool trans, int64_t nr,
                         float* out, const float* k_scale = nullptr) {
  for (int64_t j0 = 0; j0 < n; j0 += nr) {
    float* panel = out + j0 * k;
    const int64_t cols = std::min(nr, n - j0);
    for (int64_t p = 0; p < k; ++p) {
      float* dst = panel + p * nr;
      if (!trans && k_scale == nullptr) {
        std::memcpy(dst, b + p * ldb + j0, static_cast<size_t>(cols) * sizeof(float));
      } else if (!trans) {
        const float scale = k_scale[p];
        const float* src = b + p * ldb + j0;
        for (int64_t j = 0; j < cols; ++j) dst[j] = src[j] * scale;
      } else {
        const float scale = k_scale != nullptr ? k_scale[p] : 1.0f;
        for (int64_t j = 0; j < cols; ++j) dst[j] = b[(j0 + j) * ldb + p] * scale;
      }
      for (int64_t j = cols; j < nr; ++j) dst[j] = 0.0f;
    }
  }
  return PackedMatrix{out, k, n, nr};
}

// The slice depth of wide panels: K up to kWideOneSlice, else kWideSlice.
int64_t wide_depth(int64_t k) { return k <= kWideOneSlice ? std::max<int64_t>(k, 1) : kWideSlice; }

// B (K x N) packed slice-major in panels of nr columns and slices of `depth` rows, like packed A:
// a pass over one k slice of the weights is one sequential stream.
PackedMatrix pack_b_slices(int64_t k, int64_t n, const float* b, int64_t ldb, bool trans_b,
                           int64_t nr, int64_t depth, float* out) {
  for (int64_t pc = 0; pc < k; pc += depth) {
    const int64_t kc = std::min(depth, k - pc);
    for (int64_t j0 = 0; j0 < n; j0 += nr) {
      const float* src = trans_b ? b + j0 * ldb + pc : b + pc * ldb + j0;
      pack_b_impl(kc, std::min(nr, n - j0), src, ldb, trans_b, nr,
                  out + slice_offset(n, nr, j0, pc, kc));
    }
  }
  return PackedMatrix{out, k, n, nr, true, depth};
}

// gemm() against a wide B (pack_weights), A row-major (element (i, p) at a[i * lda + p]) read in
// place by blocks of the wide kernel's rows. Each slice of a B panel meets every row block of
// the item in turn: the panel streams from L2 (the kernel prefetches it a few rows ahead) while
// the calls prefetch the next one (NextSlice) and C is written once per slice, by the kernel,
// masked at the edges.
void gemm_wide(const KernelInfo& info, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
               const PackedMatrix& b, float* c, int64_t ldc, const GemmEpilogue& epilogue) {
  const int64_t mr = info.wide_mr, nr = b.panel, depth = b.depth;
  const GemmEpilogue* fused = has_epilogue(epilogue) && fusable(epilogue) ? &epilogue : nullptr;
  const bool strips_due = has_epilogue(epilogue) && fused == nullptr;
  const Split split = split_wide(m, std::min(depth, k), (n + nr - 1) / nr);
  parallel_for(split.m_blocks * split.groups, [&](int64_t index) {
    const Item item = item_bounds(split, m, n, nr, index);
    // The item's rows in as few blocks as the kernel takes, as even as they can be (50 rows: 5
    // blocks of 6 and 4 of 5, not a last one of 2, which would run at a fraction of the speed).
    const int64_t item_rows = item.ic_end - item.ic;
    const int64_t blocks = (item_rows + mr - 1) / mr;
    auto block_rows = [&](int64_t block) {
      return item_rows / blocks + (block < item_rows % blocks ? 1 : 0);
    };
    for (int64_t pc = 0; pc < k; pc += depth) {
      const int64_t kc = std::min(depth, k - pc);
      const bool last = pc + kc == k;
      EpilogueStrips strips{epilogue, c, ldc, item, item.jc};
      for (int64_t j0 = item.jc; j0 < item.jc_end; j0 += nr) {
        // Next: this slice of the next panel, or the next slice of the item's first panel, or
        // after the item's last the first slice of the next panel (where the next item starts:
        // a thread takes its items in order).
        const bool more = j0 + nr < item.jc_end;
        const float* following = more          ? packed_b_slice(b, j0 + nr, pc)
                                 : pc + kc < k ? packed_b_slice(b, item.jc, pc + kc)
                                 : j0 + nr < n ? packed_b_slice(b, j0 + nr, 0)
                                               : nullptr;
        const int64_t following_kc = more          ? kc
                                     : pc + kc < k ? std::min(depth, k - pc - kc)
                                                   : std::min(depth, k);
        const NextSlice next = next_slice(following, following_kc * nr, blocks);
        const float* slice = packed_b_slice(b, j0, pc);
        const int64_t cols = std::min(nr, n - j0);
        for (int64_t block = 0, i0 = item.ic; block < blocks; ++block) {
          const int64_t rows = block_rows(block);
          const detail::TileEpilogue t =
              last && fused != nullptr ? tile_epilogue(*fused, i0, j0) : detail::TileEpilogue{};
          info.wide(kc, a + i0 * lda + pc, lda, rows, slice, c + i0 * ldc + j0, ldc, cols,
                    pc > 0 || epilogue.beta_one, last && fused != nullptr ? &t : nullptr,
                    next.for_block(block));
          i0 += rows;
        }
        if (last && strips_due) strips.finished(std::min(n, j0 + nr));
      }
    }
  });
}

}  // namespace

GemmIsa detected_gemm_isa() {
  static const GemmIsa isa = detect();
  return isa;
}

GemmIsa active_gemm_isa() {
  const int forced = g_forced.load(std::memory_order_relaxed);
  return forced < 0 ? detected_gemm_isa() : static_cast<GemmIsa>(forced);
}

bool set_gemm_isa(GemmIsa isa) {
  // Each ISA's CPUs also run the ones before it (AVX-512F CPUs have AVX2 and FMA).
  if (static_cast<int>(isa) > static_cast<int>(detected_gemm_isa())) return false;
  g_forced.store(static_cast<int>(isa), std::memory_order_relaxed);
  return true;
}

const char* to_string(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::Generic: return "generic";
    case GemmIsa::Avx2: return "avx2";
    case GemmIsa::Avx512: return "avx512";
  }
  return "unknown";
}

GemmTile gemm_tile(GemmIsa isa) {
  const KernelInfo info = kernel_info(isa);
  return GemmTile{info.mr, info.nr};
}

int64_t gemm_slice_depth(bool deep) {
  const int64_t nr = kernel_info(active_gemm_isa()).nr;
  const int64_t standard = slice_depth(nr);
  const int64_t slice_bytes = kDeepSlice * nr * static_cast<int64_t>(sizeof(float));
  return deep && kDeepSlice > standard && 3 * slice_bytes <= 2 * l1_data_bytes() ? kDeepSlice
                                                                                 : standard;
}

int64_t gemm_weights_depth(int64_t k) {
  const int64_t deep = gemm_slice_depth(true);
  return k > deep ? deep : gemm_slice_depth();
}

size_t packed_a_bytes(int64_t m, int64_t k) {
  const int64_t mr = kernel_info(active_gemm_isa()).mr;
  return align_up(static_cast<size_t>(round_up(m, mr) * k) * sizeof(float));
}

size_t packed_b_bytes(int64_t k, int64_t n) {
  const int64_t nr = kernel_info(active_gemm_isa()).nr;
  return align_up(static_cast<size_t>(round_up(n, nr) * k) * sizeof(float));
}

PackedMatrix pack_a(int64_t m, int64_t k, const float* a, int64_t lda, bool trans_a, float* out,
                    int64_t depth) {
  const int64_t mr = kernel_info(active_gemm_isa()).mr;
  pack_a_panels(m, k, a, lda, trans_a, mr, depth, 0, (m + mr - 1) / mr, out);
  return PackedMatrix{out, m, k, mr, true, depth};
}

PackedMatrix pack_b(int64_t k, int64_t n, const float* b, int64_t ldb, bool trans_b, float* out,
                    int64_t depth) {
  return pack_b_slices(k, n, b, ldb, trans_b, kernel_info(active_gemm_isa()).nr, depth, out);
}

size_t packed_weights_bytes(int64_t k, int64_t n) {
  const KernelInfo info = kernel_info(active_gemm_isa());
  if (info.wide == nullptr) return packed_b_bytes(k, n);
  return align_up(static_cast<size_t>(round_up(n, info.wide_nr) * k) * sizeof(float));
}

PackedMatrix pack_weights(int64_t k, int64_t n, const float* b, int64_t ldb, bool trans_b,
                          float* out) {
  const KernelInfo info = kernel_info(active_gemm_isa());
  if (info.wide == nullptr) return pack_b(k, n, b, ldb, trans_b, out, gemm_weights_depth(k));
  return pack_b_slices(k, n, b, ldb, trans_b, info.wide_nr, wide_depth(k), out);
}

const float* packed_b_slice(const PackedMatrix& b, int64_t j0, int64_t pc) {
  return b.data + slice_offset(b.cols, b.panel, j0, pc, std::min(b.depth, b.rows - pc));
}

size_t packed_a_offset(int64_t m, int64_t k, int64_t i, int64_t p, int64_t depth) {
  const KernelInfo info = kernel_info(active_gemm_isa());
  const int64_t pc = p / depth * depth, kc = std::min(depth, k - pc);
  const int64_t i0 = i / info.mr * info.mr;
  return static_cast<size_t>(slice_offset(m, info.mr, i0, pc, kc) + (p - pc) * info.mr + (i - i0));
}

size_t gemm_scratch_bytes(int64_t m, int64_t n, int64_t k, bool a_packed, bool b_packed) {
  return (a_packed ? 0 : packed_a_bytes(m, k)) + (b_packed ? 0 : packed_b_bytes(k, n));
}

// Products below this many FLOPs, with a B smaller than this many bytes, run on the calling
// thread (measured: see gemm()).
constexpr double kParallelMinFlops = 4.0e6;
constexpr double kParallelMinBBytes = 2.0 * 1024 * 1024;

bool gemm(int64_t m, int64_t n, int64_t k, const GemmOperand& a, const GemmOperand& b, float* c,
          int64_t ldc, const GemmEpilogue& epilogue, void* scratch) {
  if (m < 0 || n < 0 || k < 0) return false;
  // A product this small, whose B fits in L2, takes less time than waking the other threads (a
  // recurrent cell's step, 1 x 256 x 1024, took 18.5 us on 2 threads against 11.6 on one): it
  // runs on this thread. A larger B streams from memory faster on every core (a classifier).
  std::optional<SerialRegion> serial;
  if (2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <
          kParallelMinFlops &&
      static_cast<double>(k) * static_cast<double>(n) * sizeof(float) < kParallelMinBBytes) {
    serial.emplace();
  }
  if (a.k_scale != nullptr || (b.k_scale != nullptr && b.packed != nullptr)) return false;
  const KernelInfo info = kernel_info(active_gemm_isa());
  const int64_t mr = info.mr;
  const int64_t nr = info.nr;
  if (a.packed != nullptr &&
      (a.packed->rows != m || a.packed->cols != k || a.packed->panel != mr)) {
    return false;
  }
  // A wide B (pack_weights) goes with an A read in place or copied row-major, never packed.
  const bool b_wide =
      b.packed != nullptr && info.wide != nullptr && b.packed->panel == info.wide_nr;
  if (b.packed != nullptr &&
      (b.packed->rows != k || b.packed->cols != n || (b.packed->panel != nr && !b_wide) ||
       (b_wide && (a.packed != nullptr || !b.packed->slice_major)))) {
    return false;
  }
  // K is walked in slices of the depth the slice-major operands were packed with.
  const bool b_slice_major = b.packed != nullptr && b.packed->slice_major;
  const int64_t kKc = a.packed != nullptr ? a.packed->depth
                      : b_slice_major     ? b.packed->depth
                                          : slice_depth(nr);
  if (kKc <= 0 || (b_slice_major && b.packed->depth != kKc)) return false;
  if (m == 0 || n == 0) return true;
  if (k == 0) {  // empty sum: C = epilogue(0), or C unchanged (+ epilogue) when accumulating
    for (int64_t i = 0; i < m && !epilogue.beta_one; ++i) {
      std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    }
    apply_epilogue(epilogue, c, ldc, 0, m, 0, n);
    return true;
  }
  if (m == 1 && a.packed == nullptr && b.packed != nullptr && b.packed->slice_major) {
    // One row against prepacked B (a linear layer of one token, a classifier): every weight is
    // used once, so the product is a stream over B, not a tile of the microkernel (which would
    // compute mr rows for one).
    const float* x = a.data;
    const int64_t stride = a.trans ? a.ld : 1;  // element p of the row
    gemv_rows(*b.packed, x, stride, c, epilogue.beta_one);
    apply_epilogue(epilogue, c, ldc, 0, 1, 0, n);
    return true;
  }
  // A row-major A is read in place: against a prepacked B nothing is packed here.
  const bool nothing_packed = a.packed == nullptr && !a.trans && b.packed != nullptr;
  const size_t need =
      nothing_packed ? 0 : gemm_scratch_bytes(m, n, k, a.packed != nullptr, b.packed != nullptr);
  if (need > 0 && scratch == nullptr) return false;
  // A B packed here (a batched product's operands, attention's Q K^T and P V) takes wide panels
  // too where they hold no more columns than the standard ones (N a multiple of 64, or more than
  // 32 past one): the same scratch.
  const bool pack_wide = info.wide != nullptr && a.packed == nullptr && b.packed == nullptr &&
                         round_up(n, info.wide_nr) == round_up(n, nr);
  if (b_wide || pack_wide) {
    // A transposed A is copied row-major into the scratch's A part (packed_a_bytes(m, k) >=
    // m * k floats), B packed into its B part.
    auto* bytes = static_cast<unsigned char*>(scratch);
    float* a_rows = a.trans ? reinterpret_cast<float*>(bytes) : nullptr;
    float* b_out = pack_wide ? reinterpret_cast<float*>(bytes + packed_a_bytes(m, k)) : nullptr;
    const int64_t wide_nr = info.wide_nr, depth = wide_depth(k);
    const int64_t copied_rows = a.trans ? m : 0;
    const int64_t packed_panels = pack_wide ? (n + wide_nr - 1) / wide_nr : 0;
    parallel_for(copied_rows + packed_panels, [&](int64_t item) {
      if (item < copied_rows) {
        for (int64_t p = 0; p < k; ++p) a_rows[item * k + p] = a.data[p * a.ld + item];
        return;
      }
      const int64_t j0 = (item - copied_rows) * wide_nr;
      for (int64_t pc = 0; pc < k; pc += depth) {
        const int64_t kc = std::min(depth, k - pc);
        const float* src = b.trans ? b.data + j0 * b.ld + pc : b.data + pc * b.ld + j0;
        pack_b_impl(kc, std::min(wide_nr, n - j0), src, b.ld, b.trans, wide_nr,
                    b_out + slice_offset(n, wide_nr, j0, pc, kc),
                    b.k_scale != nullptr ? b.k_scale + pc : nullptr);
      }
    });
    const PackedMatrix packed =
        pack_wide ? PackedMatrix{b_out, k, n, wide_nr, true, depth} : *b.packed;
    gemm_wide(info, m, n, k, a.trans ? a_rows : a.data, a.trans ? k : a.ld, packed, c, ldc,
              epilogue);
    return true;
  }

  // Phase 1: pack the operands that are not prepacked, one item per panel.
  auto* bytes = static_cast<unsigned char*>(scratch);
  float* a_out = nullptr;
  float* b_out = nullptr;
  // A row-major A (activations) is read in place by the microkernel; a transposed one is packed.
  const bool a_in_place = a.packed == nullptr && !a.trans;
  if (a.packed == nullptr && !a_in_place) {
    a_out = reinterpret_cast<float*>(bytes);
    bytes += packed_a_bytes(m, k);
  }
  if (b.packed == nullptr) b_out = reinterpret_cast<float*>(bytes);
  const int64_t a_panels = (m + mr - 1) / mr;
  const int64_t n_panels = (n + nr - 1) / nr;
  const int64_t pack_items = (a_out != nullptr ? a_panels : 0) + (b_out != nullptr ? n_panels : 0);
  parallel_for(pack_items, [&](int64_t item) {
    if (a_out != nullptr && item < a_panels) {
      pack_a_panels(m, k, a.data, a.ld, a.trans, mr, kKc, item, item + 1, a_out);
      return;
    }
    const int64_t j0 = (item - (a_out != nullptr ? a_panels : 0)) * nr;
    const int64_t cols = std::min(nr, n - j0);
    const float* src = b.trans ? b.data + j0 * b.ld : b.data + j0;
    pack_b_impl(k, cols, src, b.ld, b.trans, nr, b_out + j0 * k, b.k_scale);
  });
  const float* ap = a.packed != nullptr ? a.packed->data : a_out;
  const float* bp = b.packed != nullptr ? b.packed->data : b_out;
  // Slice [pc, pc + kc) of B panel j0.
  auto b_at = [&](int64_t j0, int64_t pc, int64_t kc) {
    return b_slice_major ? bp + slice_offset(n, nr, j0, pc, kc) : bp + j0 * k + pc * nr;
  };
  // Slice [pc, pc + kc) of A panel i0 (packed A only).
  auto a_at = [&](int64_t i0, int64_t pc, int64_t kc) {
    return ap + slice_offset(m, mr, i0, pc, kc);
  };
  // Prepacked weights as A against a B packed for this product (Winograd's transformed inputs,
  // im2col columns): A is the operand that arrives from memory, read once per slice by the
  // item's first B panel, so that pass prefetches A's next panel rather than B's next slice.
  const bool a_streams = a.packed != nullptr && !b_slice_major;

  // Phase 2: C in tiles of (an mc-row block) x (a group of B panels), one item each. The
  // epilogue runs in the microkernels where it can (`fused`), else over strips of finished rows.
  const GemmEpilogue* fused = has_epilogue(epilogue) && fusable(epilogue) ? &epilogue : nullptr;
  const bool strips_due = has_epilogue(epilogue) && fused == nullptr;
  const Split split = split_work(m, n_panels, mr);
  parallel_for(split.m_blocks * split.groups, [&](int64_t index) {
    const Item item = item_bounds(split, m, n, nr, index);
    const int64_t ic = item.ic, ic_end = item.ic_end, jc = item.jc, jc_end = item.jc_end;
    alignas(64) float tile[8 * 32];  // an edge tile (mr x nr <= 8 x 32)
    // B slice b_slice (panel j0's slice at pc) against A panel i0 into C, prefetching `next`.
    auto panel = [&](int64_t i0, int64_t j0, int64_t pc, int64_t kc, const float* b_slice,
                     const float* next) {
      const int64_t rows = std::min(mr, m - i0);
      const bool accumulate = pc > 0 || epilogue.beta_one;
      const float* a_slice = nullptr;
      const float* a_rows[8];  // in place: the panel's rows (the last repeated past M)
      if (a_in_place) {
        for (int64_t r = 0; r < mr; ++r)
          a_rows[r] = a.data + (i0 + std::min(r, rows - 1)) * a.ld + pc;
      } else {
        a_slice = ap + slice_offset(m, mr, i0, pc, kc);
      }
      multiply_tile(i0, j0, rows, std::min(nr, n - j0), mr, nr, accumulate, c, ldc, tile,
                    pc + kc == k ? fused : nullptr,
                    [&](float* out, int64_t ld, const detail::TileEpilogue* e) {
                      if (a_in_place) {
                        info.rows_a(kc, a_rows, b_slice, out, ld, accumulate, e, next);
                      } else {
                        info.fn(kc, a_slice, b_slice, out, ld, accumulate, e, next);
                      }
                    });
    };
    if (k <= kKc) {
      // One k slice: each A panel sweeps the columns of a chunk, so C is written row after row
      // instead of in mr-row tiles hopping across all the rows (far fewer streams of stores,
      // which dominate when K is small), and the chunk's B stays in L2 for every A panel
      // (one_slice_chunk).
      const int64_t chunk = one_slice_chunk(k, nr);
      for (int64_t j1 = jc; j1 < jc_end; j1 += chunk) {
        const int64_t j1_end = std::min(jc_end, j1 + chunk);
        for (int64_t i0 = ic; i0 < ic_end; i0 += mr) {
          Item rows{i0, std::min(ic_end, i0 + mr), j1, j1_end};
          EpilogueStrips strips{epilogue, c, ldc, rows, j1};
          for (int64_t j0 = j1; j0 < j1_end; j0 += nr) {
            panel(i0, j0, 0, k, b_at(j0, 0, k),
                  a_streams && j0 == j1 && i0 + mr < ic_end ? a_at(i0 + mr, 0, k) : nullptr);
            if (strips_due) strips.finished(std::min(n, j0 + nr));
          }
        }
      }
      return;
    }
    if (a_in_place && jc_end - jc <= nr) {
      // A read in place against a single panel of B (a convolution's plain weights against a
      // few pixels): each A panel runs through all of K before the next, so its rows stream
      // from memory whole, rather than a slice of every row at a time.
      EpilogueStrips strips{epilogue, c, ldc, item, jc};
      for (int64_t i0 = ic; i0 < ic_end; i0 += mr) {
        for (int64_t pc = 0; pc < k; pc += kKc) {
          const int64_t kc = std::min(kKc, k - pc);
          panel(i0, jc, pc, kc, b_at(jc, pc, kc), nullptr);
        }
      }
      if (strips_due) strips.finished(jc_end);
      return;
    }
    for (int64_t pc = 0; pc < k; pc += kKc) {
      const int64_t kc = std::min(kKc, k - pc);
      EpilogueStrips strips{epilogue, c, ldc, item, jc};
      for (int64_t j0 = jc; j0 < jc_end; j0 += nr) {
        const float* b_slice = b_at(j0, pc, kc);
        // The next B slice (this slice of the next panel, or the next slice of the first one)
        // is prefetched a share per A panel (NextSlice).
        const int64_t next_kc = j0 + nr < jc_end ? kc : std::min(kKc, k - pc - kc);
        const float* b_next = j0 + nr < jc_end ? b_at(j0 + nr, pc, kc)
                              : pc + kc < k    ? b_at(jc, pc + kc, next_kc)
                                               : nullptr;
        const NextSlice next = next_slice(b_next, next_kc * nr, (ic_end - ic + mr - 1) / mr);
        for (int64_t i0 = ic; i0 < ic_end; i0 += mr) {
          // The first panel's pass brings each A panel's slice from memory: the next one's is
          // prefetched instead (later passes find them in L2).
          const float* ahead = !a_streams || j0 != jc ? next.for_block((i0 - ic) / mr)
                               : i0 + mr < ic_end     ? a_at(i0 + mr, pc, kc)
                                                      : nullptr;
          panel(i0, j0, pc, kc, b_slice, ahead);
        }
        if (pc + kc == k && strips_due) strips.finished(std::min(n, j0 + nr));
      }
    }
  });
  return true;
}

bool gemm_indirect(int64_t m, int64_t n, int64_t k, const PackedMatrix& a,
                   const float* const* b_rows, float* c, int64_t ldc, const GemmEpilogue& epilogue,
                   const GemmColumnRows* column_rows) {
  const KernelInfo info = kernel_info(active_gemm_isa());
  const int64_t mr = info.mr;
  const int64_t nr = info.nr;
  if (m < 0 || n < 0 || k <= 0 || a.rows != m || a.cols != k || a.panel != mr || a.depth <= 0 ||
      a.depth * nr > kEdgeFloats) {
    return false;
  }
  if (epilogue.beta_one) return false;
  if (column_rows != nullptr &&
      (k > a.depth || column_rows->width <= 0 || column_rows->width > column_rows->pitch ||
       (epilogue.bias != nullptr && !epilogue.bias_per_row))) {
    return false;
  }
  if (m == 0 || n == 0) return true;
  // As gemm(): slices of kc rows of B (kc x nr floats, now scattered over the rows but reused
  // by every A panel of the row block), row blocks of mc, column groups spread over the threads.
  const GemmEpilogue* fused = has_epilogue(epilogue) && fusable(epilogue) ? &epilogue : nullptr;
  const bool strips_due = has_epilogue(epilogue) && fused == nullptr;
  const int64_t kKc = a.depth;
  const int64_t n_panels = (n + nr - 1) / nr;
  const Split split = split_work(m, n_panels, mr);
  parallel_for(split.m_blocks * split.groups, [&](int64_t index) {
    const Item item = item_bounds(split, m, n, nr, index);
    alignas(64) float tile[8 * 32];  // an edge tile (mr x nr <= 8 x 32)
    // The last, partial panel's slice packed with zeros past column n (rows are read only up to
    // n): kc x nr floats.
    alignas(64) float edge[kEdgeFloats];
    int64_t edge_pc = -1;  // the slice `edge` holds (of the one partial panel), -1: none
    // The partial panel at j0's slice at pc into `edge` (once per slice).
    auto load_edge = [&](int64_t j0, int64_t pc, int64_t kc) {
      if (edge_pc == pc) return;
      edge_pc = pc;
      const int64_t cols = n - j0;
      for (int64_t p = 0; p < kc; ++p) {
        std::memcpy(edge + p * nr, b_rows[pc + p] + j0, static_cast<size_t>(cols) * sizeof(float));
        std::fill(edge + p * nr + cols, edge + (p + 1) * nr, 0.0f);
      }
    };
    // Panel j0's slice at pc against A panel i0 into C.
    auto panel = [&](int64_t i0, int64_t j0, int64_t pc, int64_t kc) {
      const int64_t cols = std::min(nr, n - j0);
      if (cols < nr) load_edge(j0, pc, kc);
      const float* a_slice = a.data + slice_offset(m, mr, i0, pc, kc);
      const bool accumulate = pc > 0;
      multiply_tile(i0, j0, std::min(mr, m - i0), cols, mr, nr, accumulate, c, ldc, tile,
                    pc + kc == k ? fused : nullptr,
                    [&](float* out, int64_t ld, const detail::TileEpilogue* e) {
                      if (cols < nr) {
                        info.fn(kc, a_slice, edge, out, ld, accumulate, e, nullptr);
                      } else {
                        info.indirect(kc, a_slice, b_rows + pc, j0, out, ld, accumulate, e);
                      }
                    });
    };
    if (column_rows != nullptr) {
      // One k slice. A whole tile whose columns are all kept, in one image row, is stored by the
      // microkernel where they go (with the epilogue when it is a clamp): its stores then
      // overlap the next tiles' work instead of piling up in a copy. Other tiles go into
      // `tile`, then their columns' kept runs into C with the epilogue.
      for (int64_t i0 = item.ic; i0 < item.ic_end; i0 += mr) {
        for (int64_t j0 = item.jc; j0 < item.jc_end; j0 += nr) {
          const int64_t cols = std::min(nr, n - j0);
          if (cols < nr) load_edge(j0, 0, k);
          const float* a_slice = a.data + slice_offset(m, mr, i0, 0, k);
          const int64_t y = j0 / column_rows->pitch, x = j0 - y * column_rows->pitch;
          if (cols == nr && x + nr <= column_rows->width && i0 + mr <= m &&
              (fused != nullptr || !has_epilogue(epilogue))) {
            const int64_t at = y * column_rows->width + x;
            if (fused != nullptr) {
              const detail::TileEpilogue t = tile_epilogue(*fused, i0, at);
              info.indirect(k, a_slice, b_rows, j0, c + i0 * ldc + at, ldc, false, &t);
            } else {
              info.indirect(k, a_slice, b_rows, j0, c + i0 * ldc + at, ldc, false, nullptr);
            }
            continue;
          }
          if (cols < nr) {
            info.fn(k, a_slice, edge, tile, nr, false, nullptr, nullptr);
          } else {
            info.indirect(k, a_slice, b_rows, j0, tile, nr, false, nullptr);
          }
          store_column_rows(epilogue, *column_rows, tile, nr, c, ldc, i0, std::min(mr, m - i0), j0,
                            cols);
        }
      }
      return;
    }
    if (k <= kKc) {
      // One k slice (a pointwise convolution's few input channels): each A panel sweeps the
      // columns of a chunk, so C is written row after row instead of in mr-row tiles hopping
      // across all the rows (far fewer streams of stores, which dominate when K is small), and
      // the chunk's B rows stay in L2 for every A panel (one_slice_chunk).
      const int64_t chunk = one_slice_chunk(k, nr);
      for (int64_t j1 = item.jc; j1 < item.jc_end; j1 += chunk) {
        const int64_t j1_end = std::min(item.jc_end, j1 + chunk);
        for (int64_t i0 = item.ic; i0 < item.ic_end; i0 += mr) {
          Item rows{i0, std::min(item.ic_end, i0 + mr), j1, j1_end};
          EpilogueStrips strips{epilogue, c, ldc, rows, j1};
          for (int64_t j0 = j1; j0 < j1_end; j0 += nr) {
            panel(i0, j0, 0, k);
            if (strips_due) strips.finished(std::min(n, j0 + nr));
          }
        }
      }
      return;
    }
    // A few B panels (a deep layer's few pixels): each A panel meets all of them in turn, so
    // weights that arrive from memory are used that many times as they arrive, instead of once
    // per pass over the row block (the passes after the first find them in L2, but the first
    // waits on memory with little to compute).
    const bool a_major = item.jc_end - item.jc <= kFewPanels * nr;
    for (int64_t pc = 0; pc < k; pc += kKc) {
      const int64_t kc = std::min(kKc, k - pc);
      EpilogueStrips strips{epilogue, c, ldc, item, item.jc};
      if (a_major) {
        for (int64_t i0 = item.ic; i0 < item.ic_end; i0 += mr) {
          for (int64_t j0 = item.jc; j0 < item.jc_end; j0 += nr) panel(i0, j0, pc, kc);
        }
        if (pc + kc == k && strips_due) strips.finished(item.jc_end);
        continue;
      }
      for (int64_t j0 = item.jc; j0 < item.jc_end; j0 += nr) {
        for (int64_t i0 = item.ic; i0 < item.ic_end; i0 += mr) {
          panel(i0, j0, pc, kc);
        }
        if (pc + kc == k && strips_due) strips.finished(std::min(n, j0 + nr));
      }
    }
  });
  return true;
}

}  // namespace ptec::kernels::optimized
