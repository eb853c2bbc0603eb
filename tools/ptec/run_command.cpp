// `ptec run`: load a .pte with ptec's runtime, set inputs (from files, or ones), execute a method
// N times, report outputs and latency, optionally write the outputs as output_K.pb files.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/cpu/runtime/cpu_backend_runtime.h"
#include "backends/engine/runtime/engine_backend_runtime.h"
#include "devtools/etdump/etdump_gen.h"
#include "emit/atomic_file.h"
#include "ir/exception.h"
#include "kernels/optimized/ops/register.h"
#include "kernels/optimized/threadpool.h"
#include "kernels/prim_ops/prim_ops.h"
#include "kernels/quantized/register.h"
#include "runtime/extension/module.h"
#include "runtime/extension/owned_tensor.h"
#include "tools/ptec/commands.h"
#include "tools/ptec/dynamic_dims.h"
#include "tools/ptec/runtime_errors.h"
#include "tools/ptec/tensor_io.h"

namespace ptec::cli {
namespace {

namespace fs = std::filesystem;
using runtime::EValue;
using runtime::OwnedTensor;

std::string dims_text(Span<const int32_t> sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + "]";
}

/// Builds input `index` from `host`, checking dtype and shape against the method's metadata.
OwnedTensor make_input(const runtime::TensorInfo& info, const HostTensor& host, size_t index,
                       const std::string& source) {
  PTEC_ENFORCE(host.dtype == info.scalar_type(), InvalidArgument,
               "{}: input {} has dtype {} but the method expects {}", source, index,
               to_string(host.dtype), to_string(info.scalar_type()));
  PTEC_ENFORCE(host.sizes.size() == info.sizes().size(), InvalidArgument,
               "{}: input {} has shape {} but the method expects rank {} ({})", source, index,
               host.shape_string(), info.sizes().size(), dims_text(info.sizes()));
  std::vector<int32_t> sizes;
  for (size_t d = 0; d < host.sizes.size(); ++d) {
    const int64_t s = host.sizes[d];
    const bool fits = info.is_dynamic() ? s <= info.sizes()[d] : s == info.sizes()[d];
    PTEC_ENFORCE(fits, InvalidArgument,
                 "{}: input {} has shape {} but the method expects {}{} (axis {} = {}){}", source,
                 index, host.shape_string(), info.is_dynamic() ? "at most " : "",
                 dims_text(info.sizes()), d, s,
                 info.is_dynamic()
                     ? ""
                     : "; shapes are fixed at export: export the model again with its symbolic "
                       "dims given (ptec export --dim SYMBOL=VALUE or --input-shape) or kept "
                       "dynamic (--dynamic INPUT:AXIS=MIN..MAX)");
    sizes.push_back(static_cast<int32_t>(s));
  }
  OwnedTensor t(host.dtype, sizes);
  if (!host.data.empty())
    std::memcpy(t.tensor().mutable_data_ptr(), host.data.data(), host.data.size());
  return t;
}

HostTensor to_host(const runtime::Tensor& t) {
  HostTensor h;
  h.dtype = t.dtype();
  for (int32_t s : t.sizes()) h.sizes.push_back(s);
  const auto* p = static_cast<const uint8_t*>(t.const_data_ptr());
  if (p != nullptr) h.data.assign(p, p + t.nbytes());
  return h;
}

nlohmann::ordered_json describe_output(const EValue& v) {
  nlohmann::ordered_json j;
  if (v.is_tensor()) {
    const runtime::Tensor& t = v.to_tensor();
    j["kind"] = "tensor";
    j["dtype"] = to_string(t.dtype());
    std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
    j["shape"] = shape;
  } else if (v.is_int()) {
    j = {{"kind", "int"}, {"value", v.to_int()}};
  } else if (v.is_double()) {
    j = {{"kind", "double"}, {"value", v.to_double()}};
  } else if (v.is_bool()) {
    j = {{"kind", "bool"}, {"value", v.to_bool()}};
  } else if (v.is_string()) {
    j = {{"kind", "string"}, {"value", std::string(v.to_string())}};
  } else if (v.is_int_list()) {
    std::vector<int64_t> items(v.to_int_list().begin(), v.to_int_list().end());
    j = {{"kind", "int_list"}, {"value", items}};
  } else if (v.is_double_list()) {
    std::vector<double> items(v.to_double_list().begin(), v.to_double_list().end());
    j = {{"kind", "double_list"}, {"value", items}};
  } else if (v.is_bool_list()) {
    std::vector<bool> items(v.to_bool_list().begin(), v.to_bool_list().end());
    j = {{"kind", "bool_list"}, {"value", items}};
  } else {
    j["kind"] = EValue::tag_name(v.tag());
  }
  return j;
}

/// A few leading values of a tensor, for the human-readable summary.
std::string preview(const runtime::Tensor& t) {
  std::string out;
  const size_t n = std::min<size_t>(t.numel(), 6);
  for (size_t i = 0; i < n; ++i) {
    double v = 0;
    switch (t.dtype()) {
      case DType::Float: v = t.const_data_ptr<float>()[i]; break;
      case DType::Double: v = t.const_data_ptr<double>()[i]; break;
      case DType::Long: v = static_cast<double>(t.const_data_ptr<int64_t>()[i]); break;
      case DType::Int: v = t.const_data_ptr<int32_t>()[i]; break;
      case DType::Bool:
      case DType::Byte: v = t.const_data_ptr<uint8_t>()[i]; break;
      case DType::Char: v = t.const_data_ptr<int8_t>()[i]; break;
      default: return "";
    }
    out += fmt::format("{}{:.6g}", i ? ", " : "", v);
  }
  if (t.numel() > n) out += ", ...";
  return out;
}

/// Checks the inputs against the dynamic-dim ranges and multiples `ptec export` recorded (the
/// runtime checks upper bounds itself; the lower bounds, the multiples and the input names live in
/// the record). The record is
/// read through a module of its own, without the run's event tracer: an ETDump holds the runs
/// of the method asked for, which its ETRecord describes, not this record's.
void check_dynamic_dims(const std::string& data_path, const std::vector<std::string>& names,
                        const RunArgs& args, const std::vector<HostTensor>& inputs,
                        const std::string& source) {
  if (std::find(names.begin(), names.end(), kDynamicDimsMethod) == names.end()) return;
  RuntimeErrorCapture errors;
  runtime::Module module(args.program, data_path, runtime::Module::LoadMode::Mmap);
  auto record = module.execute(kDynamicDimsMethod);
  errors.check(record.error(), fmt::format("{}: method {}", args.program, kDynamicDimsMethod));
  if (record->size() != 1 || !(*record)[0].is_string()) return;
  for (const DynamicDimRecord& r : decode_dynamic_dims(std::string((*record)[0].to_string()))) {
    if (r.method != args.method || r.input_index >= inputs.size()) continue;
    const HostTensor& t = inputs[r.input_index];
    if (r.axis >= t.sizes.size()) continue;
    const int64_t size = t.sizes[r.axis];
    PTEC_ENFORCE(size >= r.min && size <= r.max, InvalidArgument,
                 "{}: input {} '{}' axis {} = {} is outside the range [{}, {}] of dynamic dim "
                 "'{}'",
                 source, r.input_index, r.input, r.axis, size, r.min, r.max, r.symbol);
    PTEC_ENFORCE(size % r.multiple == 0, InvalidArgument,
                 "{}: input {} '{}' axis {} = {} is not a multiple of {}, as dynamic dim '{}' was "
                 "exported",
                 source, r.input_index, r.input, r.axis, size, r.multiple, r.symbol);
  }
}

/// Writes the recorded ETDump (and the debug buffer when asked) atomically; returns a summary.
nlohmann::ordered_json write_etdump(const devtools::ETDumpGen& gen, const RunArgs& args) {
  const std::vector<uint8_t> bytes = gen.get_etdump_data();
  emit::AtomicFileWriter etdump(args.etdump_path);
  etdump.write(bytes.data(), bytes.size());
  etdump.commit();
  size_t events = 0;
  for (const devtools::RunData& block : gen.etdump().run_data) events += block.events.size();
  nlohmann::ordered_json j;
  j["path"] = args.etdump_path;
  j["bytes"] = bytes.size();
  j["blocks"] = gen.etdump().run_data.size();
  j["events"] = events;
  if (!args.debug_buffer_path.empty()) {
    emit::AtomicFileWriter debug(args.debug_buffer_path);
    debug.write(gen.debug_buffer().data(), gen.debug_buffer().size());
    debug.commit();
    j["debug_buffer"] = args.debug_buffer_path;
    j["debug_buffer_bytes"] = gen.debug_buffer().size();
  }
  return j;
}

}  // namespace

int run_run(const RunArgs& args) {
  using Clock = std::chrono::steady_clock;
  RuntimeErrorCapture errors;
  // The optimized kernels (with the portable ones for every other operator) and the CPU
  // backend, on the threads --threads asks for.
  errors.check(kernels::register_optimized_kernels(), "registering the kernels");
  errors.check(backends::cpu::register_cpu_backend_runtime(), "registering PtecCpuBackend");
  errors.check(engine::register_engine_backend_runtime(), "registering PtecEngineBackend");
  set_num_threads(args.threads);
  errors.check(kernels::register_quantized_kernels(), "registering the quantized kernels");
  errors.check(kernels::register_prim_ops(), "registering the prim ops");

  PTEC_ENFORCE(fs::exists(args.program), NotFound, "{}: no such file", args.program);
  std::string data_path = args.data_path;
  if (data_path.empty()) {
    // By default, a .ptd of the same stem beside the .pte.
    const fs::path beside = fs::path(args.program).replace_extension(".ptd");
    if (fs::exists(beside)) data_path = beside.string();
  }
  PTEC_ENFORCE(args.debug_buffer_path.empty() || !args.etdump_path.empty(), InvalidArgument,
               "--debug-buffer {} needs --etdump (debug events live in the ETDump)",
               args.debug_buffer_path);
  // Declared before the Module, which must not outlive its tracer.
  devtools::ETDumpGen etdump_gen;
  if (!args.debug_buffer_path.empty()) {
    etdump_gen.set_event_tracer_debug_level(runtime::EventTracerDebugLogLevel::IntermediateOutputs);
  }
  const auto load_start = Clock::now();
  runtime::Module module(args.program, data_path, runtime::Module::LoadMode::Mmap,
                         args.etdump_path.empty() ? nullptr : &etdump_gen);
  errors.check(module.load(), args.program);

  auto names = module.method_names();
  errors.check(names.error(), args.program);
  if (std::find(names->begin(), names->end(), args.method) == names->end()) {
    std::string list;
    for (const auto& n : *names) list += (list.empty() ? "" : ", ") + n;
    raise(Error::NotFound, "{}: no method '{}' (methods: {})", args.program, args.method, list);
  }
  auto meta = module.method_meta(args.method);
  errors.check(meta.error(), fmt::format("{}: method {}", args.program, args.method));
  errors.check(module.load_method(args.method),
               fmt::format("{}: loading method {}", args.program, args.method));
  // Program and method load (delegate init: e.g. an engine recreating its kernels).
  const double load_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - load_start).count();

  // Inputs: from files, or ones of the declared (upper-bound) shapes.
  std::vector<HostTensor> host_inputs;
  std::string source = "ones";
  if (!args.inputs_dir.empty()) {
    host_inputs = read_input_dir(args.inputs_dir);
    source = args.inputs_dir;
    PTEC_ENFORCE(host_inputs.size() == meta->num_inputs(), InvalidArgument,
                 "{}: {} input files but method {} takes {} inputs", args.inputs_dir,
                 host_inputs.size(), args.method, meta->num_inputs());
    check_dynamic_dims(data_path, *names, args, host_inputs, source);
  }
  std::vector<OwnedTensor> input_tensors;
  std::vector<EValue> inputs;
  for (size_t i = 0; i < meta->num_inputs(); ++i) {
    auto tag = meta->input_tag(i);
    errors.check(tag.error(), fmt::format("{}: input {}", args.program, i));
    PTEC_ENFORCE(*tag == EValue::Tag::Tensor, NotSupported,
                 "{}: input {} of method {} is a {}, only tensor inputs can be given", args.program,
                 i, args.method, EValue::tag_name(*tag));
    auto info = meta->input_tensor_meta(i);
    errors.check(info.error(), fmt::format("{}: input {}", args.program, i));
    if (host_inputs.empty()) {
      HostTensor ones;
      ones.dtype = info->scalar_type();
      for (int32_t s : info->sizes()) ones.sizes.push_back(s);
      OwnedTensor t = OwnedTensor::full(
          ones.dtype, std::vector<int32_t>(info->sizes().begin(), info->sizes().end()), 1.0);
      input_tensors.push_back(std::move(t));
    } else {
      input_tensors.push_back(make_input(*info, host_inputs[i], i, source));
    }
  }
  for (OwnedTensor& t : input_tensors) inputs.push_back(t.evalue());

  std::vector<double> latencies_ms;
  std::vector<EValue> outputs;
  for (int it = 0; it < args.iterations; ++it) {
    const auto t0 = Clock::now();
    auto result = module.execute(args.method, inputs);
    const auto t1 = Clock::now();
    errors.check(result.error(), fmt::format("{}: executing method {}", args.program, args.method));
    latencies_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    outputs = std::move(*result);
  }
  std::vector<double> sorted = latencies_ms;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];

  if (!args.outputs_dir.empty()) {
    fs::create_directories(args.outputs_dir);
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (!outputs[i].is_tensor()) continue;
      write_tensor_pb(to_host(outputs[i].to_tensor()),
                      (fs::path(args.outputs_dir) / fmt::format("output_{}.pb", i)).string());
    }
  }

  nlohmann::ordered_json etdump_summary;
  if (!args.etdump_path.empty()) etdump_summary = write_etdump(etdump_gen, args);

  if (args.json) {
    nlohmann::ordered_json j;
    j["program"] = args.program;
    j["method"] = args.method;
    j["inputs"] = source;
    nlohmann::ordered_json outs = nlohmann::ordered_json::array();
    for (const EValue& v : outputs) outs.push_back(describe_output(v));
    j["outputs"] = outs;
    j["iterations"] = args.iterations;
    j["threads"] = num_threads();
    j["latency_ms"] = {{"min", sorted.front()}, {"median", median}, {"max", sorted.back()}};
    j["load_ms"] = load_ms;
    if (!etdump_summary.is_null()) j["etdump"] = etdump_summary;
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("method %s: %zu output(s), inputs: %s\n", args.method.c_str(), outputs.size(),
              source.c_str());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto d = describe_output(outputs[i]);
    if (outputs[i].is_tensor()) {
      std::printf("  output %zu: %s%s  [%s]\n", i, d["dtype"].get<std::string>().c_str(),
                  d["shape"].dump().c_str(), preview(outputs[i].to_tensor()).c_str());
    } else {
      std::printf("  output %zu: %s %s\n", i, d["kind"].get<std::string>().c_str(),
                  d.contains("value") ? d["value"].dump().c_str() : "");
    }
  }
  std::printf("latency over %d iteration(s): min %.3f ms, median %.3f ms, max %.3f ms\n",
              args.iterations, sorted.front(), median, sorted.back());
  if (!etdump_summary.is_null()) {
    std::printf("etdump: %s (%zu blocks, %zu events)\n", args.etdump_path.c_str(),
                etdump_summary["blocks"].get<size_t>(), etdump_summary["events"].get<size_t>());
    if (!args.debug_buffer_path.empty()) {
      std::printf("debug buffer: %s (%zu bytes)\n", args.debug_buffer_path.c_str(),
                  etdump_summary["debug_buffer_bytes"].get<size_t>());
    }
  }
  return 0;
}

}  // namespace ptec::cli
