#pragma once

// ptec's int8 GEMM: C = requantize(A * B) with A int8 (weights, packed once) and B uint8
// (activations; int8 activations are shifted by +128 into uint8 while B is packed), int32
// accumulation, and a requantizing epilogue that writes uint8 or int8.
//
//   A is M x K (row-major, leading dimension lda): the weights, e.g. output channels x
//   (input channels * kernel taps) of a convolution, or the rows of a linear layer's [N, K]
//   weight. B is K x N: im2col columns (b[p * ldb + j]) or, transposed, activation rows
//   (b[j * ldb + p], the [tokens, K] input of a linear layer). C[i][j] goes to c[i * ldc + j],
//   or to c[j * ldc + i] when `c_trans` (a linear layer's [tokens, N] output).
//
// Zero points: a_zero_point per row of A (weights, usually 0) and b_zero_point for all of B, so
//
//   real(i, j) = sum_p (a[i,p] - za[i]) * (b[p,j] - zb)
//              = acc(i, j) - zb * rowsum_a[i] - za[i] * colsum_b[j] + K * za[i] * zb
//
// where rowsum_a is computed when A is packed (once) and colsum_b only when some za[i] != 0.
// Then y = clamp(round_half_even(real * scale[i] + bias[i]) + out_zero_point, out_min,
// out_max): scale and bias (per row, or one for all rows) are in output units, so a fused
// ReLU / clamp is only a narrower [out_min, out_max].
//
// K is processed in quads (4 consecutive k per 32-bit lane): packed panels pad K to a multiple
// of 4 (and M / N to the panel sizes) with zeros, which add nothing to the sums.
//
// Microkernels, chosen at run time (set_qgemm_isa forces one for tests and benchmarks):
//  - AVX-512 VNNI, 8 x 32: vpdpbusd (u8 x s8 -> four products summed into each int32 lane).
//  - AVX2, 4 x 16: vpmaddubsw + vpmaddwd. vpmaddubsw adds two u8 x s8 products into an int16
//    with saturation (255 * -128 * 2 = -65280 does not fit), so B is split into its low seven
//    bits and its top bit: (b & 0x7f) * a summed in pairs is at most 127 * 128 * 2 = 32512 and
//    ((b >> 7) & 1) * a at most 256, neither saturates, and acc = lo + 128 * hi is exact.
//  - portable C++, 4 x 8 (int32 loops), for CPUs without AVX2.
// Packed A records the panel height it was packed for; a mismatch with the active ISA fails.
// The kernels never allocate: callers pass scratch (qgemm_scratch_bytes).

#include <cstddef>
#include <cstdint>

namespace ptec::kernels::optimized {

enum class QGemmIsa : uint8_t { Generic, Avx2, Avx512Vnni };

/// The longest reduction qgemm() takes: every int32 term of the zero-point corrected sum stays
/// below 2^31 (K * (255 * 128 * 2 + 255 * 255 * 2) < 2^31 for any zero points).
inline constexpr int64_t kQGemmMaxK = 8192;

QGemmIsa detected_qgemm_isa();
QGemmIsa active_qgemm_isa();
/// Forces `isa`; refused (false) when the CPU lacks it.
bool set_qgemm_isa(QGemmIsa isa);
const char* to_string(QGemmIsa isa);

struct QGemmTile {
  int64_t mr;
  int64_t nr;
};
QGemmTile qgemm_tile(QGemmIsa isa);

/// A (M x K int8) packed into panels of mr rows, with its row sums.
struct QPackedA {
  const int8_t* data = nullptr;
  const int32_t* row_sums = nullptr;  // M entries: sum over k of a[i][k]
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t panel = 0;
};

/// Bytes of a packed A (data and row sums) for the active microkernel.
size_t qpacked_a_bytes(int64_t m, int64_t k);
/// Packs A (element (i, p) at a[i * lda + p], or a[p * lda + i] when `trans`) into `out`
/// (qpacked_a_bytes, 64-byte aligned).
QPackedA qpack_a(int64_t m, int64_t k, const int8_t* a, int64_t lda, void* out, bool trans = false);
/// The QPackedA that qpack_a(m, k, ...) wrote at `packed` (for the active microkernel).
QPackedA qpacked_a_view(int64_t m, int64_t k, const void* packed);

/// The requantizing epilogue (see the header comment).
struct QEpilogue {
  int32_t b_zero_point = 0;                // of B as given (int8 when b_signed)
  const int32_t* a_zero_points = nullptr;  // per row; null: all 0
  const float* scale = nullptr;            // per row when scale_per_row, else scale[0]
  bool scale_per_row = false;
  const float* bias = nullptr;  // per row, in output units; null: none
  int32_t out_zero_point = 0;
  int32_t out_min = 0;      // bounds of the stored value (dtype, quant range
  int32_t out_max = 255;    // and fused ReLU / clamp together)
  bool out_signed = false;  // C is int8 (else uint8)
};

/// Scratch bytes qgemm() needs for a K x N B operand (64-byte aligned).
size_t qgemm_scratch_bytes(int64_t n, int64_t k);

/// C = requantize(A * B). `b` holds uint8 values, or int8 when `b_signed` (b_zero_point is then
/// an int8 zero point). Returns false (writing nothing) when A was packed for another
/// microkernel or with other shapes, K exceeds kQGemmMaxK, or scratch is missing.
bool qgemm(int64_t m, int64_t n, int64_t k, const QPackedA& a, const void* b, int64_t ldb,
           bool b_trans, bool b_signed, const QEpilogue& epilogue, void* c, int64_t ldc,
           bool c_trans, void* scratch);

/// Where qgemm_rows stores C's columns: column j is position (j / pitch, j % pitch) of a flat
/// image whose rows are `pitch` columns apart (a direct convolution's outputs, computed over the
/// padded input's row pitch); the first `width` of each row are kept, at (j / pitch) * width +
/// j % pitch of C's row, the others dropped.
struct QColumnRows {
  int64_t pitch = 0;
  int64_t width = 0;
};

/// qgemm() with B given by its rows (not transposed): row p is b_rows[p][0, N), never copied
/// beyond the panel being packed (a direct convolution's shifted views of its zero-point-padded
/// input). With `column_rows`, C's columns are stored through that map. Returns false as qgemm()
/// does, and for a missing b_rows or a map whose width is not in [1, pitch].
bool qgemm_rows(int64_t m, int64_t n, int64_t k, const QPackedA& a, const uint8_t* const* b_rows,
                bool b_signed, const QEpilogue& epilogue, void* c, int64_t ldc,
                const QColumnRows* column_rows, void* scratch);

/// One requantized row: out[j] = clamp(round(float(acc[j] + offset - a_zp * colsum[j]) * scale
/// + bias) + zp, lo, hi) (colsum may be null when a_zp is 0). Exposed for the other int8
/// kernels (depthwise convolution, pooling).
struct QRow {
  int32_t offset = 0;
  int32_t a_zero_point = 0;
  float scale = 1.0f;
  float bias = 0.0f;
  int32_t zero_point = 0;
  int32_t lo = 0;
  int32_t hi = 255;
  bool out_signed = false;
};
void requantize_row(const int32_t* acc, int64_t n, const QRow& row, const int32_t* colsum,
                    void* out);

}  // namespace ptec::kernels::optimized
