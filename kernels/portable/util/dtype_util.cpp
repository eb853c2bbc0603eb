#include "kernels/portable/util/dtype_util.h"

#include "runtime/core/tensor.h"

namespace ptec::kernels {
namespace {

// ATen's combine_categories(higher, lower) for real types.
DType combine_categories(DType higher, DType lower) {
  if (higher == kNoPromotion || lower == kNoPromotion) return kNoPromotion;
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
    case DType::Half: return 8;
    case DType::BFloat16: return 9;
    default: return -1;
  }
}

}  // namespace

bool is_supported_dtype(DType t) { return table_index(t) >= 0 && table_index(t) < 8; }

bool is_barebones_unsigned(DType t) {
  return t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}

bool is_reduced_float(DType t) { return t == DType::Half || t == DType::BFloat16; }

DType compute_dtype(DType t) { return is_reduced_float(t) ? DType::Float : t; }

bool is_accepted_dtype(DType t, unsigned support) {
  if (is_supported_dtype(t)) return true;
  if (is_reduced_float(t)) return (support & kReducedFloat) != 0;
  if (is_barebones_unsigned(t)) return (support & kBarebonesUnsigned) != 0;
  return false;
}

DType promote_types(DType a, DType b) {
  constexpr DType u1 = DType::Byte, i1 = DType::Char, i2 = DType::Short, i4 = DType::Int,
                  i8 = DType::Long, f4 = DType::Float, f8 = DType::Double, b1 = DType::Bool,
                  f2 = DType::Half, bf = DType::BFloat16;
  // c10's promoteTypes table restricted to the real types, Bool, Half and BFloat16.
  static constexpr DType kTable[10][10] = {
      /*        u1  i1  i2  i4  i8  f4  f8  b1  f2  bf */
      /* u1 */ {u1, i2, i2, i4, i8, f4, f8, u1, f2, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f4, f8, i1, f2, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f4, f8, i2, f2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f4, f8, i4, f2, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f4, f8, i8, f2, bf},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f8, f4, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
      /* b1 */ {u1, i1, i2, i4, i8, f4, f8, b1, f2, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f4, f8, f2, f2, f4},
      /* bf */ {bf, bf, bf, bf, bf, f4, f8, bf, f4, bf},
  };
  if (a == b) return a;
  if (a == kNoPromotion || b == kNoPromotion) return kNoPromotion;
  if (is_barebones_unsigned(a) || is_barebones_unsigned(b)) {
    // c10: "Promotion for uint16, uint32, uint64 types is not supported", except that a
    // floating type wins.
    if (is_floating_point(a)) return a;
    if (is_floating_point(b)) return b;
    return kNoPromotion;
  }
  const int ia = table_index(a), ib = table_index(b);
  if (ia < 0 || ib < 0) return kNoPromotion;
  return kTable[ia][ib];
}

bool can_cast(DType from, DType to) {
  if (from == kNoPromotion) return false;
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
