#include "tools/ptec/dynamic_dims.h"

#include <charconv>
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
                     fmt::format("--dynamic '{}': {} (expected INPUT:AXIS=MIN..MAX or "
                                 "INPUT:AXIS=SYMBOL:MIN..MAX)",
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
  if (const size_t sc = rhs.find(':'); sc != std::string::npos) {
    d.symbol = rhs.substr(0, sc);
    if (d.symbol.empty()) throw bad("empty symbol name");
    rhs = rhs.substr(sc + 1);
  }
  const size_t dots = rhs.find("..");
  if (dots == std::string::npos) throw bad("no MIN..MAX range");
  if (!to_int(std::string_view(rhs).substr(0, dots), d.min) ||
      !to_int(std::string_view(rhs).substr(dots + 2), d.max)) {
    throw bad("MIN and MAX must be integers");
  }
  if (d.min < 0 || d.min > d.max) throw bad("the range is empty or negative");
  return d;
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
                       s.name, s.min, s.max});
      }
    }
    ++index;
  }
  return out;
}

std::string encode_dynamic_dims(const std::vector<DynamicDimRecord>& records) {
  std::string out;
  for (const DynamicDimRecord& r : records) {
    out += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\n", r.method, r.input_index, r.input, r.axis,
                       r.symbol, r.min, r.max);
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
    if (f.size() != 7 || !to_int(f[1], index) || !to_int(f[3], axis) || !to_int(f[5], r.min) ||
        !to_int(f[6], r.max)) {
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
