#include "kernels/optimized/conv2d_direct.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>

#include <unistd.h>

#include "kernels/optimized/activation.h"
#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

constexpr size_t kAlign = 64;
constexpr int64_t kMaxStride = 64;
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

// The padded input of a channel is split into phases by stride: phase (py, px) holds padded rows
// py, py + sh, ... and columns px, px + sw, ..., with row pitch q; only the phases some tap reads
// are kept (a 1x1 stride-2 convolution reads one). Tap (ky, kx) reads phase
// (ky dh mod sh, kx dw mod sw) at row offset ky dh / sh and column offset kx dw / sw, and output
// (oy, ox) is flat index oy * q + ox of the phase grid.
struct Geometry {
  int64_t q, phase_rows;  // one phase: rows x pitch
  // Phase (py, px) is kept when some tap row reads py and some tap column px; it is then number
  // row_rank[py] * kept_cols + col_rank[px] of its channel (ranks -1 where not read).
  int64_t row_rank[kMaxStride], col_rank[kMaxStride], kept_cols;
  int64_t phases;  // phases kept per channel
  int64_t plane;   // floats per channel: phases x phase_rows x q
  int64_t flat;    // flat outputs: (oh - 1) * q + ow
};

Geometry geometry(const Conv2dShape& s) {
  Geometry g{};
  g.q = (s.w + 2 * s.pw + s.sw - 1) / s.sw;
  g.phase_rows = (s.h + 2 * s.ph + s.sh - 1) / s.sh;
  bool row_read[kMaxStride] = {}, col_read[kMaxStride] = {};
  for (int64_t ky = 0; ky < s.kh; ++ky) row_read[ky * s.dh % s.sh] = true;
  for (int64_t kx = 0; kx < s.kw; ++kx) col_read[kx * s.dw % s.sw] = true;
  int64_t kept_rows = 0;
  for (int64_t py = 0; py < s.sh; ++py) g.row_rank[py] = row_read[py] ? kept_rows++ : -1;
  for (int64_t px = 0; px < s.sw; ++px) g.col_rank[px] = col_read[px] ? g.kept_cols++ : -1;
  g.phases = kept_rows * g.kept_cols;
  g.plane = g.phases * g.phase_rows * g.q;
  g.flat = (s.oh() - 1) * g.q + s.ow();
  return g;
}

// Where phase (py, px) is in a channel, or -1 when no tap reads it.
int64_t slot(const Geometry& g, int64_t py, int64_t px) {
  if (g.row_rank[py] < 0 || g.col_rank[px] < 0) return -1;
  return g.row_rank[py] * g.kept_cols + g.col_rank[px];
}

// Half of this core's L2 cache (1 MiB where the system does not say).
int64_t half_l2_bytes() {
  static const int64_t bytes = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? static_cast<int64_t>(l2) / 2 : int64_t{1} << 20;
  }();
  return bytes;
}

// Fills channel `src`'s kept phases (times `scale`) into `plane`. The strides of 1 and 2 are
// compile-time constants in their copy loops (a run-time stride would gather element by element).
__attribute__((target_clones("avx512f", "avx2", "default"))) void fill_phases(
    const Conv2dShape& s, const Geometry& g, const float* src, float scale, float* plane) {
  for (int64_t py = 0; py < s.sh; ++py) {
    for (int64_t px = 0; px < s.sw; ++px) {
      if (slot(g, py, px) < 0) continue;
      float* phase = plane + slot(g, py, px) * g.phase_rows * g.q;
      for (int64_t y = 0; y < g.phase_rows; ++y) {
        float* dst = phase + y * g.q;
        const int64_t iy = y * s.sh + py - s.ph;
        if (iy < 0 || iy >= s.h) {
          std::fill(dst, dst + g.q, 0.0f);
          continue;
        }
        const float* row = src + iy * s.w;
        // Columns x with 0 <= x sw + px - pw < w are inside the input.
        const int64_t first = std::min(g.q, std::max<int64_t>(0, (s.pw - px + s.sw - 1) / s.sw));
        const int64_t end = std::max(first, std::min(g.q, (s.w + s.pw - px + s.sw - 1) / s.sw));
        std::fill(dst, dst + first, 0.0f);
        const float* in = row + (first * s.sw + px - s.pw);
        float* out = dst + first;
        const int64_t count = end - first;
        if (s.sw == 1 && scale == 1.0f) {
          std::memcpy(out, in, static_cast<size_t>(count) * sizeof(float));
        } else if (s.sw == 1) {
          for (int64_t x = 0; x < count; ++x) out[x] = in[x] * scale;
        } else if (s.sw == 2) {
          for (int64_t x = 0; x < count; ++x) out[x] = in[2 * x] * scale;
        } else {
          for (int64_t x = 0; x < count; ++x) out[x] = in[x * s.sw] * scale;
        }
        std::fill(dst + end, dst + g.q, 0.0f);
      }
    }
  }
}

// dst[x] = clamp(src[x] + bias (+ res[x])) for x in [0, n), the clamp as activate() applies it.
template <bool kResidual>
__attribute__((always_inline)) inline void store_clamped(float* dst, const float* src,
                                                         const float* res, float bias,
                                                         const ClampBounds& b, int64_t n) {
  if (b.relu) {
    for (int64_t x = 0; x < n; ++x) {
      const float v = kResidual ? src[x] + bias + res[x] : src[x] + bias;
      dst[x] = v > 0.0f ? v : 0.0f;
    }
  } else {
    for (int64_t x = 0; x < n; ++x) {
      const float v = kResidual ? src[x] + bias + res[x] : src[x] + bias;
      dst[x] = std::min(std::max(v, b.lo), b.hi);
    }
  }
}

// One output channel's valid columns out of the flat result (pitch q) into its oh x ow plane,
// with bias, residual (null: none) and activation in one pass per row: the clamps as the values
// are stored, other activations over the row just written.
__attribute__((target_clones("avx512f", "avx2", "default"))) void store_plane(
    const float* flat, int64_t q, int64_t oh, int64_t ow, float bias, const float* residual,
    const GemmEpilogue& e, float* out) {
  const bool clamp = is_clamp(e.activation);
  const ClampBounds b = clamp ? clamp_bounds(e.activation, e.clamp_min, e.clamp_max)
                              : ClampBounds{};  // None: the sums as they are
  for (int64_t oy = 0; oy < oh; ++oy) {
    const float* src = flat + oy * q;
    float* dst = out + oy * ow;
    if (residual != nullptr) {
      store_clamped<true>(dst, src, residual + oy * ow, bias, b, ow);
    } else {
      store_clamped<false>(dst, src, nullptr, bias, b, ow);
    }
    if (!clamp) activate_in_place(dst, ow, e.activation, e.clamp_min, e.clamp_max);
  }
}

}  // namespace

bool conv2d_direct_applies(const Conv2dShape& s) {
  return s.valid() && !s.depthwise() && !s.pointwise() && s.sh <= kMaxStride && s.sw <= kMaxStride;
}

namespace {

// One worker's scratch: the group's padded planes, B's row pointers, the flat result.
size_t slot_bytes(const Conv2dShape& s, const Geometry& g) {
  const size_t padded = align_up(static_cast<size_t>(s.c_per_group() * g.plane) * sizeof(float));
  const size_t rows = align_up(static_cast<size_t>(s.k()) * sizeof(const float*));
  const size_t flat = align_up(static_cast<size_t>(s.oc_per_group() * g.flat) * sizeof(float));
  return padded + rows + flat;
}

// The workers a convolution's groups are split among: up to `workers` where each group runs
// on its own thread (conv2d_groups_serial), else one (its group's regions use the threads).
int64_t group_workers(const Conv2dShape& s, int64_t workers) {
  return conv2d_groups_serial(s) ? std::clamp<int64_t>(s.n * s.groups, 1, workers) : 1;
}

// One worker's buffers in its scratch slot: the group's padded planes, B's row pointers into
// them (set once per slot), the flat result.
struct Buffers {
  float* padded;
  const float** rows;
  float* flat;
};

Buffers buffers_in(const Conv2dShape& s, const Geometry& g, unsigned char* bytes) {
  const int64_t cg = s.c_per_group();
  Buffers w;
  w.padded = reinterpret_cast<float*>(bytes);
  bytes += align_up(static_cast<size_t>(cg * g.plane) * sizeof(float));
  w.rows = reinterpret_cast<const float**>(bytes);
  bytes += align_up(static_cast<size_t>(s.k()) * sizeof(const float*));
  w.flat = reinterpret_cast<float*>(bytes);
  // Row p = (c, ky, kx) of B starts at the tap's phase and offset in channel c's plane.
  const int64_t taps = s.kh * s.kw;
  for (int64_t c = 0; c < cg; ++c) {
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const int64_t ry = ky * s.dh, rx = kx * s.dw;
        w.rows[c * taps + ky * s.kw + kx] = w.padded + c * g.plane +
                                            slot(g, ry % s.sh, rx % s.sw) * g.phase_rows * g.q +
                                            ry / s.sh * g.q + rx / s.sw;
      }
    }
  }
  return w;
}

// Group grp of image b, with one worker's buffers.
bool run_group(const Conv2dShape& s, const Geometry& g, int64_t b, int64_t grp, const float* input,
               const float* packed_weights, const GemmEpilogue& epilogue, float* output,
               const Buffers& w, const float* input_scale) {
  const int64_t cg = s.c_per_group(), ocg = s.oc_per_group(), k = s.k();
  const int64_t oh = s.oh(), ow = s.ow(), ohw = oh * ow;
  float* padded = w.padded;
  const float* const* rows = w.rows;
  float* flat = w.flat;
  const float* in = input + (b * s.c + grp * cg) * s.h * s.w;
  const float* scale = input_scale != nullptr ? input_scale + b * s.c + grp * cg : nullptr;
  parallel_for(cg, [&](int64_t c) {
    fill_phases(s, g, in + c * s.h * s.w, scale != nullptr ? scale[c] : 1.0f, padded + c * g.plane);
  });
  const PackedMatrix a = conv2d_group_weights(s, packed_weights, grp);
  float* out = output + (b * s.oc + grp * ocg) * ohw;
  const float* residual =
      epilogue.residual != nullptr ? epilogue.residual + (b * s.oc + grp * ocg) * ohw : nullptr;
  if (k <= a.depth && ocg * g.flat * static_cast<int64_t>(sizeof(float)) > half_l2_bytes()) {
    // One slice of K (a stem's few channels) and a flat result larger than half of L2: the
    // GEMM stores each tile's valid columns into the output with the epilogue, instead of
    // the whole flat result going out to memory and back (measured: stems 6-10% faster; a
    // result that stays in L2 is faster to copy out after, by whole rows).
    GemmEpilogue e = epilogue;
    e.bias = epilogue.bias != nullptr ? epilogue.bias + grp * ocg : nullptr;
    e.bias_per_row = true;
    e.residual = residual;
    e.ldr = ohw;
    const GemmColumnRows map{g.q, ow};
    return gemm_indirect(ocg, g.flat, k, a, rows, out, ohw, e, &map);
  }
  if (!gemm_indirect(ocg, g.flat, k, a, rows, flat, g.flat)) return false;
  // Copy the valid columns out with bias, residual and activation.
  parallel_for(ocg, [&](int64_t o) {
    store_plane(flat + o * g.flat, g.q, oh, ow,
                epilogue.bias != nullptr ? epilogue.bias[grp * ocg + o] : 0.0f,
                residual != nullptr ? residual + o * ohw : nullptr, epilogue, out + o * ohw);
  });
  return true;
}

}  // namespace

size_t conv2d_direct_scratch_bytes(const Conv2dShape& s, int64_t workers) {
  return slot_bytes(s, geometry(s)) * static_cast<size_t>(group_workers(s, workers));
}

bool conv2d_groups_serial(const Conv2dShape& s) {
  return s.groups > 1 &&
         2.0 * static_cast<double>(s.oc_per_group() * s.k() * s.oh() * s.ow()) < 4.0e6;
}

bool conv2d_direct(const Conv2dShape& s, const float* input, const float* packed_weights,
                   const GemmEpilogue& epilogue, float* output, void* scratch,
                   const float* input_scale, int64_t workers) {
  if (!conv2d_direct_applies(s) || scratch == nullptr || packed_weights == nullptr || workers < 1) {
    return false;
  }
  const Geometry g = geometry(s);
  auto* bytes = static_cast<unsigned char*>(scratch);
  const int64_t used = group_workers(s, workers);
  if (used > 1) {
    // Groups too small for the threads to share one (conv2d_groups_serial) are spread over
    // them instead, a worker's groups in turn on its own scratch (nested regions run serially).
    const size_t per_worker = slot_bytes(s, g);
    const int64_t items = s.n * s.groups;
    std::atomic<bool> ok{true};
    parallel_for(used, [&](int64_t worker) {
      const Buffers mine = buffers_in(s, g, bytes + static_cast<size_t>(worker) * per_worker);
      for (int64_t item = worker; item < items; item += used) {
        if (!run_group(s, g, item / s.groups, item % s.groups, input, packed_weights, epilogue,
                       output, mine, input_scale)) {
          ok.store(false, std::memory_order_relaxed);
        }
      }
    });
    return ok.load();
  }
  // One worker: each group's regions use the threads, unless the groups are small (they then
  // run on the calling thread: waking the others per group costs more than it saves).
  std::optional<SerialRegion> serial;
  if (conv2d_groups_serial(s)) serial.emplace();
  const Buffers only = buffers_in(s, g, bytes);
  for (int64_t b = 0; b < s.n; ++b) {
    for (int64_t grp = 0; grp < s.groups; ++grp) {
      if (!run_group(s, g, b, grp, input, packed_weights, epilogue, output, only, input_scale)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace ptec::kernels::optimized
