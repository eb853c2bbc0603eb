#include "kernels/optimized/row_sum.h"

#include "kernels/optimized/lane_sum.h"

namespace ptec::kernels::optimized {

__attribute__((target_clones("avx512f", "avx2", "default"))) float row_sum(const float* x,
                                                                           int64_t n) {
  return detail::lane_sum(x, n, [](float v) { return v; });
}

}  // namespace ptec::kernels::optimized
