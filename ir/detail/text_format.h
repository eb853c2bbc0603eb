#pragma once

#include <string>
#include <string_view>

#include "ir/argument.h"
#include "ir/tensor_spec.h"

// Pieces of the text format shared by the printer and the parser (not a public API).
namespace ptec::ir::detail {

/// A double-quoted string with \" \\ \n \t \r and \xHH escapes.
std::string quote(std::string_view s);
bool is_identifier(std::string_view s);
/// `s` bare when it is an identifier (and not None/True/False), else quoted.
std::string name_token(std::string_view s);
/// Shortest exact form, always recognisable as a float: "1.0", "1e-05", "inf", "-inf", "nan".
std::string format_double(double v);
/// "f32[batch, 3]" plus "@[0, 2, 3, 1]" for an explicit dim order.
std::string format_spec(const TensorSpec& spec);
std::string format_argument(const Argument& a);

}  // namespace ptec::ir::detail
