// `ptec inspect --etrecord R --etdump D [--etdump D2 ...] [--debug-buffer B] [--json]
// [--tsv FILE]`: the Inspector (devtools/inspector) on recorded runs — per method and block,
// every event with its samples, statistics, op types, ONNX source node names and delegate
// backend; time per op type; and the fraction of runtime events mapped to op types and source
// nodes.

#include <cstdio>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "devtools/inspector/inspector.h"
#include "emit/atomic_file.h"
#include "tools/ptec/commands.h"

namespace ptec::cli {

int run_inspect(const InspectArgs& args) {
  devtools::ETRecord record = devtools::ETRecord::load(args.etrecord_path);
  // Several dumps (one per `ptec run`, e.g. one per method) are joined block by block.
  devtools::ETDump dump;
  for (const std::string& path : args.etdump_paths) {
    devtools::ETDump part = devtools::ETDump::load(path);
    if (dump.run_data.empty()) dump.version = part.version;
    for (devtools::RunData& block : part.run_data) dump.run_data.push_back(std::move(block));
  }
  std::vector<uint8_t> debug_buffer;
  if (!args.debug_buffer_path.empty())
    debug_buffer = devtools::read_binary_file(args.debug_buffer_path);
  const devtools::Inspector inspector(std::move(record), std::move(dump), std::move(debug_buffer));

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
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("%s", inspector.to_text().c_str());
    if (!args.tsv_path.empty()) std::printf("wrote %s\n", args.tsv_path.c_str());
  }
  return 0;
}

}  // namespace ptec::cli
