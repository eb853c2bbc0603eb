// Shape functions of view/shape ops (all *_copy in the core ATen set): view, permute,
// transpose, squeeze/unsqueeze, expand, repeat, cat/stack/split/unbind, slice/select/narrow, and
// the indexing ops index_select, index.Tensor, gather, embedding, scatter*, index_put, topk.

#include <algorithm>
#include <map>
#include <numeric>
#include <variant>

#include "ir/shape/shape_fns.h"
#include "ir/shape/shape_util.h"

namespace ptec::ir::shape {
namespace {

std::string shape_string(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + s[i].to_string();
  return out + "]";
}

void require_index(const OpSchema& op, std::string_view name, const TensorSpec& spec) {
  if (spec.dtype != DType::Long && spec.dtype != DType::Int) {
    fail(op, name, "expected an int64 or int32 index tensor, got {}", spec.to_string());
  }
}

// An optional SymInt argument (slice start/end): nullopt for None.
std::optional<SymInt> optional_sym_int(const OpSchema& op, const ArgumentList& args,
                                       std::string_view name) {
  if (arg(op, args, name).is_none()) return std::nullopt;
  return sym_int(op, args, name);
}

}  // namespace

namespace {
// view_copy's sizes for `self` (one -1 at most, already checked), comparing both sides as a
// static fraction times root symbols (a product dim counts its factor and each of its roots).
// With `fractions`, an exact fraction r / q of a declared multiple counts as r and 1 / q, so
// that h/2 and 2 make h. The error message when they do not match, else the sizes.
std::variant<Shape, std::string> infer_view(const TensorSpec& self, Shape size, bool fractions) {
  int64_t in_num = 1, in_den = 1;
  std::map<std::string, int> roots;  // self's roots minus the size's
  std::map<std::string, SymbolPtr> by_name;
  std::vector<ExactFraction> split;  // self's fractions, in order, as counted
  auto count_roots = [&](const SymInt& d, int64_t& num, int64_t& den, int sign) -> bool {
    num *= d.symbol()->factor;
    for (const SymbolPtr& r : roots_of(d.symbol())) {
      SymbolPtr base = r;
      if (std::optional<ExactFraction> f = fractions ? exact_fraction(r) : std::nullopt) {
        base = f->root;
        den *= f->divisor;
        if (sign > 0) split.push_back(*f);
      }
      by_name.emplace(base->name, base);
      if ((roots[base->name] += sign) < 0) return false;
    }
    return true;
  };
  for (const SymInt& d : self.shape) {
    if (d.is_static()) {
      in_num *= d.value();
    } else {
      count_roots(d, in_num, in_den, 1);
    }
  }
  int64_t out_num = 1, out_den = 1;
  int infer = -1;
  for (size_t i = 0; i < size.size(); ++i) {
    const SymInt& d = size[i];
    if (d.is_static() && d.value() == -1) {
      infer = static_cast<int>(i);
    } else if (d.is_static()) {
      out_num *= d.value();
    } else if (!count_roots(d, out_num, out_den, -1)) {
      return fmt::format("symbol '{}' of {} is not a dimension of self {}", d.symbol()->name,
                         shape_string(size), self.to_string());
    }
  }
  std::vector<SymbolPtr> left;
  for (const auto& [name, count] : roots) {
    for (int k = 0; k < count; ++k) left.push_back(by_name.at(name));
  }
  // What is left: (in_num / in_den) / (out_num / out_den) times the left roots, p / q reduced.
  int64_t p = in_num * out_den, q = in_den * out_num;
  if (q != 0) {
    const int64_t g = std::gcd(p, q);
    p /= g;
    q /= g;
  }
  const std::string invalid =
      fmt::format("shape {} is invalid for an input {}", shape_string(size), self.to_string());
  if (infer < 0) {
    if (!left.empty() || p != q) return invalid;
    return size;
  }
  if (q == 0) return invalid;
  // A denominator comes out of left roots: self's own fractions first (so that [b, h/8, w/8]
  // to [b, -1] is (h/8)*(w/8) as without them), then any root declared a multiple of it.
  std::vector<int64_t> divide(left.size(), 1);  // what each left root is divided by
  for (const ExactFraction& f : split) {
    for (size_t k = 0; k < left.size(); ++k) {
      if (left[k] != f.root || divide[k] != 1 || q % f.divisor != 0) continue;
      divide[k] = f.divisor;
      q /= f.divisor;
      break;
    }
  }
  for (size_t k = 0; k < left.size(); ++k) {
    const SymbolPtr& r = left[k];
    if (r->of != nullptr || r->multiple % divide[k] != 0) continue;  // a count, or used up
    const int64_t g = std::gcd(q, r->multiple / divide[k]);
    divide[k] *= g;
    q /= g;
  }
  for (size_t k = 0; k < left.size(); ++k) {
    if (divide[k] != 1) left[k] = affine(SymInt(left[k]), 1, 0, divide[k]).symbol();
  }
  if (q != 1) {
    if (left.empty()) return invalid;
    return fmt::format(
        "cannot infer -1 in {} for the symbolic input {} ({} is not a multiple of "
        "{})",
        shape_string(size), self.to_string(), product_of(left, 1).to_string(), q);
  }
  size[static_cast<size_t>(infer)] = product_of(std::move(left), p);
  return size;
}
}  // namespace

std::vector<TensorSpec> view_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const Shape size = sym_int_list(op, args, "size");
  int inferred = 0;
  for (const SymInt& d : size) {
    if (d.is_static() && d.value() == -1 && ++inferred > 1) {
      fail(op, "size", "only one dimension can be -1");
    }
    if (d.is_static() && d.value() < -1) fail(op, "size", "invalid size {}", d.value());
  }
  // Symbols as they are first; exact fractions of declared multiples where that fails.
  std::variant<Shape, std::string> out = infer_view(self, size, false);
  if (std::holds_alternative<std::string>(out)) {
    std::variant<Shape, std::string> split = infer_view(self, size, true);
    if (std::holds_alternative<Shape>(split)) out = std::move(split);
  }
  if (const std::string* error = std::get_if<std::string>(&out)) fail(op, "size", "{}", *error);
  return {make_spec(self.dtype, std::get<Shape>(std::move(out)))};
}

std::vector<TensorSpec> permute_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const std::vector<int64_t> dims = int_list(op, args, "dims");
  if (dims.size() != self.rank()) {
    fail(op, "dims", "expected {} dims for {}, got {}", self.rank(), self.to_string(), dims.size());
  }
  std::vector<bool> seen(self.rank(), false);
  Shape out;
  for (int64_t d : dims) {
    const auto n = static_cast<size_t>(normalize_dim(op, "dims", d, self.rank()));
    if (seen[n]) fail(op, "dims", "dimension {} appears more than once", d);
    seen[n] = true;
    out.push_back(self.shape[n]);
  }
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> t_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  if (self.rank() > 2) fail(op, "self", "expected at most 2 dims, got {}", self.to_string());
  Shape out = self.shape;
  std::reverse(out.begin(), out.end());
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> transpose_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  Shape out = self.shape;
  if (self.rank() == 0) return {make_spec(self.dtype, out)};
  const auto d0 =
      static_cast<size_t>(normalize_dim(op, "dim0", int_value(op, args, "dim0"), self.rank()));
  const auto d1 =
      static_cast<size_t>(normalize_dim(op, "dim1", int_value(op, args, "dim1"), self.rank()));
  std::swap(out[d0], out[d1]);
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> unsqueeze_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const int64_t dim = normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank() + 1);
  Shape out = self.shape;
  out.insert(out.begin() + dim, SymInt(1));
  return {make_spec(self.dtype, std::move(out))};
}

namespace {
std::vector<TensorSpec> squeeze(const OpSchema& op, const TensorSpec& self,
                                const std::vector<int64_t>& dims) {
  std::vector<bool> selected(self.rank(), false);
  for (int64_t d : dims) {
    if (self.rank() == 0) continue;
    selected[static_cast<size_t>(normalize_dim(op, "dim", d, self.rank()))] = true;
  }
  Shape out;
  for (size_t i = 0; i < self.rank(); ++i) {
    const SymInt& d = self.shape[i];
    if (selected[i] && d.is_symbolic() && d.lower_bound() <= 1) {
      fail(op, "dim", "cannot tell whether dimension {} of {} (symbol '{}') is 1", i,
           self.to_string(), d.symbol()->name);
    }
    if (selected[i] && d.is_static() && d.value() == 1) continue;
    out.push_back(d);
  }
  return {make_spec(self.dtype, std::move(out))};
}
}  // namespace

std::vector<TensorSpec> squeeze_copy_dims(const OpSchema& op, const ArgumentList& args) {
  return squeeze(op, tensor(op, args, "self"), int_list(op, args, "dim"));
}

std::vector<TensorSpec> squeeze_copy_dim(const OpSchema& op, const ArgumentList& args) {
  return squeeze(op, tensor(op, args, "self"), {int_value(op, args, "dim")});
}

std::vector<TensorSpec> expand_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  Shape size = sym_int_list(op, args, "size");
  if (size.size() < self.rank()) {
    fail(op, "size", "{} has fewer dims than self {}", shape_string(size), self.to_string());
  }
  const size_t lead = size.size() - self.rank();
  for (size_t i = 0; i < size.size(); ++i) {
    SymInt& target = size[i];
    if (i < lead) {
      if (target.is_static() && target.value() < 0) {
        fail(op, "size", "-1 is not allowed for the new leading dimension {}", i);
      }
      continue;
    }
    const SymInt& in = self.shape[i - lead];
    if (target.is_static() && target.value() == -1) {
      target = in;
    } else if (target == in) {
      continue;
    } else if (!(in.is_static() && in.value() == 1)) {
      fail(op, "size", "cannot expand dimension {} of {} to {}", i - lead, self.to_string(),
           target.to_string());
    }
  }
  return {make_spec(self.dtype, std::move(size))};
}

std::vector<TensorSpec> repeat(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const Shape repeats = sym_int_list(op, args, "repeats");
  if (repeats.size() < self.rank()) {
    fail(op, "repeats", "needs at least {} values for {}, got {}", self.rank(), self.to_string(),
         repeats.size());
  }
  const size_t lead = repeats.size() - self.rank();
  Shape out;
  for (size_t i = 0; i < repeats.size(); ++i) {
    if (i < lead) {
      out.push_back(repeats[i]);
      continue;
    }
    const SymInt& r = repeats[i];
    if (r.is_symbolic()) fail(op, "repeats", "needs static repeat counts");
    if (r.value() < 0) fail(op, "repeats", "negative repeat count {}", r.value());
    if (r.value() == 1) {
      out.push_back(self.shape[i - lead]);
    } else {
      out.emplace_back(static_dim(op, "self", self, i - lead) * r.value());
    }
  }
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> cat(const OpSchema& op, const ArgumentList& args) {
  const std::vector<const TensorSpec*> tensors = tensor_list(op, args, "tensors");
  if (tensors.empty()) fail(op, "tensors", "must not be empty");
  // ATen skips legacy empty 1-d tensors ([0]) in cat.
  std::vector<const TensorSpec*> used;
  std::vector<PromotionOperand> operands;
  for (const TensorSpec* t : tensors) {
    if (t == nullptr) fail(op, "tensors", "must not contain None");
    operands.push_back({t->dtype, false, false});
    if (t->rank() == 1 && t->shape[0].is_static() && t->shape[0].value() == 0) continue;
    used.push_back(t);
  }
  const DType dtype = result_type(operands);
  if (used.empty()) return {make_spec(dtype, tensors[0]->shape)};
  const TensorSpec& first = *used[0];
  const auto dim =
      static_cast<size_t>(normalize_dim(op, "dim", int_value(op, args, "dim"), first.rank()));
  if (first.rank() == 0) fail(op, "tensors", "zero-dimensional tensors cannot be concatenated");
  Shape out = first.shape;
  for (size_t k = 1; k < used.size(); ++k) {
    const TensorSpec& t = *used[k];
    if (t.rank() != first.rank()) {
      fail(op, "tensors", "tensor {} is {} but tensor 0 is {} (ranks differ)", k, t.to_string(),
           first.to_string());
    }
    for (size_t i = 0; i < t.rank(); ++i) {
      if (i != dim && t.shape[i] != first.shape[i]) {
        fail(op, "tensors", "tensor {} is {} but tensor 0 is {} (dimension {} differs){}", k,
             t.to_string(), first.to_string(), i,
             agreeing_multiple_hint(t.shape[i], first.shape[i]));
      }
    }
  }
  if (used.size() > 1) {
    // Counts only the data decides (nonzero's, a run-time topk's) add up to another such count,
    // in [sum of minimums, sum of maximums].
    const bool data_dependent = std::any_of(used.begin(), used.end(), [&](const TensorSpec* t) {
      return t->shape[dim].is_symbolic() && t->shape[dim].symbol()->data_dependent;
    });
    // Named after its terms ("cat_a_b_3"), so that two cats of the same counts (boxes and their
    // labels) agree.
    int64_t total = 0, lower = 0;
    std::string name = "cat";
    for (const TensorSpec* t : used) {
      total += data_dependent ? t->shape[dim].upper_bound() : static_dim(op, "tensors", *t, dim);
      lower += t->shape[dim].lower_bound();
      name.push_back('_');
      name.append(t->shape[dim].to_string());
    }
    out[dim] = SymInt(total);
    if (data_dependent) {
      out[dim] = SymInt(std::make_shared<Symbol>(Symbol{std::move(name), lower, total, true}));
    }
  }
  return {make_spec(dtype, std::move(out))};
}

std::vector<TensorSpec> stack(const OpSchema& op, const ArgumentList& args) {
  const std::vector<const TensorSpec*> tensors = tensor_list(op, args, "tensors");
  if (tensors.empty()) fail(op, "tensors", "must not be empty");
  std::vector<PromotionOperand> operands;
  for (size_t k = 0; k < tensors.size(); ++k) {
    if (tensors[k] == nullptr) fail(op, "tensors", "must not contain None");
    if (tensors[k]->shape != tensors[0]->shape) {
      fail(op, "tensors", "tensor {} is {} but tensor 0 is {}", k, tensors[k]->to_string(),
           tensors[0]->to_string());
    }
    operands.push_back({tensors[k]->dtype, false, false});
  }
  const int64_t dim = normalize_dim(op, "dim", int_value(op, args, "dim"), tensors[0]->rank() + 1);
  Shape out = tensors[0]->shape;
  out.insert(out.begin() + dim, SymInt(static_cast<int64_t>(tensors.size())));
  return {make_spec(result_type(operands), std::move(out))};
}

std::vector<TensorSpec> split_with_sizes_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const std::vector<int64_t> sizes = int_list(op, args, "split_sizes");
  const auto dim =
      static_cast<size_t>(normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank()));
  if (self.rank() == 0) fail(op, "self", "cannot split a zero-dimensional tensor");
  const int64_t total = static_dim(op, "self", self, dim);
  int64_t sum = 0;
  for (int64_t s : sizes) {
    if (s < 0) fail(op, "split_sizes", "negative size {}", s);
    sum += s;
  }
  if (sum != total) {
    fail(op, "split_sizes", "sizes add up to {} but dimension {} of {} is {}", sum, dim,
         self.to_string(), total);
  }
  std::vector<TensorSpec> out;
  for (int64_t s : sizes) {
    Shape shape = self.shape;
    shape[dim] = SymInt(s);
    out.push_back(make_spec(self.dtype, std::move(shape)));
  }
  return out;
}

std::vector<TensorSpec> split_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const int64_t split = int_value(op, args, "split_size");
  const auto dim =
      static_cast<size_t>(normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank()));
  if (self.rank() == 0) fail(op, "self", "cannot split a zero-dimensional tensor");
  const int64_t total = static_dim(op, "self", self, dim);
  if (split <= 0 && !(split == 0 && total == 0)) {
    fail(op, "split_size", "must be positive, got {}", split);
  }
  std::vector<TensorSpec> out;
  for (int64_t start = 0; start < total || (total == 0 && out.empty()); start += split) {
    Shape shape = self.shape;
    shape[dim] = SymInt(std::min(split, total - start));
    out.push_back(make_spec(self.dtype, std::move(shape)));
    if (split == 0) break;
  }
  return out;
}

std::vector<TensorSpec> unbind_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  if (self.rank() == 0) fail(op, "self", "cannot unbind a zero-dimensional tensor");
  const auto dim =
      static_cast<size_t>(normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank()));
  const int64_t n = static_dim(op, "self", self, dim);
  Shape shape = self.shape;
  shape.erase(shape.begin() + static_cast<ptrdiff_t>(dim));
  return std::vector<TensorSpec>(static_cast<size_t>(n), make_spec(self.dtype, shape));
}

std::vector<TensorSpec> slice_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  if (self.rank() == 0) fail(op, "self", "cannot slice a zero-dimensional tensor");
  const auto dim =
      static_cast<size_t>(normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank()));
  const std::optional<SymInt> start = optional_sym_int(op, args, "start");
  const Argument& end_arg = arg(op, args, "end");
  const SymInt step = sym_int(op, args, "step");
  const SymInt& size = self.shape[dim];
  // x[:n] with n computed at run time (not a dim's size: a run-time If's chosen branch keeps
  // n = cond * len rows): a count the data decides, in [0, min(size, n's bound)].
  if (end_arg.is_node() && !end_arg.as_node()->is_op("aten::sym_size.int")) {
    if (start && !(start->is_static() && start->value() == 0)) {
      fail(op, "start", "must be 0 when the end is computed at run time");
    }
    if (step.is_symbolic() || step.value() != 1) {
      fail(op, "step", "must be 1 when the end is computed at run time");
    }
    const auto range = int_range(end_arg);
    const int64_t upper = std::min(size.upper_bound(), range ? range->second : INT64_MAX);
    Shape out = self.shape;
    out[dim] = SymInt(std::make_shared<Symbol>(
        Symbol{"slice_" + end_arg.as_node()->name(), 0, std::max<int64_t>(upper, 0), true}));
    return {make_spec(self.dtype, std::move(out))};
  }
  const std::optional<SymInt> end = optional_sym_int(op, args, "end");
  if (step.is_symbolic() || step.value() <= 0) fail(op, "step", "must be a positive int");
  const bool from_start = !start || (start->is_static() && start->value() == 0);
  const bool to_end = !end || *end == size ||
                      (end->is_static() && size.is_static() && end->value() >= size.value()) ||
                      (end->is_static() && end->value() == INT64_MAX);
  Shape out = self.shape;
  if (from_start && to_end && step.value() == 1) return {make_spec(self.dtype, out)};
  // x[:n] of a static dim with a symbolic n that never exceeds it (a position table sliced to
  // the sequence length): the result's dim is the symbol.
  if (from_start && end && end->is_symbolic() && step.value() == 1 && size.is_static() &&
      end->upper_bound() <= size.value()) {
    out[dim] = *end;
    return {make_spec(self.dtype, std::move(out))};
  }
  // A symbolic dim's first e rows (e static): min(dim, e), a count of its own unless e covers
  // the dim's bound.
  if (from_start && end && end->is_static() && end->value() >= 0 && step.value() == 1 &&
      size.is_symbolic()) {
    if (end->value() >= size.upper_bound()) return {make_spec(self.dtype, out)};
    out[dim] = SymInt(std::make_shared<Symbol>(
        Symbol{fmt::format("{}_first_{}", size.to_string(), end->value()),
               std::min(size.lower_bound(), end->value()), end->value(), true}));
    return {make_spec(self.dtype, std::move(out))};
  }
  // A symbolic dim from a static start to the end, or to a static negative end, in steps of k:
  // ceil((dim + e - s) / k) rows, the count floor((dim + e - s + k - 1) / k) of the dim, where
  // the smallest dim reaches the start.
  if (size.is_symbolic() && (!start || start->is_static()) && (to_end || end->is_static())) {
    const int64_t s = start ? start->value() : 0;
    const int64_t e = to_end ? 0 : end->value();
    if (s >= 0 && e <= 0) {
      if (size.lower_bound() + e < s) {
        fail(op, "start", "{} is past the end ({}{}) at {} = {}, the smallest size of its dim", s,
             size.to_string(), e == 0 ? std::string() : std::to_string(e), size.to_string(),
             size.lower_bound());
      }
      out[dim] = affine(size, 1, e - s + step.value() - 1, step.value());
      return {make_spec(self.dtype, std::move(out))};
    }
  }
  const int64_t n = static_dim(op, "self", self, dim);
  auto resolve = [&](const std::optional<SymInt>& v, int64_t fallback, const char* name) {
    if (!v) return fallback;
    if (v->is_symbolic()) {
      if (*v == size) return n;
      fail(op, name, "needs a static value, got symbol '{}'", v->symbol()->name);
    }
    int64_t x = v->value();
    if (x < 0) x += n;
    return std::clamp<int64_t>(x, 0, n);
  };
  const int64_t s = resolve(start, 0, "start");
  const int64_t e = resolve(end, n, "end");
  out[dim] = SymInt(e > s ? (e - s + step.value() - 1) / step.value() : 0);
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> select_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  if (self.rank() == 0) fail(op, "self", "cannot select from a zero-dimensional tensor");
  const auto dim =
      static_cast<size_t>(normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank()));
  const int64_t index = int_value(op, args, "index");
  const SymInt& size = self.shape[dim];
  if (size.is_static() && (index < -size.value() || index >= size.value())) {
    fail(op, "index", "{} is out of range for dimension {} of {}", index, dim, self.to_string());
  }
  Shape out = self.shape;
  out.erase(out.begin() + static_cast<ptrdiff_t>(dim));
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> narrow_copy(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const auto dim =
      static_cast<size_t>(normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank()));
  const SymInt start = sym_int(op, args, "start");
  const SymInt length = sym_int(op, args, "length");
  if (start.is_static() && length.is_static() && self.shape[dim].is_static()) {
    const int64_t n = self.shape[dim].value();
    const int64_t s = start.value() < 0 ? start.value() + n : start.value();
    if (s < 0 || length.value() < 0 || s + length.value() > n) {
      fail(op, "length", "[{}, {} + {}) is outside dimension {} of {}", start.value(),
           start.value(), length.value(), dim, self.to_string());
    }
  }
  Shape out = self.shape;
  out[dim] = length;
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> index_select(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec& index = tensor(op, args, "index");
  require_index(op, "index", index);
  if (index.rank() > 1)
    fail(op, "index", "expected a 0-d or 1-d tensor, got {}", index.to_string());
  const int64_t dim = normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank());
  Shape out = self.shape;
  if (self.rank() > 0)
    out[static_cast<size_t>(dim)] = index.rank() == 1 ? index.shape[0] : SymInt(1);
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> index_tensor(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const std::vector<const TensorSpec*> indices = tensor_list(op, args, "indices");
  if (indices.size() > self.rank()) {
    fail(op, "indices", "{} indices for {}", indices.size(), self.to_string());
  }
  Shape broadcast_shape;
  bool any = false;
  size_t first = 0;
  size_t last = 0;
  bool adjacent = true;
  for (size_t i = 0; i < indices.size(); ++i) {
    const TensorSpec* t = indices[i];
    if (t == nullptr) continue;
    if (t->dtype == DType::Bool || t->dtype == DType::Byte) {
      fail(op, "indices", "boolean mask indices give data-dependent shapes and are not supported");
    }
    require_index(op, "indices", *t);
    if (!any) {
      broadcast_shape = t->shape;
      first = i;
    } else {
      if (i != last + 1) adjacent = false;
      broadcast_shape = broadcast(op, "indices", broadcast_shape, "indices", t->shape);
    }
    last = i;
    any = true;
  }
  if (!any) fail(op, "indices", "needs at least one index tensor");
  Shape out;
  if (adjacent) {
    out.insert(out.end(), self.shape.begin(), self.shape.begin() + static_cast<ptrdiff_t>(first));
    out.insert(out.end(), broadcast_shape.begin(), broadcast_shape.end());
  } else {
    out = broadcast_shape;
    for (size_t i = 0; i <= last; ++i) {
      if (i < indices.size() && indices[i] == nullptr) out.push_back(self.shape[i]);
    }
  }
  out.insert(out.end(), self.shape.begin() + static_cast<ptrdiff_t>(last + 1), self.shape.end());
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> gather(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec& index = tensor(op, args, "index");
  normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank());
  if (index.dtype != DType::Long) {
    fail(op, "index", "expected an int64 tensor, got {}", index.to_string());
  }
  if (index.rank() != self.rank() && !(index.rank() <= 1 && self.rank() <= 1)) {
    fail(op, "index", "{} must have the rank of self {}", index.to_string(), self.to_string());
  }
  return {make_spec(self.dtype, index.shape)};
}

std::vector<TensorSpec> embedding(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& weight = tensor(op, args, "weight");
  const TensorSpec& indices = tensor(op, args, "indices");
  if (weight.rank() != 2) fail(op, "weight", "expected a 2-d tensor, got {}", weight.to_string());
  require_index(op, "indices", indices);
  Shape out = indices.shape;
  out.push_back(weight.shape[1]);
  return {make_spec(weight.dtype, std::move(out))};
}

namespace {

// scatter / scatter_add / scatter_reduce: an int64 index of self's rank (ATen allows any index
// when it is empty, which a static shape shows).
void check_scatter_index(const OpSchema& op, const TensorSpec& self, const TensorSpec& index) {
  if (index.dtype != DType::Long) {
    fail(op, "index", "expected an int64 tensor, got {}", index.to_string());
  }
  const bool empty = index.is_static() && index.numel_upper_bound() == 0;
  if (!empty && std::max<size_t>(index.rank(), 1) != std::max<size_t>(self.rank(), 1)) {
    fail(op, "index", "{} must have the rank of self {}", index.to_string(), self.to_string());
  }
}

}  // namespace

std::vector<TensorSpec> scatter_src(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec& index = tensor(op, args, "index");
  const TensorSpec& src = tensor(op, args, "src");
  normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank());
  check_scatter_index(op, self, index);
  if (src.dtype != self.dtype) {
    fail(op, "src", "{} must have the dtype of self {}", src.to_string(), self.to_string());
  }
  return {make_spec(self.dtype, self.shape)};
}

std::vector<TensorSpec> scatter_value(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank());
  check_scatter_index(op, self, tensor(op, args, "index"));
  return {make_spec(self.dtype, self.shape)};
}

std::vector<TensorSpec> scatter_reduce(const OpSchema& op, const ArgumentList& args) {
  const Argument& reduce = arg(op, args, "reduce");
  static const std::vector<std::string> kReduce = {"sum", "prod", "mean", "amax", "amin"};
  if (!reduce.is_string() ||
      std::find(kReduce.begin(), kReduce.end(), reduce.as_string()) == kReduce.end()) {
    fail(op, "reduce", "must be one of sum, prod, mean, amax, amin");
  }
  return scatter_src(op, args);
}

std::vector<TensorSpec> index_put(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec& values = tensor(op, args, "values");
  // The indexing result's shape (index.Tensor's rules) must take the values by broadcasting.
  ArgumentList index_args{arg(op, args, "self"), arg(op, args, "indices")};
  const TensorSpec indexed = index_tensor(op, index_args).front();
  if (values.dtype != self.dtype) {
    fail(op, "values", "{} must have the dtype of self {}", values.to_string(), self.to_string());
  }
  if (broadcast(op, "values", values.shape, "indexing result", indexed.shape) != indexed.shape) {
    fail(op, "values", "{} cannot be broadcast to the indexing result {}", values.to_string(),
         shape_string(indexed.shape));
  }
  return {make_spec(self.dtype, self.shape)};
}

std::vector<TensorSpec> topk(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const Argument& k_arg = arg(op, args, "k");
  const int64_t dim = normalize_dim(op, "dim", int_value(op, args, "dim"), self.rank());
  if (self.dtype == DType::Bool) fail(op, "self", "Bool is not supported");
  Shape shape = self.shape;
  if (k_arg.is_node()) {
    // k computed at run time (torchvision's min(candidates, pre_nms_top_n)): a dim's own size
    // keeps its symbol, anything else is a count in [0, its bound] that the kernel sets per run.
    if (self.rank() == 0) fail(op, "k", "must be known at export for a 0-dim tensor");
    const SymInt& n = shape[static_cast<size_t>(dim)];
    const auto range = int_range(k_arg);
    const int64_t upper = std::min(n.upper_bound(), range ? range->second : n.upper_bound());
    if (range && range->first == range->second) {
      shape[static_cast<size_t>(dim)] = SymInt(range->first);
    } else if (range && k_arg.as_node()->is_op("aten::sym_size.int") &&
               range->second <= n.upper_bound()) {
      shape[static_cast<size_t>(dim)] = sym_int(op, args, "k");
    } else {
      const int64_t lower = range ? std::max<int64_t>(0, range->first) : 0;
      shape[static_cast<size_t>(dim)] = SymInt(std::make_shared<Symbol>(
          Symbol{"topk_" + k_arg.as_node()->name(), std::min(lower, upper), upper, true}));
    }
    return {make_spec(self.dtype, shape), make_spec(DType::Long, shape)};
  }
  const int64_t k = int_value(op, args, "k");
  if (self.rank() == 0) {
    if (k < 0 || k > 1) fail(op, "k", "{} is out of range for a 0-dim tensor", k);
  } else {
    const SymInt& n = shape[static_cast<size_t>(dim)];
    if (k < 0 || k > n.upper_bound() || (n.is_static() && k > n.value())) {
      fail(op, "k", "{} is out of range for dim {} of {}", k, dim, self.to_string());
    }
    shape[static_cast<size_t>(dim)] = SymInt(k);
  }
  return {make_spec(self.dtype, shape), make_spec(DType::Long, shape)};
}

}  // namespace ptec::ir::shape
