#pragma once

#include <cstddef>
#include <utility>

namespace ptec::runtime {

/// Read-only bytes with an optional release function (ExecuTorch's FreeableBuffer). Move-only;
/// the bytes are released by free() or by the destructor, whichever comes first. The free
/// function, when set, must stay callable until then.
class FreeableBuffer final {
 public:
  /// Called once with the context, data and size given at construction.
  using FreeFn = void (*)(void* context, void* data, size_t size);

  FreeableBuffer() = default;
  /// `free_fn` may be null for bytes that need no release (e.g. a view into a mapped file).
  FreeableBuffer(const void* data, size_t size, FreeFn free_fn, void* free_context = nullptr)
      : data_(data), size_(size), free_fn_(free_fn), free_context_(free_context) {}

  FreeableBuffer(FreeableBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        free_fn_(std::exchange(other.free_fn_, nullptr)),
        free_context_(std::exchange(other.free_context_, nullptr)) {}
  FreeableBuffer& operator=(FreeableBuffer&& other) noexcept {
    if (this != &other) {
      free();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      free_fn_ = std::exchange(other.free_fn_, nullptr);
      free_context_ = std::exchange(other.free_context_, nullptr);
    }
    return *this;
  }
  FreeableBuffer(const FreeableBuffer&) = delete;
  FreeableBuffer& operator=(const FreeableBuffer&) = delete;
  ~FreeableBuffer() { free(); }

  /// Releases the bytes; afterwards data() is null and size() is 0. Safe to call twice.
  void free() {
    if (free_fn_ != nullptr && data_ != nullptr) {
      free_fn_(free_context_, const_cast<void*>(data_), size_);
    }
    data_ = nullptr;
    size_ = 0;
    free_fn_ = nullptr;
    free_context_ = nullptr;
  }

  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const void* data_ = nullptr;
  size_t size_ = 0;
  FreeFn free_fn_ = nullptr;
  void* free_context_ = nullptr;
};

}  // namespace ptec::runtime
