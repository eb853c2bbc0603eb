#include "ir/sym_int.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace ptec::ir {

bool SymInt::operator==(const SymInt& other) const {
  if (is_static() != other.is_static()) return false;
  if (is_static()) return value_ == other.value_;
  return symbol_ == other.symbol_ ||
         (symbol_->name == other.symbol_->name && symbol_->min == other.symbol_->min &&
          symbol_->max == other.symbol_->max);
}

std::string SymInt::to_string() const {
  return is_static() ? std::to_string(value_) : symbol_->name;
}

std::vector<SymbolPtr> roots_of(const SymbolPtr& symbol) {
  if (symbol->roots.empty()) return {symbol};
  return symbol->roots;
}

namespace {
// x's name as a term of another expression: parenthesized unless it is a plain name.
std::string term(const std::string& name) {
  return name.find_first_of("+-*/") == std::string::npos ? name : fmt::format("({})", name);
}

// The declared multiple of a symbol of its own; 1 for any other.
int64_t multiple_of(const Symbol& s) {
  return s.of == nullptr && s.roots.empty() ? std::max<int64_t>(s.multiple, 1) : 1;
}

// Whether the count s = floor((scale * r + offset) / divisor) of a symbol r of its own divides
// exactly for every size r takes (r a multiple of m: divisor divides scale * m and offset).
bool exact_count(const Symbol& s) {
  if (s.of == nullptr) return false;
  const int64_t m = multiple_of(*s.of);
  return (s.scale * m) % s.divisor == 0 && s.offset % s.divisor == 0;
}

// a * b, or INT64_MAX where that overflows (both non-negative).
int64_t saturating_mul(int64_t a, int64_t b) {
  if (a != 0 && b > INT64_MAX / a) return INT64_MAX;
  return a * b;
}
}  // namespace

SymInt product_of(std::vector<SymbolPtr> roots, int64_t factor) {
  if (roots.empty()) return SymInt(factor);
  if (roots.size() == 1 && factor == 1) return SymInt(roots[0]);
  // A multiple of a count with divisor 1 (2 * h - 1), or of an exact one (h / 2 where h is a
  // multiple of 2), is that count scaled, as affine() makes it.
  if (roots.size() == 1 && roots[0]->of != nullptr &&
      (roots[0]->divisor == 1 || exact_count(*roots[0]))) {
    return affine(SymInt(roots[0]), factor, 0, 1);
  }
  std::sort(roots.begin(), roots.end(),
            [](const SymbolPtr& a, const SymbolPtr& b) { return a->name < b->name; });
  std::string name;
  int64_t min = factor, max = factor;
  for (const SymbolPtr& r : roots) {
    if (!name.empty()) name += '*';
    name += term(r->name);
    min = saturating_mul(min, r->min);
    max = saturating_mul(max, r->max);
  }
  if (factor != 1) name += fmt::format("_x{}", factor);
  auto s = std::make_shared<Symbol>(Symbol{std::move(name), min, max, true});
  s->roots = std::move(roots);
  s->factor = factor;
  return SymInt(std::move(s));
}

SymInt times(const SymInt& x, const SymInt& y) {
  if (x.is_static() && y.is_static()) return SymInt(x.value() * y.value());
  if (x.is_static() || y.is_static()) {
    const SymInt& symbol = x.is_static() ? y : x;
    const int64_t k = x.is_static() ? x.value() : y.value();
    return k == 0 ? SymInt(0) : affine(symbol, k, 0, 1);
  }
  std::vector<SymbolPtr> roots = roots_of(x.symbol());
  for (const SymbolPtr& r : roots_of(y.symbol())) roots.push_back(r);
  return product_of(std::move(roots), x.symbol()->factor * y.symbol()->factor);
}

namespace {
// floor(a / b) for b > 0.
int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
}  // namespace

SymInt affine(const SymInt& x, int64_t scale, int64_t offset, int64_t divisor) {
  if (x.is_static()) return SymInt(floor_div(scale * x.value() + offset, divisor));
  if (scale == 1 && offset == 0 && divisor == 1) return x;
  SymbolPtr of = x.symbol();
  // A multiple of one symbol (a view's r * f) is the count floor((f * r + 0) / 1) of it.
  if (of->roots.size() == 1) {
    scale *= of->factor;
    of = of->roots[0];
  }
  // floor((M * floor((m * r + a) / d) + A) / D) is floor((M * m * r + M * a + A * d) / (d * D))
  // when the inner division is exact (d is 1, or divides m * r + a for every r) or M is 1
  // (floor(floor(y / d) / D) is floor(y / (d * D))).
  if (of->of != nullptr && (of->divisor == 1 || scale == 1 || exact_count(*of))) {
    offset = scale * of->offset + offset * of->divisor;
    scale *= of->scale;
    divisor *= of->divisor;
    of = of->of;
  }
  // With r a multiple of m and d dividing s * m: floor((s * r + a) / d) is s * r / d + floor(a /
  // d), exactly; written with s and d over their gcd (d / gcd divides m, so r / d stays whole).
  if (const int64_t m = multiple_of(*of); (scale * m) % divisor == 0) {
    const int64_t g = std::gcd(scale, divisor);
    offset = floor_div(offset, divisor) * (divisor / g);
    scale /= g;
    divisor /= g;
  }
  // floor((g * m * r + g * a) / (g * d)) is floor((m * r + a) / d).
  const int64_t g = std::gcd(std::gcd(scale, offset), divisor);
  scale /= g;
  offset /= g;
  divisor /= g;
  // A plain multiple is the product symbol a view would make of it (r * 2 as "r_x2").
  if (offset == 0 && divisor == 1) return product_of({of}, scale);
  std::string name = scale == 1 ? term(of->name) : fmt::format("{}*{}", scale, term(of->name));
  if (offset != 0) name += fmt::format("{:+}", offset);
  if (divisor != 1) {
    const bool plain = scale == 1 && offset == 0;  // "h/2", else "(h+1)/2"
    name = plain ? fmt::format("{}/{}", name, divisor) : fmt::format("({})/{}", name, divisor);
  }
  const auto at = [&](int64_t v) {
    if (v == INT64_MAX) return v;  // an unbounded symbol stays unbounded
    return floor_div(saturating_mul(scale, v) + offset, divisor);
  };
  auto s = std::make_shared<Symbol>(Symbol{std::move(name), at(of->min), at(of->max), true});
  s->of = of;
  s->scale = scale;
  s->offset = offset;
  s->divisor = divisor;
  return SymInt(std::move(s));
}

namespace {

std::optional<int64_t> evaluate_symbol(const Symbol& s,
                                       const std::map<std::string, int64_t>& values) {
  int64_t out = 0;
  if (!s.roots.empty()) {
    out = s.factor;
    for (const SymbolPtr& root : s.roots) {
      const std::optional<int64_t> r = evaluate_symbol(*root, values);
      if (!r || __builtin_mul_overflow(out, *r, &out)) return std::nullopt;
    }
    return out;
  }
  if (s.of != nullptr) {
    const std::optional<int64_t> x = evaluate_symbol(*s.of, values);
    if (!x || __builtin_mul_overflow(s.scale, *x, &out) ||
        __builtin_add_overflow(out, s.offset, &out)) {
      return std::nullopt;
    }
    return floor_div(out, s.divisor);
  }
  auto it = values.find(s.name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::optional<int64_t> evaluate(const SymInt& d, const std::map<std::string, int64_t>& values) {
  if (d.is_static()) return d.value();
  return evaluate_symbol(*d.symbol(), values);
}

std::optional<ExactFraction> exact_fraction(const SymbolPtr& symbol) {
  const Symbol& s = *symbol;
  if (s.of == nullptr || s.scale != 1 || s.offset != 0 || !exact_count(s)) return std::nullopt;
  if (s.of->of != nullptr || !s.of->roots.empty()) return std::nullopt;
  return ExactFraction{s.of, s.divisor};
}

namespace {
// The symbol of its own that d is a function of (through counts and one-root products), or null.
SymbolPtr root_of(const SymbolPtr& d) {
  if (d->roots.size() > 1) return nullptr;
  if (d->roots.size() == 1) return root_of(d->roots[0]);
  if (d->of != nullptr) return root_of(d->of);
  return d;
}

// d's value where its root symbol is v.
int64_t value_at(const SymInt& d, int64_t v) {
  if (d.is_static()) return d.value();
  const Symbol& s = *d.symbol();
  if (s.roots.size() == 1) return s.factor * value_at(SymInt(s.roots[0]), v);
  if (s.of != nullptr) return floor_div(s.scale * value_at(SymInt(s.of), v) + s.offset, s.divisor);
  return v;
}
}  // namespace

std::optional<AgreeingMultiple> agreeing_multiple(const SymInt& a, const SymInt& b) {
  const SymInt& sym = a.is_symbolic() ? a : b;
  if (sym.is_static()) return std::nullopt;
  const SymbolPtr root = root_of(sym.symbol());
  if (root == nullptr || root->data_dependent || root->max == INT64_MAX) return std::nullopt;
  for (const SymInt& d : {a, b}) {
    if (d.is_symbolic() && root_of(d.symbol()) != root) return std::nullopt;
  }
  for (int64_t m = std::max<int64_t>(root->multiple, 1) * 2; m <= 1024; ++m) {
    if (m % std::max<int64_t>(root->multiple, 1) != 0) continue;
    const int64_t first = (root->min + m - 1) / m * m;
    if (first > root->max) break;
    bool agree = true;
    for (int64_t v = first, n = 0; v <= root->max && n < 4096 && agree; v += m, ++n) {
      agree = value_at(a, v) == value_at(b, v);
    }
    if (agree) return AgreeingMultiple{root, m};
  }
  return std::nullopt;
}

std::string declare_multiple_advice(const AgreeingMultiple& m) {
  return fmt::format(
      "'{}' is a multiple of {}: declare it so, e.g. ptec export --dynamic "
      "INPUT:AXIS={}:MIN..MAX:{}",
      m.symbol->name, m.multiple, m.symbol->name, m.multiple);
}

std::string agreeing_multiple_hint(const SymInt& a, const SymInt& b) {
  const std::optional<AgreeingMultiple> m = agreeing_multiple(a, b);
  if (!m) return {};
  return fmt::format(" (the sizes agree where {})", declare_multiple_advice(*m));
}

}  // namespace ptec::ir
