#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptec::ir {

/// A named symbolic dimension with an inclusive range. One Symbol may be shared by several
/// inputs (e.g. the sequence length of `ids` and `mask`); sharing is by object identity.
struct Symbol {
  std::string name;
  int64_t min = 0;
  int64_t max = INT64_MAX;
  /// A count only the data decides (nonzero's rows): no input carries it. Its shape function
  /// names it after the node's input, which passes may replace; the verifier then accepts
  /// another data-dependent symbol of the same range in its place.
  bool data_dependent = false;
  /// For a product (a view that merges a symbolic dim with static ones or with other symbolic
  /// dims, e.g. [n, 4, 4] -> [n * 4, 4] or [b, s, 8] -> [b * s, 8]): the symbols it multiplies
  /// (sorted by name, repeated as often as they occur; never products themselves) and a static
  /// factor. Empty for a symbol of its own. See product_of for the name.
  std::vector<std::shared_ptr<const Symbol>> roots = {};
  int64_t factor = 1;
  /// For a window count of another dim (a convolution's or pooling's output size, a padded or
  /// upsampled dim): floor((scale * of + offset) / divisor) of that symbol. See affine.
  std::shared_ptr<const Symbol> of = nullptr;
  int64_t scale = 1;
  int64_t offset = 0;
  int64_t divisor = 1;
  /// For a symbol of its own: every size it takes is a multiple of this (an image side that a
  /// network halves five times, declared a multiple of 32); min and max are multiples of it.
  /// Window counts use it: with h a multiple of 32, floor((h + 1) / 2) is exactly h / 2, so an
  /// upsampling of it by 2 is h again.
  int64_t multiple = 1;
};
using SymbolPtr = std::shared_ptr<const Symbol>;

/// A dimension: a constant or a symbol.
class SymInt {
 public:
  /* implicit */ SymInt(int64_t value = 0) : value_(value) {}
  explicit SymInt(SymbolPtr symbol) : value_(0), symbol_(std::move(symbol)) {}

  bool is_static() const { return symbol_ == nullptr; }
  bool is_symbolic() const { return symbol_ != nullptr; }
  /// The constant value; for a symbol, its upper bound.
  int64_t value() const { return symbol_ ? symbol_->max : value_; }
  int64_t lower_bound() const { return symbol_ ? symbol_->min : value_; }
  int64_t upper_bound() const { return symbol_ ? symbol_->max : value_; }
  const SymbolPtr& symbol() const { return symbol_; }

  /// Same constant, or the same symbol (by name and range).
  bool operator==(const SymInt& other) const;
  bool operator!=(const SymInt& other) const { return !(*this == other); }

  /// "3", or the symbol name, e.g. "seq".
  std::string to_string() const;

 private:
  int64_t value_;
  SymbolPtr symbol_;
};

/// The symbols `symbol` multiplies: its roots, or itself for a symbol of its own.
std::vector<SymbolPtr> roots_of(const SymbolPtr& symbol);

/// factor * roots[0] * roots[1] * ... as a dim (roots: symbols of their own, in any order): the
/// constant `factor` without roots, the root itself for one root and a factor of 1, else a
/// data-dependent symbol named "<r1>*<r2>..." (roots by name) with "_x<factor>" for a factor
/// other than 1, e.g. "n_x4" or "batch*seq", whose range is the product of the roots' ranges
/// (saturating at INT64_MAX). Equal products get equal names and ranges, so they compare equal.
SymInt product_of(std::vector<SymbolPtr> roots, int64_t factor);

/// x * y as a dim: an int for two ints, a symbol times a non-negative int as affine() scales it,
/// else the product of both symbols' roots and factors (product_of).
SymInt times(const SymInt& x, const SymInt& y);

/// floor((scale * x + offset) / divisor) as a dim (scale >= 1, divisor >= 1): an int for a
/// static x, x itself for the identity, else a data-dependent symbol of x's symbol whose range
/// maps x's (the function never decreases). Of a window count it composes where the result is
/// again of that form (scale or the inner divisor 1: a pool after a convolution is one count of
/// the input), so that equal sizes reached along different paths compare equal; the name spells
/// the function, e.g. "(h+1)/2" or "2*w-1". A plain multiple (offset 0, divisor 1) is the product
/// symbol product_of makes ("h_x2"), so an upsampling and a view that merges dims agree. Where
/// x's root symbol is declared a multiple of m and the division is exact for every such size, the
/// count is the exact fraction ("h/2" for floor((h + 1) / 2) with h a multiple of 2), and counts
/// of it compose at any scale.
SymInt affine(const SymInt& x, int64_t scale, int64_t offset, int64_t divisor);

/// The size `d` takes where each symbol of its own named in `values` has that size: a constant as
/// it is, a product or a window count from its roots (through its chain of counts); nullopt where
/// a symbol it depends on has no value (a data-dependent count). Used to specialize a program at
/// given sizes, where shape functions are not rerun.
std::optional<int64_t> evaluate(const SymInt& d, const std::map<std::string, int64_t>& values);

/// For a symbol that is exactly r / q of a symbol r of its own (r declared a multiple of q, e.g.
/// "h/2"): r and q; nullopt for any other. Views count it as r with a static 1 / q.
struct ExactFraction {
  SymbolPtr root;
  int64_t divisor = 1;
};
std::optional<ExactFraction> exact_fraction(const SymbolPtr& symbol);

/// Where two different dims are functions of one symbol of its own (window counts, multiples):
/// the smallest m in [2, 1024] such that they are equal for every multiple of m in the symbol's
/// range (and some multiple lies there), with that symbol; nullopt when none. What to suggest
/// when an upsampled map and a skip connection differ ("2 * ((h+1)/2) vs h": m = 2).
struct AgreeingMultiple {
  SymbolPtr symbol;
  int64_t multiple = 1;
};
std::optional<AgreeingMultiple> agreeing_multiple(const SymInt& a, const SymInt& b);

/// "'h' is a multiple of 4: declare it so, e.g. ptec export --dynamic INPUT:AXIS=h:MIN..MAX:4".
std::string declare_multiple_advice(const AgreeingMultiple& m);

/// " (the sizes agree where <declare_multiple_advice>)" for agreeing_multiple's answer, else "".
std::string agreeing_multiple_hint(const SymInt& a, const SymInt& b);

}  // namespace ptec::ir
