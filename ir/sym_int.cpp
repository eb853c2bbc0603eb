#include "ir/sym_int.h"

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

}  // namespace ptec::ir
