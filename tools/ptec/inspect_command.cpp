// `ptec inspect --etrecord R --etdump D [--etdump D2 ...] [--debug-buffer B] [--json]
// [--tsv FILE] [--numeric-gap --metric mse|l1|snr --reference-etrecord R2 --reference-etdump D3
// --reference-debug-buffer B2]`: the Inspector (devtools/inspector) on recorded runs — per method
// and block, every event with its samples, statistics, op types, ONNX source node names and
// delegate backend; time per op type; the fraction of runtime events mapped to op types and
// source nodes; and, with --numeric-gap, the logged outputs compared per debug handle with a
// reference run's, worst first.

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "devtools/inspector/inspector.h"
#include "emit/atomic_file.h"
#include "ir/exception.h"
#include "tools/ptec/commands.h"

namespace ptec::cli {
namespace {

/// Several dumps (one per `ptec run`, e.g. one per method) are joined block by block.
devtools::Inspector load_inspector(const std::string& etrecord,
                                   const std::vector<std::string>& etdumps,
                                   const std::string& debug_buffer_path) {
  devtools::ETRecord record = devtools::ETRecord::load(etrecord);
  devtools::ETDump dump;
  for (const std::string& path : etdumps) {
    devtools::ETDump part = devtools::ETDump::load(path);
    if (dump.run_data.empty()) dump.version = part.version;
    for (devtools::RunData& block : part.run_data) dump.run_data.push_back(std::move(block));
  }
  std::vector<uint8_t> debug_buffer;
  if (!debug_buffer_path.empty()) debug_buffer = devtools::read_binary_file(debug_buffer_path);
  return devtools::Inspector(std::move(record), std::move(dump), std::move(debug_buffer));
}

}  // namespace

int run_inspect(const InspectArgs& args) {
  const devtools::Inspector inspector =
      load_inspector(args.etrecord_path, args.etdump_paths, args.debug_buffer_path);

  std::vector<devtools::NumericGap> gaps;
  const devtools::GapMetric metric = devtools::parse_gap_metric(args.metric);
  if (args.numeric_gap) {
    PTEC_ENFORCE(!args.debug_buffer_path.empty(), InvalidArgument,
                 "--numeric-gap needs --debug-buffer (the outputs `ptec run --debug-buffer` "
                 "logged)");
    PTEC_ENFORCE(!args.reference_etrecord_path.empty() && !args.reference_etdump_paths.empty() &&
                     !args.reference_debug_buffer_path.empty(),
                 InvalidArgument,
                 "--numeric-gap needs the reference run: --reference-etrecord, "
                 "--reference-etdump and --reference-debug-buffer (e.g. the model exported with "
                 "--recipe portable and run with --debug-buffer on the same inputs)");
    const devtools::Inspector reference =
        load_inspector(args.reference_etrecord_path, args.reference_etdump_paths,
                       args.reference_debug_buffer_path);
    gaps = devtools::numeric_gap(inspector, reference, metric);
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
    if (!args.debug_buffer_path.empty()) j["debug_buffer"] = args.debug_buffer_path;
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
      j["numeric_gap"] = {{"metric", devtools::to_string(metric)}, {"nodes", std::move(list)}};
    }
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s", inspector.to_text().c_str());
    if (args.numeric_gap) {
      std::printf("== numeric gap (%s), worst first ==\n", devtools::to_string(metric));
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
