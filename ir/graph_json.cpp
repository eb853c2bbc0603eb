#include "ir/graph_json.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ir/detail/text_payload.h"
#include "ir/exception.h"
#include "ir/op_schema.h"
#include "ir/printer.h"

namespace ptec::ir {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "ptec.exported_program";
constexpr int kVersion = 1;

[[noreturn]] void fail(const std::string& where, const std::string& problem) {
  raise(Error::InvalidArgument, "graph json: {}: {}", where, problem);
}

bool is_valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t extra = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      extra = 1;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;
    for (size_t k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not valid UTF-8.
    if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

/// Text as a JSON string, or {"hex": ...} when it is not valid UTF-8 (JSON text must be).
json text(const std::string& s) {
  if (is_valid_utf8(s)) return s;
  std::string hex;
  hex.reserve(s.size() * 2);
  for (char c : s) hex += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return json{{"hex", hex}};
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string text_from(const json& j, const std::string& where) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object() && j.size() == 1 && j.contains("hex") && j["hex"].is_string()) {
    const std::string& hex = j["hex"].get_ref<const std::string&>();
    if (hex.size() % 2 != 0) fail(where, "odd number of hex digits");
    std::string out;
    for (size_t i = 0; i < hex.size(); i += 2) {
      const int hi = hex_digit(hex[i]);
      const int lo = hex_digit(hex[i + 1]);
      if (hi < 0 || lo < 0) fail(where, "invalid hex digit");
      out.push_back(static_cast<char>(hi * 16 + lo));
    }
    return out;
  }
  fail(where, fmt::format("expected a string, got {}", j.dump()));
}

// Accessors that name the field on error.
const json& field(const json& obj, const char* key, const std::string& where) {
  if (!obj.is_object()) fail(where, "expected an object");
  auto it = obj.find(key);
  if (it == obj.end()) fail(where, fmt::format("missing field '{}'", key));
  return *it;
}

const json* optional_field(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

int64_t int_from(const json& j, const std::string& where) {
  if (!j.is_number_integer()) fail(where, fmt::format("expected an integer, got {}", j.dump()));
  return j.get<int64_t>();
}

const json& array_from(const json& j, const std::string& where) {
  if (!j.is_array()) fail(where, "expected an array");
  return j;
}

// ---- writing ----

json spec_json(const TensorSpec& spec) {
  json shape = json::array();
  for (const SymInt& d : spec.shape) {
    if (d.is_symbolic()) {
      shape.push_back(text(d.symbol()->name));
    } else {
      shape.push_back(d.value());
    }
  }
  json out{{"dtype", to_string(spec.dtype)}, {"shape", std::move(shape)}};
  if (!spec.dim_order.empty()) {
    json order = json::array();
    for (uint8_t d : spec.dim_order) order.push_back(d);
    out["dim_order"] = std::move(order);
  }
  return out;
}

json double_json(double v) {
  if (std::isnan(v)) return json{{"float", "nan"}};
  if (std::isinf(v)) return json{{"float", v > 0 ? "inf" : "-inf"}};
  return json{{"float", v}};
}

json argument_json(const Argument& a) {
  if (a.is_none()) return nullptr;
  if (a.is_node()) return json{{"node", text(a.as_node()->name())}};
  if (a.is_int()) return a.as_int();
  if (a.is_double()) return double_json(a.as_double());
  if (a.is_bool()) return a.as_bool();
  if (a.is_string()) return json{{"str", text(a.as_string())}};
  if (a.is_dtype()) return json{{"dtype", to_string(a.as_dtype())}};
  json items = json::array();
  for (const Argument& item : a.as_list()) items.push_back(argument_json(item));
  return items;
}

json pairs_json(const std::map<std::string, std::string>& map) {
  json out = json::array();
  for (const auto& [k, v] : map) out.push_back(json::array({text(k), text(v)}));
  return out;
}

class Writer {
 public:
  explicit Writer(const PayloadWriter& write_payload) : write_payload_(write_payload) {}

  json payload(const std::string& key, const BufferPtr& data) {
    if (data == nullptr) return nullptr;
    std::string stored = key;
    if (write_payload_) stored = write_payload_(key, *data);
    return json{{"key", text(stored)}, {"nbytes", data->size()}, {"hash", payload_hash(*data)}};
  }

  json tensor(const char* section, const std::string& name, const TensorData& t) {
    return json{{"name", text(name)},
                {"spec", spec_json(t.spec)},
                {"payload", payload(fmt::format("{}/{}", section, name), t.data)}};
  }

 private:
  const PayloadWriter& write_payload_;
};

json node_json(const Node& node) {
  json out{{"name", text(node.name())}, {"kind", to_string(node.kind())}};
  if (node.is_call() || node.is_get_attr()) out["target"] = text(node.target());
  json args = json::array();
  for (const Argument& a : node.args()) args.push_back(argument_json(a));
  out["args"] = std::move(args);
  json val = json::array();
  for (const TensorSpec& s : node.meta().val) val.push_back(spec_json(s));
  out["val"] = std::move(val);
  out["debug_handle"] = node.debug_handle();
  const NodeMeta& meta = node.meta();
  if (!meta.source.empty()) out["source"] = text(meta.source);
  if (!meta.delegation_tag.empty()) out["delegation_tag"] = text(meta.delegation_tag);
  if (!meta.extra.empty()) out["extra"] = pairs_json(meta.extra);
  return out;
}

// ---- reading ----

std::map<std::string, std::string> pairs_from(const json& j, const std::string& where) {
  std::map<std::string, std::string> out;
  for (const json& pair : array_from(j, where)) {
    if (!pair.is_array() || pair.size() != 2) fail(where, "expected [key, value] pairs");
    out[text_from(pair[0], where)] = text_from(pair[1], where);
  }
  return out;
}

class Reader {
 public:
  Reader(const json& doc, const PayloadReader& read_payload)
      : doc_(doc), read_payload_(read_payload) {}

  ExportedProgram read() {
    if (!doc_.is_object()) fail("document", "expected an object");
    const json& format = field(doc_, "format", "document");
    if (!format.is_string() || format.get<std::string>() != kFormat) {
      fail("document", fmt::format("format is {}, expected \"{}\"", format.dump(), kFormat));
    }
    const int64_t version = int_from(field(doc_, "version", "document"), "version");
    if (version != kVersion) {
      fail("document", fmt::format("version {} is not supported (this build reads version {})",
                                   version, kVersion));
    }
    ExportedProgram program;
    program.set_uuid(text_from(field(doc_, "uuid", "document"), "uuid"));
    const std::string stage = text_from(field(doc_, "stage", "document"), "stage");
    bool found = false;
    for (Stage s : {Stage::Aten, Stage::Edge, Stage::Lowered, Stage::Executorch}) {
      if (stage == to_string(s)) {
        program.set_stage(s);
        found = true;
      }
    }
    if (!found) fail("stage", fmt::format("unknown stage '{}'", stage));

    if (const json* prov = optional_field(doc_, "provenance")) {
      for (const json& step : array_from(*prov, "provenance")) {
        program.provenance().push_back(
            {text_from(field(step, "stage", "provenance"), "provenance stage"),
             text_from(field(step, "detail", "provenance"), "provenance detail")});
      }
    }
    if (const json* symbols = optional_field(doc_, "symbols")) {
      for (const json& s : array_from(*symbols, "symbols")) {
        auto symbol = std::make_shared<Symbol>();
        symbol->name = text_from(field(s, "name", "symbols"), "symbol name");
        const std::string where = fmt::format("symbol '{}'", symbol->name);
        symbol->min = int_from(field(s, "min", where), where + " min");
        symbol->max = int_from(field(s, "max", where), where + " max");
        if (const json* multiple = optional_field(s, "multiple")) {
          symbol->multiple = int_from(*multiple, where + " multiple");
          if (symbol->multiple < 1 || symbol->min % symbol->multiple != 0 ||
              symbol->max % symbol->multiple != 0) {
            fail(where, fmt::format("bounds not multiples of {}", symbol->multiple));
          }
        }
        if (const json* dd = optional_field(s, "data_dependent")) {
          if (!dd->is_boolean()) fail(where, "data_dependent is not a boolean");
          symbol->data_dependent = dd->get<bool>();
        }
        // The symbols a derived one is a function of come before it.
        auto earlier = [&](const json& name) {
          const std::string n = text_from(name, where + " operand");
          auto it = symbols_.find(n);
          if (it == symbols_.end()) fail(where, fmt::format("unknown symbol '{}'", n));
          return it->second;
        };
        if (const json* roots = optional_field(s, "roots")) {
          for (const json& r : array_from(*roots, where + " roots")) {
            symbol->roots.push_back(earlier(r));
          }
          symbol->factor = int_from(field(s, "factor", where), where + " factor");
        }
        if (const json* of = optional_field(s, "of")) {
          symbol->of = earlier(*of);
          symbol->scale = int_from(field(s, "scale", where), where + " scale");
          symbol->offset = int_from(field(s, "offset", where), where + " offset");
          symbol->divisor = int_from(field(s, "divisor", where), where + " divisor");
          if (symbol->scale < 1 || symbol->divisor < 1) {
            fail(where, "a window count needs a scale and a divisor of at least 1");
          }
        }
        if (!symbol->roots.empty() && symbol->of != nullptr) {
          fail(where, "a symbol is either a product or a window count, not both");
        }
        if (!symbols_.emplace(symbol->name, symbol).second) fail(where, "declared twice");
        if (const json* key = optional_field(s, "range_constraint")) {
          program.range_constraints()[text_from(*key, where)] = symbol;
        }
      }
    }
    read_signature(program);
    if (const json* t = optional_field(doc_, "state_dict")) {
      for (const json& e : array_from(*t, "state_dict")) {
        auto [name, data] = tensor(e, "state_dict");
        program.state_dict()[name] = std::move(data);
      }
    }
    if (const json* t = optional_field(doc_, "constants")) {
      for (const json& e : array_from(*t, "constants")) {
        auto [name, data] = tensor(e, "constants");
        program.constants()[name] = std::move(data);
      }
    }
    if (const json* t = optional_field(doc_, "custom_objects")) {
      for (const json& e : array_from(*t, "custom_objects")) {
        const std::string name = text_from(field(e, "name", "custom_objects"), "custom object");
        const std::string where = fmt::format("custom object '{}'", name);
        CustomObject obj;
        obj.type = text_from(field(e, "type", where), where + " type");
        if (const json* m = optional_field(e, "metadata")) obj.metadata = pairs_from(*m, where);
        obj.payload = payload(e, where);
        program.custom_objects()[name] = std::move(obj);
      }
    }
    if (const json* t = optional_field(doc_, "example_inputs")) {
      for (const json& e : array_from(*t, "example_inputs")) {
        program.example_inputs().push_back(tensor(e, "example_inputs").second);
      }
    }
    read_graph(program);
    return program;
  }

 private:
  TensorSpec spec(const json& j, const std::string& where) {
    TensorSpec out;
    const std::string dtype = text_from(field(j, "dtype", where), where + " dtype");
    const std::optional<DType> dt = dtype_from_string(dtype);
    if (!dt) fail(where, fmt::format("unknown dtype '{}'", dtype));
    out.dtype = *dt;
    for (const json& d : array_from(field(j, "shape", where), where + " shape")) {
      if (d.is_number_integer()) {
        out.shape.emplace_back(d.get<int64_t>());
      } else {
        const std::string name = text_from(d, where + " shape");
        auto it = symbols_.find(name);
        if (it == symbols_.end()) fail(where, fmt::format("unknown symbol '{}'", name));
        out.shape.emplace_back(it->second);
      }
    }
    if (const json* order = optional_field(j, "dim_order")) {
      for (const json& d : array_from(*order, where + " dim_order")) {
        const int64_t v = int_from(d, where + " dim_order");
        if (v < 0 || v > 255) fail(where, fmt::format("dim_order item {} is out of range", v));
        out.dim_order.push_back(static_cast<uint8_t>(v));
      }
    }
    return out;
  }

  BufferPtr payload(const json& entry, const std::string& where) {
    const json* p = optional_field(entry, "payload");
    if (p == nullptr) return nullptr;
    const std::string key = text_from(field(*p, "key", where), where + " payload key");
    const int64_t nbytes = int_from(field(*p, "nbytes", where), where + " payload size");
    if (nbytes < 0) fail(where, "negative payload size");
    const std::string hash = text_from(field(*p, "hash", where), where + " payload hash");
    const auto size = static_cast<size_t>(nbytes);
    if (read_payload_) {
      BufferPtr data = read_payload_(key, size, hash);
      if (data != nullptr) {
        if (data->size() != size) {
          fail(where, fmt::format("payload '{}' has {} bytes, the reference says {}", key,
                                  data->size(), size));
        }
        const std::string actual = payload_hash(*data);
        if (actual != hash) {
          fail(where,
               fmt::format("payload '{}' has hash {}, the reference says {}", key, actual, hash));
        }
        return data;
      }
    }
    return std::make_shared<detail::UnloadedPayload>(size, hash);
  }

  std::pair<std::string, TensorData> tensor(const json& e, const char* section) {
    const std::string name = text_from(field(e, "name", section), std::string(section) + " name");
    const std::string where = fmt::format("{} '{}'", section, name);
    TensorData data;
    data.spec = spec(field(e, "spec", where), where);
    data.data = payload(e, where);
    return {name, std::move(data)};
  }

  void read_signature(ExportedProgram& program) {
    const json* sig = optional_field(doc_, "signature");
    if (sig == nullptr) return;
    if (const json* inputs = optional_field(*sig, "inputs")) {
      for (const json& in : array_from(*inputs, "signature inputs")) {
        InputSpec spec;
        const std::string kind = text_from(field(in, "kind", "signature input"), "input kind");
        bool found = false;
        for (InputKind k : {InputKind::UserInput, InputKind::Parameter, InputKind::Buffer,
                            InputKind::ConstantTensor, InputKind::CustomObj}) {
          if (kind == to_string(k)) {
            spec.kind = k;
            found = true;
          }
        }
        if (!found) fail("signature", fmt::format("unknown input kind '{}'", kind));
        spec.name = text_from(field(in, "name", "signature input"), "input name");
        if (const json* t = optional_field(in, "target")) spec.target = text_from(*t, "target");
        program.signature().inputs.push_back(std::move(spec));
      }
    }
    if (const json* outputs = optional_field(*sig, "outputs")) {
      for (const json& out : array_from(*outputs, "signature outputs")) {
        OutputSpec spec;
        const std::string kind = text_from(field(out, "kind", "signature output"), "output kind");
        bool found = false;
        for (OutputKind k :
             {OutputKind::UserOutput, OutputKind::BufferMutation, OutputKind::UserInputMutation}) {
          if (kind == to_string(k)) {
            spec.kind = k;
            found = true;
          }
        }
        if (!found) fail("signature", fmt::format("unknown output kind '{}'", kind));
        spec.name = text_from(field(out, "name", "signature output"), "output name");
        if (const json* t = optional_field(out, "target")) spec.target = text_from(*t, "target");
        program.signature().outputs.push_back(std::move(spec));
      }
    }
  }

  Argument argument(const json& j, Graph& graph, const std::string& where) {
    if (j.is_null()) return Argument();
    if (j.is_boolean()) return Argument(j.get<bool>());
    if (j.is_number_integer()) return Argument(j.get<int64_t>());
    if (j.is_array()) {
      ArgumentList items;
      for (const json& item : j) items.push_back(argument(item, graph, where));
      return Argument(std::move(items));
    }
    if (j.is_object() && j.size() == 1) {
      if (const json* n = optional_field(j, "node")) {
        const std::string name = text_from(*n, where);
        Node* node = graph.find(name);
        if (node == nullptr) fail(where, fmt::format("unknown node %{}", name));
        return Argument(node);
      }
      if (const json* s = optional_field(j, "str")) return Argument(text_from(*s, where));
      if (const json* f = optional_field(j, "float")) {
        if (f->is_number()) return Argument(f->get<double>());
        const std::string v = text_from(*f, where);
        if (v == "nan") return Argument(std::numeric_limits<double>::quiet_NaN());
        if (v == "inf") return Argument(std::numeric_limits<double>::infinity());
        if (v == "-inf") return Argument(-std::numeric_limits<double>::infinity());
        fail(where, fmt::format("invalid float '{}'", v));
      }
      if (const json* d = optional_field(j, "dtype")) {
        const std::string name = text_from(*d, where);
        const std::optional<DType> dt = dtype_from_string(name);
        if (!dt) fail(where, fmt::format("unknown dtype '{}'", name));
        return Argument(*dt);
      }
    }
    fail(where, fmt::format("invalid argument {}", j.dump()));
  }

  void read_graph(ExportedProgram& program) {
    Graph& graph = program.graph();
    const json& nodes =
        array_from(field(field(doc_, "graph", "document"), "nodes", "graph"), "graph nodes");
    // First the nodes (so that arguments may name any node), then their arguments.
    std::vector<Node*> created;
    for (const json& n : nodes) {
      const std::string name = text_from(field(n, "name", "graph node"), "node name");
      const std::string where = fmt::format("node %{}", name);
      const std::string kind = text_from(field(n, "kind", where), where + " kind");
      std::vector<TensorSpec> val;
      if (const json* v = optional_field(n, "val")) {
        for (const json& s : array_from(*v, where + " val")) val.push_back(spec(s, where));
      }
      Node* node = nullptr;
      if (kind == to_string(NodeKind::Placeholder)) {
        if (graph.find(name) != nullptr) fail(where, "defined twice");
        node = graph.add_placeholder(name, val.empty() ? TensorSpec() : val[0]);
      } else if (kind == to_string(NodeKind::GetAttr)) {
        if (graph.find(name) != nullptr) fail(where, "defined twice");
        node = graph.add_get_attr(text_from(field(n, "target", where), where + " target"), name);
      } else if (kind == to_string(NodeKind::CallFunction)) {
        if (graph.find(name) != nullptr) fail(where, "defined twice");
        const std::string target = text_from(field(n, "target", where), where + " target");
        const OpSchema* op = find_op(target);
        if (op == nullptr) {
          try {
            get_op(target);
          } catch (const Exception& e) {
            fail(where, e.what());
          }
        }
        node = graph.add_call(*op, {}, name);
      } else if (kind == to_string(NodeKind::Output)) {
        if (graph.output_node() != nullptr) fail(where, "a second output node");
        node = graph.set_output({});
      } else {
        fail(where, fmt::format("unknown node kind '{}'", kind));
      }
      if (!node->is_output() && node->name() != name) {
        fail(where, fmt::format("'{}' is not a valid node name", name));
      }
      node->meta().val = std::move(val);
      if (const json* h = optional_field(n, "debug_handle")) {
        node->set_debug_handle(int_from(*h, where + " debug_handle"));
      }
      if (const json* s = optional_field(n, "source")) node->meta().source = text_from(*s, where);
      if (const json* t = optional_field(n, "delegation_tag")) {
        node->meta().delegation_tag = text_from(*t, where);
      }
      if (const json* e = optional_field(n, "extra")) node->meta().extra = pairs_from(*e, where);
      created.push_back(node);
    }
    size_t i = 0;
    for (const json& n : nodes) {
      Node* node = created[i++];
      const std::string where = fmt::format("node %{}", node->name());
      ArgumentList args;
      if (const json* a = optional_field(n, "args")) {
        for (const json& item : array_from(*a, where + " args")) {
          args.push_back(argument(item, graph, where));
        }
      }
      if (!args.empty() || node->is_output()) graph.set_args(node, std::move(args));
    }
  }

  const json& doc_;
  const PayloadReader& read_payload_;
  std::map<std::string, SymbolPtr> symbols_;
};

}  // namespace

std::string to_json(const ExportedProgram& program, const PayloadWriter& write_payload) {
  Writer writer(write_payload);
  json doc;
  doc["format"] = kFormat;
  doc["version"] = kVersion;
  doc["uuid"] = text(program.uuid());
  doc["stage"] = to_string(program.stage());
  json provenance = json::array();
  for (const ProvenanceStep& step : program.provenance()) {
    provenance.push_back(json{{"stage", text(step.stage)}, {"detail", text(step.detail)}});
  }
  doc["provenance"] = std::move(provenance);

  // Symbols: the range constraints (with their keys), then every other symbol a spec uses.
  json symbols = json::array();
  std::set<std::string> seen;
  // A derived symbol (a product, a window count) after the symbols it is a function of, with
  // its function, so that shape functions rerun on the read program reach the same symbols.
  std::function<void(const SymbolPtr&, const std::string*)> add_symbol =
      [&](const SymbolPtr& s, const std::string* key) {
        if (s == nullptr || seen.count(s->name) != 0) return;
        for (const SymbolPtr& root : s->roots) add_symbol(root, nullptr);
        add_symbol(s->of, nullptr);
        seen.insert(s->name);
        json entry{{"name", text(s->name)}, {"min", s->min}, {"max", s->max}};
        if (s->multiple > 1) entry["multiple"] = s->multiple;
        if (s->data_dependent) entry["data_dependent"] = true;
        if (!s->roots.empty()) {
          json roots = json::array();
          for (const SymbolPtr& root : s->roots) roots.push_back(text(root->name));
          entry["roots"] = std::move(roots);
          entry["factor"] = s->factor;
        }
        if (s->of != nullptr) {
          entry["of"] = text(s->of->name);
          entry["scale"] = s->scale;
          entry["offset"] = s->offset;
          entry["divisor"] = s->divisor;
        }
        if (key != nullptr) entry["range_constraint"] = text(*key);
        symbols.push_back(std::move(entry));
      };
  for (const auto& [key, symbol] : program.range_constraints()) add_symbol(symbol, &key);
  auto add_spec_symbols = [&](const TensorSpec& spec) {
    for (const SymInt& d : spec.shape) {
      if (d.is_symbolic()) add_symbol(d.symbol(), nullptr);
    }
  };
  for (const Node* n : program.graph().nodes()) {
    for (const TensorSpec& s : n->meta().val) add_spec_symbols(s);
  }
  for (const auto& [name, t] : program.state_dict()) add_spec_symbols(t.spec);
  for (const auto& [name, t] : program.constants()) add_spec_symbols(t.spec);
  for (const TensorData& t : program.example_inputs()) add_spec_symbols(t.spec);
  doc["symbols"] = std::move(symbols);

  json inputs = json::array();
  for (const InputSpec& in : program.signature().inputs) {
    json entry{{"kind", to_string(in.kind)}, {"name", text(in.name)}};
    if (!in.target.empty()) entry["target"] = text(in.target);
    inputs.push_back(std::move(entry));
  }
  json outputs = json::array();
  for (const OutputSpec& out : program.signature().outputs) {
    json entry{{"kind", to_string(out.kind)}, {"name", text(out.name)}};
    if (!out.target.empty()) entry["target"] = text(out.target);
    outputs.push_back(std::move(entry));
  }
  doc["signature"] = json{{"inputs", std::move(inputs)}, {"outputs", std::move(outputs)}};

  json state_dict = json::array();
  for (const auto& [name, t] : program.state_dict()) {
    state_dict.push_back(writer.tensor("state_dict", name, t));
  }
  doc["state_dict"] = std::move(state_dict);
  json constants = json::array();
  for (const auto& [name, t] : program.constants()) {
    constants.push_back(writer.tensor("constants", name, t));
  }
  doc["constants"] = std::move(constants);
  json objects = json::array();
  for (const auto& [name, obj] : program.custom_objects()) {
    json entry{{"name", text(name)}, {"type", text(obj.type)}};
    if (!obj.metadata.empty()) entry["metadata"] = pairs_json(obj.metadata);
    entry["payload"] = writer.payload("custom_objects/" + name, obj.payload);
    objects.push_back(std::move(entry));
  }
  doc["custom_objects"] = std::move(objects);
  json examples = json::array();
  for (size_t i = 0; i < program.example_inputs().size(); ++i) {
    examples.push_back(
        writer.tensor("example_inputs", std::to_string(i), program.example_inputs()[i]));
  }
  doc["example_inputs"] = std::move(examples);

  json nodes = json::array();
  for (const Node* n : program.graph().nodes()) nodes.push_back(node_json(*n));
  doc["graph"] = json{{"nodes", std::move(nodes)}};
  return doc.dump();
}

ExportedProgram program_from_json(std::string_view text_in, const PayloadReader& read_payload) {
  json doc;
  try {
    doc = json::parse(text_in);
  } catch (const json::exception& e) {
    fail("document", fmt::format("not valid JSON: {}", e.what()));
  }
  try {
    return Reader(doc, read_payload).read();
  } catch (const json::exception& e) {
    fail("document", e.what());
  }
}

}  // namespace ptec::ir
