// `ptec inspect --etrecord R --etdump D [--etdump D2 ...] [--debug-buffer B] [--json]
// [--tsv FILE] [--numeric-gap --metric mse|l1|snr --reference-etrecord R2 --reference-etdump D3
// --reference-debug-buffer B2]`: the Inspector (devtools/inspector) on recorded runs — per method
// and block, every event with its samples, statistics, op types, ONNX source node names and
// delegate backend; time per op type; the fraction of runtime events mapped to op types and
// source nodes; and, with --numeric-gap, the logged outputs compared per debug handle with a
// reference run's, worst first: the given --reference-* run's, or, without one, the ETRecord's
// programs run in-process on the portable kernels (devtools/reference) on the run's inputs.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "devtools/inspector/inspector.h"
#include "emit/atomic_file.h"
#include "ir/exception.h"
#include "runtime/extension/owned_tensor.h"
#include "tools/ptec/commands.h"
#include "tools/ptec/tensor_io.h"

namespace ptec::cli {
namespace {

/// Several dumps (one per `ptec run`, e.g. one per method) are joined block by block. Their
/// debug buffers, one per dump, are joined in the same order, each dump's tensor offsets moved
/// by the bytes of the buffers before its own; a single buffer serves every dump.
devtools::Inspector load_inspector(const std::string& etrecord,
                                   const std::vector<std::string>& etdumps,
                                   const std::vector<std::string>& debug_buffer_paths) {
  PTEC_ENFORCE(debug_buffer_paths.size() <= 1 || debug_buffer_paths.size() == etdumps.size(),
               InvalidArgument,
               "{} debug buffers for {} ETDumps: give one --debug-buffer per --etdump, in the "
               "same order (or one for all)",
               debug_buffer_paths.size(), etdumps.size());
  const bool paired = debug_buffer_paths.size() > 1;
  devtools::ETRecord record = devtools::ETRecord::load(etrecord);
  devtools::ETDump dump;
  std::vector<uint8_t> debug_buffer;
  for (size_t i = 0; i < etdumps.size(); ++i) {
    devtools::ETDump part = devtools::ETDump::load(etdumps[i]);
    if (dump.run_data.empty()) dump.version = part.version;
    int64_t base = 0;
    if (paired) {
      base = static_cast<int64_t>(debug_buffer.size());
      const std::vector<uint8_t> bytes = devtools::read_binary_file(debug_buffer_paths[i]);
      debug_buffer.insert(debug_buffer.end(), bytes.begin(), bytes.end());
    }
    for (devtools::RunData& block : part.run_data) {
      if (base != 0) {
        for (devtools::ETDumpEvent& e : block.events) {
          auto* debug = std::get_if<devtools::DebugEvent>(&e.event);
          if (debug == nullptr) continue;
          devtools::ETDumpValue& v = debug->debug_entry;
          if (v.tensor.offset >= 0) v.tensor.offset += base;
          for (devtools::ETDumpTensor& t : v.tensors) {
            if (t.offset >= 0) t.offset += base;
          }
        }
      }
      dump.run_data.push_back(std::move(block));
    }
  }
  if (debug_buffer_paths.size() == 1) {
    debug_buffer = devtools::read_binary_file(debug_buffer_paths.front());
  }
  return devtools::Inspector(std::move(record), std::move(dump), std::move(debug_buffer));
}

/// What a method's reference run gets, and where it came from.
struct MethodInputs {
  std::vector<ir::TensorData> tensors;
  std::string source;
};

/// The inputs of the in-process reference run of every method the run logged outputs for:
/// --inputs [METHOD=]DIR, else the record's representative inputs, else ones at the program's
/// input shapes (upper bounds), as `ptec run` uses without --inputs.
std::map<std::string, MethodInputs> reference_inputs(const devtools::Inspector& inspector,
                                                     const std::vector<std::string>& specs) {
  const devtools::ETRecord& record = inspector.etrecord();
  const std::vector<std::string> methods = inspector.methods();
  std::map<std::string, std::string> dirs;
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    std::string method;
    std::string dir = spec;
    if (eq != std::string::npos) {
      method = spec.substr(0, eq);
      dir = spec.substr(eq + 1);
    } else {
      const std::vector<std::string> known = record.methods();
      method = known.size() == 1 ? known.front() : "forward";
    }
    PTEC_ENFORCE(std::find(methods.begin(), methods.end(), method) != methods.end(),
                 InvalidArgument, "--inputs {}: the ETDump has no run of method '{}'", spec,
                 method);
    dirs[method] = dir;
  }

  std::map<std::string, MethodInputs> out;
  for (const std::string& method : methods) {
    MethodInputs& in = out[method];
    if (auto it = dirs.find(method); it != dirs.end()) {
      in.source = it->second;
      for (HostTensor& t : read_input_dir(it->second)) {
        in.tensors.push_back({ir::TensorSpec(t.dtype, t.sizes), ir::Buffer::from_vector(t.data)});
      }
      continue;
    }
    if (auto rec = record.representative_inputs().find(method);
        rec != record.representative_inputs().end() && !rec->second.empty()) {
      in.source = "representative inputs";
      in.tensors = rec->second.front();
      continue;
    }
    const devtools::ProgramPtr program = devtools::reference_program(record, method);
    in.source = "ones";
    for (const std::string& name : program->signature().user_inputs()) {
      const ir::TensorSpec& spec = program->graph().get(name).spec();
      std::vector<int32_t> sizes;
      for (int64_t s : spec.upper_bound_sizes()) sizes.push_back(static_cast<int32_t>(s));
      const runtime::OwnedTensor ones = runtime::OwnedTensor::full(spec.dtype, sizes, 1.0);
      in.tensors.push_back(
          {ir::TensorSpec(spec.dtype, spec.upper_bound_sizes()),
           ir::Buffer::copy_of(ones.tensor().const_data_ptr(), ones.tensor().nbytes())});
    }
  }
  return out;
}

}  // namespace

int run_inspect(const InspectArgs& args) {
  const devtools::Inspector inspector =
      load_inspector(args.etrecord_path, args.etdump_paths, args.debug_buffer_paths);

  std::vector<devtools::NumericGap> gaps;
  std::string reference_kind;
  std::map<std::string, std::string> reference_sources;  // method → where its inputs came from
  const devtools::GapMetric metric = devtools::parse_gap_metric(args.metric);
  if (args.numeric_gap) {
    PTEC_ENFORCE(!args.debug_buffer_paths.empty(), InvalidArgument,
                 "--numeric-gap needs --debug-buffer (the outputs `ptec run --debug-buffer` "
                 "logged)");
    const bool given = !args.reference_etrecord_path.empty() ||
                       !args.reference_etdump_paths.empty() ||
                       !args.reference_debug_buffer_path.empty();
    if (given) {
      PTEC_ENFORCE(!args.reference_etrecord_path.empty() && !args.reference_etdump_paths.empty() &&
                       !args.reference_debug_buffer_path.empty(),
                   InvalidArgument,
                   "--numeric-gap with a reference run needs all of --reference-etrecord, "
                   "--reference-etdump and --reference-debug-buffer (e.g. the model exported with "
                   "--recipe portable and run with --debug-buffer on the same inputs); without "
                   "them the ETRecord's programs are run on the portable kernels");
      PTEC_ENFORCE(args.inputs.empty(), InvalidArgument,
                   "--inputs is for the in-process reference run; it cannot be combined with "
                   "--reference-etrecord");
      const devtools::Inspector reference =
          load_inspector(args.reference_etrecord_path, args.reference_etdump_paths,
                         {args.reference_debug_buffer_path});
      gaps = devtools::numeric_gap(inspector, reference, metric);
      reference_kind = "run";
    } else {
      // The record holds its weights by reference: take their bytes from the program.
      devtools::ETRecord record = inspector.etrecord();
      bool by_reference = false;
      for (const std::string& method : inspector.methods()) {
        by_reference |=
            !devtools::unloaded_payloads(*devtools::reference_program(record, method)).empty();
      }
      if (by_reference) {
        PTEC_ENFORCE(!args.program_path.empty(), InvalidArgument,
                     "{}: the ETRecord holds the weights of its programs by reference; give the "
                     "exported program (--program FILE.pte) to run the reference with them",
                     args.etrecord_path);
        std::vector<std::string> missing;
        record = devtools::with_payloads(record, devtools::program_payloads(args.program_path),
                                         &missing);
        for (const std::string& method : inspector.methods()) {
          const auto left =
              devtools::unloaded_payloads(*devtools::reference_program(record, method));
          PTEC_ENFORCE(left.empty(), InvalidArgument,
                       "{}: {} weights of method {} are not in {} (e.g. {}): is it the program "
                       "this ETRecord was exported with?",
                       args.etrecord_path, left.size(), method, args.program_path, left.front());
        }
      }
      devtools::ReferenceInputs inputs;
      for (auto& [method, in] : reference_inputs(inspector, args.inputs)) {
        reference_sources[method] = in.source;
        inputs[method] = std::move(in.tensors);
      }
      gaps = devtools::numeric_gap_vs_reference(inspector, record, metric, inputs);
      reference_kind = "portable";
    }
  }

  if (!args.tsv_path.empty()) {
    const std::string tsv = inspector.to_tsv();
    emit::AtomicFileWriter out(args.tsv_path);
    out.write(tsv.data(), tsv.size());
    out.commit();
  }
  if (args.json) {
    nlohmann::json j = inspector.to_json();
    j["etrecord"] = args.etrecord_path;
    j["etdump"] = args.etdump_paths;
    if (args.debug_buffer_paths.size() == 1) {
      j["debug_buffer"] = args.debug_buffer_paths.front();
    } else if (!args.debug_buffer_paths.empty()) {
      j["debug_buffer"] = args.debug_buffer_paths;
    }
    if (!args.tsv_path.empty()) j["tsv"] = args.tsv_path;
    if (args.numeric_gap) {
      nlohmann::json list = nlohmann::json::array();
      for (const devtools::NumericGap& g : gaps) {
        nlohmann::json e = {{"method", g.method}, {"debug_handle", g.debug_handle},
                            {"op", g.op},         {"source", g.source},
                            {"event", g.event},   {"numel", g.numel}};
        // JSON has no infinity: equal outputs have an SNR of null.
        if (std::isfinite(g.value)) {
          e["value"] = g.value;
        } else {
          e["value"] = nullptr;
        }
        list.push_back(std::move(e));
      }
      j["numeric_gap"] = {{"metric", devtools::to_string(metric)},
                          {"reference", reference_kind},
                          {"nodes", std::move(list)}};
      if (!reference_sources.empty()) j["numeric_gap"]["inputs"] = reference_sources;
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s", inspector.to_text().c_str());
    if (args.numeric_gap) {
      std::printf("== numeric gap (%s) against the %s, worst first ==\n",
                  devtools::to_string(metric),
                  reference_kind == "run" ? "reference run"
                                          : "ETRecord's programs on the portable kernels");
      for (const auto& [method, source] : reference_sources) {
        std::printf("reference inputs of %s: %s\n", method.c_str(), source.c_str());
      }
      for (const devtools::NumericGap& g : gaps) {
        std::printf("%s\n", fmt::format("{:<12} {:>6} {:>14.6g}  {:<24} {}", g.method,
                                        g.debug_handle, g.value, g.op, g.source)
                                .c_str());
      }
    }
    if (!args.tsv_path.empty()) std::printf("wrote %s\n", args.tsv_path.c_str());
  }
  return 0;
}

}  // namespace ptec::cli
