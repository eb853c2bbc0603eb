#pragma once

// Broadcasting element-wise loops: one implementation for every unary, binary and ternary op.
// Inputs and the output may have any supported dtype; values are loaded into the compute type
// CT, combined by `op`, and stored converted to the output dtype. When every dtype already
// matches, the loop reads and writes the buffers directly.

#include <array>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <utility>

#include "kernels/portable/util/dtype_util.h"
#include "kernels/portable/util/kernel_util.h"

namespace ptec::kernels {

/// NumPy broadcast of the inputs' shapes. Logs and fails the context when two sizes differ and
/// neither is 1.
bool broadcast_shape(KernelRuntimeContext& ctx, const char* op,
                     std::initializer_list<const Tensor*> inputs, Shape* out);

/// Checks shared by every binary op with a broadcasting tensor pair: contiguous layout, the
/// broadcast shape (out is resized to it), supported dtypes, and that `common` (the computation
/// dtype) exists, is accepted and can be cast to out's dtype. `support` (DTypeSupport flags)
/// adds dtypes beyond real_bool that the kernel handles.
bool binary_op_prologue(KernelRuntimeContext& ctx, const char* op, const Tensor& a, const Tensor& b,
                        Tensor& out, DType common, unsigned support = kRealBool);

/// Checks for a tensor-and-scalar op: contiguous layout, out resized to a's shape, supported
/// dtypes, and that `common` can be cast to out's dtype.
bool unary_op_prologue(KernelRuntimeContext& ctx, const char* op, const Tensor& a, Tensor& out,
                       DType common, unsigned support = kRealBool);

/// Checks that `common`, the result type of dtypes `a` and `b`, exists (ATen defines the
/// promotion), is accepted under `support`, and can be cast to out's dtype.
bool check_common_dtype(KernelRuntimeContext& ctx, const char* op, DType a, DType b,
                        const Tensor& out, DType common, unsigned support);

/// Calls fn(out_index, in_indices) for every element of `out_sizes`, where in_indices[k] is the
/// element of inputs[k] that broadcasts to it. Inputs must be broadcastable to `out_sizes`.
template <size_t N, typename F>
void for_each_broadcast(Span<const SizesType> out_sizes, const std::array<const Tensor*, N>& ins,
                        F&& fn) {
  const size_t nd = out_sizes.size();
  int64_t numel = 1;
  for (SizesType s : out_sizes) numel *= s;
  if (numel == 0) return;
  bool all_same = true;
  for (const Tensor* t : ins) all_same = all_same && static_cast<int64_t>(t->numel()) == numel;
  if (all_same) {
    // Equal element counts under broadcasting means equal shapes up to leading 1s.
    std::array<int64_t, N> idx{};
    for (int64_t i = 0; i < numel; ++i) {
      idx.fill(i);
      fn(i, idx);
    }
    return;
  }
  // strides[k][d]: stride of input k along output dim d, 0 where it broadcasts.
  int64_t strides[N][kTensorDimensionLimit] = {};
  for (size_t k = 0; k < N; ++k) {
    const Tensor& t = *ins[k];
    const size_t offset = nd - t.dim();
    int64_t s = 1;
    for (size_t d = t.dim(); d > 0; --d) {
      const SizesType size = t.sizes()[d - 1];
      strides[k][offset + d - 1] = size == 1 ? 0 : s;
      s *= size;
    }
  }
  std::array<int64_t, N> base{};
  std::array<int64_t, N> idx{};
  if (nd == 0) {
    fn(0, idx);
    return;
  }
  const size_t last = nd - 1;
  const int64_t inner = out_sizes[last];
  int64_t counter[kTensorDimensionLimit] = {};
  int64_t o = 0;
  while (true) {
    for (int64_t j = 0; j < inner; ++j) {
      for (size_t k = 0; k < N; ++k) idx[k] = base[k] + j * strides[k][last];
      fn(o + j, idx);
    }
    o += inner;
    size_t d = last;
    while (true) {
      if (d == 0) return;
      --d;
      for (size_t k = 0; k < N; ++k) base[k] += strides[k][d];
      if (++counter[d] < out_sizes[d]) break;
      for (size_t k = 0; k < N; ++k) base[k] -= strides[k][d] * out_sizes[d];
      counter[d] = 0;
    }
  }
}

namespace internal {
// A struct, not an alias template: clang drops a pack expansion over an alias that ignores its
// index parameter (CWG 1558).
template <typename CT, size_t>
struct Repeat {
  using type = CT;
};
template <typename Op, typename CT, size_t... I>
auto op_result(std::index_sequence<I...>)
    -> std::invoke_result_t<Op&, typename Repeat<CT, I>::type...>;
}  // namespace internal

/// out[i] = op(in_0[i_0], ..., in_{N-1}[i_{N-1}]) with broadcasting; out must already have the
/// broadcast shape. Values are loaded as CT; op's result is stored converted to out's dtype.
/// Returns false (after logging and failing the context) when a dtype is unsupported.
template <typename CT, size_t N, typename Op>
bool apply_elementwise(KernelRuntimeContext& ctx, const char* op_name,
                       const std::array<const Tensor*, N>& ins, Tensor& out, Op op) {
  // Comparisons produce bool; everything else is stored from CT.
  using Raw = decltype(internal::op_result<Op, CT>(std::make_index_sequence<N>{}));
  using R = std::conditional_t<std::is_same_v<std::decay_t<Raw>, bool>, bool, CT>;
  bool typed = out.dtype() == dtype_of<R>();
  for (const Tensor* t : ins) typed = typed && t->dtype() == dtype_of<CT>();
  if (typed) {
    std::array<const CT*, N> in_ptr;
    for (size_t k = 0; k < N; ++k) in_ptr[k] = ins[k]->template const_data_ptr<CT>();
    R* out_ptr = out.mutable_data_ptr<R>();
    for_each_broadcast<N>(out.sizes(), ins, [&](int64_t o, const std::array<int64_t, N>& idx) {
      out_ptr[o] = [&]<size_t... I>(std::index_sequence<I...>) { return op(in_ptr[I][idx[I]]...); }
      (std::make_index_sequence<N>{});
    });
    return true;
  }
  std::array<LoadFn<CT>, N> load;
  std::array<const void*, N> in_data;
  for (size_t k = 0; k < N; ++k) {
    load[k] = get_load_fn<CT>(ins[k]->dtype());
    in_data[k] = ins[k]->const_data_ptr();
    PTEC_KERNEL_CHECK_MSG(ctx, load[k] != nullptr, InvalidArgument, false,
                          "%s: input dtype %s is not supported", op_name,
                          to_string(ins[k]->dtype()));
  }
  const StoreFn<R> store = get_store_fn<R>(out.dtype());
  PTEC_KERNEL_CHECK_MSG(ctx, store != nullptr, InvalidArgument, false,
                        "%s: out dtype %s is not supported", op_name, to_string(out.dtype()));
  void* out_data = out.mutable_data_ptr();
  for_each_broadcast<N>(out.sizes(), ins, [&](int64_t o, const std::array<int64_t, N>& idx) {
    store(
        out_data, o, [&]<size_t... I>(std::index_sequence<I...>) {
          return op(load[I](in_data[I], idx[I])...);
        }(std::make_index_sequence<N>{}));
  });
  return true;
}

/// Single-input form of apply_elementwise.
template <typename CT, typename Op>
bool apply_unary(KernelRuntimeContext& ctx, const char* op_name, const Tensor& in, Tensor& out,
                 Op op) {
  return apply_elementwise<CT, 1>(ctx, op_name, {&in}, out, op);
}

/// Two-input form of apply_elementwise.
template <typename CT, typename Op>
bool apply_binary(KernelRuntimeContext& ctx, const char* op_name, const Tensor& a, const Tensor& b,
                  Tensor& out, Op op) {
  return apply_elementwise<CT, 2>(ctx, op_name, {&a, &b}, out, op);
}

}  // namespace ptec::kernels

namespace ptec::kernels {

/// ATen's alpha_check: a Bool computation needs a bool alpha; an integral one rejects a
/// floating-point alpha.
bool check_alpha(KernelRuntimeContext& ctx, const char* op, DType common, const Scalar& alpha);

}  // namespace ptec::kernels

namespace ptec::kernels {

/// A floating unary op (exp, tanh, ...): integral and bool inputs compute in Float, floating
/// ones in their own dtype (Half and BFloat16 in Float, rounded once when stored); `fn` is called
/// with a value of the compute type (a generic lambda).
template <typename Fn>
Tensor& unary_float_op(KernelRuntimeContext& ctx, const char* op, const Tensor& self, Tensor& out,
                       Fn fn) {
  const DType common = is_floating_point(self.dtype()) ? self.dtype() : DType::Float;
  if (!unary_op_prologue(ctx, op, self, out, common, kReducedFloat)) return out;
  dispatch_float(compute_dtype(common), [&](auto tag) {
    using CT = decltype(tag);
    apply_unary<CT>(ctx, op, self, out, [&](CT x) { return static_cast<CT>(fn(x)); });
  });
  return out;
}

}  // namespace ptec::kernels
