#include "tools/ptec/dynamic_dims.h"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "ir/exception.h"

namespace ptec::cli {
namespace {

bool to_int(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

onnx_import::DynamicDim parse_dynamic_dim(const std::string& text) {
  auto bad = [&](const char* why) {
    return Exception(Error::InvalidArgument,
                     fmt::format("--dynamic '{}': {} (expected INPUT:AXIS=[SYMBOL:]MIN..MAX"
                                 "[:MULTIPLE], e.g. ids:1=seq:1..512 or images:2=h:64..640:32)",
                                 text, why));
  };
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos) throw bad("no '='");
  const std::string lhs = text.substr(0, eq);
  std::string rhs = text.substr(eq + 1);
  const size_t colon = lhs.rfind(':');
  if (colon == std::string::npos || colon == 0) throw bad("no INPUT:AXIS before '='");
  onnx_import::DynamicDim d;
  d.input = lhs.substr(0, colon);
  if (!to_int(std::string_view(lhs).substr(colon + 1), d.axis) || d.axis < 0) {
    throw bad("the axis is not a non-negative integer");
  }
  // [SYMBOL:]MIN..MAX[:MULTIPLE]: a part before the range has no "..".
  if (const size_t sc = rhs.find(':'); sc != std::string::npos && sc < rhs.find("..")) {
    d.symbol = rhs.substr(0, sc);
    if (d.symbol.empty()) throw bad("empty symbol name");
    rhs = rhs.substr(sc + 1);
  }
  if (const size_t sc = rhs.find(':'); sc != std::string::npos) {
    if (!to_int(std::string_view(rhs).substr(sc + 1), d.multiple) || d.multiple < 1) {
      throw bad("MULTIPLE must be a positive integer");
    }
    rhs = rhs.substr(0, sc);
  }
  const size_t dots = rhs.find("..");
  if (dots == std::string::npos) throw bad("no MIN..MAX range");
  if (!to_int(std::string_view(rhs).substr(0, dots), d.min) ||
      !to_int(std::string_view(rhs).substr(dots + 2), d.max)) {
    throw bad("MIN and MAX must be integers");
  }
  if (d.min < 0 || d.min > d.max) throw bad("the range is empty or negative");
  if (d.min % d.multiple != 0 || d.max % d.multiple != 0) {
    throw bad("MIN and MAX must be multiples of MULTIPLE");
  }
  return d;
}

void parse_dim_value(const std::string& text, onnx_import::OnnxImportOptions& options) {
  const size_t eq = text.rfind('=');
  int64_t value = 0;
  if (eq == std::string::npos || eq == 0 || !to_int(std::string_view(text).substr(eq + 1), value) ||
      value < 0) {
    throw Exception(Error::InvalidArgument,
                    fmt::format("--dim '{}': expected SYMBOL=VALUE, a symbolic dim's name in the "
                                "model and a non-negative size (e.g. batch=4 or seq=128)",
                                text));
  }
  const std::string name = text.substr(0, eq);
  if (!options.symbol_values.emplace(name, value).second) {
    throw Exception(Error::InvalidArgument, fmt::format("--dim: '{}' is given twice", name));
  }
}

void parse_input_shape(const std::string& text, onnx_import::OnnxImportOptions& options) {
  auto bad = [&](const char* why) {
    return Exception(Error::InvalidArgument,
                     fmt::format("--input-shape '{}': {} (expected INPUT=D0xD1x..., e.g. "
                                 "input=1x3x224x224)",
                                 text, why));
  };
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0) throw bad("no INPUT= before the sizes");
  std::vector<int64_t> sizes;
  std::string_view rest = std::string_view(text).substr(eq + 1);
  while (true) {
    const size_t sep = rest.find_first_of("x,");
    int64_t size = 0;
    if (!to_int(rest.substr(0, sep), size) || size < 0) {
      throw bad("each size must be a non-negative integer");
    }
    sizes.push_back(size);
    if (sep == std::string_view::npos) break;
    rest = rest.substr(sep + 1);
  }
  if (!options.input_shapes.emplace(text.substr(0, eq), std::move(sizes)).second) {
    throw bad("the input is given twice");
  }
}

onnx_import::OnnxImportOptions import_options(const std::vector<std::string>& dynamic,
                                              const std::vector<std::string>& dims,
                                              const std::vector<std::string>& input_shapes) {
  onnx_import::OnnxImportOptions options;
  for (const std::string& d : dynamic) options.dynamic_dims.push_back(parse_dynamic_dim(d));
  for (const std::string& d : dims) parse_dim_value(d, options);
  for (const std::string& s : input_shapes) parse_input_shape(s, options);
  return options;
}

ir::ExportedProgram import_method(const std::string& name, const std::string& path,
                                  const std::vector<std::string>& dynamic,
                                  const std::vector<std::string>& dims,
                                  const std::vector<std::string>& input_shapes,
                                  std::vector<DynamicDimRecord>& records) {
  PTEC_ENFORCE(std::filesystem::exists(path), NotFound, "{}: no such file (method '{}')", path,
               name);
  ir::ExportedProgram program =
      onnx_import::import_onnx(path, name == "forward" ? import_options(dynamic, dims, input_shapes)
                                                       : onnx_import::OnnxImportOptions{});
  report_import_dims(program);
  for (const DynamicDimRecord& r : dynamic_dim_records(name, program)) records.push_back(r);
  return program;
}

void report_import_dims(const ir::ExportedProgram& program) {
  bool defaulted = false;
  for (const ir::ProvenanceStep& step : program.provenance()) {
    if (step.stage == "dynamic" || step.stage == "specialize") {
      std::fprintf(stderr, "ptec: %s: %s\n", step.stage == "dynamic" ? "dynamic" : "specialized",
                   step.detail.c_str());
      defaulted =
          defaulted || step.detail.find("(default for a symbolic dim)") != std::string::npos;
    }
  }
  if (defaulted) {
    std::fprintf(stderr,
                 "ptec: choose a symbolic dim's size with --dim SYMBOL=VALUE or --input-shape "
                 "INPUT=D0xD1x..., or keep it dynamic with --dynamic INPUT:AXIS=MIN..MAX\n");
  }
}

std::vector<DynamicDimRecord> dynamic_dim_records(const std::string& method,
                                                  const ir::ExportedProgram& program) {
  std::vector<DynamicDimRecord> out;
  size_t index = 0;
  for (const ir::InputSpec& spec : program.signature().inputs) {
    if (spec.kind != ir::InputKind::UserInput) continue;
    const ir::Node* node = program.graph().find(spec.name);
    if (node != nullptr && node->meta().val.size() == 1) {
      const ir::Shape& shape = node->meta().val[0].shape;
      for (size_t axis = 0; axis < shape.size(); ++axis) {
        if (!shape[axis].is_symbolic()) continue;
        const ir::Symbol& s = *shape[axis].symbol();
        out.push_back({method, index,
                       node->meta().source.empty() ? node->name() : node->meta().source, axis,
                       s.name, s.min, s.max, std::max<int64_t>(s.multiple, 1)});
      }
    }
    ++index;
  }
  return out;
}

std::string encode_dynamic_dims(const std::vector<DynamicDimRecord>& records) {
  std::string out;
  for (const DynamicDimRecord& r : records) {
    out += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}", r.method, r.input_index, r.input, r.axis,
                       r.symbol, r.min, r.max);
    // The multiple is an eighth field, written only where it says something, so that files
    // without it read as before.
    if (r.multiple > 1) out += fmt::format("\t{}", r.multiple);
    out += '\n';
  }
  return out;
}

std::vector<DynamicDimRecord> decode_dynamic_dims(const std::string& text) {
  std::vector<DynamicDimRecord> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
    int64_t index = 0, axis = 0;
    DynamicDimRecord r;
    if ((f.size() != 7 && f.size() != 8) || !to_int(f[1], index) || !to_int(f[3], axis) ||
        !to_int(f[5], r.min) || !to_int(f[6], r.max) ||
        (f.size() == 8 && (!to_int(f[7], r.multiple) || r.multiple < 1))) {
      raise(Error::InvalidProgram, "{}: malformed record '{}'", kDynamicDimsMethod, line);
    }
    r.method = f[0];
    r.input_index = static_cast<size_t>(index);
    r.input = f[2];
    r.axis = static_cast<size_t>(axis);
    r.symbol = f[4];
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ptec::cli
