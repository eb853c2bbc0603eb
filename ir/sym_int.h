#pragma once

#include <cstdint>
#include <memory>
#include <string>

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
  /// For a multiple of another symbol (a view that merges a symbolic dim with static ones, e.g.
  /// [n, 4, 4] -> [n * 4, 4]): that symbol and the factor; the name is "<base>_x<factor>".
  std::shared_ptr<const Symbol> base = nullptr;
  int64_t factor = 1;
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

}  // namespace ptec::ir
