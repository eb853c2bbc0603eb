#pragma once

// The one thread setting of ptec: how many threads its kernels and delegates use (DESIGN.md §11),
// and the pool they share (pthreadpool). Default: one thread per logical core.

#include <cstddef>
#include <cstdint>
#include <utility>

namespace ptec {

/// Sets the number of threads (>= 1; 0 means one per logical core). Takes effect for the next
/// parallel region; must not be called while one runs.
void set_num_threads(int n);
/// The current setting.
int num_threads();

}  // namespace ptec

namespace ptec::kernels::optimized {

namespace detail {
using Task1d = void (*)(void* context, size_t i);
void parallelize_1d(Task1d task, void* context, size_t range);
}  // namespace detail

/// While an object of this class lives, parallel_for on this thread runs serially (work too small
/// to pay for waking the other threads).
class SerialRegion {
 public:
  SerialRegion();
  ~SerialRegion();
  SerialRegion(const SerialRegion&) = delete;
  SerialRegion& operator=(const SerialRegion&) = delete;

 private:
  bool outer_;
};

/// Calls f(i) for every i in [0, n), spread over the threads (the caller takes part); returns
/// when all are done. Runs serially with one thread, and when called from inside another
/// parallel_for (no nested parallelism).
template <typename F>
void parallel_for(int64_t n, F&& f) {
  if (n <= 0) return;
  auto call = [](void* context, size_t i) { (*static_cast<F*>(context))(static_cast<int64_t>(i)); };
  detail::parallelize_1d(call, const_cast<void*>(static_cast<const void*>(&f)),
                         static_cast<size_t>(n));
}

/// Row-wise work (softmax, layer norm rows) goes to the thread pool only when there is enough of
/// it: below this many elements the region's fork and join cost more than they save (vit_tiny's
/// attention softmax, 116K elements, ran measurably slower in parallel on two cores).
inline constexpr int64_t kParallelRowElements = int64_t{1} << 18;

/// f(row) for every row in [0, rows), `elements` in all: over the threads from
/// kParallelRowElements elements, else on the calling thread.
template <typename F>
void for_rows(int64_t rows, int64_t elements, F&& f) {
  if (elements >= kParallelRowElements) {
    parallel_for(rows, std::forward<F>(f));
  } else {
    for (int64_t i = 0; i < rows; ++i) f(i);
  }
}

}  // namespace ptec::kernels::optimized
