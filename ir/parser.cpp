#include "ir/parser.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "ir/detail/text_payload.h"
#include "ir/exception.h"
#include "ir/op_schema.h"
#include "ir/printer.h"

namespace ptec::ir {
namespace {

enum class TokenKind { Word, String, Punct, End };

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;
  size_t column = 0;  // 1-based
};

class TextParser {
 public:
  TextParser(std::string_view text, const PayloadMap& payloads) : payloads_(payloads) {
    size_t start = 0;
    while (start <= text.size()) {
      const size_t end = text.find('\n', start);
      lines_.push_back(
          text.substr(start, end == std::string_view::npos ? text.size() - start : end - start));
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
  }

  ExportedProgram parse() {
    ExportedProgram program;
    program_ = &program;
    bool in_graph = false;
    bool seen_header = false;
    for (line_ = 0; line_ < lines_.size(); ++line_) {
      tokenize(lines_[line_]);
      if (tokens_.front().kind == TokenKind::End) continue;  // blank or comment
      if (!seen_header) {
        header_line();
        seen_header = true;
      } else if (!in_graph) {
        if (is_word("graph") && peek(1).kind == TokenKind::Punct && peek(1).text == ":") {
          pos_ += 2;
          expect_end();
          in_graph = true;
        } else {
          declaration_line();
        }
      } else {
        node_line();
      }
    }
    if (!seen_header) fail_at(1, "expected 'program uuid=... stage=...'");
    if (!in_graph) fail_at(lines_.size(), "expected a 'graph:' line");
    return program;
  }

 private:
  // ------------------------------------------------------------------ lexing

  void tokenize(std::string_view line) {
    tokens_.clear();
    pos_ = 0;
    size_t i = 0;
    auto is_word_char = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    };
    while (i < line.size()) {
      const char c = line[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') break;  // comment
      Token t;
      t.column = i + 1;
      if (c == '"') {
        t.kind = TokenKind::String;
        ++i;
        bool closed = false;
        while (i < line.size()) {
          const char d = line[i];
          if (d == '"') {
            closed = true;
            ++i;
            break;
          }
          if (d == '\\') {
            if (i + 1 >= line.size()) break;
            const char e = line[i + 1];
            i += 2;
            switch (e) {
              case 'n': t.text.push_back('\n'); break;
              case 't': t.text.push_back('\t'); break;
              case 'r': t.text.push_back('\r'); break;
              case 'x': {
                unsigned value = 0;
                if (i + 2 > line.size() ||
                    std::from_chars(line.data() + i, line.data() + i + 2, value, 16).ptr !=
                        line.data() + i + 2) {
                  fail_at_column(i + 1, "bad \\x escape in a string");
                }
                t.text.push_back(static_cast<char>(value));
                i += 2;
                break;
              }
              default: t.text.push_back(e);
            }
            continue;
          }
          t.text.push_back(d);
          ++i;
        }
        if (!closed) fail_at_column(t.column, "unterminated string");
      } else if (is_word_char(c) ||
                 ((c == '-' || c == '+') && i + 1 < line.size() && is_word_char(line[i + 1]))) {
        t.kind = TokenKind::Word;
        size_t j = i + 1;
        while (j < line.size()) {
          const char d = line[j];
          if (is_word_char(d)) {
            ++j;
          } else if (d == ':' && j + 1 < line.size() && line[j + 1] == ':') {
            j += 2;
          } else if ((d == '-' || d == '+') && (line[j - 1] == 'e' || line[j - 1] == 'E') &&
                     (std::isdigit(static_cast<unsigned char>(line[i])) ||
                      (j - i >= 2 && std::isdigit(static_cast<unsigned char>(line[i + 1]))))) {
            ++j;  // exponent sign: 1e-05
          } else {
            break;
          }
        }
        t.text = std::string(line.substr(i, j - i));
        i = j;
      } else if (std::string_view("%()[]{},=:#@").find(c) != std::string_view::npos) {
        t.kind = TokenKind::Punct;
        t.text = std::string(1, c);
        ++i;
      } else {
        fail_at_column(i + 1, fmt::format("unexpected character '{}'", c));
      }
      tokens_.push_back(std::move(t));
    }
    Token end;
    end.column = line.size() + 1;
    tokens_.push_back(end);
  }

  // ------------------------------------------------------------------ token helpers

  const Token& peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& next() {
    const Token& t = peek();
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool is_word(std::string_view w) const {
    return peek().kind == TokenKind::Word && peek().text == w;
  }
  bool is_punct(char c) const { return peek().kind == TokenKind::Punct && peek().text[0] == c; }
  bool consume_punct(char c) {
    if (!is_punct(c)) return false;
    next();
    return true;
  }
  void expect_punct(char c) {
    if (!consume_punct(c)) fail(fmt::format("expected '{}'", c));
  }
  std::string expect_word(const char* what) {
    if (peek().kind != TokenKind::Word) fail(fmt::format("expected {}", what));
    return next().text;
  }
  std::string expect_string(const char* what) {
    if (peek().kind != TokenKind::String) fail(fmt::format("expected {} (a quoted string)", what));
    return next().text;
  }
  // A name: a bare identifier or a quoted string.
  std::string expect_name(const char* what) {
    if (peek().kind == TokenKind::String || peek().kind == TokenKind::Word) return next().text;
    fail(fmt::format("expected {}", what));
  }
  void expect_end() {
    if (peek().kind != TokenKind::End) fail("unexpected text at the end of the line");
  }
  // `key=` (a word followed by '=').
  std::optional<std::string> key() {
    if (peek().kind == TokenKind::Word && peek(1).kind == TokenKind::Punct && peek(1).text == "=") {
      std::string k = next().text;
      next();
      return k;
    }
    return std::nullopt;
  }

  int64_t expect_int(const char* what) {
    const Token& t = peek();
    int64_t v = 0;
    if (t.kind != TokenKind::Word || !parse_int(t.text, &v)) fail(fmt::format("expected {}", what));
    next();
    return v;
  }

  static bool parse_int(const std::string& s, int64_t* out) {
    const char* begin = s.data();
    if (!s.empty() && s[0] == '+') ++begin;
    auto [ptr, ec] = std::from_chars(begin, s.data() + s.size(), *out);
    return ec == std::errc() && ptr == s.data() + s.size() && begin != ptr;
  }

  static bool parse_double(const std::string& s, double* out) {
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
    if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' ||
                       s[0] == '+' || s[0] == '.')) {
      return false;
    }
    const char* begin = s.data();
    if (s[0] == '+') ++begin;
    auto [ptr, ec] = std::from_chars(begin, s.data() + s.size(), *out);
    return ec == std::errc() && ptr == s.data() + s.size();
  }

  [[noreturn]] void fail(const std::string& message) const {
    fail_at_column(peek().column, message + (peek().kind == TokenKind::End
                                                 ? std::string(" (at the end of the line)")
                                                 : fmt::format(" (found '{}')", peek().text)));
  }
  [[noreturn]] void fail_at_column(size_t column, const std::string& message) const {
    raise(Error::InvalidArgument, "line {}, column {}: {}", line_ + 1, column, message);
  }
  [[noreturn]] void fail_at(size_t line, const std::string& message) const {
    raise(Error::InvalidArgument, "line {}, column 1: {}", line, message);
  }

  // ------------------------------------------------------------------ header

  void header_line() {
    if (!is_word("program")) fail("expected 'program'");
    next();
    while (auto k = key()) {
      if (*k == "uuid") {
        program_->set_uuid(expect_word("a uuid"));
      } else if (*k == "stage") {
        const size_t column = peek().column;
        const std::string s = expect_word("a stage");
        bool found = false;
        for (Stage st : {Stage::Aten, Stage::Edge, Stage::Lowered, Stage::Executorch}) {
          if (s == to_string(st)) {
            program_->set_stage(st);
            found = true;
          }
        }
        if (!found) {
          fail_at_column(column,
                         fmt::format("unknown stage '{}' (ATEN, EDGE, LOWERED, EXECUTORCH)", s));
        }
      } else {
        fail(fmt::format("unknown program attribute '{}'", *k));
      }
    }
    expect_end();
  }

  void declaration_line() {
    const size_t column = peek().column;
    const std::string what = expect_word("a declaration");
    if (what == "provenance") {
      ProvenanceStep step;
      step.stage = expect_string("the provenance stage");
      step.detail = expect_string("the provenance detail");
      program_->provenance().push_back(std::move(step));
    } else if (what == "symbol") {
      auto symbol = std::make_shared<Symbol>();
      symbol->name = expect_name("a symbol name");
      expect_punct('[');
      symbol->min = expect_int("the symbol's minimum");
      expect_punct(',');
      symbol->max = expect_int("the symbol's maximum");
      expect_punct(']');
      if (is_word("multiple")) {
        next();
        symbol->multiple = expect_int("the symbol's multiple");
        if (symbol->multiple < 1 || symbol->min % symbol->multiple != 0 ||
            symbol->max % symbol->multiple != 0) {
          fail_at_column(column, fmt::format("symbol '{}': the bounds must be multiples of {}",
                                             symbol->name, symbol->multiple));
        }
      }
      bool local = false;
      if (is_word("local")) {
        next();
        local = true;
      }
      if (symbols_.count(symbol->name) != 0) {
        fail_at_column(column, fmt::format("symbol '{}' is declared twice", symbol->name));
      }
      symbols_[symbol->name] = symbol;
      if (!local) program_->range_constraints()[symbol->name] = symbol;
    } else if (what == "input") {
      InputSpec spec;
      const size_t kind_column = peek().column;
      const std::string kind = expect_word("an input kind");
      bool found = false;
      for (InputKind k : {InputKind::UserInput, InputKind::Parameter, InputKind::Buffer,
                          InputKind::ConstantTensor, InputKind::CustomObj}) {
        if (kind == to_string(k)) {
          spec.kind = k;
          found = true;
        }
      }
      if (!found) fail_at_column(kind_column, fmt::format("unknown input kind '{}'", kind));
      spec.name = expect_name("the input's name");
      if (auto k = key()) {
        if (*k != "target") fail(fmt::format("unknown input attribute '{}'", *k));
        spec.target = expect_string("the target");
      }
      program_->signature().inputs.push_back(std::move(spec));
    } else if (what == "output") {
      OutputSpec spec;
      const size_t kind_column = peek().column;
      const std::string kind = expect_word("an output kind");
      bool found = false;
      for (OutputKind k :
           {OutputKind::UserOutput, OutputKind::BufferMutation, OutputKind::UserInputMutation}) {
        if (kind == to_string(k)) {
          spec.kind = k;
          found = true;
        }
      }
      if (!found) fail_at_column(kind_column, fmt::format("unknown output kind '{}'", kind));
      spec.name = expect_name("the output's name");
      if (auto k = key()) {
        if (*k != "target") fail(fmt::format("unknown output attribute '{}'", *k));
        spec.target = expect_string("the target");
      }
      program_->signature().outputs.push_back(std::move(spec));
    } else if (what == "state_dict" || what == "constant") {
      const std::string name = expect_name("the entry's name");
      TensorData data;
      data.spec = spec();
      data.data = payload(name);
      auto& table = what == "state_dict" ? program_->state_dict() : program_->constants();
      if (!table.emplace(name, std::move(data)).second) {
        fail_at_column(column, fmt::format("{} '{}' appears twice", what, name));
      }
    } else if (what == "example_input") {
      const int64_t index = expect_int("the example input's index");
      if (index != static_cast<int64_t>(program_->example_inputs().size())) {
        fail_at_column(column, fmt::format("example input {} is out of order", index));
      }
      TensorData data;
      data.spec = spec();
      data.data = payload(fmt::format("example_inputs[{}]", index));
      program_->example_inputs().push_back(std::move(data));
    } else if (what == "custom_obj") {
      const std::string name = expect_name("the object's name");
      CustomObject obj;
      if (auto k = key(); !k || *k != "type") fail("expected type=\"...\"");
      obj.type = expect_string("the object's type");
      obj.payload = payload(name);
      if (auto k = key()) {
        if (*k != "metadata") fail(fmt::format("unknown custom_obj attribute '{}'", *k));
        obj.metadata = string_map();
      }
      program_->custom_objects()[name] = std::move(obj);
    } else {
      fail_at_column(column, fmt::format("unknown declaration '{}' (provenance, symbol, input, "
                                         "output, state_dict, constant, custom_obj, "
                                         "example_input, or graph:)",
                                         what));
    }
    expect_end();
  }

  // `bytes=N hash=H` (optional) → the payload from the map or a zero-filled stand-in.
  BufferPtr payload(const std::string& name) {
    const size_t column = peek().column;
    auto k = key();
    if (!k) return nullptr;
    if (*k != "bytes") fail_at_column(column, fmt::format("expected bytes=, got {}=", *k));
    const int64_t bytes = expect_int("a byte count");
    if (bytes < 0) fail_at_column(column, "negative byte count");
    if (auto h = key(); !h || *h != "hash") fail("expected hash=");
    const std::string hash = expect_word("a hash");
    auto it = payloads_.find(name);
    if (it == payloads_.end() || it->second == nullptr) {
      return std::make_shared<detail::UnloadedPayload>(static_cast<size_t>(bytes), hash);
    }
    if (it->second->size() != static_cast<size_t>(bytes)) {
      fail_at_column(column, fmt::format("payload '{}' has {} bytes but the text says {}", name,
                                         it->second->size(), bytes));
    }
    const std::string actual = payload_hash(*it->second);
    if (actual != hash) {
      fail_at_column(
          column, fmt::format("payload '{}' has hash {} but the text says {}", name, actual, hash));
    }
    return it->second;
  }

  std::map<std::string, std::string> string_map() {
    std::map<std::string, std::string> out;
    expect_punct('{');
    if (consume_punct('}')) return out;
    while (true) {
      std::string k = expect_string("a key");
      expect_punct(':');
      out[std::move(k)] = expect_string("a value");
      if (consume_punct('}')) break;
      expect_punct(',');
    }
    return out;
  }

  TensorSpec spec() {
    const size_t column = peek().column;
    const std::string dtype_name = expect_word("a tensor type such as f32[1, 3]");
    const std::optional<DType> dtype = dtype_from_string(dtype_name);
    if (!dtype) fail_at_column(column, fmt::format("unknown dtype '{}'", dtype_name));
    TensorSpec out;
    out.dtype = *dtype;
    expect_punct('[');
    if (!consume_punct(']')) {
      while (true) {
        const Token& t = peek();
        int64_t v = 0;
        if (t.kind == TokenKind::Word && parse_int(t.text, &v)) {
          out.shape.emplace_back(v);
        } else if (t.kind == TokenKind::Word || t.kind == TokenKind::String) {
          auto it = symbols_.find(t.text);
          if (it == symbols_.end()) {
            fail(fmt::format("unknown symbol '{}' (declare it with a 'symbol' line)", t.text));
          }
          out.shape.emplace_back(it->second);
        } else {
          fail("expected a dimension");
        }
        next();
        if (consume_punct(']')) break;
        expect_punct(',');
      }
    }
    if (consume_punct('@')) {
      expect_punct('[');
      if (!consume_punct(']')) {
        while (true) {
          const int64_t d = expect_int("a dim order entry");
          if (d < 0 || d > 255) fail("dim order entry out of range");
          out.dim_order.push_back(static_cast<uint8_t>(d));
          if (consume_punct(']')) break;
          expect_punct(',');
        }
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ graph

  Argument value() {
    const Token& t = peek();
    if (t.kind == TokenKind::Punct && t.text == "%") {
      next();
      const size_t column = peek().column;
      const std::string name = expect_name("a node name");
      Node* node = program_->graph().find(name);
      if (node == nullptr) {
        fail_at_column(column,
                       fmt::format("unknown node %{} (nodes must be defined before use)", name));
      }
      return Argument(node);
    }
    if (t.kind == TokenKind::Punct && t.text == "[") {
      next();
      ArgumentList items;
      if (!consume_punct(']')) {
        while (true) {
          items.push_back(value());
          if (consume_punct(']')) break;
          expect_punct(',');
        }
      }
      return Argument(std::move(items));
    }
    if (t.kind == TokenKind::String) return Argument(next().text);
    if (t.kind == TokenKind::Word) {
      const std::string& w = t.text;
      int64_t i = 0;
      double d = 0;
      std::optional<Argument> out;
      if (w == "None") {
        out = Argument();
      } else if (w == "True") {
        out = Argument(true);
      } else if (w == "False") {
        out = Argument(false);
      } else if (parse_int(w, &i)) {
        out = Argument(i);
      } else if (parse_double(w, &d)) {
        out = Argument(d);
      } else if (auto dt = dtype_from_string(w)) {
        out = Argument(*dt);
      }
      if (out) {
        next();
        return *out;
      }
    }
    fail("expected a value (%node, int, float, True/False, None, \"string\", dtype or [list])");
  }

  std::vector<TensorSpec> val() {
    std::vector<TensorSpec> out;
    if (!consume_punct(':')) return out;
    if (consume_punct('(')) {
      if (consume_punct(')')) return out;
      while (true) {
        out.push_back(spec());
        if (consume_punct(')')) break;
        expect_punct(',');
      }
    } else {
      out.push_back(spec());
    }
    return out;
  }

  // `(args)` with positional values and name=value pairs.
  void call_args(std::vector<Argument>& positional,
                 std::vector<std::pair<std::string, std::pair<Argument, size_t>>>& keywords) {
    expect_punct('(');
    if (consume_punct(')')) return;
    while (true) {
      const size_t column = peek().column;
      if (auto k = key()) {
        keywords.push_back({*k, {value(), column}});
      } else {
        if (!keywords.empty()) fail("a positional argument after a keyword argument");
        positional.push_back(value());
      }
      if (consume_punct(')')) break;
      expect_punct(',');
    }
  }

  void node_meta(Node* node) {
    expect_punct('#');
    node->set_debug_handle(expect_int("a debug handle after '#'"));
    size_t column = peek().column;
    while (auto k = key()) {
      if (*k == "source") {
        node->meta().source = expect_string("the source");
      } else if (*k == "tag") {
        node->meta().delegation_tag = expect_string("the delegation tag");
      } else if (*k == "extra") {
        node->meta().extra = string_map();
      } else {
        fail_at_column(column, fmt::format("unknown node attribute '{}' (source, tag, extra)", *k));
      }
      column = peek().column;
    }
    expect_end();
  }

  void node_line() {
    Graph& graph = program_->graph();
    if (is_word("return")) {
      next();
      std::vector<Argument> items;
      std::vector<std::pair<std::string, std::pair<Argument, size_t>>> keywords;
      call_args(items, keywords);
      if (!keywords.empty()) fail_at_column(keywords[0].second.second, "return takes no keywords");
      if (graph.output_node() != nullptr) fail("a second return");
      Node* out = graph.set_output({});
      graph.set_args(out, {Argument(ArgumentList(items.begin(), items.end()))});
      node_meta(out);
      return;
    }
    if (graph.output_node() != nullptr) fail("a node after the return");
    expect_punct('%');
    const size_t name_column = peek().column;
    const std::string name = expect_name("a node name");
    if (graph.find(name) != nullptr) {
      fail_at_column(name_column, fmt::format("node %{} is defined twice", name));
    }
    std::vector<TensorSpec> specs = val();
    expect_punct('=');
    const size_t target_column = peek().column;
    const std::string target = expect_word("a target (placeholder, get_attr or an operator)");
    Node* node = nullptr;
    if (target == "placeholder") {
      expect_punct('(');
      expect_punct(')');
      node = graph.add_placeholder(name, specs.empty() ? TensorSpec() : specs[0]);
    } else if (target == "get_attr") {
      expect_punct('(');
      const std::string attr = expect_string("the attribute name");
      expect_punct(')');
      node = graph.add_get_attr(attr, name);
    } else {
      const OpSchema* op = find_op(target);
      if (op == nullptr) {
        try {
          get_op(target);
        } catch (const Exception& e) {
          fail_at_column(target_column, e.what());
        }
      }
      std::vector<Argument> positional;
      std::vector<std::pair<std::string, std::pair<Argument, size_t>>> keywords;
      call_args(positional, keywords);
      node = graph.add_call(
          *op, build_args(*op, std::move(positional), std::move(keywords), target_column), name);
    }
    if (node->name() != name) {
      fail_at_column(name_column, fmt::format("%{} is not a valid node name", name));
    }
    node->meta().val = std::move(specs);
    node_meta(node);
  }

  ArgumentList build_args(const OpSchema& op, std::vector<Argument> positional,
                          std::vector<std::pair<std::string, std::pair<Argument, size_t>>> keywords,
                          size_t column) {
    const size_t count = std::max(op.args.size(), positional.size());
    std::vector<std::optional<Argument>> slots(count);
    for (size_t i = 0; i < positional.size(); ++i) slots[i] = std::move(positional[i]);
    for (auto& [name, value_and_column] : keywords) {
      const int index = op.arg_index(name);
      if (index < 0) {
        fail_at_column(value_and_column.second,
                       fmt::format("{} has no argument '{}'", op.qualified_name(), name));
      }
      if (slots[static_cast<size_t>(index)]) {
        fail_at_column(value_and_column.second, fmt::format("argument '{}' of {} is given twice",
                                                            name, op.qualified_name()));
      }
      slots[static_cast<size_t>(index)] = std::move(value_and_column.first);
    }
    ArgumentList out;
    for (size_t i = 0; i < count; ++i) {
      if (!slots[i]) {
        if (i < op.args.size() && op.args[i].default_value) {
          slots[i] = *op.args[i].default_value;
        } else {
          fail_at_column(column, fmt::format("{}: missing argument '{}'", op.qualified_name(),
                                             i < op.args.size() ? op.args[i].name : "?"));
        }
      }
      out.push_back(std::move(*slots[i]));
    }
    return out;
  }

  const PayloadMap& payloads_;
  std::vector<std::string_view> lines_;
  size_t line_ = 0;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  ExportedProgram* program_ = nullptr;
  std::map<std::string, SymbolPtr> symbols_;
};

}  // namespace

ExportedProgram parse(std::string_view text, const PayloadMap& payloads) {
  return TextParser(text, payloads).parse();
}

}  // namespace ptec::ir
