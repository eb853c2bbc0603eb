#pragma once

// ptec's fp32 GEMM: C = A * B (+ epilogue), with operands packed into panels that a
// register-blocked microkernel streams (MR rows of A by NR columns of B per call).
//
//   A is M x K, B is K x N, C is M x N; each is given by a pointer, a leading dimension and (A and
//   B) whether it is stored transposed. Either operand may instead be packed once ahead of time
//   (weights: `pack_a` / `pack_b` into a caller-owned buffer), so that only activations are
//   packed per call. Packing needs scratch memory the caller provides (`gemm_scratch_bytes`):
//   the kernels never allocate.
//
// The microkernel is chosen at run time from what the CPU supports (AVX-512F, else AVX2 + FMA,
// else a portable C++ kernel); `set_gemm_isa` forces one for tests and benchmarks. Packed buffers
// record the panel geometry they were packed for, so a buffer packed for one microkernel is
// rejected by another rather than misread.

#include <cstddef>
#include <cstdint>

#include "kernels/optimized/activation.h"

namespace ptec::kernels::optimized {

/// Instruction sets with a GEMM microkernel.
enum class GemmIsa : uint8_t { Generic, Avx2, Avx512 };

/// The best ISA this CPU runs (detected once).
GemmIsa detected_gemm_isa();
/// The ISA gemm() uses now: the detected one unless forced. Forcing an ISA the CPU lacks is
/// refused (returns false).
GemmIsa active_gemm_isa();
bool set_gemm_isa(GemmIsa isa);
const char* to_string(GemmIsa isa);

/// Panel geometry of the active microkernel.
struct GemmTile {
  int64_t mr;  // rows of A per panel
  int64_t nr;  // columns of B per panel
};
GemmTile gemm_tile(GemmIsa isa);

/// What happens to each C element after the product: c = act(c + bias + residual), where
/// bias is indexed by row (bias_per_row, e.g. output channel of a convolution whose weights are
/// A) or by column (a linear layer whose weights are B); residual is an M x N matrix with
/// leading dimension `ldr`. `beta_one` accumulates into the existing C instead (c += A*B).
struct GemmEpilogue {
  const float* bias = nullptr;
  bool bias_per_row = false;
  const float* residual = nullptr;
  int64_t ldr = 0;
  Activation activation = Activation::None;
  float clamp_min = 0.0f;  // Clamp bounds (Relu6: 0, 6)
  float clamp_max = 0.0f;
  bool beta_one = false;
};

/// A matrix packed into panels for `isa`'s microkernel. `data` points into caller memory of
/// `packed_a_bytes` / `packed_b_bytes`, 64-byte aligned.
struct PackedMatrix {
  const float* data = nullptr;
  int64_t rows = 0;   // M for A, K for B
  int64_t cols = 0;   // K for A, N for B
  int64_t panel = 0;  // mr (A) or nr (B) it was packed for; a wide B: the wide kernel's nr
  /// B: laid out slice-major (for each k slice, the column panels in turn), as pack_b writes it
  /// and every packed A is; false for B written panel after panel (k x nr floats each), as
  /// conv2d's im2col and Winograd's transforms write their panels.
  bool slice_major = false;
  /// Slice-major operands: the k rows per slice they were packed with (pack_a / pack_b's
  /// `depth`). gemm() and gemm_indirect() step through K in slices of this depth; a product of
  /// two slice-major operands needs them to agree.
  int64_t depth = 0;
};

/// K rows per slice of a packed operand for the active microkernel: one slice of a B panel
/// (depth x nr floats) stays in L1 while every A panel of a row block passes it. Standard: 16 KiB
/// of B. `deep`: 256 rows where that slice fits in two thirds of the L1 data cache (AVX-512 on a
/// 48 KiB L1), else the standard depth: half the passes over C, which pays for convolutions with
/// a deep K read through gemm_indirect and for linear layers whose K spans several deep slices,
/// not for pointwise layers (measured).
int64_t gemm_slice_depth(bool deep = false);
/// The slice depth of a prepacked B with K rows multiplied by the standard microkernel (a linear
/// layer's weights where the ISA has no wide kernel, see pack_weights): deep where K spans more
/// than one deep slice (ViT-Ti and the encoder 3-5% faster), else the standard depth (a K of 192
/// or 256 in one deep slice made ViT-Ti slower).
int64_t gemm_weights_depth(int64_t k);

/// Bytes of a packed A (M x K) / B (K x N) for the active microkernel.
size_t packed_a_bytes(int64_t m, int64_t k);
size_t packed_b_bytes(int64_t k, int64_t n);

/// Packs A (M x K; element (i, p) at a[i * lda + p], or a[p * lda + i] when trans_a) into `out`
/// (packed_a_bytes, 64-byte aligned) in slices of `depth` rows of K. Rows past M in the last panel
/// are zero.
PackedMatrix pack_a(int64_t m, int64_t k, const float* a, int64_t lda, bool trans_a, float* out,
                    int64_t depth = gemm_slice_depth());
/// Float offset of element (i, p) of a packed M x K A for the active microkernel, for code that
/// writes packed weights itself (Winograd's transformed filters). Rows past M in the last panel
/// must be zero.
size_t packed_a_offset(int64_t m, int64_t k, int64_t i, int64_t p,
                       int64_t depth = gemm_slice_depth());
/// Where the B panel of columns [j0, j0 + nr) holds k slice [pc, pc + depth) in a slice-major B
/// (pack_b): min(depth, K - pc) rows of nr floats, for code that drives the microkernels itself
/// (conv2d_pixels).
const float* packed_b_slice(const PackedMatrix& b, int64_t j0, int64_t pc);

/// Packs B (K x N; element (p, j) at b[p * ldb + j], or b[j * ldb + p] when trans_b), slice-major
/// in slices of `depth` rows.
PackedMatrix pack_b(int64_t k, int64_t n, const float* b, int64_t ldb, bool trans_b, float* out,
                    int64_t depth = gemm_slice_depth());

/// A linear layer's weights: B (K x N) packed for products whose A is row-major and not packed
/// (activations, read in place), in the layout gemm() multiplies fastest that way. With AVX-512:
/// wide panels of 64 columns for a 6 x 64 kernel (24 accumulators, where the 8 x 32 kernel has 16:
/// fewer loads per FMA), in one slice up to K = 1024 (C is then written once; 512^3 went from 74%
/// to 80% of peak alternating in one process, oneDNN's matmul 80%), else in slices of 512.
/// Elsewhere: pack_b with gemm_weights_depth(k). gemm() refuses such a B with a prepacked A.
size_t packed_weights_bytes(int64_t k, int64_t n);
PackedMatrix pack_weights(int64_t k, int64_t n, const float* b, int64_t ldb, bool trans_b,
                          float* out);

/// An operand: either unpacked (pointer, leading dimension, transposed) or prepacked.
struct GemmOperand {
  const float* data = nullptr;
  int64_t ld = 0;
  bool trans = false;
  const PackedMatrix* packed = nullptr;
  /// B only, unpacked: row p of B (element (p, j)) is multiplied by k_scale[p] as it is packed
  /// (a per-input-channel scale folded into a pointwise convolution). gemm() refuses it on A
  /// or on a prepacked B.
  const float* k_scale = nullptr;

  static GemmOperand matrix(const float* data, int64_t ld, bool trans = false) {
    return GemmOperand{data, ld, trans, nullptr, nullptr};
  }
  static GemmOperand prepacked(const PackedMatrix& p) {
    return GemmOperand{nullptr, 0, false, &p, nullptr};
  }
};

/// Scratch bytes gemm() needs for the operands that are not prepacked.
size_t gemm_scratch_bytes(int64_t m, int64_t n, int64_t k, bool a_packed, bool b_packed);

/// C (M x N, leading dimension ldc) = A * B with `epilogue`. `scratch` holds
/// gemm_scratch_bytes(...) bytes, 64-byte aligned (may be null when both operands are packed).
/// With AVX-512, a B packed here for an A that is not prepacked takes the wide panels too, where
/// they hold no more columns than the standard ones.
/// Returns false (and writes nothing) when a prepacked operand does not match the shapes or the
/// active microkernel, two slice-major operands were packed with different depths, a wide B
/// (pack_weights) meets a prepacked A, or scratch is missing.
bool gemm(int64_t m, int64_t n, int64_t k, const GemmOperand& a, const GemmOperand& b, float* c,
          int64_t ldc, const GemmEpilogue& epilogue, void* scratch);

/// Where gemm_indirect stores C's columns: column j is position (j / pitch, j % pitch) of a flat
/// image whose rows are `pitch` columns apart (a direct convolution's outputs, computed with
/// pitch - width padding columns per row); the first `width` of each row are kept, at
/// (j / pitch) * width + j % pitch of C's row, and the others dropped.
struct GemmColumnRows {
  int64_t pitch = 0;
  int64_t width = 0;
};

/// C (M x N, leading dimension ldc) = A * B with `epilogue` (not beta_one), A prepacked, B given
/// by its rows: row p is b_rows[p][0, N), of which nothing past N is read. The implicit im2col
/// of a direct convolution (B's rows are shifted views of the padded input) and the plain
/// channel planes of a pointwise one, never copied. With `column_rows`, C's columns are stored
/// through that map (the residual, when given, is in C's stored layout); it needs K within one
/// slice of A's depth and a bias per row, if any. Returns false when A does not match the
/// shapes or the active microkernel, one slice of A's depth holds more than 32 KiB of B, K is 0,
/// the epilogue asks for beta_one, or `column_rows` is given where it does not apply.
bool gemm_indirect(int64_t m, int64_t n, int64_t k, const PackedMatrix& a,
                   const float* const* b_rows, float* c, int64_t ldc,
                   const GemmEpilogue& epilogue = {}, const GemmColumnRows* column_rows = nullptr);

}  // namespace ptec::kernels::optimized
