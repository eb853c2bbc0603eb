#pragma once

#include <span>

namespace ptec {

/// A non-owning view of contiguous elements. The viewed memory must outlive the span.
template <typename T>
using Span = std::span<T>;

}  // namespace ptec
