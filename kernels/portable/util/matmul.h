#pragma once

// The reference matrix product shared by mm, bmm and addmm (and convolution-free linear algebra
// elsewhere): row-major, i-k-j loop order so the inner loop streams rows of B and C.

#include <cstdint>

namespace ptec::kernels {

/// c[n x m] = a[n x k] * b[k x m] (overwrites c). Accumulates in T.
template <typename T>
void matmul(const T* a, const T* b, T* c, int64_t n, int64_t k, int64_t m) {
  for (int64_t i = 0; i < n; ++i) {
    T* crow = c + i * m;
    for (int64_t j = 0; j < m; ++j) crow[j] = T{0};
    for (int64_t p = 0; p < k; ++p) {
      const T av = a[i * k + p];
      const T* brow = b + p * m;
      for (int64_t j = 0; j < m; ++j) crow[j] = static_cast<T>(crow[j] + av * brow[j]);
    }
  }
}

}  // namespace ptec::kernels
