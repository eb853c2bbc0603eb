#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/span.h"
#include "ir/argument.h"
#include "ir/tensor_spec.h"

namespace ptec::ir {

/// Base type of a schema argument or return, as spelled in ATen schema strings.
enum class BaseType {
  Tensor,
  Int,
  SymInt,
  Float,
  Bool,
  Scalar,
  ScalarType,
  Layout,
  Device,
  MemoryFormat,
  String,
  CustomObj,  // an opaque object such as a precompiled engine
};
/// The ATen spelling of a base type: "Tensor", "int", "SymInt", "float", "str", ...
const char* to_string(BaseType base);

/// A schema type: `Tensor`, `Tensor?`, `int[2]`, `SymInt[]?`, `Tensor?[]`, ...
struct TypeRef {
  BaseType base = BaseType::Tensor;
  bool optional = false;          // `T?` or `T[]?`: the whole value may be None
  bool is_list = false;           // `T[]` / `T[N]`
  int list_size = -1;             // N for `T[N]`, -1 when unsized
  bool element_optional = false;  // `T?[]`

  /// The ATen spelling, e.g. "int[2]", "Tensor?[]".
  std::string to_string() const;
  bool operator==(const TypeRef&) const = default;
};

/// One argument of an operator schema.
struct ArgSchema {
  std::string name;
  TypeRef type;
  /// Default value when the schema gives one (e.g. `alpha=1`, `dim=[]`, `dtype=None`).
  std::optional<Argument> default_value;
  bool kwarg_only = false;  // after `*`
  bool is_out = false;      // `Tensor(a!) out`: written by the op
};

struct OpSchema;

/// Computes a call's output tensor specs from its arguments (schema order; tensor arguments are
/// Nodes whose meta().val holds their specs). Throws ptec::Exception(InvalidArgument) with a
/// message naming the op and the problem when the arguments are not valid for the op.
using ShapeFn = std::vector<TensorSpec> (*)(const OpSchema& op, const ArgumentList& args);

/// An operator overload: its functional schema (what the IR holds) and the out-variant the
/// emitter calls (what a .pte names). Built from ATen schema strings (OPERATORS.md).
struct OpSchema {
  std::string ns;        // "aten"
  std::string name;      // "add"
  std::string overload;  // "Tensor"; "" for the default overload
  std::vector<ArgSchema> args;
  std::vector<TypeRef> returns;
  std::string schema;  // the functional schema string

  /// Out variant: overload name and full argument list (functional args and out args, in the
  /// order the kernel takes them). Empty `out_overload` for ops with no out variant (prim ops,
  /// getitem, delegate calls).
  std::string out_overload;
  std::vector<ArgSchema> out_args;
  std::string out_schema;

  ShapeFn shape_fn = nullptr;
  /// True for `...` schemas (executorch_call_delegate): nodes pass the declared arguments, then
  /// any number of further arguments.
  bool is_vararg = false;
  /// True when the output specs cannot be computed from the arguments (engine and delegate
  /// calls): whoever creates the node sets meta.val, and shape_fn throws NotSupported.
  bool opaque_outputs = false;

  /// "aten::add.Tensor" (or "aten::add" for the default overload).
  std::string qualified_name() const;
  /// "aten::add.out": the name a .pte's operator table uses ("" when there is no out variant).
  std::string out_qualified_name() const;
  /// Index of the argument named `arg_name`, or -1.
  int arg_index(std::string_view arg_name) const;
  /// True when some return is a Tensor or Tensor[] (false for the scalar prims).
  bool returns_tensors() const;
};

/// Parses an ATen schema string such as
/// "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor".
/// Throws InvalidArgument with the position of the problem.
OpSchema parse_schema(std::string_view schema);

/// The registry (process-wide, immutable after first use) built from the op table.
const OpSchema* find_op(std::string_view qualified_name);
/// Throws NotFound listing similar names when there is no such op.
const OpSchema& get_op(std::string_view qualified_name);
/// Every registered op, sorted by qualified name.
const std::vector<const OpSchema*>& all_ops();
/// Up to `limit` registered names close to `qualified_name` (other overloads of the same
/// operator first, then by edit distance); used by error messages.
std::vector<std::string> similar_op_names(std::string_view qualified_name, size_t limit = 5);

}  // namespace ptec::ir
