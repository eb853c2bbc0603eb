// Prim ops through the operator registry (the boxed path the executor uses).

#include <gtest/gtest.h>

#include <vector>

#include "kernels/prim_ops/prim_ops.h"
#include "runtime/extension/owned_tensor.h"

namespace ptec::kernels {
namespace {

using runtime::EValue;

/// Calls `name` on `args` plus a return slot; returns the slot (None when the kernel failed).
EValue call(const char* name, std::vector<EValue> args, Error* failure = nullptr) {
  EXPECT_EQ(register_prim_ops(), Error::Ok);
  runtime::OpFunction fn = runtime::get_op_function(name);
  EXPECT_NE(fn, nullptr) << name;
  if (fn == nullptr) return EValue();
  args.emplace_back();
  std::vector<EValue*> stack;
  for (EValue& a : args) stack.push_back(&a);
  runtime::KernelRuntimeContext ctx;
  fn(ctx, Span<EValue*>(stack.data(), stack.size()));
  if (failure != nullptr) *failure = ctx.failure_state();
  return args.back();
}

TEST(PrimOps, SymSizeReadsTheCurrentSize) {
  runtime::OwnedTensor t = runtime::OwnedTensor::full(DType::Float, {2, 7, 3}, 0.0);
  EValue v = call("aten::sym_size.int", {t.evalue(), EValue(int64_t{1})});
  ASSERT_TRUE(v.is_int());
  EXPECT_EQ(v.to_int(), 7);
  EXPECT_EQ(call("aten::sym_size.int", {t.evalue(), EValue(int64_t{-1})}).to_int(), 3);
  EXPECT_EQ(call("aten::sym_numel", {t.evalue()}).to_int(), 42);
  Error failure = Error::Ok;
  call("aten::sym_size.int", {t.evalue(), EValue(int64_t{3})}, &failure);
  EXPECT_EQ(failure, Error::InvalidArgument);
}

TEST(PrimOps, LocalScalarDenseReadsTheOnlyElementByDtype) {
  runtime::OwnedTensor flag = runtime::OwnedTensor::full(DType::Bool, {1}, 1.0);
  EValue b = call("aten::_local_scalar_dense", {flag.evalue()});
  ASSERT_TRUE(b.is_bool());
  EXPECT_TRUE(b.to_bool());
  runtime::OwnedTensor count = runtime::OwnedTensor::full(DType::Int, {}, 7.0);
  EValue n = call("aten::_local_scalar_dense", {count.evalue()});
  ASSERT_TRUE(n.is_int());
  EXPECT_EQ(n.to_int(), 7);
  runtime::OwnedTensor x = runtime::OwnedTensor::full(DType::Float, {1, 1}, 2.5);
  EValue f = call("aten::_local_scalar_dense", {x.evalue()});
  ASSERT_TRUE(f.is_double());
  EXPECT_DOUBLE_EQ(f.to_double(), 2.5);
  runtime::OwnedTensor two = runtime::OwnedTensor::full(DType::Float, {2}, 0.0);
  Error failure = Error::Ok;
  call("aten::_local_scalar_dense", {two.evalue()}, &failure);
  EXPECT_EQ(failure, Error::InvalidArgument);
}

TEST(PrimOps, ArithmeticKeepsIntsAndFollowsPython) {
  auto i = [](int64_t x) { return EValue(x); };
  EXPECT_EQ(call("executorch_prim::add.Scalar", {i(3), i(4)}).to_int(), 7);
  EXPECT_EQ(call("executorch_prim::sub.Scalar", {i(3), i(4)}).to_int(), -1);
  EXPECT_EQ(call("executorch_prim::mul.Scalar", {i(3), i(4)}).to_int(), 12);
  EXPECT_EQ(call("executorch_prim::floordiv.Scalar", {i(-7), i(2)}).to_int(), -4);
  EXPECT_EQ(call("executorch_prim::mod.Scalar", {i(-7), i(2)}).to_int(), 1);
  EXPECT_EQ(call("executorch_prim::floordiv.int", {i(7), i(2)}).to_int(), 3);
  EXPECT_EQ(call("executorch_prim::mod.int", {i(7), i(-2)}).to_int(), -1);
  EXPECT_EQ(call("executorch_prim::sym_max.Scalar", {i(3), i(9)}).to_int(), 9);
  EXPECT_EQ(call("executorch_prim::sym_min.Scalar", {i(3), i(9)}).to_int(), 3);
  EValue q = call("executorch_prim::truediv.Scalar", {i(7), i(2)});
  ASSERT_TRUE(q.is_double());
  EXPECT_DOUBLE_EQ(q.to_double(), 3.5);
  EValue mixed = call("executorch_prim::mul.Scalar", {i(3), EValue(0.5)});
  ASSERT_TRUE(mixed.is_double());
  EXPECT_DOUBLE_EQ(mixed.to_double(), 1.5);
  EXPECT_EQ(call("executorch_prim::neg.Scalar", {i(5)}).to_int(), -5);
  EXPECT_EQ(call("executorch_prim::ceil.Scalar", {EValue(2.1)}).to_int(), 3);
  EXPECT_EQ(call("executorch_prim::round.Scalar", {EValue(2.5)}).to_int(), 2);
  EXPECT_EQ(call("executorch_prim::trunc.Scalar", {EValue(-2.7)}).to_int(), -2);
  EXPECT_DOUBLE_EQ(call("executorch_prim::sym_float.Scalar", {i(4)}).to_double(), 4.0);
  EXPECT_EQ(call("executorch_prim::sym_int.Scalar", {EValue(4.9)}).to_int(), 4);
  Error failure = Error::Ok;
  call("executorch_prim::floordiv.Scalar", {i(1), i(0)}, &failure);
  EXPECT_EQ(failure, Error::InvalidArgument);
}

TEST(PrimOps, ComparisonsGiveBools) {
  auto i = [](int64_t x) { return EValue(x); };
  EXPECT_TRUE(call("executorch_prim::eq.Scalar", {i(3), i(3)}).to_bool());
  EXPECT_TRUE(call("executorch_prim::gt.Scalar", {i(4), i(3)}).to_bool());
  EXPECT_FALSE(call("executorch_prim::ge.Scalar", {i(2), i(3)}).to_bool());
  EXPECT_TRUE(call("executorch_prim::lt.Scalar", {EValue(2.5), i(3)}).to_bool());
  EXPECT_TRUE(call("executorch_prim::le.Scalar", {i(3), i(3)}).to_bool());
  EXPECT_TRUE(call("executorch_prim::sym_not.Scalar", {EValue(false)}).to_bool());
  Error failure = Error::Ok;
  runtime::OwnedTensor t = runtime::OwnedTensor::full(DType::Float, {1}, 0.0);
  call("executorch_prim::eq.Scalar", {t.evalue(), i(1)}, &failure);
  EXPECT_EQ(failure, Error::InvalidArgument);
}

TEST(PrimOps, RegistrationIsIdempotent) {
  EXPECT_EQ(register_prim_ops(), Error::Ok);
  EXPECT_EQ(register_prim_ops(), Error::Ok);
  EXPECT_EQ(prim_op_kernels().size(), 25u);
}

}  // namespace
}  // namespace ptec::kernels
