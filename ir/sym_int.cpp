#include "ir/sym_int.h"

#include <algorithm>

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
// a * b, or INT64_MAX where that overflows (both non-negative).
int64_t saturating_mul(int64_t a, int64_t b) {
  if (a != 0 && b > INT64_MAX / a) return INT64_MAX;
  return a * b;
}
}  // namespace

SymInt product_of(std::vector<SymbolPtr> roots, int64_t factor) {
  if (roots.empty()) return SymInt(factor);
  if (roots.size() == 1 && factor == 1) return SymInt(roots[0]);
  std::sort(roots.begin(), roots.end(),
            [](const SymbolPtr& a, const SymbolPtr& b) { return a->name < b->name; });
  std::string name;
  int64_t min = factor, max = factor;
  for (const SymbolPtr& r : roots) {
    name += (name.empty() ? "" : "*") + r->name;
    min = saturating_mul(min, r->min);
    max = saturating_mul(max, r->max);
  }
  if (factor != 1) name += fmt::format("_x{}", factor);
  auto s = std::make_shared<Symbol>(Symbol{std::move(name), min, max, true});
  s->roots = std::move(roots);
  s->factor = factor;
  return SymInt(std::move(s));
}

}  // namespace ptec::ir
