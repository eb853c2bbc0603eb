#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ir/exception.h"
#include "ir/node.h"
#include "ir/op_schema.h"

namespace ptec::ir {

/// ATen's promote_types: the smallest dtype both `a` and `b` convert to without losing range
/// (bool < integral < floating; uint8 with int8 gives int16; half with bfloat16 gives float).
/// Throws InvalidArgument for quantized dtypes.
DType promote_types(DType a, DType b);

/// One operand of an ATen result-type computation.
struct PromotionOperand {
  DType dtype;
  /// A 0-dim tensor takes part with a lower priority than a dimensioned one.
  bool zero_dim = false;
  /// A Python number (Scalar argument): only its category (bool, integral, floating) counts;
  /// a float scalar counts as the default dtype (float32) and an int as int64.
  bool wrapped_scalar = false;
};

/// ATen's result_type over tensors and Scalars (c10 ResultTypeState): dimensioned tensors first,
/// then 0-dim tensors, then scalars, where a lower-priority operand only matters when it is of a
/// higher category. E.g. i32[3] + 2.5 → f32; i32[3] + f64[] → f64; f16[3] + f32[] → f16;
/// i32[3] + 1 → i32.
DType result_type(const std::vector<PromotionOperand>& operands);

/// The dtype of a Scalar argument as a wrapped number: Bool, Long or Double.
DType scalar_dtype(const Argument& scalar);

}  // namespace ptec::ir

namespace ptec::ir::shape {

/// Throws InvalidArgument "<op>: argument '<arg>': <message>".
template <typename... Args>
[[noreturn]] void fail(const OpSchema& op, std::string_view arg, fmt::format_string<Args...> format,
                       Args&&... args) {
  raise(Error::InvalidArgument, "{}: argument '{}': {}", op.qualified_name(), arg,
        fmt::format(format, std::forward<Args>(args)...));
}

/// The argument named `name` (by schema position). Throws InvalidArgument if missing.
const Argument& arg(const OpSchema& op, const ArgumentList& args, std::string_view name);

/// The spec of Tensor argument `name`: a node with exactly one output spec.
const TensorSpec& tensor(const OpSchema& op, const ArgumentList& args, std::string_view name);
/// Same for `Tensor?`: nullptr for None.
const TensorSpec* optional_tensor(const OpSchema& op, const ArgumentList& args,
                                  std::string_view name);
/// The specs of a `Tensor[]` argument (a list of nodes).
std::vector<const TensorSpec*> tensor_list(const OpSchema& op, const ArgumentList& args,
                                           std::string_view name);

/// A static int argument (an int literal; a symbolic value is refused).
int64_t int_value(const OpSchema& op, const ArgumentList& args, std::string_view name);
std::optional<int64_t> optional_int(const OpSchema& op, const ArgumentList& args,
                                    std::string_view name);
/// An int-or-list argument as a list (an int dim becomes [dim]); None becomes nullopt.
std::optional<std::vector<int64_t>> optional_int_list(const OpSchema& op, const ArgumentList& args,
                                                      std::string_view name);
std::vector<int64_t> int_list(const OpSchema& op, const ArgumentList& args, std::string_view name);
/// A SymInt argument: an int literal, or a `sym_size.int` node whose dimension is known.
SymInt sym_int(const OpSchema& op, const ArgumentList& args, std::string_view name);
/// The range [min, max] an int argument can take: an int, a `sym_size.int` node's dim, or
/// executorch_prim::sym_min / sym_max of such; nullopt for other scalar nodes.
std::optional<std::pair<int64_t, int64_t>> int_range(const Argument& a);
/// The dim an int argument is when that is known: an int, aten::sym_size.int(t, d) of a tensor t
/// (its dim d, a symbol or a constant), or executorch_prim's mul, add or sub of such and an int,
/// floordiv by a positive int, or mul of two such (a product of symbols, ir::product_of; counts
/// through ir::affine); nullopt for other computed ints.
std::optional<SymInt> known_sym_int(const Argument& a);
/// A SymInt[] argument; items may be ints or `sym_size.int` nodes.
Shape sym_int_list(const OpSchema& op, const ArgumentList& args, std::string_view name);
double float_value(const OpSchema& op, const ArgumentList& args, std::string_view name);
std::optional<double> optional_float(const OpSchema& op, const ArgumentList& args,
                                     std::string_view name);
std::optional<std::vector<double>> optional_float_list(const OpSchema& op, const ArgumentList& args,
                                                       std::string_view name);
bool bool_value(const OpSchema& op, const ArgumentList& args, std::string_view name);
std::optional<DType> optional_dtype(const OpSchema& op, const ArgumentList& args,
                                    std::string_view name);
DType dtype_value(const OpSchema& op, const ArgumentList& args, std::string_view name);

/// `dim` wrapped into [0, rank) (negative dims count from the end). For rank 0, -1 and 0 are
/// allowed (ATen's scalar rule) and give 0.
int64_t normalize_dim(const OpSchema& op, std::string_view arg_name, int64_t dim, size_t rank);

/// The static value of dimension `dim` of `spec`; throws InvalidArgument ("<op> needs a static
/// size for dimension D of 'arg' (f32[batch, 3]), got symbol 'batch'") for a symbol.
int64_t static_dim(const OpSchema& op, std::string_view arg_name, const TensorSpec& spec,
                   size_t dim);

/// NumPy broadcasting of two shapes. Equal symbols and symbol-vs-1 broadcast; other mixes of a
/// symbol with a different value are refused (naming both arguments).
Shape broadcast(const OpSchema& op, std::string_view a_name, const Shape& a,
                std::string_view b_name, const Shape& b);

/// A spec with the dtype and shape given (contiguous).
inline TensorSpec make_spec(DType dtype, Shape shape) {
  return TensorSpec(dtype, std::move(shape));
}

}  // namespace ptec::ir::shape
