#pragma once

// Import-time evaluation of ONNX ops on ConstTensors: what lets Shape → Gather → Unsqueeze →
// Concat → Reshape chains disappear at import. Element moves (gather, concat, slice, transpose,
// expand) work on bytes for every dtype; arithmetic uses int64 for integral dtypes and double
// for floating ones (then rounds once to the result dtype). Errors throw ptec::Exception
// (InvalidArgument / NotSupported) without location; the importer adds the node.

#include <cstdint>
#include <vector>

#include "frontends/onnx/const_tensor.h"

namespace ptec::onnx_import::eval {

/// Numpy-style broadcast of two shapes; throws InvalidArgument when they do not broadcast.
std::vector<int64_t> broadcast_sizes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Mod,
  FMod,
  Equal,
  Less,
  Greater,
  LessEqual,
  GreaterEqual,
  Max,
  Min,
  And,
  Or,
  Xor,
};
/// Element-wise `op` with broadcasting. Integral Div truncates toward zero (ONNX) and fails on a
/// zero divisor, as do Mod (the divisor's sign, Python's %) and FMod (the dividend's sign, C's
/// fmod); comparisons and And/Or/Xor give Bool.
ConstTensor binary(BinaryOp op, const ConstTensor& a, const ConstTensor& b);
/// where(cond, a, b) with broadcasting.
ConstTensor where(const ConstTensor& cond, const ConstTensor& a, const ConstTensor& b);
/// Converts every element to `dtype` (float → int truncates toward zero).
ConstTensor cast(const ConstTensor& t, DType dtype);
/// ONNX Gather along `axis` (normalized); negative indices count from the end.
ConstTensor gather(const ConstTensor& data, const ConstTensor& indices, int64_t axis);
/// Concatenation along `axis` (normalized).
ConstTensor concat(const std::vector<const ConstTensor*>& parts, int64_t axis);
/// One axis of a slice: normalized start, step (non-zero) and element count.
struct SliceAxis {
  int64_t axis;
  int64_t start;
  int64_t step;
  int64_t length;
};
/// ONNX Slice start/end/step normalization for a dim of size `dim` (clamping, negative values).
SliceAxis normalize_slice(int64_t axis, int64_t dim, int64_t start, int64_t end, int64_t step);
ConstTensor slice(const ConstTensor& t, const std::vector<SliceAxis>& axes);
/// Permutes dims: out.sizes[i] = t.sizes[perm[i]].
ConstTensor transpose(const ConstTensor& t, const std::vector<int64_t>& perm);
/// Broadcasts `t` to `sizes` (which must be a broadcast of t's sizes).
ConstTensor expand(const ConstTensor& t, const std::vector<int64_t>& sizes);
/// ONNX Range(start, limit, delta) in `dtype`.
ConstTensor range(double start, double limit, double delta, DType dtype);
/// A tensor of `sizes` filled with the single element of `value` (dtype of `value`).
ConstTensor fill(const std::vector<int64_t>& sizes, const ConstTensor& value);

}  // namespace ptec::onnx_import::eval
