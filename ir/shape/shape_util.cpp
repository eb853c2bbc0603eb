#include "ir/shape/shape_util.h"

#include <algorithm>

namespace ptec::ir {
namespace {

int int_rank(DType t) {
  switch (t) {
    case DType::Char: return 1;
    case DType::Short: return 2;
    case DType::Int: return 3;
    case DType::Long: return 4;
    default: return 0;
  }
}

bool is_barebones_unsigned(DType t) {
  return t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}

int float_rank(DType t) {
  switch (t) {
    case DType::Half:
    case DType::BFloat16: return 1;
    case DType::Float: return 2;
    case DType::Double: return 3;
    default: return 0;
  }
}

}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  PTEC_ENFORCE(!is_quantized(a) && !is_quantized(b), InvalidArgument,
               "cannot promote quantized dtypes {} and {}", to_string(a), to_string(b));
  if (is_barebones_unsigned(a) || is_barebones_unsigned(b)) {
    // c10: uint16/32/64 promote only with a floating type (which wins).
    if (is_floating_point(a)) return a;
    if (is_floating_point(b)) return b;
    raise(Error::InvalidArgument,
          "promotion of {} and {} is not supported (uint16, uint32 and uint64 combine only with "
          "their own dtype or a floating dtype)",
          to_string(a), to_string(b));
  }
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  const bool af = is_floating_point(a);
  const bool bf = is_floating_point(b);
  if (af && bf) {
    if ((a == DType::Half && b == DType::BFloat16) || (a == DType::BFloat16 && b == DType::Half)) {
      return DType::Float;
    }
    PTEC_ENFORCE(float_rank(a) > 0 && float_rank(b) > 0, InvalidArgument,
                 "promotion of {} and {} is not supported", to_string(a), to_string(b));
    return float_rank(a) >= float_rank(b) ? a : b;
  }
  if (af) return a;
  if (bf) return b;
  // Both integral.
  if (a == DType::Byte || b == DType::Byte) {
    const DType other = a == DType::Byte ? b : a;
    if (other == DType::Char) return DType::Short;
    PTEC_ENFORCE(int_rank(other) > 0, InvalidArgument, "promotion of {} and {} is not supported",
                 to_string(a), to_string(b));
    return other;
  }
  PTEC_ENFORCE(int_rank(a) > 0 && int_rank(b) > 0, InvalidArgument,
               "promotion of {} and {} is not supported", to_string(a), to_string(b));
  return int_rank(a) >= int_rank(b) ? a : b;
}

namespace {

// c10's combine_categories: `higher` has priority; `lower` only matters when of a higher
// category.
std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_floating_point(*higher)) return higher;
  if (*higher == DType::Bool || is_floating_point(*lower)) return promote_types(*higher, *lower);
  return higher;
}

void update(std::optional<DType>& slot, DType t) { slot = slot ? promote_types(*slot, t) : t; }

}  // namespace

DType result_type(const std::vector<PromotionOperand>& operands) {
  std::optional<DType> dim_result;
  std::optional<DType> zero_result;
  std::optional<DType> wrapped_result;
  for (const PromotionOperand& o : operands) {
    if (o.wrapped_scalar) {
      DType t = o.dtype;
      if (is_floating_point(t)) t = DType::Float;  // the default dtype
      update(wrapped_result, t);
    } else if (o.zero_dim) {
      update(zero_result, o.dtype);
    } else {
      update(dim_result, o.dtype);
    }
  }
  const std::optional<DType> result = combine(dim_result, combine(zero_result, wrapped_result));
  PTEC_ENFORCE(result.has_value(), InvalidArgument, "result_type of no operands");
  return *result;
}

DType scalar_dtype(const Argument& scalar) {
  if (scalar.is_bool()) return DType::Bool;
  if (scalar.is_int()) return DType::Long;
  if (scalar.is_double()) return DType::Double;
  // A symbolic scalar (a prim node) is an integer.
  return DType::Long;
}

}  // namespace ptec::ir

namespace ptec::ir::shape {

namespace {
std::string describe(const Argument& a) {
  if (a.is_none()) return "None";
  if (a.is_node()) return "%" + a.as_node()->name();
  if (a.is_int()) return std::to_string(a.as_int());
  if (a.is_double()) return fmt::format("{}", a.as_double());
  if (a.is_bool()) return a.as_bool() ? "True" : "False";
  if (a.is_string()) return fmt::format("\"{}\"", a.as_string());
  if (a.is_dtype()) return to_string(a.as_dtype());
  return "a list";
}
}  // namespace

const Argument& arg(const OpSchema& op, const ArgumentList& args, std::string_view name) {
  const int index = op.arg_index(name);
  if (index < 0 || static_cast<size_t>(index) >= args.size()) {
    raise(Error::InvalidArgument, "{}: argument '{}' is missing ({} arguments given, {} expected)",
          op.qualified_name(), name, args.size(), op.args.size());
  }
  return args[static_cast<size_t>(index)];
}

namespace {
const TensorSpec& node_spec(const OpSchema& op, std::string_view name, const Argument& a) {
  if (!a.is_node()) fail(op, name, "expected a tensor, got {}", describe(a));
  const Node* n = a.as_node();
  if (n->meta().val.size() != 1) {
    fail(op, name, "expected a tensor, got %{} with {} output specs", n->name(),
         n->meta().val.size());
  }
  return n->meta().val[0];
}
}  // namespace

const TensorSpec& tensor(const OpSchema& op, const ArgumentList& args, std::string_view name) {
  return node_spec(op, name, arg(op, args, name));
}

const TensorSpec* optional_tensor(const OpSchema& op, const ArgumentList& args,
                                  std::string_view name) {
  const Argument& a = arg(op, args, name);
  if (a.is_none()) return nullptr;
  return &node_spec(op, name, a);
}

std::vector<const TensorSpec*> tensor_list(const OpSchema& op, const ArgumentList& args,
                                           std::string_view name) {
  const Argument& a = arg(op, args, name);
  if (!a.is_list()) fail(op, name, "expected a list of tensors, got {}", describe(a));
  std::vector<const TensorSpec*> out;
  for (const Argument& item : a.as_list()) {
    out.push_back(item.is_none() ? nullptr : &node_spec(op, name, item));
  }
  return out;
}

namespace {
int64_t static_int(const OpSchema& op, std::string_view name, const Argument& a) {
  if (a.is_int()) return a.as_int();
  if (a.is_node()) {
    fail(op, name, "needs a static int, got the symbolic value %{}", a.as_node()->name());
  }
  fail(op, name, "expected an int, got {}", describe(a));
}

SymInt to_sym_int(const OpSchema& op, std::string_view name, const Argument& a) {
  if (std::optional<SymInt> known = known_sym_int(a)) return *known;
  if (a.is_node()) {
    const Node* n = a.as_node();
    fail(op, name, "cannot tell the value of the symbolic int %{} ({})", n->name(), n->target());
  }
  fail(op, name, "expected an int, got {}", describe(a));
}
}  // namespace

std::optional<SymInt> known_sym_int(const Argument& a) {
  if (a.is_int()) return SymInt(a.as_int());
  if (!a.is_node()) return std::nullopt;
  const Node* n = a.as_node();
  // Arithmetic that executorch_prim computes at run time, of known dims.
  const bool mul = n->is_op("executorch_prim::mul.Scalar");
  const bool add = n->is_op("executorch_prim::add.Scalar");
  const bool sub = n->is_op("executorch_prim::sub.Scalar");
  const bool div = n->is_op("executorch_prim::floordiv.Scalar");
  if ((mul || add || sub || div) && n->args().size() == 2) {
    const std::optional<SymInt> x = known_sym_int(n->arg(0)), y = known_sym_int(n->arg(1));
    if (!x || !y) return std::nullopt;
    if (mul && (x->is_symbolic() || x->value() >= 0) && (y->is_symbolic() || y->value() >= 0)) {
      return ir::times(*x, *y);
    }
    if (!y->is_static())
      return add && x->is_static() ? affine(*y, 1, x->value(), 1) : std::optional<SymInt>();
    if (add || sub) return affine(*x, 1, add ? y->value() : -y->value(), 1);
    if (div && y->value() > 0) return affine(*x, 1, 0, y->value());
    return std::nullopt;
  }
  // sym_size.int(t, d) is dimension d of t: a symbol or a constant.
  if (!n->is_op("aten::sym_size.int") || n->args().size() != 2 || !n->arg(0).is_node() ||
      !n->arg(1).is_int() || n->arg(0).as_node()->meta().val.size() != 1) {
    return std::nullopt;
  }
  const TensorSpec& s = n->arg(0).as_node()->meta().val[0];
  const int64_t d = n->arg(1).as_int();
  const int64_t rank = static_cast<int64_t>(s.rank());
  if (d < -rank || d >= rank) return std::nullopt;
  return s.shape[static_cast<size_t>(d < 0 ? d + rank : d)];
}

std::optional<std::pair<int64_t, int64_t>> int_range(const Argument& a) {
  if (std::optional<SymInt> dim = known_sym_int(a)) {
    return std::pair{dim->lower_bound(), dim->upper_bound()};
  }
  if (!a.is_node()) return std::nullopt;
  const Node* n = a.as_node();
  const bool min = n->is_op("executorch_prim::sym_min.Scalar");
  if ((min || n->is_op("executorch_prim::sym_max.Scalar")) && n->args().size() == 2) {
    const auto x = int_range(n->arg(0)), y = int_range(n->arg(1));
    if (!x || !y) return std::nullopt;
    return min ? std::pair{std::min(x->first, y->first), std::min(x->second, y->second)}
               : std::pair{std::max(x->first, y->first), std::max(x->second, y->second)};
  }
  return std::nullopt;
}

int64_t int_value(const OpSchema& op, const ArgumentList& args, std::string_view name) {
  return static_int(op, name, arg(op, args, name));
}

std::optional<int64_t> optional_int(const OpSchema& op, const ArgumentList& args,
                                    std::string_view name) {
  const Argument& a = arg(op, args, name);
  if (a.is_none()) return std::nullopt;
  return static_int(op, name, a);
}

std::optional<std::vector<int64_t>> optional_int_list(const OpSchema& op, const ArgumentList& args,
                                                      std::string_view name) {
  const Argument& a = arg(op, args, name);
  if (a.is_none()) return std::nullopt;
  if (a.is_int()) return std::vector<int64_t>{a.as_int()};
  if (!a.is_list()) fail(op, name, "expected a list of ints, got {}", describe(a));
  std::vector<int64_t> out;
  for (const Argument& item : a.as_list()) out.push_back(static_int(op, name, item));
  return out;
}

std::vector<int64_t> int_list(const OpSchema& op, const ArgumentList& args, std::string_view name) {
  auto out = optional_int_list(op, args, name);
  if (!out) fail(op, name, "expected a list of ints, got None");
  return *out;
}

SymInt sym_int(const OpSchema& op, const ArgumentList& args, std::string_view name) {
  return to_sym_int(op, name, arg(op, args, name));
}

Shape sym_int_list(const OpSchema& op, const ArgumentList& args, std::string_view name) {
  const Argument& a = arg(op, args, name);
  if (!a.is_list()) fail(op, name, "expected a list of ints, got {}", describe(a));
  Shape out;
  for (const Argument& item : a.as_list()) out.push_back(to_sym_int(op, name, item));
  return out;
}

double float_value(const OpSchema& op, const ArgumentList& args, std::string_view name) {
  const Argument& a = arg(op, args, name);
  if (a.is_double() || a.is_int()) return a.to_double();
  fail(op, name, "expected a float, got {}", describe(a));
}

std::optional<double> optional_float(const OpSchema& op, const ArgumentList& args,
                                     std::string_view name) {
  if (arg(op, args, name).is_none()) return std::nullopt;
  return float_value(op, args, name);
}

std::optional<std::vector<double>> optional_float_list(const OpSchema& op, const ArgumentList& args,
                                                       std::string_view name) {
  const Argument& a = arg(op, args, name);
  if (a.is_none()) return std::nullopt;
  if (!a.is_list()) fail(op, name, "expected a list of floats, got {}", describe(a));
  std::vector<double> out;
  for (const Argument& item : a.as_list()) {
    if (!item.is_double() && !item.is_int()) {
      fail(op, name, "expected a list of floats, found {}", describe(item));
    }
    out.push_back(item.to_double());
  }
  return out;
}

bool bool_value(const OpSchema& op, const ArgumentList& args, std::string_view name) {
  const Argument& a = arg(op, args, name);
  if (!a.is_bool()) fail(op, name, "expected a bool, got {}", describe(a));
  return a.as_bool();
}

std::optional<DType> optional_dtype(const OpSchema& op, const ArgumentList& args,
                                    std::string_view name) {
  const Argument& a = arg(op, args, name);
  if (a.is_none()) return std::nullopt;
  if (a.is_dtype()) return a.as_dtype();
  if (a.is_int() && is_valid_dtype(a.as_int())) return static_cast<DType>(a.as_int());
  fail(op, name, "expected a dtype, got {}", describe(a));
}

DType dtype_value(const OpSchema& op, const ArgumentList& args, std::string_view name) {
  auto dt = optional_dtype(op, args, name);
  if (!dt) fail(op, name, "expected a dtype, got None");
  return *dt;
}

int64_t normalize_dim(const OpSchema& op, std::string_view arg_name, int64_t dim, size_t rank) {
  const int64_t r = std::max<int64_t>(static_cast<int64_t>(rank), 1);
  if (dim < -r || dim >= r) {
    fail(op, arg_name, "dimension {} is out of range for a tensor of rank {}", dim, rank);
  }
  return dim < 0 ? dim + r : dim;
}

int64_t static_dim(const OpSchema& op, std::string_view arg_name, const TensorSpec& spec,
                   size_t dim) {
  const SymInt& d = spec.shape.at(dim);
  if (d.is_symbolic()) {
    fail(op, arg_name, "needs a static size for dimension {} of {}, got symbol '{}'", dim,
         spec.to_string(), d.symbol()->name);
  }
  return d.value();
}

Shape broadcast(const OpSchema& op, std::string_view a_name, const Shape& a,
                std::string_view b_name, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const bool has_a = i < a.size();
    const bool has_b = i < b.size();
    const SymInt& da = has_a ? a[a.size() - 1 - i] : b[b.size() - 1 - i];
    const SymInt& db = has_b ? b[b.size() - 1 - i] : a[a.size() - 1 - i];
    SymInt r;
    if (da == db) {
      r = da;
    } else if (da.is_static() && da.value() == 1) {
      r = db;
    } else if (db.is_static() && db.value() == 1) {
      r = da;
    } else {
      auto shape_str = [](const Shape& s) {
        std::string text = "[";
        for (size_t k = 0; k < s.size(); ++k) text += (k ? ", " : "") + s[k].to_string();
        return text + "]";
      };
      raise(Error::InvalidArgument,
            "{}: arguments '{}' {} and '{}' {} do not broadcast (dimension {} from the end: {} vs "
            "{}){}",
            op.qualified_name(), a_name, shape_str(a), b_name, shape_str(b), i + 1, da.to_string(),
            db.to_string(), agreeing_multiple_hint(da, db));
    }
    out[rank - 1 - i] = r;
  }
  return out;
}

}  // namespace ptec::ir::shape
