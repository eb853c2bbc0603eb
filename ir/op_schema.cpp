#include "ir/op_schema.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "ir/exception.h"
#include "ir/op_table.h"

namespace ptec::ir {

// ---------------------------------------------------------------------------------------------
// TypeRef / OpSchema members
// ---------------------------------------------------------------------------------------------

const char* to_string(BaseType base) {
  switch (base) {
    case BaseType::Tensor: return "Tensor";
    case BaseType::Int: return "int";
    case BaseType::SymInt: return "SymInt";
    case BaseType::Float: return "float";
    case BaseType::Bool: return "bool";
    case BaseType::Scalar: return "Scalar";
    case BaseType::ScalarType: return "ScalarType";
    case BaseType::Layout: return "Layout";
    case BaseType::Device: return "Device";
    case BaseType::MemoryFormat: return "MemoryFormat";
    case BaseType::String: return "str";
    case BaseType::CustomObj: return "CustomObj";
  }
  return "?";
}

std::string TypeRef::to_string() const {
  std::string out = ir::to_string(base);
  if (is_list) {
    if (element_optional) out += "?";
    out += list_size >= 0 ? fmt::format("[{}]", list_size) : std::string("[]");
  }
  if (optional) out += "?";
  return out;
}

std::string OpSchema::qualified_name() const {
  std::string out = ns.empty() ? name : ns + "::" + name;
  if (!overload.empty()) out += "." + overload;
  return out;
}

std::string OpSchema::out_qualified_name() const {
  if (out_overload.empty()) return "";
  return (ns.empty() ? name : ns + "::" + name) + "." + out_overload;
}

int OpSchema::arg_index(std::string_view arg_name) const {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].name == arg_name) return static_cast<int>(i);
  }
  return -1;
}

bool OpSchema::returns_tensors() const {
  return std::any_of(returns.begin(), returns.end(),
                     [](const TypeRef& t) { return t.base == BaseType::Tensor; });
}

// ---------------------------------------------------------------------------------------------
// Schema parser
// ---------------------------------------------------------------------------------------------

namespace {

class SchemaParser {
 public:
  explicit SchemaParser(std::string_view text) : text_(text) {}

  OpSchema parse() {
    OpSchema op;
    op.schema = std::string(text_);
    std::string first = identifier("an operator name");
    if (consume("::")) {
      op.ns = first;
      first = identifier("an operator name");
    }
    op.name = first;
    if (consume(".")) op.overload = identifier("an overload name");
    expect("(");
    bool kwarg_only = false;
    skip_space();
    if (!consume(")")) {
      while (true) {
        skip_space();
        if (consume("*")) {
          if (kwarg_only) fail("a second '*'");
          kwarg_only = true;
        } else if (consume("...")) {
          op.is_vararg = true;
          skip_space();
          if (peek() != ')') fail("'...' that is not the last argument");
        } else {
          if (op.is_vararg) fail("an argument after '...'");
          op.args.push_back(argument(kwarg_only));
        }
        skip_space();
        if (consume(")")) break;
        expect(",");
      }
    }
    expect("->");
    skip_space();
    if (consume("(")) {
      skip_space();
      if (!consume(")")) {
        while (true) {
          op.returns.push_back(return_type());
          skip_space();
          if (consume(")")) break;
          expect(",");
        }
      }
    } else {
      op.returns.push_back(return_type());
    }
    skip_space();
    if (pos_ != text_.size()) fail("trailing text");
    // Names must be unique.
    for (size_t i = 0; i < op.args.size(); ++i) {
      for (size_t j = i + 1; j < op.args.size(); ++j) {
        if (op.args[i].name == op.args[j].name) {
          raise(Error::InvalidArgument, "schema '{}': argument '{}' appears twice", text_,
                op.args[i].name);
        }
      }
    }
    return op;
  }

 private:
  struct ParsedType {
    TypeRef type;
    bool mutable_alias = false;
  };

  ArgSchema argument(bool kwarg_only) {
    ParsedType parsed = type();
    ArgSchema arg;
    arg.type = parsed.type;
    arg.kwarg_only = kwarg_only;
    // Out arguments are the keyword-only arguments the op writes (`*, Tensor(a!) out`). A mutable
    // positional argument (`Tensor(a!) self` of an in-place op) is not an out argument.
    arg.is_out = parsed.mutable_alias && kwarg_only;
    skip_space();
    arg.name = identifier("an argument name");
    skip_space();
    if (consume("=")) {
      skip_space();
      const size_t at = pos_;
      const std::string literal = default_literal();
      try {
        arg.default_value = convert_default(arg.type, literal);
      } catch (const Exception& e) {
        pos_ = at;
        fail(fmt::format("default value '{}' for {} {}: {}", literal, arg.type.to_string(),
                         arg.name, e.what()),
             /*found_prefix=*/false);
      }
    }
    return arg;
  }

  TypeRef return_type() {
    ParsedType parsed = type();
    skip_space();
    // Optional return name: `(Tensor values, Tensor indices)`.
    if (pos_ < text_.size() &&
        (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_')) {
      identifier("a return name");
    }
    return parsed.type;
  }

  ParsedType type() {
    skip_space();
    const size_t at = pos_;
    const std::string base_name = identifier("a type");
    ParsedType out;
    static const std::map<std::string, BaseType, std::less<>> kBases = {
        {"Tensor", BaseType::Tensor},
        {"int", BaseType::Int},
        {"SymInt", BaseType::SymInt},
        {"float", BaseType::Float},
        {"bool", BaseType::Bool},
        {"Scalar", BaseType::Scalar},
        {"ScalarType", BaseType::ScalarType},
        {"Layout", BaseType::Layout},
        {"Device", BaseType::Device},
        {"MemoryFormat", BaseType::MemoryFormat},
        {"str", BaseType::String},
        {"CustomObj", BaseType::CustomObj},
    };
    auto it = kBases.find(base_name);
    if (it == kBases.end()) {
      pos_ = at;
      fail(fmt::format("unknown type '{}'", base_name), false);
    }
    out.type.base = it->second;
    if (consume("(")) {  // alias annotation: (a), (a!), (a -> *)
      skip_space();
      identifier("an alias set");
      skip_space();
      if (consume("!")) out.mutable_alias = true;
      skip_space();
      if (consume("->")) {
        skip_space();
        if (!consume("*")) identifier("an alias set");
      }
      expect(")");
    }
    bool seen_optional = consume("?");
    if (consume("[")) {
      out.type.is_list = true;
      out.type.element_optional = seen_optional;
      seen_optional = false;
      skip_space();
      if (std::isdigit(static_cast<unsigned char>(peek()))) {
        out.type.list_size = static_cast<int>(integer_literal());
      }
      expect("]");
      if (consume("?")) seen_optional = true;
    }
    out.type.optional = seen_optional;
    return out;
  }

  // The raw text of a default value, up to the next top-level ',' or ')'.
  std::string default_literal() {
    const size_t start = pos_;
    int depth = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"' || c == '\'') {
        ++pos_;
        while (pos_ < text_.size() && text_[pos_] != c) {
          if (text_[pos_] == '\\') ++pos_;
          ++pos_;
        }
        if (pos_ >= text_.size()) fail("an unterminated string");
        ++pos_;
        continue;
      }
      if (c == '[') ++depth;
      if (c == ']') --depth;
      if (depth == 0 && (c == ',' || c == ')')) break;
      if (depth < 0) fail("an unbalanced ']'");
      ++pos_;
    }
    std::string literal(text_.substr(start, pos_ - start));
    while (!literal.empty() && std::isspace(static_cast<unsigned char>(literal.back()))) {
      literal.pop_back();
    }
    if (literal.empty()) fail("an empty default value");
    return literal;
  }

  static std::string trim(std::string_view s) {
    size_t b = 0;
    size_t e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return std::string(s.substr(b, e - b));
  }

  static bool parse_int(const std::string& s, int64_t* out) {
    if (s.empty()) return false;
    size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (i == s.size()) return false;
    for (size_t j = i; j < s.size(); ++j) {
      if (!std::isdigit(static_cast<unsigned char>(s[j]))) return false;
    }
    try {
      *out = std::stoll(s);
    } catch (const std::exception&) {
      return false;
    }
    return true;
  }

  static bool parse_float(const std::string& s, double* out) {
    if (s == "inf" || s == "+inf") {
      *out = std::numeric_limits<double>::infinity();
      return true;
    }
    if (s == "-inf") {
      *out = -std::numeric_limits<double>::infinity();
      return true;
    }
    if (s == "nan") {
      *out = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    if (s.empty()) return false;
    try {
      size_t used = 0;
      *out = std::stod(s, &used);
      return used == s.size();
    } catch (const std::exception&) {
      return false;
    }
  }

  // Converts one (non-list) literal for `base`.
  static Argument convert_scalar(BaseType base, const std::string& s) {
    int64_t i = 0;
    double d = 0;
    switch (base) {
      case BaseType::Int:
      case BaseType::SymInt:
        if (parse_int(s, &i)) return Argument(i);
        break;
      case BaseType::Float:
        if (parse_float(s, &d)) return Argument(d);
        break;
      case BaseType::Bool:
        if (s == "True") return Argument(true);
        if (s == "False") return Argument(false);
        break;
      case BaseType::Scalar:
        if (parse_int(s, &i)) return Argument(i);
        if (parse_float(s, &d)) return Argument(d);
        if (s == "True") return Argument(true);
        if (s == "False") return Argument(false);
        break;
      case BaseType::String:
        if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
          return Argument(unescape(s.substr(1, s.size() - 2)));
        }
        break;
      case BaseType::ScalarType:
        if (auto dt = dtype_from_string(s)) return Argument(*dt);
        break;
      case BaseType::MemoryFormat:
        // torch.memory_format numbering (c10::MemoryFormat).
        if (s == "contiguous_format") return Argument(int64_t{0});
        if (s == "preserve_format") return Argument(int64_t{1});
        if (s == "channels_last") return Argument(int64_t{2});
        if (s == "channels_last_3d") return Argument(int64_t{3});
        break;
      case BaseType::Layout:
        if (s == "strided") return Argument(int64_t{0});
        break;
      case BaseType::Device:
        if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'')) {
          return Argument(s.substr(1, s.size() - 2));
        }
        return Argument(s);
      case BaseType::Tensor:
      case BaseType::CustomObj: break;
    }
    raise(Error::InvalidArgument, "not a valid {}", ir::to_string(base));
  }

  static std::string unescape(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\\' && i + 1 < s.size()) {
        ++i;
        switch (s[i]) {
          case 'n': out.push_back('\n'); break;
          case 't': out.push_back('\t'); break;
          default: out.push_back(s[i]);
        }
      } else {
        out.push_back(s[i]);
      }
    }
    return out;
  }

  static Argument convert_default(const TypeRef& type, const std::string& literal) {
    if (literal == "None") {
      if (!type.optional) raise(Error::InvalidArgument, "None for a non-optional type");
      return Argument();
    }
    if (!type.is_list) return convert_scalar(type.base, literal);
    if (literal.front() == '[') {
      if (literal.back() != ']') raise(Error::InvalidArgument, "unterminated list");
      ArgumentList items;
      const std::string inner = trim(std::string_view(literal).substr(1, literal.size() - 2));
      if (!inner.empty()) {
        size_t start = 0;
        while (true) {
          const size_t comma = inner.find(',', start);
          const std::string item = trim(inner.substr(start, comma - start));
          items.push_back(item == "None" && type.element_optional
                              ? Argument()
                              : convert_scalar(type.base, item));
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
      }
      return Argument(std::move(items));
    }
    // A scalar default for a list type: `int[2] padding=0` means [0, 0].
    const Argument item = convert_scalar(type.base, literal);
    ArgumentList items(static_cast<size_t>(std::max(type.list_size, 1)), item);
    return Argument(std::move(items));
  }

  int64_t integer_literal() {
    const size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return std::stoll(std::string(text_.substr(start, pos_ - start)));
  }

  std::string identifier(const char* what) {
    skip_space();
    const size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (start == pos_ || std::isdigit(static_cast<unsigned char>(text_[start]))) {
      pos_ = start;
      fail(fmt::format("expected {}", what), false);
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  bool consume(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) == token) {
      pos_ += token.size();
      return true;
    }
    return false;
  }

  void expect(std::string_view token) {
    if (!consume(token)) fail(fmt::format("expected '{}'", token), false);
  }

  [[noreturn]] void fail(const std::string& what, bool found_prefix = true) const {
    const std::string near =
        pos_ < text_.size() ? fmt::format("'{}'", text_.substr(pos_, 12)) : std::string("the end");
    raise(Error::InvalidArgument, "schema '{}': {}{} at column {} (near {})", text_,
          found_prefix ? "unexpected " : "", what, pos_ + 1, near);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

OpSchema parse_schema(std::string_view schema) { return SchemaParser(schema).parse(); }

// ---------------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------------

namespace {

struct Registry {
  std::vector<std::unique_ptr<OpSchema>> storage;
  std::map<std::string, const OpSchema*, std::less<>> by_name;
  std::vector<const OpSchema*> sorted;
};

OpSchema build_op(const OpTableRow& row) {
  OpSchema op = parse_schema(row.schema);
  if (op.ns.empty() && op.name != "getitem" && op.name != "executorch_call_delegate") {
    op.ns = "aten";
  }
  op.shape_fn = row.shape_fn;
  op.opaque_outputs = row.opaque_outputs;
  if (row.out_schema != nullptr && row.out_schema[0] != '\0') {
    OpSchema out = parse_schema(row.out_schema);
    PTEC_ENFORCE(out.name == op.name, Internal,
                 "op table: out variant '{}' of '{}' has another base name", row.out_schema,
                 row.schema);
    PTEC_ENFORCE(!out.overload.empty(), Internal, "op table: out variant '{}' has no overload",
                 row.out_schema);
    op.out_overload = out.overload;
    op.out_args = std::move(out.args);
    op.out_schema = out.schema;
    // Every non-out argument of the out variant must be a functional argument: the emitter takes
    // them by name from the node.
    bool has_out = false;
    for (const ArgSchema& a : op.out_args) {
      if (a.is_out) {
        has_out = true;
        continue;
      }
      PTEC_ENFORCE(op.arg_index(a.name) >= 0, Internal,
                   "op table: out variant '{}' takes '{}', which '{}' does not have",
                   row.out_schema, a.name, row.schema);
    }
    PTEC_ENFORCE(has_out, Internal, "op table: out variant '{}' has no out argument",
                 row.out_schema);
  }
  return op;
}

const Registry& registry() {
  static const Registry* instance = [] {
    auto* r = new Registry();
    for (const OpTableRow& row : op_table()) {
      auto op = std::make_unique<OpSchema>(build_op(row));
      const std::string name = op->qualified_name();
      PTEC_ENFORCE(r->by_name.count(name) == 0, Internal, "op table: '{}' appears twice", name);
      r->by_name.emplace(name, op.get());
      r->sorted.push_back(op.get());
      r->storage.push_back(std::move(op));
    }
    std::sort(r->sorted.begin(), r->sorted.end(), [](const OpSchema* a, const OpSchema* b) {
      return a->qualified_name() < b->qualified_name();
    });
    return r;
  }();
  return *instance;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1);
  std::vector<size_t> cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t sub = prev[j - 1] + (std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                                                std::tolower(static_cast<unsigned char>(b[j - 1]))
                                            ? 0
                                            : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string_view strip_namespace(std::string_view name) {
  const size_t colons = name.rfind("::");
  return colons == std::string_view::npos ? name : name.substr(colons + 2);
}

std::string_view base_name(std::string_view name) {
  name = strip_namespace(name);
  return name.substr(0, name.find('.'));
}

}  // namespace

const OpSchema* find_op(std::string_view qualified_name) {
  const Registry& r = registry();
  auto it = r.by_name.find(qualified_name);
  if (it != r.by_name.end()) return it->second;
  // torch.fx spells the default overload "aten::relu.default".
  constexpr std::string_view kDefault = ".default";
  if (qualified_name.size() > kDefault.size() &&
      qualified_name.substr(qualified_name.size() - kDefault.size()) == kDefault) {
    it = r.by_name.find(qualified_name.substr(0, qualified_name.size() - kDefault.size()));
    if (it != r.by_name.end()) return it->second;
  }
  return nullptr;
}

std::vector<std::string> similar_op_names(std::string_view qualified_name, size_t limit) {
  struct Candidate {
    size_t score;
    std::string name;
  };
  std::vector<Candidate> candidates;
  const std::string_view query_base = base_name(qualified_name);
  const std::string_view query_plain = strip_namespace(qualified_name);
  for (const OpSchema* op : all_ops()) {
    const std::string name = op->qualified_name();
    const std::string_view plain = strip_namespace(name);
    size_t score = edit_distance(query_plain, plain);
    if (base_name(name) == query_base) {
      score = 0;  // same operator, other overload
    } else if (query_base.size() >= 3 && base_name(name).size() >= 3 &&
               (plain.find(query_base) != std::string_view::npos ||
                query_base.find(base_name(name)) != std::string_view::npos)) {
      score = std::min<size_t>(score, 2);  // e.g. "softmax" for "_softmax"
    }
    const size_t budget = std::max<size_t>(1, query_plain.size() / 3);
    if (score <= budget) candidates.push_back({score, name});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  std::vector<std::string> out;
  for (const Candidate& c : candidates) {
    if (out.size() == limit) break;
    out.push_back(c.name);
  }
  return out;
}

const OpSchema& get_op(std::string_view qualified_name) {
  if (const OpSchema* op = find_op(qualified_name)) return *op;
  const std::vector<std::string> similar = similar_op_names(qualified_name, 5);
  if (similar.empty()) {
    raise(Error::NotFound, "unknown operator '{}' (ptec's op table has {} operators)",
          qualified_name, all_ops().size());
  }
  raise(Error::NotFound, "unknown operator '{}'; did you mean {}?", qualified_name,
        fmt::join(similar, ", "));
}

const std::vector<const OpSchema*>& all_ops() { return registry().sorted; }

}  // namespace ptec::ir
