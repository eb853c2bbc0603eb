#include "ir/printer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "ir/detail/text_format.h"
#include "ir/detail/text_payload.h"
#include "ir/op_schema.h"

namespace ptec::ir {

std::string payload_hash(const Buffer& buffer) {
  if (const auto* unloaded = dynamic_cast<const detail::UnloadedPayload*>(&buffer)) {
    return unloaded->hash();
  }
  // FNV-1a over the bytes, 16 MiB at a time: the pages of a mapped payload are released once
  // hashed, so checking a large mapped payload does not keep it resident.
  uint64_t h = 0xcbf29ce484222325ULL;
  const uint8_t* p = buffer.data();
  for (size_t offset = 0; offset < buffer.size(); offset += Buffer::kReleasePiece) {
    const size_t end = std::min(buffer.size(), offset + Buffer::kReleasePiece);
    for (size_t i = offset; i < end; ++i) {
      h ^= p[i];
      h *= 0x100000001b3ULL;
    }
    buffer.release_pages(offset, end - offset);
  }
  return fmt::format("{:016x}", h);
}

namespace detail {

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out += "\"";
  return out;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string name_token(std::string_view s) {
  return is_identifier(s) && s != "None" && s != "True" && s != "False" ? std::string(s) : quote(s);
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);  // shortest representation that round-trips
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string format_spec(const TensorSpec& spec) {
  std::string out = fmt::format("{}[", to_string(spec.dtype));
  for (size_t i = 0; i < spec.shape.size(); ++i) {
    if (i > 0) out += ", ";
    // A derived symbol's name ("(h+1)/2") is quoted, as in its 'symbol' line.
    out += spec.shape[i].is_symbolic() ? name_token(spec.shape[i].symbol()->name)
                                       : spec.shape[i].to_string();
  }
  out += "]";
  if (!spec.dim_order.empty()) {
    out += "@[";
    for (size_t i = 0; i < spec.dim_order.size(); ++i) {
      out += fmt::format("{}{}", i ? ", " : "", spec.dim_order[i]);
    }
    out += "]";
  }
  return out;
}

std::string format_argument(const Argument& a) {
  if (a.is_none()) return "None";
  if (a.is_node()) return "%" + a.as_node()->name();
  if (a.is_int()) return std::to_string(a.as_int());
  if (a.is_double()) return format_double(a.as_double());
  if (a.is_bool()) return a.as_bool() ? "True" : "False";
  if (a.is_string()) return quote(a.as_string());
  if (a.is_dtype()) return to_string(a.as_dtype());
  std::string out = "[";
  const ArgumentList& items = a.as_list();
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += format_argument(items[i]);
  }
  return out + "]";
}

}  // namespace detail

namespace {

using detail::format_argument;
using detail::format_spec;
using detail::quote;

std::string format_val(const std::vector<TensorSpec>& val) {
  if (val.empty()) return "";
  if (val.size() == 1) return " : " + format_spec(val[0]);
  std::string out = " : (";
  for (size_t i = 0; i < val.size(); ++i) out += (i ? ", " : "") + format_spec(val[i]);
  return out + ")";
}

std::string format_meta(const Node& node) {
  std::string out = fmt::format(" #{}", node.debug_handle());
  const NodeMeta& meta = node.meta();
  if (!meta.source.empty()) out += " source=" + quote(meta.source);
  if (!meta.delegation_tag.empty()) out += " tag=" + quote(meta.delegation_tag);
  if (!meta.extra.empty()) {
    out += " extra={";
    bool first = true;
    for (const auto& [k, v] : meta.extra) {
      out += fmt::format("{}{}: {}", first ? "" : ", ", quote(k), quote(v));
      first = false;
    }
    out += "}";
  }
  return out;
}

std::string format_call_args(const Node& node) {
  const OpSchema* op = node.op();
  const ArgumentList& args = node.args();
  // Keyword-only arguments print as name=value when the node is well formed.
  const bool keywords = op != nullptr && (args.size() == op->args.size() ||
                                          (op->is_vararg && args.size() >= op->args.size()));
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += ", ";
    if (keywords && i < op->args.size() && op->args[i].kwarg_only) out += op->args[i].name + "=";
    out += format_argument(args[i]);
  }
  return out;
}

void collect_symbols(const TensorSpec& spec, std::vector<SymbolPtr>& out,
                     std::set<std::string>& seen) {
  for (const SymInt& d : spec.shape) {
    if (d.is_symbolic() && seen.insert(d.symbol()->name).second) out.push_back(d.symbol());
  }
}

std::string tensor_entry(const char* kind, const std::string& name, const TensorData& t) {
  std::string out = fmt::format("  {} {} {}", kind, name, format_spec(t.spec));
  if (t.data != nullptr) {
    out += fmt::format(" bytes={} hash={}", t.data->size(), payload_hash(*t.data));
  }
  return out + "\n";
}

}  // namespace

std::string print(const Node& node) {
  const std::string head = fmt::format("%{}{} = ", node.name(), format_val(node.meta().val));
  switch (node.kind()) {
    case NodeKind::Placeholder: return head + "placeholder()" + format_meta(node);
    case NodeKind::GetAttr:
      return head + fmt::format("get_attr({})", quote(node.target())) + format_meta(node);
    case NodeKind::CallFunction:
      return head + fmt::format("{}({})", node.target(), format_call_args(node)) +
             format_meta(node);
    case NodeKind::Output: {
      std::string out = "return (";
      if (!node.args().empty() && node.args()[0].is_list()) {
        const ArgumentList& items = node.args()[0].as_list();
        for (size_t i = 0; i < items.size(); ++i)
          out += (i ? ", " : "") + format_argument(items[i]);
      }
      return out + ")" + format_meta(node);
    }
  }
  return head + "?";
}

std::string print(const Graph& graph) {
  std::string out = "graph:\n";
  for (const Node* n : graph.nodes()) out += "  " + print(*n) + "\n";
  return out;
}

std::string print(const ExportedProgram& program) {
  std::string out =
      fmt::format("program uuid={} stage={}\n", program.uuid(), to_string(program.stage()));
  for (const ProvenanceStep& step : program.provenance()) {
    out += fmt::format("  provenance {} {}\n", quote(step.stage), quote(step.detail));
  }
  // Symbols: the range constraints, then any other symbol a spec uses ("local").
  std::set<std::string> seen;
  for (const auto& [name, symbol] : program.range_constraints()) {
    if (symbol == nullptr) continue;
    seen.insert(symbol->name);
    out += fmt::format("  symbol {} [{}, {}]", detail::name_token(symbol->name), symbol->min,
                       symbol->max);
    if (symbol->multiple > 1) out += fmt::format(" multiple {}", symbol->multiple);
    out += '\n';
  }
  std::vector<SymbolPtr> local;
  for (const Node* n : program.graph().nodes()) {
    for (const TensorSpec& s : n->meta().val) collect_symbols(s, local, seen);
  }
  for (const SymbolPtr& symbol : local) {
    out += fmt::format("  symbol {} [{}, {}] local\n", detail::name_token(symbol->name),
                       symbol->min, symbol->max);
  }
  for (const InputSpec& in : program.signature().inputs) {
    out += fmt::format("  input {} {}", to_string(in.kind), detail::name_token(in.name));
    if (!in.target.empty()) out += " target=" + quote(in.target);
    out += "\n";
  }
  for (const OutputSpec& o : program.signature().outputs) {
    out += fmt::format("  output {} {}", to_string(o.kind), detail::name_token(o.name));
    if (!o.target.empty()) out += " target=" + quote(o.target);
    out += "\n";
  }
  for (const auto& [name, t] : program.state_dict())
    out += tensor_entry("state_dict", quote(name), t);
  for (const auto& [name, t] : program.constants()) out += tensor_entry("constant", quote(name), t);
  for (const auto& [name, obj] : program.custom_objects()) {
    out += fmt::format("  custom_obj {} type={}", quote(name), quote(obj.type));
    if (obj.payload != nullptr) {
      out += fmt::format(" bytes={} hash={}", obj.payload->size(), payload_hash(*obj.payload));
    }
    if (!obj.metadata.empty()) {
      out += " metadata={";
      bool first = true;
      for (const auto& [k, v] : obj.metadata) {
        out += fmt::format("{}{}: {}", first ? "" : ", ", quote(k), quote(v));
        first = false;
      }
      out += "}";
    }
    out += "\n";
  }
  for (size_t i = 0; i < program.example_inputs().size(); ++i) {
    out += tensor_entry("example_input", std::to_string(i), program.example_inputs()[i]);
  }
  out += print(program.graph());
  return out;
}

}  // namespace ptec::ir
