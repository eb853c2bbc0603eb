#include "kernels/prim_ops/prim_ops.h"

#include "kernels/prim_ops/prim_op_util.h"

namespace ptec::kernels {
namespace {

const runtime::Kernel kPrimOps[] = {
    {"aten::sym_size.int", prim::sym_size_int},
    {"aten::sym_numel", prim::sym_numel},
    {"aten::_local_scalar_dense", prim::local_scalar_dense},
    {"executorch_prim::add.Scalar", prim::add_scalar},
    {"executorch_prim::sub.Scalar", prim::sub_scalar},
    {"executorch_prim::mul.Scalar", prim::mul_scalar},
    {"executorch_prim::truediv.Scalar", prim::truediv_scalar},
    {"executorch_prim::floordiv.Scalar", prim::floordiv_scalar},
    {"executorch_prim::mod.Scalar", prim::mod_scalar},
    {"executorch_prim::sym_max.Scalar", prim::sym_max_scalar},
    {"executorch_prim::sym_min.Scalar", prim::sym_min_scalar},
    {"executorch_prim::floordiv.int", prim::floordiv_int},
    {"executorch_prim::mod.int", prim::mod_int},
    {"executorch_prim::eq.Scalar", prim::eq_scalar},
    {"executorch_prim::gt.Scalar", prim::gt_scalar},
    {"executorch_prim::ge.Scalar", prim::ge_scalar},
    {"executorch_prim::lt.Scalar", prim::lt_scalar},
    {"executorch_prim::le.Scalar", prim::le_scalar},
    {"executorch_prim::neg.Scalar", prim::neg_scalar},
    {"executorch_prim::ceil.Scalar", prim::ceil_scalar},
    {"executorch_prim::round.Scalar", prim::round_scalar},
    {"executorch_prim::trunc.Scalar", prim::trunc_scalar},
    {"executorch_prim::sym_float.Scalar", prim::sym_float_scalar},
    {"executorch_prim::sym_int.Scalar", prim::sym_int_scalar},
    {"executorch_prim::sym_not.Scalar", prim::sym_not_scalar},
};

}  // namespace

Span<const runtime::Kernel> prim_op_kernels() { return kPrimOps; }

Error register_prim_ops() {
  static const Error result = runtime::register_kernels(prim_op_kernels());
  return result;
}

}  // namespace ptec::kernels
