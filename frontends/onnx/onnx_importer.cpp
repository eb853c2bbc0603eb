#include "frontends/onnx/onnx_importer.h"

#include <algorithm>
#include <climits>
#include <filesystem>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "frontends/onnx/if_import.h"
#include "frontends/onnx/import_context.h"
#include "frontends/onnx/loop_unroll.h"
#include "frontends/onnx/model_import.h"
#include "frontends/onnx/newer_opsets.h"
#include "frontends/onnx/op_registry.h"
#include "frontends/onnx/op_versions.h"
#include "frontends/onnx/sym_shape.h"

namespace ptec::onnx_import {
namespace {

/// Messages from ONNX span several lines ("...\n\n==> Context: ..."): make them one line.
std::string one_line(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

[[noreturn]] void invalid(const std::string& file, const std::string& problem) {
  throw LocatedError(Error::InvalidProgram, file + ": " + problem);
}

/// Walks the top-level protobuf fields of `data`: Ok, Truncated (a field runs past the end) or
/// Malformed (a tag or wire type no protobuf writer produces).
enum class WireScan { Ok, Truncated, Malformed };

WireScan scan_wire(const uint8_t* data, size_t size) {
  size_t pos = 0;
  auto varint = [&](uint64_t& value) -> WireScan {
    value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= size) return WireScan::Truncated;
      const uint8_t b = data[pos++];
      value |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return WireScan::Ok;
    }
    return WireScan::Malformed;
  };
  while (pos < size) {
    uint64_t tag = 0;
    if (WireScan r = varint(tag); r != WireScan::Ok) return r;
    if ((tag >> 3) == 0) return WireScan::Malformed;
    uint64_t skip = 0;
    switch (tag & 7) {
      case 0: {
        uint64_t v = 0;
        if (WireScan r = varint(v); r != WireScan::Ok) return r;
        continue;
      }
      case 1: skip = 8; break;
      case 5: skip = 4; break;
      case 2:
        if (WireScan r = varint(skip); r != WireScan::Ok) return r;
        break;
      default: return WireScan::Malformed;  // groups (3, 4) are not used by onnx.proto
    }
    if (skip > size - pos) return WireScan::Truncated;
    pos += skip;
  }
  return WireScan::Ok;
}

/// Changes the working directory for its lifetime (nothing when `dir` is empty).
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const std::string& dir) {
    if (dir.empty()) return;
    std::error_code ec;
    previous_ = std::filesystem::current_path(ec);
    if (!ec) std::filesystem::current_path(dir, ec);
    if (ec) previous_.clear();
  }
  ~WorkingDirectory() {
    std::error_code ec;
    if (!previous_.empty()) std::filesystem::current_path(previous_, ec);
  }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

 private:
  std::filesystem::path previous_;
};

int64_t default_opset(const onnx::ModelProto& model) {
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
  }
  return -1;
}

int64_t domain_opset(const onnx::ModelProto& model, const std::string& domain) {
  for (const auto& o : model.opset_import()) {
    if (o.domain() == domain) return o.version();
  }
  return -1;
}

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

/// Spells the default domain "" everywhere: ONNX gives "ai.onnx" the same meaning, but libonnx's
/// checker looks schemas up by the exact string (a Conv of domain "ai.onnx", or an opset import
/// of "ai.onnx" only, fails its check). Two imports of the default domain must agree.
void normalize_default_domain(onnx::ModelProto& model, const std::string& file) {
  int64_t version = -1;
  auto& imports = *model.mutable_opset_import();
  for (int i = 0; i < imports.size();) {
    if (!is_default_domain(imports[i].domain())) {
      ++i;
      continue;
    }
    if (version >= 0 && imports[i].version() != version) {
      invalid(file, fmt::format("the default domain is imported at opsets {} and {} (as \"\" "
                                "and \"ai.onnx\")",
                                version, imports[i].version()));
    }
    if (version >= 0) {
      imports.DeleteSubrange(i, 1);
      continue;
    }
    version = imports[i].version();
    imports[i].set_domain("");
    ++i;
  }
  for (onnx::NodeProto& node : *model.mutable_graph()->mutable_node()) {
    if (node.domain() == "ai.onnx") node.set_domain("");
  }
}

std::string shape_to_string(const onnx::TensorShapeProto& shape) {
  std::vector<std::string> dims;
  for (const auto& d : shape.dim()) {
    dims.push_back(d.has_dim_value()   ? std::to_string(d.dim_value())
                   : d.has_dim_param() ? d.dim_param()
                                       : "?");
  }
  return fmt::format("[{}]", fmt::join(dims, ", "));
}

/// One error listing every unsupported (op type, opset) with the names of its nodes.
void check_supported(const onnx::ModelProto& model, const std::string& file) {
  struct Unsupported {
    std::string label;
    std::vector<std::string> nodes;
  };
  std::vector<Unsupported> found;
  const int64_t opset = default_opset(model);
  // The nodes of the graph and, for If (imported as its taken branch) and Loop (unrolled), of
  // their subgraphs.
  std::vector<std::pair<const onnx::NodeProto*, std::string>> nodes;
  std::function<void(const onnx::GraphProto&, const std::string&)> collect =
      [&](const onnx::GraphProto& graph, const std::string& prefix) {
        int index = 0;
        for (const onnx::NodeProto& n : graph.node()) {
          const std::string source =
              prefix + (n.name().empty() ? fmt::format("{}_{}", n.op_type(), index) : n.name());
          ++index;
          if (is_default_domain(n.domain()) &&
              (n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan")) {
            for (const auto& a : n.attribute()) {
              if (a.has_g()) collect(a.g(), source + "/");
            }
            continue;
          }
          nodes.emplace_back(&n, source);
        }
      };
  collect(model.graph(), "");
  for (const auto& [node, source] : nodes) {
    const onnx::NodeProto& n = *node;
    std::string label;
    if (is_default_domain(n.domain())) {
      if (find_entry(n.op_type(), opset) != nullptr) continue;
      label = fmt::format("{} (opset {})", n.op_type(), opset);
      std::vector<std::string> ranges;
      for (const OpEntry& e : op_entries()) {
        if (e.op_type == n.op_type()) {
          ranges.push_back(fmt::format("{}-{}", e.min_opset, e.max_opset));
        }
      }
      // Past the table's ranges, name the operator's schema version the opset selects.
      const int version = schema_version(n.op_type(), opset);
      const std::string schema =
          version >= 0 && version != opset ? fmt::format(", its version {}", version) : "";
      if (!ranges.empty()) {
        label = fmt::format("{} (opset {}{}; supported for versions {})", n.op_type(), opset,
                            schema, fmt::join(ranges, ", "));
      }
    } else {
      label = fmt::format("{}::{} (opset {})", n.domain(), n.op_type(),
                          domain_opset(model, n.domain()));
    }
    auto it = std::find_if(found.begin(), found.end(),
                           [&](const Unsupported& u) { return u.label == label; });
    if (it == found.end()) {
      found.push_back({label, {source}});
    } else {
      it->nodes.push_back(source);
    }
  }
  if (found.empty()) return;
  std::vector<std::string> parts;
  for (const Unsupported& u : found) {
    parts.push_back(fmt::format("{} at nodes [{}]", u.label, fmt::join(u.nodes, ", ")));
  }
  throw LocatedError(Error::NotSupported,
                     fmt::format("{}: {} unsupported operator{}: {}", file, found.size(),
                                 found.size() == 1 ? "" : "s", fmt::join(parts, "; ")));
}

using DynamicSymbols = std::map<std::pair<std::string, int>, ir::SymbolPtr>;

struct Specialization {
  std::string input;
  size_t dim;
  std::string symbol;  // dim_param, or "" for an unnamed dim
  int64_t value;
  const char* from;  // the option that gave the value, or the default's description
};

/// Gives every user input a static shape in the proto (options.input_shapes, else 1 for symbolic
/// dims) so that checker, shape inference and import all see the same shapes. Returns the dims
/// that were specialized and records each input's declared shape in `declared`.
/// The symbols of options.dynamic_dims by (input, axis); entries naming one symbol share it.
DynamicSymbols make_symbols(const std::string& file, const OnnxImportOptions& options) {
  DynamicSymbols out;
  std::map<std::string, ir::SymbolPtr> by_name;
  for (const DynamicDim& d : options.dynamic_dims) {
    const std::string name = d.symbol.empty() ? fmt::format("{}_{}", d.input, d.axis) : d.symbol;
    if (d.min < 0 || d.min > d.max) {
      throw LocatedError(Error::InvalidArgument,
                         fmt::format("{}: dynamic dim '{}' has an empty or negative range [{}, {}]",
                                     file, name, d.min, d.max));
    }
    if (d.multiple < 1 || d.min % d.multiple != 0 || d.max % d.multiple != 0) {
      throw LocatedError(
          Error::InvalidArgument,
          fmt::format("{}: dynamic dim '{}': the bounds of [{}, {}] must be multiples of {}", file,
                      name, d.min, d.max, d.multiple));
    }
    ir::SymbolPtr& sym = by_name[name];
    if (sym == nullptr) {
      auto s = std::make_shared<ir::Symbol>(ir::Symbol{name, d.min, d.max});
      s->multiple = d.multiple;
      sym = std::move(s);
    } else if (sym->min != d.min || sym->max != d.max || sym->multiple != d.multiple) {
      throw LocatedError(
          Error::InvalidArgument,
          fmt::format("{}: symbol '{}' is given ranges [{}, {}] and [{}, {}]{}", file, name,
                      sym->min, sym->max, d.min, d.max,
                      sym->multiple != d.multiple
                          ? fmt::format(" (multiples of {} and {})", sym->multiple, d.multiple)
                          : std::string()));
    }
    if (!out.emplace(std::make_pair(d.input, static_cast<int>(d.axis)), sym).second) {
      throw LocatedError(
          Error::InvalidArgument,
          fmt::format("{}: dim {} of input '{}' is made dynamic twice", file, d.axis, d.input));
    }
  }
  return out;
}

std::vector<Specialization> specialize_inputs(onnx::ModelProto& model, const std::string& file,
                                              const OnnxImportOptions& options,
                                              const DynamicSymbols& symbols,
                                              std::map<std::string, std::string>& declared) {
  std::unordered_set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  std::vector<Specialization> out;
  std::vector<std::string> user_inputs;
  std::set<std::string> used_symbols, all_symbols;
  for (onnx::ValueInfoProto& input : *model.mutable_graph()->mutable_input()) {
    if (initializers.count(input.name()) != 0) continue;
    user_inputs.push_back(input.name());
    if (!input.type().has_tensor_type()) {
      throw LocatedError(Error::NotSupported,
                         fmt::format("{}: input '{}' is not a tensor (sequence, map and optional "
                                     "inputs are not supported)",
                                     file, input.name()));
    }
    auto* tensor_type = input.mutable_type()->mutable_tensor_type();
    auto given = options.input_shapes.find(input.name());
    if (!tensor_type->has_shape()) {
      if (given == options.input_shapes.end()) {
        throw LocatedError(Error::NotSupported,
                           fmt::format("{}: input '{}' has no declared shape; give its sizes in "
                                       "OnnxImportOptions::input_shapes (ptec export "
                                       "--input-shape)",
                                       file, input.name()));
      }
      auto* shape = tensor_type->mutable_shape();
      for (size_t i = 0; i < given->second.size(); ++i) shape->add_dim();
    }
    auto* shape = tensor_type->mutable_shape();
    declared[input.name()] = shape_to_string(*shape);
    if (given != options.input_shapes.end() &&
        given->second.size() != static_cast<size_t>(shape->dim_size())) {
      throw LocatedError(
          Error::InvalidArgument,
          fmt::format("{}: input_shapes gives {} dims for input '{}' of shape {}", file,
                      given->second.size(), input.name(), shape_to_string(*shape)));
    }
    for (int i = 0; i < shape->dim_size(); ++i) {
      auto* d = shape->mutable_dim(i);
      if (auto it = symbols.find({input.name(), i}); it != symbols.end()) {
        const ir::Symbol& sym = *it->second;
        if (d->has_dim_value() && (d->dim_value() < sym.min || d->dim_value() > sym.max)) {
          throw LocatedError(
              Error::InvalidArgument,
              fmt::format("{}: dynamic dim {} of input '{}' is fixed to {} by the model, outside "
                          "[{}, {}]",
                          file, i, input.name(), d->dim_value(), sym.min, sym.max));
        }
        // Shape inference sees the symbol by name; the importer gives the dim the SymInt.
        d->set_dim_param(sym.name);
        continue;
      }
      const bool has_given = given != options.input_shapes.end();
      const auto named = d->has_dim_param() ? options.symbol_values.find(d->dim_param())
                                            : options.symbol_values.end();
      if (named != options.symbol_values.end()) used_symbols.insert(named->first);
      const bool has_named = !has_given && named != options.symbol_values.end();
      const int64_t want = has_given   ? given->second[static_cast<size_t>(i)]
                           : has_named ? named->second
                                       : 1;
      if (want < 0) {
        throw LocatedError(
            Error::InvalidArgument,
            fmt::format("{}: {} gives a negative size for '{}' dim {}", file,
                        has_given ? "input_shapes" : "symbol_values", input.name(), i));
      }
      if (d->has_dim_value()) {
        if (has_given && d->dim_value() != want) {
          throw LocatedError(
              Error::InvalidArgument,
              fmt::format("{}: input_shapes gives {} for input '{}' dim {}, which the model "
                          "fixes to {}",
                          file, want, input.name(), i, d->dim_value()));
        }
        continue;
      }
      out.push_back({input.name(), static_cast<size_t>(i), d->has_dim_param() ? d->dim_param() : "",
                     want,
                     has_given   ? "input_shapes"
                     : has_named ? "symbol_values"
                                 : "default for a symbolic dim"});
      if (d->has_dim_param()) all_symbols.insert(d->dim_param());
      d->set_dim_value(want);  // replaces dim_param (a oneof)
    }
  }
  for (const auto& [key, sym] : symbols) {
    const auto& [name, axis] = key;
    const auto input =
        std::find_if(model.graph().input().begin(), model.graph().input().end(),
                     [&](const onnx::ValueInfoProto& vi) { return vi.name() == name; });
    if (std::find(user_inputs.begin(), user_inputs.end(), name) == user_inputs.end()) {
      throw LocatedError(Error::InvalidArgument,
                         fmt::format("{}: dynamic dim '{}' names '{}', which is not an input of "
                                     "the model (inputs: {})",
                                     file, sym->name, name, fmt::join(user_inputs, ", ")));
    }
    const int rank = input->type().tensor_type().shape().dim_size();
    if (axis < 0 || axis >= rank) {
      throw LocatedError(Error::InvalidArgument,
                         fmt::format("{}: dynamic dim '{}': axis {} is out of range for input "
                                     "'{}' of rank {}",
                                     file, sym->name, axis, name, rank));
    }
  }
  for (const auto& [name, value] : options.symbol_values) {
    if (used_symbols.count(name) == 0) {
      throw LocatedError(
          Error::InvalidArgument,
          fmt::format(
              "{}: a size is given for the symbolic dim '{}', which no input dim carries "
              "(symbolic dims: {})",
              file, name,
              all_symbols.empty() ? "none" : fmt::format("{}", fmt::join(all_symbols, ", "))));
    }
  }
  for (const auto& [name, sizes] : options.input_shapes) {
    if (std::find(user_inputs.begin(), user_inputs.end(), name) == user_inputs.end()) {
      throw LocatedError(Error::InvalidArgument,
                         fmt::format("{}: input_shapes names '{}', which is not an input of the "
                                     "model (inputs: {})",
                                     file, name, fmt::join(user_inputs, ", ")));
    }
  }
  return out;
}

/// Compares an imported value with ONNX shape inference (when ONNX knows the full shape).
void check_against_inference(const NodeView& node, size_t i, const ir::TensorSpec& spec,
                             const onnx::TypeProto* inferred) {
  if (inferred == nullptr || !inferred->has_tensor_type()) return;
  const auto& tt = inferred->tensor_type();
  std::vector<int64_t> sizes;
  bool known = tt.has_shape();
  if (known) {
    for (const auto& d : tt.shape().dim()) {
      if (!d.has_dim_value()) {
        known = false;
        break;
      }
      sizes.push_back(d.dim_value());
    }
  }
  const bool dtype_known = tt.elem_type() != 0 && dtype_to_onnx(spec.dtype) != 0;
  const bool dtype_ok = !dtype_known || tt.elem_type() == dtype_to_onnx(spec.dtype);
  bool sizes_ok = !known || (spec.is_static() && spec.upper_bound_sizes() == sizes);
  if (known && !spec.is_static() && spec.rank() == sizes.size()) {
    // ONNX may know a dim that ptec keeps symbolic only when the symbol is fixed (min == max).
    sizes_ok = true;
    for (size_t d = 0; d < sizes.size(); ++d) {
      const ir::SymInt& s = spec.shape[d];
      sizes_ok =
          sizes_ok && (s.is_static() ? s.value() == sizes[d]
                                     : s.lower_bound() <= sizes[d] && sizes[d] <= s.upper_bound());
    }
  }
  if (!known && tt.has_shape() && static_cast<size_t>(tt.shape().dim_size()) == spec.rank()) {
    // Compare the dims ONNX knows; a dim ONNX keeps symbolic must be symbolic here too.
    for (int d = 0; d < tt.shape().dim_size(); ++d) {
      const auto& od = tt.shape().dim(d);
      const ir::SymInt& s = spec.shape[static_cast<size_t>(d)];
      if (od.has_dim_value() && s.is_static() && od.dim_value() != s.value()) sizes_ok = false;
    }
  }
  if (dtype_ok && sizes_ok) return;
  node.fail(
      Error::Internal,
      "output '{}' was imported as {} but ONNX shape inference gives {} {} (an importer "
      "bug; OnnxImportOptions::check_inferred_shapes=false skips this check)",
      node.output(i), spec.to_string(),
      onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(tt.elem_type())),
      known ? sizes_to_string(sizes) : std::string("[?]"));
}

// The bytes of a Buffer in pieces of kPiece for protobuf; once the parser has moved
// Buffer::kReleasePiece past the last release, the pages behind it are released (mapped
// buffers only: the parser copies what it keeps, and never reads backwards past a piece).
class ReleasingInputStream final : public google::protobuf::io::ZeroCopyInputStream {
 public:
  explicit ReleasingInputStream(const ir::Buffer& bytes) : bytes_(bytes) {}
  ~ReleasingInputStream() override { bytes_.release_pages(released_, pos_ - released_); }
  bool Next(const void** data, int* size) override {
    if (pos_ >= bytes_.size()) return false;
    // The previous piece is consumed (up to what BackUp returned): release behind it.
    if (pos_ - released_ >= ir::Buffer::kReleasePiece) {
      bytes_.release_pages(released_, pos_ - released_);
      released_ = pos_;
    }
    const size_t n = std::min(kPiece, bytes_.size() - pos_);
    *data = bytes_.data() + pos_;
    *size = static_cast<int>(n);
    pos_ += n;
    return true;
  }
  void BackUp(int count) override { pos_ -= static_cast<size_t>(count); }
  bool Skip(int count) override {
    const size_t n = std::min(static_cast<size_t>(count), bytes_.size() - pos_);
    pos_ += n;
    return n == static_cast<size_t>(count);
  }
  int64_t ByteCount() const override { return static_cast<int64_t>(pos_); }

 private:
  static constexpr size_t kPiece = size_t{1} << 20;
  const ir::Buffer& bytes_;
  size_t pos_ = 0;
  size_t released_ = 0;
};

}  // namespace

void parse_model(const ir::Buffer& bytes, const std::string& file, onnx::ModelProto& model) {
  const uint8_t* data = bytes.data();
  const size_t size = bytes.size();
  if (size == 0) invalid(file, "empty file (not an ONNX model)");
  if (size > static_cast<size_t>(INT_MAX)) {
    invalid(file,
            "larger than 2 GiB; protobuf cannot parse it (store the weights as external "
            "data)");
  }
  bool parsed = false;
  {
    ReleasingInputStream input(bytes);
    google::protobuf::io::CodedInputStream stream(&input);
    stream.SetTotalBytesLimit(INT_MAX);  // the default rejects files over 64 MB in old releases
    parsed = model.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
  }
  if (!parsed) {
    switch (scan_wire(data, size)) {
      case WireScan::Truncated: invalid(file, "truncated file (protobuf parse failed)");
      default: invalid(file, "not a valid ONNX model (protobuf parse failed)");
    }
  }
  if (!model.has_graph() || !model.has_ir_version()) {
    invalid(file, fmt::format("not a valid ONNX model (no {})",
                              model.has_ir_version() ? "graph" : "ir_version"));
  }
}

/// Names `graph`'s nodes (and those of its subgraphs) read, and its outputs.
void collect_used(const onnx::GraphProto& graph, std::unordered_set<std::string>& used) {
  for (const auto& n : graph.node()) {
    for (const auto& in : n.input()) used.insert(in);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collect_used(a.g(), used);
    }
  }
  for (const auto& out : graph.output()) used.insert(out.name());
}

/// import_model after the inputs' specialization: checker, shape inference and the nodes.
ir::ExportedProgram import_graph(onnx::ModelProto& model, const std::string& file,
                                 const OnnxImportOptions& options, int64_t opset, bool newer,
                                 const DynamicSymbols& symbols,
                                 std::map<std::string, std::string>& declared,
                                 const std::vector<Specialization>& specialized) {
  try {
    // The checker looks external data up relative to the working directory (its ModelProto
    // overload has no model dir): run it from the data directory when there is external data.
    const bool external =
        std::any_of(model.graph().initializer().begin(), model.graph().initializer().end(),
                    [](const onnx::TensorProto& t) {
                      return t.data_location() == onnx::TensorProto::EXTERNAL;
                    });
    WorkingDirectory in_data_dir(external ? options.external_data_dir : std::string());
    if (newer) {
      check_newer_model(model);
    } else {
      onnx::checker::check_model(model);
    }
  } catch (const std::exception& e) {
    invalid(file, "checker: " + one_line(e.what()));
  }
  // ONNX's shape inference only cross-checks the importer's own shapes (check_against_inference).
  // A newer model skips it: libonnx infers nothing past a node it has no schema for, and what it
  // infers after one can be wrong (a Slice whose bounds come from a Constant-21 it cannot read).
  if (!newer) {
    try {
      onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(false, 0, false));
    } catch (const std::exception& e) {
      // libonnx 1.12 infers a one-sided STFT's bins as the frame length (fixed in later ONNX
      // releases); a model that declares the right shape is then imported without its cross-check.
      const std::string what = e.what();
      if (what.find("(op_type:STFT") == std::string::npos) {
        invalid(file, "shape inference: " + one_line(what));
      }
    }
  }
  check_supported(model, file);
  if (model.graph().sparse_initializer_size() > 0) {
    throw LocatedError(Error::NotSupported,
                       fmt::format("{}: sparse initializers are not supported", file));
  }

  std::unordered_map<std::string, const onnx::TypeProto*> inferred;
  for (const auto& vi : model.graph().value_info()) inferred[vi.name()] = &vi.type();
  for (const auto& vi : model.graph().output()) inferred[vi.name()] = &vi.type();
  std::unordered_set<std::string> used;
  collect_used(model.graph(), used);

  ir::ExportedProgram program;
  std::string data_dir = options.external_data_dir;
  ImportContext ctx(program, file, data_dir);

  onnx::GraphProto& graph = *model.mutable_graph();
  std::unordered_set<std::string> initializer_names;
  for (onnx::TensorProto& init : *graph.mutable_initializer()) {
    initializer_names.insert(init.name());
    ctx.define(init.name(),
               Value{nullptr, ctx.tensor_from_proto(init, init.name()), true, init.name()});
  }
  for (const onnx::ValueInfoProto& input : graph.input()) {
    if (initializer_names.count(input.name()) != 0) continue;
    const auto& tt = input.type().tensor_type();
    const std::string where = fmt::format("{}: input '{}'", file, input.name());
    ir::Shape sizes;
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      auto it = symbols.find({input.name(), i});
      if (it != symbols.end()) {
        sizes.emplace_back(it->second);
        program.range_constraints().emplace(it->second->name, it->second);
      } else {
        sizes.emplace_back(tt.shape().dim(i).dim_value());
      }
    }
    ir::Node* node = ctx.graph().add_placeholder(
        input.name(), ir::TensorSpec(dtype_from_onnx(tt.elem_type(), where), sizes));
    ctx.add_user_input(node, input.name());
    for (const Specialization& s : specialized) {
      if (s.input == input.name()) node->meta().extra["onnx_shape"] = declared[input.name()];
    }
    ctx.define(input.name(), Value{node, std::nullopt, false, input.name()});
  }

  int index = 0;
  // One node; If, Loop and Scan import their subgraphs through this function.
  std::function<void(onnx::NodeProto&, std::string)> import_node = [&](onnx::NodeProto& proto,
                                                                       std::string source) {
    const NodeView node(proto, std::move(source), opset, ctx.file());
    const OpEntry* entry = find_entry(node.op_type(), opset);
    ctx.set_current(&node);
    try {
      if (is_default_domain(proto.domain()) && proto.op_type() == "If") {
        import_if(ctx, node, proto, import_node);
        ctx.set_current(&node);
      } else if (is_default_domain(proto.domain()) && proto.op_type() == "Loop") {
        import_loop(ctx, node, proto, import_node);
        ctx.set_current(&node);
      } else if (is_default_domain(proto.domain()) && proto.op_type() == "Scan") {
        import_scan(ctx, node, proto, import_node);
        ctx.set_current(&node);
      } else if (!import_symbolic(ctx, node) &&
                 (entry->fold == nullptr || !entry->fold(ctx, node))) {
        entry->import(ctx, node);
      }
      for (size_t i = 0; i < node.num_outputs(); ++i) {
        if (!node.has_output(i)) continue;
        Value* v = ctx.find(node.output(i));
        if (v == nullptr) {
          if (used.count(node.output(i)) == 0) continue;
          node.fail(Error::NotSupported,
                    "output {} ('{}') is used, but the importer does not "
                    "produce it",
                    i, node.output(i));
        }
        if (options.check_inferred_shapes && ctx.sym_value(node.output(i)) == nullptr &&
            ctx.seq_value(node.output(i)) == nullptr) {
          auto it = inferred.find(node.output(i));
          const ir::TensorSpec spec = v->node != nullptr ? v->node->spec() : v->constant->spec();
          check_against_inference(node, i, spec, it == inferred.end() ? nullptr : it->second);
        }
      }
    } catch (const LocatedError&) {
      throw;
    } catch (const Exception& e) {
      throw LocatedError(e.code(), node.where() + ": " + one_line(e.what()));
    } catch (const std::exception& e) {
      throw LocatedError(Error::Internal, node.where() + ": " + one_line(e.what()));
    }
  };
  for (onnx::NodeProto& proto : *graph.mutable_node()) {
    std::string source =
        proto.name().empty() ? fmt::format("{}_{}", proto.op_type(), index) : proto.name();
    ++index;
    try {
      import_node(proto, std::move(source));
    } catch (const Exception& e) {
      if (ctx.hint().empty()) throw;
      throw LocatedError(e.code(), std::string(e.what()) + ctx.hint());
    }
  }
  ctx.set_current(nullptr);

  std::vector<ir::Node*> outputs;
  for (const onnx::ValueInfoProto& out : graph.output()) {
    Value* v = ctx.find(out.name());
    if (v == nullptr) invalid(file, fmt::format("graph output '{}' is not produced", out.name()));
    outputs.push_back(ctx.materialize(out.name(), *v));
  }
  ir::Graph& g = ctx.graph();
  g.set_output(outputs);

  // torch.export's placeholder order: parameters (in initializer order; a derived weight such
  // as "<name>.T" next to its source), constants, then user inputs.
  std::unordered_map<std::string, size_t> init_rank;
  for (const onnx::TensorProto& init : graph.initializer()) {
    init_rank.emplace(init.name(), init_rank.size());
  }
  auto rank_of = [&](const ir::InputSpec& spec) {
    std::string key = spec.target;
    if (init_rank.count(key) == 0 && key.size() > 2 && key.ends_with(".T")) {
      key.resize(key.size() - 2);
    }
    auto it = init_rank.find(key);
    return it == init_rank.end() ? init_rank.size() : it->second;
  };
  std::vector<std::pair<ir::Node*, ir::InputSpec>> ordered = ctx.placeholders();
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto& a, const auto& b) {
    if (a.second.kind != b.second.kind) return a.second.kind < b.second.kind;
    return a.second.kind == ir::InputKind::Parameter && rank_of(a.second) < rank_of(b.second);
  });
  ir::GraphSignature& sig = program.signature();
  for (ir::InputKind kind :
       {ir::InputKind::Parameter, ir::InputKind::ConstantTensor, ir::InputKind::UserInput}) {
    for (const auto& [node, spec] : ordered) {
      if (spec.kind != kind) continue;
      ir::Node* first_other = nullptr;
      for (ir::Node* n : g.nodes()) {
        if (!n->is_placeholder()) {
          first_other = n;
          break;
        }
      }
      g.move_before(node, first_other);
      sig.inputs.push_back(spec);
    }
  }
  for (ir::Node* n : outputs) {
    sig.outputs.push_back(ir::OutputSpec{ir::OutputKind::UserOutput, n->name(), ""});
  }

  program.set_stage(ir::Stage::Aten);
  std::string producer;
  if (!model.producer_name().empty()) {
    producer = ", producer " + model.producer_name();
    if (!model.producer_version().empty()) producer += " " + model.producer_version();
  }
  program.provenance().push_back(
      {"import", fmt::format("onnx: {} (opset {}, ir_version {}{})", file, opset,
                             model.ir_version(), producer)});
  for (const auto& [key, sym] : symbols) {
    program.provenance().push_back(
        {"dynamic", fmt::format("input '{}' dim {} = '{}' in [{}, {}]{}", key.first, key.second,
                                sym->name, sym->min, sym->max,
                                sym->multiple > 1 ? fmt::format(", a multiple of {}", sym->multiple)
                                                  : std::string())});
  }
  for (const Specialization& s : specialized) {
    program.provenance().push_back(
        {"specialize",
         fmt::format("input '{}' dim {}{} = {} ({})", s.input, s.dim,
                     s.symbol.empty() ? std::string() : " ('" + s.symbol + "')", s.value, s.from)});
  }
  return program;
}

/// What to add to an import error when input dims took the default size 1: the dims, and how
/// to give them (an error after such a default, e.g. a convolution over a 1 x 1 plane, often
/// comes from it).
std::string defaulted_dims_note(const std::vector<Specialization>& specialized) {
  std::vector<std::string> dims;
  for (const Specialization& s : specialized) {
    if (std::string_view(s.from) != "default for a symbolic dim") continue;
    dims.push_back(s.symbol.empty() ? fmt::format("'{}' dim {}", s.input, s.dim)
                                    : fmt::format("'{}' dim {} ('{}')", s.input, s.dim, s.symbol));
  }
  if (dims.empty()) return "";
  return fmt::format(
      " (input dims without a size were set to 1: {}; give them with "
      "input_shapes or symbol_values, ptec export --input-shape or --dim)",
      fmt::join(dims, ", "));
}

ir::ExportedProgram import_model(onnx::ModelProto& model, const std::string& file,
                                 const OnnxImportOptions& options) {
  normalize_default_domain(model, file);
  const int64_t opset = default_opset(model);
  if (opset < 0) invalid(file, "no opset_import for the default ONNX domain");
  if (opset > kNewestOpset) {
    throw LocatedError(Error::NotSupported,
                       fmt::format("{}: opset {} of the default domain is newer than this "
                                   "importer knows (opsets 1-{})",
                                   file, opset, kNewestOpset));
  }
  // libonnx's checker sees the operators of a newer opset through newer_opset_registry()
  // (newer_opsets.h).
  const bool newer = newer_than_libonnx(model);

  std::map<std::string, std::string> declared;
  const DynamicSymbols symbols = make_symbols(file, options);
  const std::vector<Specialization> specialized =
      specialize_inputs(model, file, options, symbols, declared);
  // value_info entries are exporter hints; shape inference recomputes them from the specialized
  // inputs (stale symbolic entries would only get in the way).
  model.mutable_graph()->clear_value_info();
  try {
    return import_graph(model, file, options, opset, newer, symbols, declared, specialized);
  } catch (const Exception& e) {
    const std::string note = defaulted_dims_note(specialized);
    if (note.empty()) throw;
    throw LocatedError(e.code(), std::string(e.what()) + note);
  }
}

ir::ExportedProgram import_onnx_bytes(const ir::BufferPtr& bytes, const std::string& display_name,
                                      const OnnxImportOptions& options) {
  PTEC_ENFORCE(bytes != nullptr, InvalidArgument, "{}: no bytes", display_name);
  onnx::ModelProto model;
  parse_model(*bytes, display_name, model);
  return import_model(model, display_name, options);
}

ir::ExportedProgram import_onnx(const std::string& path, const OnnxImportOptions& options) {
  const ir::BufferPtr bytes = ir::Buffer::map_file(path);
  OnnxImportOptions opts = options;
  if (opts.external_data_dir.empty()) {
    opts.external_data_dir = std::filesystem::path(path).parent_path().string();
  }
  return import_onnx_bytes(bytes, path, opts);
}

std::vector<SupportedOp> supported_ops() {
  std::vector<SupportedOp> out;
  for (const OpEntry& e : op_entries()) {
    out.push_back({std::string(e.op_type), e.min_opset, e.max_opset});
  }
  return out;
}

}  // namespace ptec::onnx_import
