#include "kernels/optimized/conv2d_pixels.h"

#include <algorithm>
#include <cstring>

#include "kernels/optimized/activation.h"
#include "kernels/optimized/conv2d_direct.h"
#include "kernels/optimized/gemm.h"
#include "kernels/optimized/gemm_microkernel.h"
#include "kernels/optimized/lane_vectors.h"
#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

constexpr size_t kAlign = 64;
constexpr int64_t kItemRows = 128;  // output pixels per work item at most
constexpr int64_t kMaxMr = 8;       // the tallest microkernel panel (AVX-512)
constexpr int64_t kMaxNr = 32;      // the widest (AVX-512)
// conv2d_pixels_preferred's limits (see conv2d_pixels.h).
constexpr int64_t kPointwisePixelsMax = 256;
constexpr double kPreferredShare = 0.97;
constexpr size_t kStrided1x1Input = size_t{2} << 20;

size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }
int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// Pixel offsets for M pixels: the last panel of any microkernel reads up to its height past M.
int64_t offsets_count(int64_t m) { return round_up(m, kMaxMr) + kMaxMr; }

// The pixel panels' height for M pixels: the ISA's tile, or its shorter kernels (7 rows with
// AVX-512, 5 with AVX2) where they compute at least 5% fewer rows (a 7 x 7 output: 7 panels of 7
// instead of 56 rows, 10-12% faster; measured unchanged on 14 x 14, 196 rows instead of 200).
int64_t panel_rows(GemmIsa isa, int64_t m) {
  const int64_t mr = gemm_tile(isa).mr;
  const int64_t short_mr = isa == GemmIsa::Avx512 ? detail::kAvx512ShortMr
                           : isa == GemmIsa::Avx2 ? detail::kAvx2ShortMr
                                                  : mr;
  return 20 * round_up(m, short_mr) <= 19 * round_up(m, mr) ? short_mr : mr;
}

// The planes A reads: the input's own (h x w) or a zero-padded copy's.
struct Planes {
  int64_t rows, pitch;
  int64_t floats() const { return rows * pitch; }
};
Planes copied_planes(const Conv2dShape& s) { return {s.h + 2 * s.ph, s.w + 2 * s.pw}; }

// W^T (K x OC) as the GEMM's B, packed slice-major in the standard depth.
PackedMatrix weights_of(const Conv2dShape& s, const float* packed) {
  return PackedMatrix{
      packed, s.k(), s.oc, gemm_tile(active_gemm_isa()).nr, true, gemm_slice_depth()};
}

// One image's product: work item `item` is pixel block item / panels (item_rows pixels) times B
// panel item % panels (nr output channels), panels = ceil(OC / nr). Consecutive items share
// their pixels: the weights (B) are streamed once per pixel block, from L2 where they fit,
// instead of the input once per B panel (256 -> 128 channels 1x1 stride 2 at 56x56, a 3.2 MB
// input: 0.61 -> 0.48 ms).
struct Job {
  const Conv2dShape& s;
  const GemmEpilogue& e;
  PackedMatrix b;
  const float* const* cols;  // K tap pointers into this image's planes
  const int64_t* offsets;    // offsets_count(M) pixel offsets (the last repeated past M)
  float* out;                // this image's output
  const float* residual;     // this image's residual, or null
  int64_t m, item_rows, m_blocks;
  bool out_blocked;  // the output in blocks of Nr / 2 channels (conv2d.h), stored untransposed
};

// out[j * plane + i] = clamp(tile[i * ldt + j] + bias[j] + residual[j * plane + i]) for `count`
// pixels i and `cols` channels j (bias and residual may be null), L x L blocks transposed in
// registers; the last pixel group is the L ending at `count` (some stored twice).
template <int L>
__attribute__((always_inline)) inline void store_transposed(const float* tile, int64_t ldt,
                                                            int64_t count, int64_t cols, float* out,
                                                            int64_t plane, const float* bias,
                                                            const float* residual,
                                                            const ClampBounds& bounds) {
  using Vec = typename Lanes<L>::Vec;
  if (count < L) {  // fewer pixels than a vector: one by one
    for (int64_t j = 0; j < cols; ++j) {
      for (int64_t i = 0; i < count; ++i) {
        float v = tile[i * ldt + j];
        if (bias != nullptr) v += bias[j];
        if (residual != nullptr) v += residual[j * plane + i];
        out[j * plane + i] = apply_clamp(v, bounds);
      }
    }
    return;
  }
  const VecClamp<Vec> clamped(bounds);
  for (int64_t g0 = 0; g0 < count; g0 += L) {
    const int64_t i0 = std::min(g0, count - L);
    for (int64_t j0 = 0; j0 < cols; j0 += L) {
      Vec v[L];
      for (int64_t r = 0; r < L; ++r) std::memcpy(&v[r], tile + (i0 + r) * ldt + j0, sizeof(Vec));
      transpose<L>(v);
      const int64_t n = std::min<int64_t>(L, cols - j0);
      for (int64_t c = 0; c < n; ++c) {
        const int64_t j = j0 + c;
        if (bias != nullptr) v[c] += Vec{} + bias[j];
        if (residual != nullptr) {
          Vec r;
          std::memcpy(&r, residual + j * plane + i0, sizeof(r));
          v[c] += r;
        }
        clamped.apply(v[c]);
        std::memcpy(out + j * plane + i0, &v[c], sizeof(Vec));
      }
    }
  }
}

// `transposed` (may be null): the ISA's microkernel that stores its tile transposed with the
// epilogue, used for the last k slice where the activation is a clamp (or none), or SiLU without a
// residual: the tile then never makes the round trip through the stack buffer.
using TransposedKernel = void (*)(int64_t kc, const float* const* a_cols, const int64_t* a_offsets,
                                  const float* b, const detail::TransposedStore& t);
// `blocked` (may be null): the ISA's microkernel that stores its tile in channel blocks with bias
// and clamp (or SiLU), used for the last k slice of a blocked output (conv2d.h) where the
// activation is a clamp (or none) or SiLU; otherwise the tile goes through the stack buffer to the
// blocks.
using BlockedKernel = void (*)(int64_t kc, const float* const* a_cols, const int64_t* a_offsets,
                               const float* b, const detail::BlockedStore& t);

template <int L, int64_t Mr, int64_t Nr>
__attribute__((always_inline)) inline void run_item(const Job& job, int64_t item,
                                                    detail::OffsetsAMicroKernel kernel,
                                                    TransposedKernel transposed,
                                                    BlockedKernel blocked) {
  static_assert(Mr <= kMaxMr && Nr <= kMaxNr && Nr % L == 0);
  const Conv2dShape& s = job.s;
  const GemmEpilogue& e = job.e;
  const int64_t k = s.k(), depth = job.b.depth;
  const int64_t b_panels = (s.oc + Nr - 1) / Nr;
  const int64_t j0 = item % b_panels * Nr, cols = std::min(Nr, s.oc - j0);
  const int64_t m0 = item / b_panels * job.item_rows;
  const int64_t count = std::min(job.item_rows, job.m - m0);
  const bool clamp = is_clamp(e.activation);
  const ClampBounds bounds =
      clamp_bounds(clamp ? e.activation : Activation::None, e.clamp_min, e.clamp_max);
  const float* bias = e.bias != nullptr ? e.bias + j0 : nullptr;
  const float* residual = job.residual != nullptr ? job.residual + j0 * job.m + m0 : nullptr;
  float* out = job.out + j0 * job.m + m0;
  // SiLU (without a residual) runs on the accumulators too, in the kernels that store directly.
  const bool silu = e.activation == Activation::Silu && residual == nullptr;
  const bool direct =
      (clamp || silu) && (job.out_blocked ? blocked != nullptr : transposed != nullptr);
  constexpr int64_t kB = Nr / 2;  // channels per block of a blocked output
  // Each k slice of the B panel (in L1) meets every pixel panel of the item; the tile
  // accumulates over the slices.
  alignas(64) float tile[kItemRows * kMaxNr];
  // The next slice is prefetched a share per pixel panel, by the microkernels as they multiply
  // (detail::StreamPrefetch): weights that come from memory (a deep layer's megabytes) stream in
  // while this slice is multiplied.
  const int64_t panels = (count + Mr - 1) / Mr;
  for (int64_t pc = 0; pc < k; pc += depth) {
    const int64_t kc = std::min(depth, k - pc);
    const float* b = packed_b_slice(job.b, j0, pc);
    const float* next = pc + kc < k ? packed_b_slice(job.b, j0, pc + kc) : nullptr;
    const int64_t next_floats = next != nullptr ? std::min(depth, k - pc - kc) * Nr : 0;
    const int64_t share = (next_floats / 16 + panels - 1) / panels * 16;
    for (int64_t i0 = 0, t = 0; i0 < count; i0 += Mr, ++t) {
      if (direct && next == nullptr) {  // the last slice, stored by the kernel with the epilogue
        detail::TileEnd end;
        end.rows = std::min(Mr, count - i0);
        end.cols = cols;
        end.partial = pc > 0 ? tile + i0 * Nr : nullptr;
        end.bias = bias;
        end.relu = bounds.relu;
        end.lo = bounds.lo;
        end.hi = bounds.hi;
        end.silu = silu;
        if (job.out_blocked) {  // into its blocks
          detail::BlockedStore bs{end};
          bs.c = job.out + ((j0 / kB) * job.m + m0 + i0) * kB;
          bs.block_stride = job.m * kB;
          blocked(kc, job.cols + pc, job.offsets + m0 + i0, b, bs);
        } else {  // transposed
          detail::TransposedStore ts{end};
          ts.c = out + i0;
          ts.ldc = job.m;
          ts.residual = residual != nullptr ? residual + i0 : nullptr;
          ts.ldr = job.m;
          transposed(kc, job.cols + pc, job.offsets + m0 + i0, b, ts);
        }
        continue;
      }
      kernel(kc, job.cols + pc, job.offsets + m0 + i0, b, tile + i0 * Nr, Nr, pc > 0, nullptr,
             t * share < next_floats ? next + t * share : nullptr);
    }
  }
  if (direct) return;
  // act(c + bias) over the tile's rows before they are stored: always into blocks (no residual),
  // and transposed where the activation is not a clamp and no residual comes after it.
  if (job.out_blocked || (!clamp && residual == nullptr)) {
    for (int64_t i = 0; i < count && bias != nullptr; ++i) {
      for (int64_t j = 0; j < cols; ++j) tile[i * Nr + j] += bias[j];
    }
    activate_in_place(tile, count * Nr, e.activation, e.clamp_min, e.clamp_max);
    bias = nullptr;
  }
  if (job.out_blocked) {                       // each row's halves into their blocks
    for (int64_t h = 0; h * kB < cols; ++h) {  // (cols is a multiple of kB)
      float* block = job.out + ((j0 / kB + h) * job.m + m0) * kB;
      for (int64_t i = 0; i < count; ++i) {
        std::memcpy(block + i * kB, tile + i * Nr + h * kB, kB * sizeof(float));
      }
    }
    return;
  }
  store_transposed<L>(tile, Nr, count, cols, out, job.m, bias, residual, bounds);
  if (!clamp && residual != nullptr) {  // act(c + bias + residual) over the stored runs
    for (int64_t j = 0; j < cols; ++j) {
      activate_in_place(out + j * job.m, count, e.activation, e.clamp_min, e.clamp_max);
    }
  }
}

// One work item per instruction set, each compiled for it: its microkernel, and vectors as wide
// as its registers for the transposed stores.
#if defined(PTEC_GEMM_HAVE_AVX2)
__attribute__((target("avx512f"))) void run_item_avx512(const Job& job, int64_t item) {
  run_item<16, detail::kAvx512Mr, detail::kAvx512Nr>(
      job, item, detail::microkernel_avx512_8x32_offsets_a,
      detail::microkernel_avx512_8x32_offsets_a_transposed,
      detail::microkernel_avx512_8x32_offsets_a_blocked);
}
__attribute__((target("avx512f"))) void run_item_avx512_7(const Job& job, int64_t item) {
  run_item<16, detail::kAvx512ShortMr, detail::kAvx512Nr>(
      job, item, detail::microkernel_avx512_7x32_offsets_a,
      detail::microkernel_avx512_7x32_offsets_a_transposed,
      detail::microkernel_avx512_7x32_offsets_a_blocked);
}
__attribute__((target("avx2,fma"))) void run_item_avx2(const Job& job, int64_t item) {
  run_item<8, detail::kAvx2Mr, detail::kAvx2Nr>(job, item, detail::microkernel_avx2_6x16_offsets_a,
                                                nullptr, nullptr);
}
__attribute__((target("avx2,fma"))) void run_item_avx2_5(const Job& job, int64_t item) {
  run_item<8, detail::kAvx2ShortMr, detail::kAvx2Nr>(
      job, item, detail::microkernel_avx2_5x16_offsets_a, nullptr, nullptr);
}
#endif
void run_item_generic(const Job& job, int64_t item) {
  run_item<4, detail::kGenericMr, detail::kGenericNr>(
      job, item, detail::microkernel_generic_4x8_offsets_a, nullptr, nullptr);
}

// Channel c of the image (times `scale`) into its zero-padded plane.
void fill_plane(const Conv2dShape& s, const Planes& p, const float* src, float scale, float* dst) {
  std::fill(dst, dst + s.ph * p.pitch, 0.0f);
  for (int64_t y = 0; y < s.h; ++y) {
    float* row = dst + (s.ph + y) * p.pitch;
    std::fill(row, row + s.pw, 0.0f);
    const float* in = src + y * s.w;
    for (int64_t x = 0; x < s.w; ++x) row[s.pw + x] = in[x] * scale;
    std::fill(row + s.pw + s.w, row + p.pitch, 0.0f);
  }
  std::fill(dst + (s.ph + s.h) * p.pitch, dst + p.floats(), 0.0f);
}

}  // namespace

bool conv2d_pixels_applies(const Conv2dShape& s) {
  return s.valid() && s.groups == 1 && !s.depthwise();
}

bool conv2d_pixels_preferred(const Conv2dShape& s) {
  if (!conv2d_pixels_applies(s)) return false;
  const GemmTile t = gemm_tile(active_gemm_isa());
  const int64_t m = s.oh() * s.ow();
  if (s.pointwise() && m > kPointwisePixelsMax) return false;
  // The channel-major GEMM's columns: the pixels, or the direct convolution's flat result (each
  // output row computed over its phase's row pitch).
  const int64_t q = (s.w + 2 * s.pw + s.sw - 1) / s.sw;
  const int64_t columns =
      s.pointwise() || !conv2d_direct_applies(s) ? m : (s.oh() - 1) * q + s.ow();
  const double pixels =
      static_cast<double>(round_up(m, panel_rows(active_gemm_isa(), m)) * round_up(s.oc, t.nr));
  const double channels = static_cast<double>(round_up(s.oc, t.mr) * round_up(columns, t.nr));
  // A strided 1x1 convolution reads its input in place here, where the channel-major path
  // copies its stride phase first: Pixels unless it computes more, or its input is larger than
  // L2 (see conv2d.h).
  const bool strided_1x1 = s.kh == 1 && s.kw == 1 && !s.pointwise() &&
                           static_cast<size_t>(s.c * s.h * s.w) * sizeof(float) <= kStrided1x1Input;
  return pixels <= (strided_1x1 ? 1.0 : kPreferredShare) * channels;
}

size_t conv2d_pixels_packed_weights_bytes(const Conv2dShape& s) {
  return packed_b_bytes(s.k(), s.oc);
}

void conv2d_pixels_pack_weights(const Conv2dShape& s, const float* weights, float* out) {
  // B = W^T: element (p, o) is weights[o * K + p].
  pack_b(s.k(), s.oc, weights, s.k(), true, out, gemm_slice_depth());
}

size_t conv2d_pixels_scratch_bytes(const Conv2dShape& s) {
  const int64_t m = s.oh() * s.ow();
  return align_up(static_cast<size_t>(offsets_count(m)) * sizeof(int64_t)) +
         align_up(static_cast<size_t>(s.k()) * sizeof(const float*)) +
         align_up(static_cast<size_t>(s.c * copied_planes(s).floats()) * sizeof(float));
}

bool conv2d_pixels(const Conv2dShape& s, const float* input, const float* packed_weights,
                   const GemmEpilogue& epilogue, float* output, void* scratch,
                   const float* input_scale, ConvLayouts layouts) {
  if (!conv2d_pixels_applies(s) || scratch == nullptr || packed_weights == nullptr) return false;
  const GemmIsa isa = active_gemm_isa();
  const GemmTile tile = gemm_tile(isa);
  const int64_t m = s.oh() * s.ow(), k = s.k(), ow = s.ow();
  const bool copy = input_scale != nullptr || s.ph > 0 || s.pw > 0;
  const int64_t block = blocked_channels();  // (tile.nr / 2, as run_item's blocks)
  if ((layouts.input_blocked && (copy || s.c % block != 0)) ||
      (layouts.output_blocked && (epilogue.residual != nullptr || s.oc % block != 0))) {
    return false;
  }
  const int64_t in_image = s.c * s.h * s.w, out_image = s.oc * m;
  if (s.pointwise() && s.h == 1 && s.w == 1) {
    // One pixel (squeeze-and-excitation's layers, a classifier on pooled features): one row
    // against the packed weights, a stream over them (gemm's one-row path) instead of panels of
    // mr rows that compute one. Its C inputs and OC outputs are contiguous in either layout.
    auto* x = static_cast<float*>(scratch);
    for (int64_t b = 0; b < s.n; ++b) {
      const float* in = input + b * in_image;
      if (input_scale != nullptr) {
        for (int64_t c = 0; c < s.c; ++c) x[c] = in[c] * input_scale[b * s.c + c];
        in = x;
      }
      GemmEpilogue e = epilogue;
      if (e.residual != nullptr) {
        e.residual += b * out_image;
        e.ldr = s.oc;
      }
      const PackedMatrix w = weights_of(s, packed_weights);
      if (!gemm(1, s.oc, k, GemmOperand::matrix(in, k), GemmOperand::prepacked(w),
                output + b * out_image, s.oc, e, nullptr)) {
        return false;
      }
    }
    return true;
  }
  // A blocked input: channel c's pixel x at (c / block * h w + x) block + c % block.
  const int64_t step = layouts.input_blocked ? block : 1;
  const Planes planes = copy ? copied_planes(s) : Planes{s.h, s.w};
  auto* bytes = static_cast<unsigned char*>(scratch);
  auto* offsets = reinterpret_cast<int64_t*>(bytes);
  bytes += align_up(static_cast<size_t>(offsets_count(m)) * sizeof(int64_t));
  auto** cols = reinterpret_cast<const float**>(bytes);
  bytes += align_up(static_cast<size_t>(k) * sizeof(const float*));
  auto* padded = reinterpret_cast<float*>(bytes);
  // Pixel i's first tap, relative to each tap's base; the rows past M repeat the last pixel.
  for (int64_t i = 0; i < offsets_count(m); ++i) {
    const int64_t p = std::min(i, m - 1);
    offsets[i] = (p / ow * s.sh * planes.pitch + p % ow * s.sw) * step;
  }
  const int64_t mr = panel_rows(isa, m);
  const int64_t item_rows = kItemRows / mr * mr;
  const int64_t m_blocks = (m + item_rows - 1) / item_rows;
  const int64_t panels = (s.oc + tile.nr - 1) / tile.nr;
  void (*run)(const Job&, int64_t) = run_item_generic;
#if defined(PTEC_GEMM_HAVE_AVX2)
  if (isa == GemmIsa::Avx512) run = mr == detail::kAvx512Mr ? run_item_avx512 : run_item_avx512_7;
  if (isa == GemmIsa::Avx2) run = mr == detail::kAvx2Mr ? run_item_avx2 : run_item_avx2_5;
#endif
  const int64_t taps = s.kh * s.kw;
  for (int64_t b = 0; b < s.n; ++b) {
    const float* in = input + b * in_image;
    if (copy) {
      parallel_for(s.c, [&](int64_t c) {
        fill_plane(s, planes, in + c * s.h * s.w,
                   input_scale != nullptr ? input_scale[b * s.c + c] : 1.0f,
                   padded + c * planes.floats());
      });
    }
    const float* base = copy ? padded : in;
    for (int64_t c = 0; c < s.c; ++c) {
      for (int64_t ky = 0; ky < s.kh; ++ky) {
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          const int64_t channel = layouts.input_blocked
                                      ? c / block * planes.floats() * block + c % block
                                      : c * planes.floats();
          cols[c * taps + ky * s.kw + kx] =
              base + channel + (ky * s.dh * planes.pitch + kx * s.dw) * step;
        }
      }
    }
    const Job job{s,
                  epilogue,
                  weights_of(s, packed_weights),
                  cols,
                  offsets,
                  output + b * out_image,
                  epilogue.residual != nullptr ? epilogue.residual + b * out_image : nullptr,
                  m,
                  item_rows,
                  m_blocks,
                  layouts.output_blocked};
    parallel_for(panels * m_blocks, [&](int64_t item) { run(job, item); });
  }
  return true;
}

}  // namespace ptec::kernels::optimized
