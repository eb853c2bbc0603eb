#include "tests/conformance/test_case.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <type_traits>
#include <vector>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "emit/export_pte.h"
#include "frontends/onnx/import_context.h"
#include "frontends/onnx/onnx_importer.h"
#include "ir/buffer.h"
#include "ir/exception.h"
#include "kernels/portable/register.h"
#include "kernels/prim_ops/prim_ops.h"
#include "kernels/quantized/register.h"
#include "program/to_edge.h"
#include "runtime/core/bfloat16.h"
#include "runtime/core/half.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"
#include "tools/ptec/runtime_errors.h"
#include "tools/ptec/tensor_io.h"

namespace ptec::conformance {
namespace {

namespace fs = std::filesystem;
using cli::HostTensor;
using runtime::EValue;
using runtime::OwnedTensor;

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-5;

// Ops whose results depend on a random generator.
const std::set<std::string> kRandomOps = {"RandomNormal",      "RandomUniform", "RandomNormalLike",
                                          "RandomUniformLike", "Multinomial",   "Bernoulli"};
// Training ops of the default domain (the preview training domain is out of scope as a whole).
const std::set<std::string> kTrainingOps = {"Gradient", "Momentum", "Adagrad", "Adam"};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  PTEC_ENFORCE(in.good(), AccessFailed, "{}: cannot open", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

onnx::ModelProto read_model(const std::string& dir) {
  onnx::ModelProto model;
  const std::string bytes = read_file((fs::path(dir) / "model.onnx").string());
  PTEC_ENFORCE(model.ParseFromString(bytes), InvalidProgram, "{}/model.onnx: not an ONNX model",
               dir);
  return model;
}

/// "" for a plain numeric/bool tensor type; otherwise the kind that makes it out of scope.
std::string non_tensor_kind(const onnx::TypeProto& type) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      return type.tensor_type().elem_type() == onnx::TensorProto::STRING ? "string" : "";
    case onnx::TypeProto::kSequenceType: return "sequence";
    case onnx::TypeProto::kMapType: return "map";
    case onnx::TypeProto::kOptionalType: return "optional";
    case onnx::TypeProto::kSparseTensorType: return "sparse tensor";
    default: return "untyped";
  }
}

/// The names of the graph inputs that are not initializers, in order (the input_K.pb order).
std::vector<std::string> user_input_names(const onnx::GraphProto& graph) {
  std::set<std::string> inits;
  for (const auto& init : graph.initializer()) inits.insert(init.name());
  std::vector<std::string> names;
  for (const auto& in : graph.input()) {
    if (inits.count(in.name()) == 0) names.push_back(in.name());
  }
  return names;
}

std::vector<std::string> numbered_files(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> files;
  for (int k = 0;; ++k) {
    const fs::path p = dir / fmt::format("{}_{}.pb", prefix, k);
    if (!fs::exists(p)) break;
    files.push_back(p.string());
  }
  return files;
}

std::vector<fs::path> data_set_dirs(const std::string& dir) {
  std::vector<fs::path> sets;
  for (int n = 0;; ++n) {
    const fs::path p = fs::path(dir) / fmt::format("test_data_set_{}", n);
    if (!fs::is_directory(p)) break;
    sets.push_back(p);
  }
  return sets;
}

/// True when Dropout `node` may run in training mode: its training_mode input is given and not
/// known to be false (a false initializer, or a false value in the first data set).
bool dropout_may_train(const onnx::GraphProto& graph, const onnx::NodeProto& node,
                       const std::string& dir) {
  if (node.input_size() < 3 || node.input(2).empty()) return false;
  const std::string& name = node.input(2);
  for (const auto& init : graph.initializer()) {
    if (init.name() != name) continue;
    if (init.int32_data_size() > 0) return init.int32_data(0) != 0;
    return !init.raw_data().empty() && init.raw_data()[0] != 0;
  }
  const std::vector<std::string> inputs = user_input_names(graph);
  const auto it = std::find(inputs.begin(), inputs.end(), name);
  const std::vector<fs::path> sets = data_set_dirs(dir);
  if (it == inputs.end() || sets.empty()) return true;
  const fs::path pb = sets[0] / fmt::format("input_{}.pb", it - inputs.begin());
  if (!fs::exists(pb)) return true;
  const HostTensor t = cli::read_tensor_pb(pb.string());
  return t.data.empty() || t.data[0] != 0;
}

std::string graph_rule(const onnx::GraphProto& graph, const std::string& dir) {
  for (const auto& node : graph.node()) {
    if (node.domain() == "ai.onnx.preview.training" || kTrainingOps.count(node.op_type()) != 0) {
      return fmt::format("training op {}", node.op_type());
    }
    if (kRandomOps.count(node.op_type()) != 0) return fmt::format("random op {}", node.op_type());
    if (node.op_type() == "Dropout" && dropout_may_train(graph, node, dir)) {
      return "random op Dropout (training_mode)";
    }
    for (const auto& attr : node.attribute()) {
      if (attr.has_g()) {
        std::string rule = graph_rule(attr.g(), dir);
        if (!rule.empty()) return rule;
      }
      for (const auto& g : attr.graphs()) {
        std::string rule = graph_rule(g, dir);
        if (!rule.empty()) return rule;
      }
    }
  }
  return "";
}

/// Element `i` of a host tensor's data as a double; nullopt-like NaN flag for unknown dtypes.
bool element_as_double(DType dtype, const uint8_t* data, size_t i, double& out) {
  switch (dtype) {
#define PTEC_CASE(DT, T)                                                                         \
  case DType::DT: {                                                                              \
    T v;                                                                                         \
    std::memcpy(&v, data + i * sizeof(T), sizeof(T));                                            \
    out = static_cast<double>(static_cast<std::conditional_t<std::is_class_v<T>, float, T>>(v)); \
    return true;                                                                                 \
  }
    PTEC_CASE(Float, float)
    PTEC_CASE(Double, double)
    PTEC_CASE(Byte, uint8_t)
    PTEC_CASE(Char, int8_t)
    PTEC_CASE(Short, int16_t)
    PTEC_CASE(UInt16, uint16_t)
    PTEC_CASE(Int, int32_t)
    PTEC_CASE(Long, int64_t)
    PTEC_CASE(UInt32, uint32_t)
    PTEC_CASE(UInt64, uint64_t)
    PTEC_CASE(Bool, uint8_t)
    PTEC_CASE(Half, runtime::Half)
    PTEC_CASE(BFloat16, runtime::BFloat16)
#undef PTEC_CASE
    default: return false;
  }
}

/// "" when `actual` matches `expected`; otherwise a one-line description of the first mismatch.
std::string compare(const HostTensor& expected, const runtime::Tensor& actual) {
  if (actual.dtype() != expected.dtype) {
    return fmt::format("dtype {} (expected {})", to_string(actual.dtype()),
                       to_string(expected.dtype));
  }
  std::vector<int64_t> sizes(actual.sizes().begin(), actual.sizes().end());
  if (sizes != expected.sizes) {
    return fmt::format("shape [{}] (expected {})", fmt::join(sizes, ", "), expected.shape_string());
  }
  const auto* got = static_cast<const uint8_t*>(actual.const_data_ptr());
  const size_t n = static_cast<size_t>(expected.numel());
  if (n == 0) return "";
  if (got == nullptr) return "no data";
  if (actual.nbytes() != expected.data.size()) {
    return fmt::format("{} bytes (expected {})", actual.nbytes(), expected.data.size());
  }
  size_t mismatches = 0;
  std::string first;
  for (size_t i = 0; i < n; ++i) {
    double a = 0;
    double e = 0;
    if (!element_as_double(expected.dtype, got, i, a) ||
        !element_as_double(expected.dtype, expected.data.data(), i, e)) {
      // Other dtypes (8-bit floats and the like): bit-exact comparison.
      if (std::memcmp(got, expected.data.data(), expected.data.size()) != 0) {
        return fmt::format("{} data differs (bitwise)", to_string(expected.dtype));
      }
      return "";
    }
    const bool both_nan = std::isnan(a) && std::isnan(e);
    const bool ok = both_nan || a == e || std::abs(a - e) <= kAtol + kRtol * std::abs(e);
    if (!ok) {
      if (mismatches++ == 0) first = fmt::format("[{}] = {:.7g} (expected {:.7g})", i, a, e);
    }
  }
  if (mismatches == 0) return "";
  return fmt::format("{} of {} values differ, first {}", mismatches, n, first);
}

/// The ONNX test generator stores BFLOAT16 tensors as UINT16 (NumPy has no bfloat16): a
/// data-set tensor of dtype UInt16 whose graph value is declared BFLOAT16 holds bfloat16 bits.
void retype_bfloat16(HostTensor& t, const onnx::ValueInfoProto& declared) {
  if (t.dtype == DType::UInt16 && declared.type().has_tensor_type() &&
      declared.type().tensor_type().elem_type() == onnx::TensorProto::BFLOAT16) {
    t.dtype = DType::BFloat16;
  }
}

/// True when the graph input declares a static shape that `sizes` (the data set's) contradicts.
bool contradicts_declared_shape(const onnx::ValueInfoProto& declared,
                                const std::vector<int64_t>& sizes) {
  if (!declared.type().has_tensor_type() || !declared.type().tensor_type().has_shape()) {
    return false;
  }
  const auto& shape = declared.type().tensor_type().shape();
  if (static_cast<size_t>(shape.dim_size()) != sizes.size()) return true;
  for (int i = 0; i < shape.dim_size(); ++i) {
    const auto& d = shape.dim(i);
    if (d.has_dim_value() && d.dim_value() != sizes[static_cast<size_t>(i)]) return true;
  }
  return false;
}

/// A 16-byte aligned copy of a file's bytes (Module's in-memory constructor needs alignment).
struct AlignedBytes {
  struct alignas(16) Block {
    uint8_t bytes[16];
  };
  std::vector<Block> blocks;
  size_t size = 0;
  explicit AlignedBytes(const std::string& s) : blocks((s.size() + 15) / 16), size(s.size()) {
    if (!s.empty()) std::memcpy(blocks.data(), s.data(), s.size());
  }
  const void* data() const { return blocks.data(); }
};

/// One exported program on the runtime: the .pte bytes and the Module running them.
struct Loaded {
  std::unique_ptr<AlignedBytes> bytes;
  std::unique_ptr<runtime::Module> module;
  /// Graph inputs bound to their data-set values at import time (see export_and_load).
  std::set<std::string> bound;
  /// Graph inputs whose declared static shape the data set contradicts; their declaration is
  /// replaced by the data set's shape (see export_and_load).
  std::set<std::string> reshaped;
};

/// The ONNX value named in an importer error "... ('NAME') is computed at run time; it must be
/// known at import time ...", or "".
std::string needs_import_time_value(const std::string& message) {
  static const std::regex kPattern(
      R"(\('([^']+)'\) is computed at run time; it must be known at import time)");
  std::smatch m;
  return std::regex_search(message, m, kPattern) ? m[1].str() : "";
}

/// `model` with the graph inputs in `bound` turned into initializers holding `values` (by name),
/// and the declared shapes of the inputs in `reshaped` replaced by their values' shapes.
std::string bind_inputs(onnx::ModelProto model, const std::set<std::string>& bound,
                        const std::set<std::string>& reshaped,
                        const std::map<std::string, HostTensor>& values) {
  onnx::GraphProto* graph = model.mutable_graph();
  auto* inputs = graph->mutable_input();
  for (auto& input : *inputs) {
    if (reshaped.count(input.name()) == 0 || !input.type().has_tensor_type()) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t d : values.at(input.name()).sizes) shape->add_dim()->set_dim_value(d);
  }
  for (int i = inputs->size(); i-- > 0;) {
    if (bound.count(inputs->Get(i).name()) != 0) inputs->DeleteSubrange(i, 1);
  }
  for (const std::string& name : bound) {
    const HostTensor& t = values.at(name);
    onnx::TensorProto* init = graph->add_initializer();
    init->set_name(name);
    init->set_data_type(onnx_import::dtype_to_onnx(t.dtype));
    for (int64_t d : t.sizes) init->add_dims(d);
    init->set_raw_data(std::string(t.data.begin(), t.data.end()));
  }
  return model.SerializeAsString();
}

/// Imports, lowers, emits and loads the model of `dir` with the input shapes of one data set.
/// The importer needs some values at import time (Reshape's shape, Resize's scales, ...); when
/// the model takes such a value as a graph input, the import fails naming it, and the input is
/// bound to the data set's value (made an initializer) and the import retried: the program is
/// then specialized on that value, which the caller reports. Nothing else is bound. The inputs in
/// `reshaped` (a static shape in the model that the data set contradicts) are declared with the
/// data set's shape.
Loaded export_and_load(const std::string& dir,
                       const std::map<std::string, std::vector<int64_t>>& shapes,
                       const std::map<std::string, HostTensor>& values,
                       const std::set<std::string>& reshaped, cli::RuntimeErrorCapture& errors) {
  const std::string model = (fs::path(dir) / "model.onnx").string();
  Loaded loaded;
  loaded.reshaped = reshaped;
  ir::ExportedProgram aten;
  for (;;) {
    onnx_import::OnnxImportOptions options;
    for (const auto& [name, sizes] : shapes) {
      if (loaded.bound.count(name) == 0) options.input_shapes[name] = sizes;
    }
    try {
      if (loaded.bound.empty() && loaded.reshaped.empty()) {
        aten = onnx_import::import_onnx(model, options);
      } else {
        options.external_data_dir = dir;
        aten = onnx_import::import_onnx_bytes(
            ir::Buffer::from_string(
                bind_inputs(read_model(dir), loaded.bound, loaded.reshaped, values)),
            model, options);
      }
      break;
    } catch (const Exception& e) {
      const std::string name = needs_import_time_value(e.what());
      if (name.empty() || values.count(name) == 0 || loaded.bound.count(name) != 0) throw;
      loaded.bound.insert(name);
    }
  }
  ir::ExportedProgram edge = program::to_edge(aten);
  std::map<std::string, ir::ExportedProgram> methods;
  methods.emplace("forward", std::move(edge));
  const fs::path pte =
      fs::temp_directory_path() / fmt::format("ptec_conformance_{}.pte", ::getpid());
  emit::export_pte(methods, emit::EmitConfig{}, pte.string());
  loaded.bytes = std::make_unique<AlignedBytes>(read_file(pte.string()));
  std::error_code ec;
  fs::remove(pte, ec);
  loaded.module = std::make_unique<runtime::Module>(loaded.bytes->data(), loaded.bytes->size);
  errors.check(loaded.module->load(), "loading the program");
  errors.check(loaded.module->load_method("forward"), "loading method forward");
  return loaded;
}

/// Runs one data set on `loaded`; "" on success, else the reason.
std::string run_data_set(const fs::path& set, const std::vector<HostTensor>& all_inputs,
                         const std::vector<std::string>& names, const onnx::GraphProto& graph,
                         Loaded& loaded, cli::RuntimeErrorCapture& errors) {
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < all_inputs.size(); ++i) {
    if (i >= names.size() || loaded.bound.count(names[i]) == 0) inputs.push_back(all_inputs[i]);
  }
  auto meta = loaded.module->method_meta("forward");
  errors.check(meta.error(), "method meta");
  if (meta->num_inputs() != inputs.size()) {
    return fmt::format("the program takes {} inputs, the data set has {}", meta->num_inputs(),
                       inputs.size());
  }
  std::vector<OwnedTensor> tensors;
  std::vector<EValue> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto info = meta->input_tensor_meta(i);
    errors.check(info.error(), fmt::format("input {}", i));
    if (info->scalar_type() != inputs[i].dtype) {
      return fmt::format("input {} is {} but the program expects {}", i, to_string(inputs[i].dtype),
                         to_string(info->scalar_type()));
    }
    std::vector<int32_t> sizes(inputs[i].sizes.begin(), inputs[i].sizes.end());
    OwnedTensor t(inputs[i].dtype, sizes);
    if (!inputs[i].data.empty() && t.tensor().nbytes() == inputs[i].data.size()) {
      std::memcpy(t.tensor().mutable_data_ptr(), inputs[i].data.data(), inputs[i].data.size());
    }
    tensors.push_back(std::move(t));
  }
  for (OwnedTensor& t : tensors) values.push_back(t.evalue());
  auto result = loaded.module->execute("forward", values);
  errors.check(result.error(), "executing forward");
  const std::vector<std::string> expected_files = numbered_files(set, "output");
  if (result->size() != expected_files.size()) {
    return fmt::format("{} outputs (expected {})", result->size(), expected_files.size());
  }
  for (size_t k = 0; k < expected_files.size(); ++k) {
    const EValue& v = (*result)[k];
    if (!v.is_tensor()) return fmt::format("output {} is a {}", k, EValue::tag_name(v.tag()));
    HostTensor expected = cli::read_tensor_pb(expected_files[k]);
    if (static_cast<int>(k) < graph.output_size()) retype_bfloat16(expected, graph.output(k));
    std::string diff = compare(expected, v.to_tensor());
    if (!diff.empty()) {
      return fmt::format("{}: output {}: {}", set.filename().string(), k, diff);
    }
  }
  return "";
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > 400) s = s.substr(0, 400) + "...";
  return s;
}

}  // namespace

const char* to_string(Status status) {
  switch (status) {
    case Status::Pass: return "PASS";
    case Status::Fail: return "FAIL";
    case Status::Skip: return "SKIP";
    case Status::Crash: return "CRASH";
    case Status::Timeout: return "TIMEOUT";
  }
  return "?";
}

std::string out_of_scope_rule(const std::string& dir) {
  const onnx::ModelProto model = read_model(dir);
  for (const auto& opset : model.opset_import()) {
    if (opset.domain() == "ai.onnx.preview.training") return "training domain";
  }
  const onnx::GraphProto& graph = model.graph();
  for (const auto* list : {&graph.input(), &graph.output()}) {
    for (const auto& vi : *list) {
      const std::string kind = non_tensor_kind(vi.type());
      if (!kind.empty()) return fmt::format("{} input/output '{}'", kind, vi.name());
    }
  }
  return graph_rule(graph, dir);
}

Outcome run_test_dir(const std::string& dir) {
  cli::RuntimeErrorCapture errors;
  try {
    const std::string rule = out_of_scope_rule(dir);
    if (!rule.empty()) return {Status::Skip, rule};
    errors.check(kernels::register_portable_kernels(), "registering the portable kernels");
    errors.check(kernels::register_quantized_kernels(), "registering the quantized kernels");
    errors.check(kernels::register_prim_ops(), "registering the prim ops");
    const onnx::ModelProto model = read_model(dir);
    const std::vector<std::string> names = user_input_names(model.graph());
    const std::vector<fs::path> sets = data_set_dirs(dir);
    if (sets.empty()) return {Status::Fail, "no test_data_set_N"};

    std::map<std::string, std::vector<int64_t>> loaded_shapes;
    std::map<std::string, std::vector<uint8_t>> loaded_values;
    Loaded loaded;
    for (const fs::path& set : sets) {
      std::vector<HostTensor> inputs;
      for (const std::string& f : numbered_files(set, "input")) {
        inputs.push_back(cli::read_tensor_pb(f));
      }
      std::set<std::string> reshaped;
      for (size_t i = 0; i < inputs.size() && i < names.size(); ++i) {
        for (const auto& declared : model.graph().input()) {
          if (declared.name() != names[i]) continue;
          retype_bfloat16(inputs[i], declared);
          if (contradicts_declared_shape(declared, inputs[i].sizes)) reshaped.insert(names[i]);
        }
      }
      // Graph inputs beyond the data set's files are optional inputs left out.
      std::map<std::string, std::vector<int64_t>> shapes;
      std::map<std::string, HostTensor> values;
      for (size_t i = 0; i < inputs.size() && i < names.size(); ++i) {
        shapes[names[i]] = inputs[i].sizes;
        values[names[i]] = inputs[i];
      }
      // Re-export when the shapes change, or the value of an input the program is bound to.
      bool same_bound_values = true;
      for (const std::string& name : loaded.bound) {
        same_bound_values = same_bound_values && values.count(name) != 0 &&
                            values.at(name).data == loaded_values[name];
      }
      if (!loaded.module || shapes != loaded_shapes || !same_bound_values) {
        loaded = export_and_load(dir, shapes, values, reshaped, errors);
        loaded_shapes = shapes;
        for (const std::string& name : loaded.bound) loaded_values[name] = values.at(name).data;
      }
      std::string reason = run_data_set(set, inputs, names, model.graph(), loaded, errors);
      if (!reason.empty()) return {Status::Fail, one_line(reason)};
    }
    if (!loaded.bound.empty()) {
      std::string list;
      for (const std::string& name : loaded.bound) list += (list.empty() ? "" : ", ") + name;
      return {Status::Pass, "specialized on input(s) " + list};
    }
    if (!loaded.reshaped.empty()) {
      std::string list;
      for (const std::string& name : loaded.reshaped) list += (list.empty() ? "" : ", ") + name;
      return {Status::Pass, "declared shape of input(s) " + list + " replaced by the data set's"};
    }
    return {Status::Pass, ""};
  } catch (const std::exception& e) {
    return {Status::Fail, one_line(e.what())};
  }
}

}  // namespace ptec::conformance
