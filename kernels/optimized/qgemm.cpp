#include "kernels/optimized/qgemm.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/optimized/qgemm_microkernel.h"
#include "kernels/optimized/threadpool.h"

namespace ptec::kernels::optimized {
namespace {

constexpr size_t kAlign = 64;

struct QKernelInfo {
  int64_t mr;
  int64_t nr;
  detail::QMicroKernel fn;
  detail::QRequantRow requant;
};

QKernelInfo qkernel_info(QGemmIsa isa) {
#if defined(PTEC_GEMM_HAVE_AVX2)
  if (isa == QGemmIsa::Avx512Vnni) {
    return {detail::kQAvx512Mr, detail::kQAvx512Nr, detail::qmicrokernel_avx512vnni_8x32,
            detail::qrequant_row_avx512};
  }
  if (isa == QGemmIsa::Avx2) {
    return {detail::kQAvx2Mr, detail::kQAvx2Nr, detail::qmicrokernel_avx2_4x16,
            detail::qrequant_row_generic};
  }
#else
  (void)isa;
#endif
  return {detail::kQGenericMr, detail::kQGenericNr, detail::qmicrokernel_generic_4x8,
          detail::qrequant_row_generic};
}

QGemmIsa detect() {
#if defined(PTEC_GEMM_HAVE_AVX2)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")) {
    return QGemmIsa::Avx512Vnni;
  }
  if (__builtin_cpu_supports("avx2")) return QGemmIsa::Avx2;
#endif
  return QGemmIsa::Generic;
}

std::atomic<int> g_forced{-1};

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }
size_t align_up(size_t x) { return (x + kAlign - 1) / kAlign * kAlign; }

// Where B's rows are: row p at b + p * ldb (with `trans`, column p: element (p, j) at
// b[j * ldb + p]), or at rows[p] (a direct convolution's shifted views of its input).
struct BRows {
  const uint8_t* b = nullptr;
  int64_t ldb = 0;
  bool trans = false;
  const uint8_t* const* rows = nullptr;
  const uint8_t* row(int64_t p) const { return rows != nullptr ? rows[p] : b + p * ldb; }
};

// Packs columns [j0, j0 + cols) of B (K x N) into one panel of nr columns: kq groups of nr x 4
// bytes, converted to uint8 (xor 0x80 for int8), zero past K and past the last column.
// `colsum` (nr entries, or null) receives each column's sum of the stored values.
void pack_b_panel(int64_t k, const BRows& src_rows, bool flip, int64_t j0, int64_t cols, int64_t nr,
                  uint8_t* dst, int32_t* colsum) {
  const int64_t kq = (k + 3) / 4;
  const uint8_t x = flip ? 0x80 : 0x00;
  const uint8_t* b = src_rows.b;
  const int64_t ldb = src_rows.ldb;
  if (src_rows.trans) {
    for (int64_t q = 0; q < kq; ++q) {
      uint8_t* d = dst + q * nr * 4;
      const int64_t p0 = q * 4;
      const int64_t valid = std::min<int64_t>(4, k - p0);
      for (int64_t j = 0; j < cols; ++j) {
        const uint8_t* src = b + (j0 + j) * ldb + p0;
        if (valid == 4 && x == 0) {
          std::memcpy(d + j * 4, src, 4);
        } else {
          for (int64_t t = 0; t < 4; ++t) d[j * 4 + t] = t < valid ? src[t] ^ x : 0;
        }
      }
      std::memset(d + cols * 4, 0, static_cast<size_t>((nr - cols) * 4));
    }
  } else {
    for (int64_t q = 0; q < kq; ++q) {
      uint8_t* d = dst + q * nr * 4;
      const int64_t p0 = q * 4;
      const int64_t valid = std::min<int64_t>(4, k - p0);
      int64_t j = 0;
      const uint8_t* r[4] = {};
      for (int64_t t = 0; t < valid; ++t) r[t] = src_rows.row(p0 + t) + j0;
#if defined(__SSE2__)
      if (valid == 4) {
        const __m128i vx = _mm_set1_epi8(static_cast<char>(x));
        for (; j + 16 <= cols; j += 16) {
          const __m128i a0 =
              _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[0] + j)), vx);
          const __m128i a1 =
              _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[1] + j)), vx);
          const __m128i a2 =
              _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[2] + j)), vx);
          const __m128i a3 =
              _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[3] + j)), vx);
          const __m128i t0 = _mm_unpacklo_epi8(a0, a1);
          const __m128i t1 = _mm_unpackhi_epi8(a0, a1);
          const __m128i t2 = _mm_unpacklo_epi8(a2, a3);
          const __m128i t3 = _mm_unpackhi_epi8(a2, a3);
          __m128i* out = reinterpret_cast<__m128i*>(d + j * 4);
          _mm_storeu_si128(out + 0, _mm_unpacklo_epi16(t0, t2));
          _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(t0, t2));
          _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(t1, t3));
          _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(t1, t3));
        }
      }
#endif
      for (; j < cols; ++j) {
        for (int64_t t = 0; t < 4; ++t) d[j * 4 + t] = t < valid ? r[t][j] ^ x : 0;
      }
      std::memset(d + cols * 4, 0, static_cast<size_t>((nr - cols) * 4));
    }
  }
  if (colsum != nullptr) {
    for (int64_t j = 0; j < nr; ++j) colsum[j] = 0;
    for (int64_t q = 0; q < kq; ++q) {
      const uint8_t* d = dst + q * nr * 4;
      for (int64_t j = 0; j < nr; ++j) {
        colsum[j] += d[j * 4] + d[j * 4 + 1] + d[j * 4 + 2] + d[j * 4 + 3];
      }
    }
  }
}

}  // namespace

QGemmIsa detected_qgemm_isa() {
  static const QGemmIsa isa = detect();
  return isa;
}

QGemmIsa active_qgemm_isa() {
  const int forced = g_forced.load(std::memory_order_relaxed);
  return forced < 0 ? detected_qgemm_isa() : static_cast<QGemmIsa>(forced);
}

bool set_qgemm_isa(QGemmIsa isa) {
  if (static_cast<int>(isa) > static_cast<int>(detected_qgemm_isa())) return false;
  g_forced.store(static_cast<int>(isa), std::memory_order_relaxed);
  return true;
}

const char* to_string(QGemmIsa isa) {
  switch (isa) {
    case QGemmIsa::Generic: return "generic";
    case QGemmIsa::Avx2: return "avx2";
    case QGemmIsa::Avx512Vnni: return "avx512vnni";
  }
  return "unknown";
}

QGemmTile qgemm_tile(QGemmIsa isa) {
  const QKernelInfo info = qkernel_info(isa);
  return QGemmTile{info.mr, info.nr};
}

size_t qpacked_a_bytes(int64_t m, int64_t k) {
  const int64_t mr = qkernel_info(active_qgemm_isa()).mr;
  return align_up(static_cast<size_t>(round_up(m, mr) * round_up(k, 4))) +
         align_up(static_cast<size_t>(m) * sizeof(int32_t));
}

QPackedA qpack_a(int64_t m, int64_t k, const int8_t* a, int64_t lda, void* out, bool trans) {
  auto at = [&](int64_t i, int64_t p) { return trans ? a[p * lda + i] : a[i * lda + p]; };
  const int64_t mr = qkernel_info(active_qgemm_isa()).mr;
  const int64_t kq = (k + 3) / 4;
  auto* data = static_cast<int8_t*>(out);
  auto* sums = reinterpret_cast<int32_t*>(static_cast<unsigned char*>(out) +
                                          align_up(static_cast<size_t>(round_up(m, mr) * kq * 4)));
  for (int64_t i0 = 0; i0 < m; i0 += mr) {
    int8_t* panel = data + i0 * kq * 4;
    for (int64_t q = 0; q < kq; ++q) {
      for (int64_t r = 0; r < mr; ++r) {
        for (int64_t t = 0; t < 4; ++t) {
          const int64_t i = i0 + r, p = q * 4 + t;
          panel[(q * mr + r) * 4 + t] = i < m && p < k ? at(i, p) : int8_t{0};
        }
      }
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    int32_t s = 0;
    for (int64_t p = 0; p < k; ++p) s += at(i, p);
    sums[i] = s;
  }
  return QPackedA{data, sums, m, k, mr};
}

QPackedA qpacked_a_view(int64_t m, int64_t k, const void* packed) {
  const int64_t mr = qkernel_info(active_qgemm_isa()).mr;
  const auto* bytes = static_cast<const unsigned char*>(packed);
  const size_t data_bytes = align_up(static_cast<size_t>(round_up(m, mr) * round_up(k, 4)));
  return QPackedA{reinterpret_cast<const int8_t*>(bytes),
                  reinterpret_cast<const int32_t*>(bytes + data_bytes), m, k, mr};
}

size_t qgemm_scratch_bytes(int64_t n, int64_t k) {
  const int64_t nr = qkernel_info(active_qgemm_isa()).nr;
  return align_up(static_cast<size_t>(round_up(n, nr) * round_up(k, 4))) +
         align_up(static_cast<size_t>(round_up(n, nr)) * sizeof(int32_t));
}

void requantize_row(const int32_t* acc, int64_t n, const QRow& row, const int32_t* colsum,
                    void* out) {
  qkernel_info(active_qgemm_isa())
      .requant(acc, n, row.offset, row.a_zero_point, colsum, row.scale, row.bias, row.zero_point,
               row.lo, row.hi, row.out_signed, out);
}

namespace {

// qgemm() and qgemm_rows(): B by `b_rows`, C's columns through `column_rows` where given.
bool qgemm_impl(int64_t m, int64_t n, int64_t k, const QPackedA& a, const BRows& b_rows,
                bool b_signed, const QEpilogue& e, void* c, int64_t ldc, bool c_trans,
                const QColumnRows* column_rows, void* scratch) {
  const QKernelInfo info = qkernel_info(active_qgemm_isa());
  const int64_t mr = info.mr, nr = info.nr;
  if (m < 0 || n < 0 || k < 0 || k > kQGemmMaxK || a.rows != m || a.cols != k || a.panel != mr) {
    return false;
  }
  if (m == 0 || n == 0) return true;
  if (scratch == nullptr) return false;
  const int64_t kq = (k + 3) / 4;
  const int64_t n_panels = (n + nr - 1) / nr;
  auto* packed = static_cast<uint8_t*>(scratch);
  auto* colsums = reinterpret_cast<int32_t*>(
      packed + align_up(static_cast<size_t>(round_up(n, nr) * round_up(k, 4))));
  bool need_colsum = false;
  if (e.a_zero_points != nullptr) {
    for (int64_t i = 0; i < m && !need_colsum; ++i) need_colsum = e.a_zero_points[i] != 0;
  }
  // B as uint8: int8 values were shifted by +128, and so is their zero point.
  const int32_t zb = e.b_zero_point + (b_signed ? 128 : 0);
  const int64_t esize = 1;
  auto* cc = static_cast<char*>(c);
  // One item per panel of nr columns: pack it (it stays in cache), then run every row panel.
  parallel_for(n_panels, [&](int64_t t) {
    const int64_t j0 = t * nr;
    const int64_t cols = std::min(nr, n - j0);
    uint8_t* panel = packed + j0 * kq * 4;
    int32_t* colsum = need_colsum ? colsums + j0 : nullptr;
    pack_b_panel(k, b_rows, b_signed, j0, cols, nr, panel, colsum);
    alignas(64) int32_t tile[8 * 32];  // mr x nr <= 8 x 32
    alignas(64) uint8_t row_out[32];
    for (int64_t i0 = 0; i0 < m; i0 += mr) {
      info.fn(kq, a.data + i0 * kq * 4, panel, tile);
      const int64_t rows = std::min(mr, m - i0);
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = i0 + r;
        const int32_t za = e.a_zero_points != nullptr ? e.a_zero_points[i] : 0;
        const int32_t offset = -zb * a.row_sums[i] + static_cast<int32_t>(k) * za * zb;
        const float scale = e.scale_per_row ? e.scale[i] : e.scale[0];
        const float bias = e.bias != nullptr ? e.bias[i] : 0.0f;
        if (column_rows != nullptr) {
          // The kept runs of the flat columns [j0, j0 + cols): those of each image row.
          const int64_t pitch = column_rows->pitch, width = column_rows->width;
          for (int64_t j = j0; j < j0 + cols;) {
            const int64_t y = j / pitch, x = j - y * pitch;
            const int64_t run = std::min(j0 + cols, j + pitch - x) - j;
            if (x < width) {
              const int64_t kept = std::min(run, width - x);
              info.requant(tile + r * nr + (j - j0), kept, offset, za,
                           za != 0 ? colsum + (j - j0) : nullptr, scale, bias, e.out_zero_point,
                           e.out_min, e.out_max, e.out_signed, cc + i * ldc + y * width + x);
            }
            j += run;
          }
        } else if (!c_trans) {
          info.requant(tile + r * nr, cols, offset, za, za != 0 ? colsum : nullptr, scale, bias,
                       e.out_zero_point, e.out_min, e.out_max, e.out_signed,
                       cc + (i * ldc + j0) * esize);
        } else {
          info.requant(tile + r * nr, cols, offset, za, za != 0 ? colsum : nullptr, scale, bias,
                       e.out_zero_point, e.out_min, e.out_max, e.out_signed, row_out);
          for (int64_t j = 0; j < cols; ++j) cc[(j0 + j) * ldc + i] = static_cast<char>(row_out[j]);
        }
      }
    }
  });
  return true;
}

}  // namespace

bool qgemm(int64_t m, int64_t n, int64_t k, const QPackedA& a, const void* b, int64_t ldb,
           bool b_trans, bool b_signed, const QEpilogue& e, void* c, int64_t ldc, bool c_trans,
           void* scratch) {
  BRows rows;
  rows.b = static_cast<const uint8_t*>(b);
  rows.ldb = ldb;
  rows.trans = b_trans;
  return qgemm_impl(m, n, k, a, rows, b_signed, e, c, ldc, c_trans, nullptr, scratch);
}

bool qgemm_rows(int64_t m, int64_t n, int64_t k, const QPackedA& a, const uint8_t* const* b_rows,
                bool b_signed, const QEpilogue& e, void* c, int64_t ldc,
                const QColumnRows* column_rows, void* scratch) {
  if (b_rows == nullptr || (column_rows != nullptr &&
                            (column_rows->width <= 0 || column_rows->width > column_rows->pitch))) {
    return false;
  }
  BRows rows;
  rows.rows = b_rows;
  return qgemm_impl(m, n, k, a, rows, b_signed, e, c, ldc, false, column_rows, scratch);
}

}  // namespace ptec::kernels::optimized
