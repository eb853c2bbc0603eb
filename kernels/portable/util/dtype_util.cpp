#include "kernels/portable/util/dtype_util.h"

#include "runtime/core/tensor.h"

namespace ptec::kernels {
namespace {

// ATen's combine_categories(higher, lower) for real types.
DType combine_categories(DType higher, DType lower) {
  if (is_floating_point(higher)) return higher;
  if (higher == DType::Bool || is_floating_point(lower)) return promote_types(higher, lower);
  return higher;
}

// Index of each supported dtype in the promotion table.
int table_index(DType t) {
  switch (t) {
    case DType::Byte: return 0;
    case DType::Char: return 1;
    case DType::Short: return 2;
    case DType::Int: return 3;
    case DType::Long: return 4;
    case DType::Float: return 5;
    case DType::Double: return 6;
    case DType::Bool: return 7;
    default: return -1;
  }
}

}  // namespace

bool is_supported_dtype(DType t) { return table_index(t) >= 0; }

DType promote_types(DType a, DType b) {
  constexpr DType u1 = DType::Byte, i1 = DType::Char, i2 = DType::Short, i4 = DType::Int,
                  i8 = DType::Long, f4 = DType::Float, f8 = DType::Double, b1 = DType::Bool;
  // c10's promoteTypes table restricted to the real types and Bool.
  static constexpr DType kTable[8][8] = {
      /*        u1  i1  i2  i4  i8  f4  f8  b1 */
      /* u1 */ {u1, i2, i2, i4, i8, f4, f8, u1},
      /* i1 */ {i2, i1, i2, i4, i8, f4, f8, i1},
      /* i2 */ {i2, i2, i2, i4, i8, f4, f8, i2},
      /* i4 */ {i4, i4, i4, i4, i8, f4, f8, i4},
      /* i8 */ {i8, i8, i8, i8, i8, f4, f8, i8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f8, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8},
      /* b1 */ {u1, i1, i2, i4, i8, f4, f8, b1},
  };
  const int ia = table_index(a), ib = table_index(b);
  if (ia < 0 || ib < 0) return a == b ? a : DType::Float;
  return kTable[ia][ib];
}

bool can_cast(DType from, DType to) {
  if (is_floating_point(from) && is_integral(to, /*include_bool=*/false)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

DType result_type(const runtime::Tensor& a, const runtime::Tensor& b) {
  const bool a_dim = a.dim() > 0, b_dim = b.dim() > 0;
  if (a_dim == b_dim) return promote_types(a.dtype(), b.dtype());
  const DType dimmed = a_dim ? a.dtype() : b.dtype();
  const DType zero = a_dim ? b.dtype() : a.dtype();
  return combine_categories(dimmed, zero);
}

DType result_type(DType a, const runtime::Scalar& s) {
  const DType wrapped =
      s.is_floating_point() ? DType::Float : (s.is_boolean() ? DType::Bool : DType::Long);
  return combine_categories(a, wrapped);
}

DType result_type(const runtime::Tensor& a, const runtime::Scalar& s) {
  return result_type(a.dtype(), s);
}

}  // namespace ptec::kernels
