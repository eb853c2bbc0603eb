#include "devtools/inspector/inspector.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <span>
#include <tuple>
#include <utility>

#include "devtools/reference/reference_runner.h"
#include "ir/detail/text_payload.h"
#include "ir/exception.h"
#include "ir/printer.h"
#include "schema/extended_header.h"
#include "schema/program_generated.h"

namespace ptec::devtools {

namespace {

constexpr double kNsPerMs = 1e6;

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

EventKind kind_of(const ProfileEvent& ev) {
  if (ev.is_delegate_event()) return EventKind::Delegate;
  if (ev.name == "DELEGATE_CALL") return EventKind::DelegateCall;
  if (ev.name.rfind("native_call_", 0) == 0 && ev.instruction_id >= 0) return EventKind::Kernel;
  return EventKind::Other;
}

// Identity of an event inside a run block; `occurrence` tells repeated events apart (an
// instruction run more than once in a block, e.g. in a loop).
using EventKey = std::tuple<std::string, int32_t, int32_t, int32_t, std::string, size_t>;

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string format_ms(double v) { return fmt::format("{:.6f}", v); }

LoggedOutput describe_output(const ETDumpTensor& tensor, std::span<const uint8_t> buffer) {
  LoggedOutput out;
  out.tensor = tensor;
  if (tensor.dtype != DType::Float || tensor.offset < 0 || buffer.empty()) return out;
  const size_t n = tensor.numel();
  const uint64_t end = static_cast<uint64_t>(tensor.offset) + n * sizeof(float);
  if (end > buffer.size()) return out;
  out.has_stats = true;
  double sum = 0;
  size_t finite = 0;
  for (size_t i = 0; i < n; ++i) {
    float v = 0;
    std::memcpy(&v, buffer.data() + tensor.offset + i * sizeof(float), sizeof(float));
    if (!std::isfinite(v)) {
      ++out.non_finite;
      continue;
    }
    if (finite == 0 || v < out.min) out.min = v;
    if (finite == 0 || v > out.max) out.max = v;
    sum += v;
    ++finite;
  }
  out.mean = finite == 0 ? 0.0 : sum / static_cast<double>(finite);
  return out;
}

}  // namespace

PerfStats compute_stats(const std::vector<double>& samples) {
  PerfStats s;
  if (samples.empty()) return s;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.p10 = percentile(sorted, 0.10);
  s.p50 = percentile(sorted, 0.50);
  s.p90 = percentile(sorted, 0.90);
  double sum = 0;
  for (double v : sorted) sum += v;
  s.avg = sum / static_cast<double>(sorted.size());
  s.min = sorted.front();
  s.max = sorted.back();
  return s;
}

const char* to_string(EventKind kind) {
  switch (kind) {
    case EventKind::Kernel: return "kernel";
    case EventKind::DelegateCall: return "delegate_call";
    case EventKind::Delegate: return "delegate";
    case EventKind::Other: return "other";
  }
  return "other";
}

std::string InspectorEvent::op_type_key() const { return join(op_types, "+"); }

double MappingCoverage::op_type_fraction() const {
  return runtime_events == 0
             ? 0.0
             : static_cast<double>(with_op_type) / static_cast<double>(runtime_events);
}
double MappingCoverage::source_fraction() const {
  return runtime_events == 0
             ? 0.0
             : static_cast<double>(with_source) / static_cast<double>(runtime_events);
}

Inspector::Inspector(ETRecord record, ETDump etdump, std::vector<uint8_t> debug_buffer)
    : record_(std::move(record)),
      etdump_(std::move(etdump)),
      debug_buffer_(std::move(debug_buffer)) {
  if (!record_.has_executorch_maps()) {
    raise(Error::InvalidArgument,
          "inspector: the ETRecord has no instruction maps (it was recorded before "
          "to_executorch)");
  }
  build();
}

Inspector Inspector::load(const std::string& etrecord_path, const std::string& etdump_path,
                          const std::string& debug_buffer_path) {
  ETRecord record = ETRecord::load(etrecord_path);
  ETDump dump = ETDump::load(etdump_path);
  std::vector<uint8_t> buffer;
  if (!debug_buffer_path.empty()) buffer = read_binary_file(debug_buffer_path);
  return Inspector(std::move(record), std::move(dump), std::move(buffer));
}

void Inspector::build() {
  // Methods the record knows (their maps).
  std::set<std::string> known;
  for (const auto& [m, _] : record_.debug_handle_map()) known.insert(m);
  std::string default_method = "forward";
  if (known.size() == 1) default_method = *known.begin();

  std::map<std::string, std::map<int64_t, RecordedNode>> node_indexes;
  auto nodes_of = [&](const std::string& method) -> const std::map<int64_t, RecordedNode>& {
    auto it = node_indexes.find(method);
    if (it == node_indexes.end()) {
      std::map<int64_t, RecordedNode> index;
      if (record_.graphs_available() && record_.edge_programs().count(method) != 0)
        index = record_.node_index(method);
      it = node_indexes.emplace(method, std::move(index)).first;
    }
    return it->second;
  };

  // (method, block name) → block index; per block: event key → event index.
  std::map<std::pair<std::string, std::string>, size_t> block_index;
  std::vector<std::map<EventKey, size_t>> event_index;

  for (const RunData& run : etdump_.run_data) {
    const std::string method = run.method_name.empty() ? default_method : run.method_name;
    if (known.count(method) == 0) {
      raise(Error::InvalidArgument,
            "inspector: the ETDump has events of method '{}', which the ETRecord does not "
            "record (methods: {})",
            method, join(std::vector<std::string>(known.begin(), known.end()), ", "));
    }
    const auto bkey = std::make_pair(method, run.name);
    auto bit = block_index.find(bkey);
    if (bit == block_index.end()) {
      bit = block_index.emplace(bkey, blocks_.size()).first;
      blocks_.push_back(EventBlock{method, run.name, 0, {}});
      event_index.emplace_back();
    }
    EventBlock& block = blocks_[bit->second];
    std::map<EventKey, size_t>& index = event_index[bit->second];
    ++block.runs;

    const MethodDebugHandleMap& handles_map = record_.debug_handle_map(method);
    const auto dm_it = record_.delegate_map().find(method);
    const std::map<int64_t, RecordedNode>& nodes = nodes_of(method);

    std::map<std::tuple<std::string, int32_t, int32_t, int32_t, std::string>, size_t> seen;
    for (const ETDumpEvent& e : run.events) {
      const ProfileEvent* ev = e.profile();
      if (ev == nullptr) continue;
      // OPERATOR_CALL wraps the kernel's own native_call_ event: the same instruction twice.
      if (ev->name == "OPERATOR_CALL") continue;
      const auto base = std::make_tuple(ev->name, ev->chain_index, ev->instruction_id,
                                        ev->delegate_debug_id_int, ev->delegate_debug_id_str);
      const size_t occurrence = seen[base]++;
      const EventKey key = std::tuple_cat(base, std::make_tuple(occurrence));
      auto it = index.find(key);
      if (it == index.end()) {
        InspectorEvent ie;
        ie.name = ev->name;
        ie.kind = kind_of(*ev);
        ie.chain_index = ev->chain_index;
        ie.instruction_id = ev->instruction_id;
        ie.delegate_debug_id = ev->delegate_debug_id_int;
        ie.delegate_debug_id_str = ev->delegate_debug_id_str;
        if (ie.kind == EventKind::Kernel || ie.kind == EventKind::DelegateCall) {
          auto h = handles_map.find(ev->instruction_id);
          if (h != handles_map.end()) ie.debug_handles = h->second;
        }
        if ((ie.kind == EventKind::Delegate || ie.kind == EventKind::DelegateCall) &&
            dm_it != record_.delegate_map().end()) {
          auto d = dm_it->second.find(ev->instruction_id);
          if (d != dm_it->second.end()) {
            ie.delegate_backend = d->second.name;
            if (ie.kind == EventKind::Delegate && ev->delegate_debug_id_int != -1) {
              auto dd = d->second.delegate_map.find(ev->delegate_debug_id_int);
              if (dd != d->second.delegate_map.end()) ie.debug_handles = dd->second;
            }
          }
        }
        for (int64_t handle : ie.debug_handles) {
          auto n = nodes.find(handle);
          if (n == nodes.end()) continue;
          ie.nodes.push_back(n->second);
          if (!n->second.op.empty() &&
              std::find(ie.op_types.begin(), ie.op_types.end(), n->second.op) == ie.op_types.end())
            ie.op_types.push_back(n->second.op);
          if (!n->second.source.empty() &&
              std::find(ie.source_locations.begin(), ie.source_locations.end(), n->second.source) ==
                  ie.source_locations.end())
            ie.source_locations.push_back(n->second.source);
        }
        it = index.emplace(key, block.events.size()).first;
        block.events.push_back(std::move(ie));
      }
      const uint64_t dur = ev->end_time >= ev->start_time ? ev->end_time - ev->start_time : 0;
      block.events[it->second].samples.push_back(static_cast<double>(dur) / kNsPerMs);
    }
    // Logged outputs: a kernel's (chain, instruction) or a delegate node's debug id.
    for (const ETDumpEvent& e : run.events) {
      const DebugEvent* dbg = e.debug();
      if (dbg == nullptr || dbg->instruction_id < 0) continue;
      const ETDumpValue& value = dbg->debug_entry;
      if (value.kind != ETDumpValue::Kind::Tensor && value.kind != ETDumpValue::Kind::TensorList)
        continue;
      for (InspectorEvent& ie : block.events) {
        const bool delegate = dbg->delegate_debug_id_int != -1;
        if (ie.instruction_id != dbg->instruction_id ||
            static_cast<uint64_t>(ie.chain_index) != dbg->chain_index)
          continue;
        if (delegate ? (ie.kind != EventKind::Delegate ||
                        ie.delegate_debug_id != dbg->delegate_debug_id_int)
                     : ie.kind != EventKind::Kernel)
          continue;
        if (!ie.outputs.empty()) break;  // the first run that logged it
        if (value.kind == ETDumpValue::Kind::Tensor) {
          ie.outputs.push_back(describe_output(value.tensor, debug_buffer_));
        } else {
          for (const ETDumpTensor& t : value.tensors)
            ie.outputs.push_back(describe_output(t, debug_buffer_));
        }
        break;
      }
    }
  }
  for (EventBlock& block : blocks_)
    for (InspectorEvent& ev : block.events) ev.stats = compute_stats(ev.samples);
}

std::vector<std::string> Inspector::methods() const {
  std::vector<std::string> out;
  for (const EventBlock& b : blocks_)
    if (std::find(out.begin(), out.end(), b.method) == out.end()) out.push_back(b.method);
  return out;
}

std::vector<OperatorTotal> Inspector::operator_totals() const {
  std::vector<OperatorTotal> out;
  for (const std::string& method : methods()) {
    std::map<std::string, OperatorTotal> by_type;
    for (const EventBlock& b : blocks_) {
      if (b.method != method || b.name != "Execute") continue;
      for (const InspectorEvent& ev : b.events) {
        if (ev.kind != EventKind::Kernel && ev.kind != EventKind::Delegate) continue;
        std::string type = ev.op_type_key();
        if (type.empty()) type = "<unmapped>";
        OperatorTotal& t = by_type[type];
        t.method = method;
        t.op_type = type;
        ++t.events;
        t.avg_ms_per_run += ev.stats.avg;
        for (double s : ev.samples) t.total_ms += s;
      }
    }
    std::vector<OperatorTotal> totals;
    for (auto& [_, t] : by_type) totals.push_back(t);
    std::stable_sort(totals.begin(), totals.end(), [](const auto& a, const auto& b) {
      return a.avg_ms_per_run > b.avg_ms_per_run;
    });
    out.insert(out.end(), totals.begin(), totals.end());
  }
  return out;
}

MappingCoverage Inspector::coverage() const {
  MappingCoverage c;
  for (const EventBlock& b : blocks_) {
    if (b.name != "Execute") continue;
    for (const InspectorEvent& ev : b.events) {
      if (!ev.is_runtime_event()) continue;
      ++c.runtime_events;
      if (!ev.op_types.empty()) ++c.with_op_type;
      if (!ev.source_locations.empty()) ++c.with_source;
    }
  }
  return c;
}

nlohmann::json Inspector::to_json() const {
  using nlohmann::json;
  json blocks = json::array();
  for (const EventBlock& b : blocks_) {
    json events = json::array();
    for (const InspectorEvent& ev : b.events) {
      json nodes = json::array();
      for (const RecordedNode& n : ev.nodes)
        nodes.push_back({{"name", n.name},
                         {"op", n.op},
                         {"source", n.source},
                         {"debug_handle", n.debug_handle}});
      json e = {{"name", ev.name},
                {"kind", to_string(ev.kind)},
                {"chain_index", ev.chain_index},
                {"instruction_id", ev.instruction_id},
                {"debug_handles", ev.debug_handles},
                {"op_types", ev.op_types},
                {"source_locations", ev.source_locations},
                {"nodes", nodes},
                {"raw_ms", ev.samples},
                {"p10_ms", ev.stats.p10},
                {"p50_ms", ev.stats.p50},
                {"p90_ms", ev.stats.p90},
                {"avg_ms", ev.stats.avg},
                {"min_ms", ev.stats.min},
                {"max_ms", ev.stats.max}};
      if (ev.delegate_debug_id != -1) e["delegate_debug_id"] = ev.delegate_debug_id;
      if (!ev.delegate_debug_id_str.empty()) e["delegate_debug_id_str"] = ev.delegate_debug_id_str;
      if (!ev.delegate_backend.empty()) e["delegate_backend"] = ev.delegate_backend;
      if (!ev.outputs.empty()) {
        json outputs = json::array();
        for (const LoggedOutput& o : ev.outputs) {
          json t = {{"dtype", ptec::to_string(o.tensor.dtype)},
                    {"sizes", o.tensor.sizes},
                    {"offset", o.tensor.offset}};
          if (o.has_stats) {
            t["min"] = o.min;
            t["max"] = o.max;
            t["mean"] = o.mean;
            t["non_finite"] = o.non_finite;
          }
          outputs.push_back(std::move(t));
        }
        e["outputs"] = std::move(outputs);
      }
      events.push_back(std::move(e));
    }
    blocks.push_back(
        {{"method", b.method}, {"name", b.name}, {"runs", b.runs}, {"events", std::move(events)}});
  }
  json totals = json::array();
  for (const OperatorTotal& t : operator_totals())
    totals.push_back({{"method", t.method},
                      {"op_type", t.op_type},
                      {"events", t.events},
                      {"avg_ms_per_run", t.avg_ms_per_run},
                      {"total_ms", t.total_ms}});
  const MappingCoverage c = coverage();
  return {{"methods", methods()},
          {"event_blocks", std::move(blocks)},
          {"operator_totals", std::move(totals)},
          {"coverage",
           {{"runtime_events", c.runtime_events},
            {"with_op_type", c.with_op_type},
            {"with_source", c.with_source},
            {"op_type_fraction", c.op_type_fraction()},
            {"source_fraction", c.source_fraction()}}}};
}

std::string Inspector::to_tsv() const {
  std::string out =
      "method\tblock\tevent\tkind\tchain\tinstruction_id\tdelegate_debug_id\tdelegate_backend\t"
      "debug_handles\top_types\tsource_locations\truns\tp10_ms\tp50_ms\tp90_ms\tavg_ms\tmin_ms\t"
      "max_ms\traw_ms\n";
  for (const EventBlock& b : blocks_) {
    for (const InspectorEvent& ev : b.events) {
      std::vector<std::string> handles;
      for (int64_t h : ev.debug_handles) handles.push_back(std::to_string(h));
      std::vector<std::string> raw;
      for (double s : ev.samples) raw.push_back(format_ms(s));
      const std::string ddid = ev.delegate_debug_id != -1 ? std::to_string(ev.delegate_debug_id)
                                                          : ev.delegate_debug_id_str;
      out += fmt::format(
          "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", b.method,
          b.name, ev.name, to_string(ev.kind), ev.chain_index, ev.instruction_id, ddid,
          ev.delegate_backend, join(handles, ","), join(ev.op_types, ","),
          join(ev.source_locations, ","), ev.samples.size(), format_ms(ev.stats.p10),
          format_ms(ev.stats.p50), format_ms(ev.stats.p90), format_ms(ev.stats.avg),
          format_ms(ev.stats.min), format_ms(ev.stats.max), join(raw, ","));
    }
  }
  return out;
}

std::string Inspector::to_text() const {
  std::string out;
  for (const EventBlock& b : blocks_) {
    out += fmt::format("== method '{}', block '{}' ({} run{}) ==\n", b.method, b.name, b.runs,
                       b.runs == 1 ? "" : "s");
    out += fmt::format("{:<36} {:>5} {:>10} {:>10} {:>10}  {}\n", "event", "instr", "p50_ms",
                       "avg_ms", "max_ms", "op types / source");
    for (const InspectorEvent& ev : b.events) {
      std::string where = join(ev.op_types, "+");
      if (ev.source_locations.size() > 3) {
        where += fmt::format("  {}, ... ({} source nodes)", ev.source_locations.front(),
                             ev.source_locations.size());
      } else if (!ev.source_locations.empty()) {
        where += "  " + join(ev.source_locations, ",");
      }
      if (!ev.delegate_backend.empty()) where += "  [" + ev.delegate_backend + "]";
      std::string name = ev.name;
      if (ev.delegate_debug_id != -1)
        name = fmt::format("  delegate node {}", ev.delegate_debug_id);
      out += fmt::format("{:<36} {:>5} {:>10.4f} {:>10.4f} {:>10.4f}  {}\n", name,
                         ev.instruction_id, ev.stats.p50, ev.stats.avg, ev.stats.max, where);
    }
  }
  out += "== time per operator type ==\n";
  for (const OperatorTotal& t : operator_totals())
    out += fmt::format("{:<12} {:<48} {:>4} events {:>10.4f} ms/run\n", t.method, t.op_type,
                       t.events, t.avg_ms_per_run);
  const MappingCoverage c = coverage();
  out += fmt::format(
      "mapped: {}/{} runtime events to op types ({:.1f}%), {}/{} to source nodes ({:.1f}%)\n",
      c.with_op_type, c.runtime_events, 100 * c.op_type_fraction(), c.with_source, c.runtime_events,
      100 * c.source_fraction());
  return out;
}

GapMetric parse_gap_metric(const std::string& name) {
  if (name == "mse") return GapMetric::MSE;
  if (name == "l1") return GapMetric::L1;
  if (name == "snr") return GapMetric::SNR;
  raise(Error::InvalidArgument, "unknown numeric gap metric '{}' (mse, l1 or snr)", name);
}

const char* to_string(GapMetric metric) {
  switch (metric) {
    case GapMetric::MSE: return "mse";
    case GapMetric::L1: return "l1";
    case GapMetric::SNR: return "snr";
  }
  return "mse";
}

namespace {

struct LoggedValue {
  const InspectorEvent* event = nullptr;
  std::vector<float> values;
};

// method → last debug handle → the first Float output logged for it with its bytes.
std::map<std::string, std::map<int64_t, LoggedValue>> logged_values(const Inspector& inspector) {
  std::map<std::string, std::map<int64_t, LoggedValue>> out;
  const std::vector<uint8_t>& buffer = inspector.debug_buffer();
  for (const EventBlock& block : inspector.event_blocks()) {
    if (block.name != "Execute") continue;
    for (const InspectorEvent& ev : block.events) {
      if (ev.outputs.empty() || ev.debug_handles.empty()) continue;
      if (ev.kind != EventKind::Kernel && ev.kind != EventKind::Delegate) continue;
      const LoggedOutput& o = ev.outputs.front();
      if (!o.has_stats) continue;  // Float with its bytes in the buffer
      auto& slot = out[block.method][ev.debug_handles.back()];
      if (slot.event != nullptr) continue;
      slot.event = &ev;
      slot.values.resize(o.tensor.numel());
      std::memcpy(slot.values.data(), buffer.data() + o.tensor.offset,
                  slot.values.size() * sizeof(float));
    }
  }
  return out;
}

}  // namespace

namespace {

NumericGap measure(const std::vector<float>& a, const std::vector<float>& b, GapMetric metric) {
  double sq = 0;
  double abs = 0;
  double signal = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    sq += d * d;
    abs += std::fabs(d);
    signal += static_cast<double>(b[i]) * static_cast<double>(b[i]);
  }
  const double n = a.empty() ? 1.0 : static_cast<double>(a.size());
  NumericGap g;
  g.numel = a.size();
  switch (metric) {
    case GapMetric::MSE: g.value = sq / n; break;
    case GapMetric::L1: g.value = abs / n; break;
    case GapMetric::SNR:
      g.value = sq == 0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(signal / sq);
      break;
  }
  return g;
}

void sort_gaps(std::vector<NumericGap>& gaps, GapMetric metric) {
  std::stable_sort(gaps.begin(), gaps.end(), [metric](const NumericGap& x, const NumericGap& y) {
    return metric == GapMetric::SNR ? x.value < y.value : x.value > y.value;
  });
}

// method → debug handle → the reference's Float values.
using ReferenceValues = std::map<std::string, std::map<int64_t, std::vector<float>>>;

std::vector<NumericGap> compare(const std::map<std::string, std::map<int64_t, LoggedValue>>& got,
                                const ReferenceValues& want, GapMetric metric) {
  std::vector<NumericGap> out;
  for (const auto& [method, handles] : got) {
    auto ref_method = want.find(method);
    if (ref_method == want.end()) continue;
    for (const auto& [handle, value] : handles) {
      auto ref = ref_method->second.find(handle);
      if (ref == ref_method->second.end() || ref->second.size() != value.values.size()) continue;
      NumericGap g = measure(value.values, ref->second, metric);
      g.method = method;
      g.debug_handle = handle;
      g.event = value.event->name;
      for (const RecordedNode& node : value.event->nodes) {
        if (node.debug_handle != handle) continue;
        g.op = node.op;
        g.source = node.source;
      }
      out.push_back(std::move(g));
    }
  }
  sort_gaps(out, metric);
  return out;
}

// The Float values of the program outputs the run logged for `method` (ptec run --debug-buffer
// logs them after each execute), from its first "Execute" block that has them; an empty vector
// for an output that is not a Float tensor with its bytes.
std::vector<std::vector<float>> logged_program_outputs(const Inspector& run,
                                                       const std::string& method) {
  const bool only_method = run.etrecord().methods().size() == 1;
  for (const RunData& block : run.etdump().run_data) {
    if (block.name != "Execute") continue;
    if (block.method_name != method && !(block.method_name.empty() && only_method)) continue;
    std::vector<std::vector<float>> out;
    for (const ETDumpEvent& e : block.events) {
      const DebugEvent* d = e.debug();
      if (d == nullptr || !d->debug_entry.output) continue;
      const ETDumpValue& v = d->debug_entry;
      std::vector<float>& values = out.emplace_back();
      if (v.kind != ETDumpValue::Kind::Tensor || v.tensor.dtype != DType::Float ||
          v.tensor.offset < 0) {
        continue;
      }
      const std::span<const uint8_t> bytes = tensor_data(v.tensor, run.debug_buffer());
      values.resize(bytes.size() / sizeof(float));
      std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    }
    if (!out.empty()) return out;
  }
  return {};
}

}  // namespace

std::vector<NumericGap> numeric_gap(const Inspector& run, const Inspector& reference,
                                    GapMetric metric) {
  ReferenceValues want;
  for (auto& [method, handles] : logged_values(reference)) {
    for (auto& [handle, value] : handles) want[method][handle] = std::move(value.values);
  }
  return compare(logged_values(run), want, metric);
}

std::vector<ir::BufferPtr> program_payloads(const std::string& pte_path) {
  namespace fb = executorch_flatbuffer;
  const ir::BufferPtr file = ir::Buffer::map_file(pte_path);
  const uint8_t* data = file->data();
  const size_t size = file->size();
  PTEC_ENFORCE(size >= 8 && fb::ProgramBufferHasIdentifier(data), InvalidProgram,
               "{}: not an ExecuTorch program (identifier ET12 missing)", pte_path);
  size_t program_size = size;
  uint64_t segment_base = 0;
  if (auto header = schema::ExtendedHeader::parse(data, size); header.ok()) {
    program_size = header->program_size;
    segment_base = header->segment_base_offset;
  }
  PTEC_ENFORCE(program_size <= size, InvalidProgram, "{}: the program is truncated", pte_path);
  flatbuffers::Verifier verifier(data, program_size);
  PTEC_ENFORCE(fb::VerifyProgramBuffer(verifier), InvalidProgram,
               "{}: the program flatbuffer is malformed", pte_path);
  const fb::Program* program = fb::GetProgram(data);

  std::vector<ir::BufferPtr> out;
  auto slice = [&](uint32_t segment, uint64_t offset, uint64_t bytes) {
    PTEC_ENFORCE(program->segments() != nullptr && segment < program->segments()->size(),
                 InvalidProgram, "{}: segment {} does not exist", pte_path, segment);
    const uint64_t start = segment_base + program->segments()->Get(segment)->offset() + offset;
    PTEC_ENFORCE(start <= size && bytes <= size - start, InvalidProgram,
                 "{}: {} bytes at {} lie outside the file", pte_path, bytes, start);
    out.push_back(ir::Buffer::slice(file, start, bytes));
  };
  const fb::SubsegmentOffsets* constants = program->constant_segment();
  if (constants != nullptr && constants->offsets() != nullptr && program->execution_plan()) {
    for (const fb::ExecutionPlan* plan : *program->execution_plan()) {
      if (plan->values() == nullptr) continue;
      for (const fb::EValue* value : *plan->values()) {
        const fb::Tensor* t = value->val_as_Tensor();
        if (t == nullptr || t->data_buffer_idx() == 0 ||
            t->data_buffer_idx() >= constants->offsets()->size()) {
          continue;
        }
        uint64_t numel = 1;
        if (t->sizes() != nullptr) {
          for (int32_t d : *t->sizes()) numel *= static_cast<uint64_t>(std::max(d, 0));
        }
        const uint64_t bytes = numel * element_size(static_cast<DType>(t->scalar_type()));
        slice(constants->segment_index(), constants->offsets()->Get(t->data_buffer_idx()), bytes);
      }
    }
  }
  if (program->named_data() != nullptr) {
    for (const fb::NamedData* nd : *program->named_data()) {
      PTEC_ENFORCE(
          program->segments() != nullptr && nd->segment_index() < program->segments()->size(),
          InvalidProgram, "{}: named data refers to segment {}", pte_path, nd->segment_index());
      slice(nd->segment_index(), 0, program->segments()->Get(nd->segment_index())->size());
    }
  }
  return out;
}

namespace {

bool is_stand_in(const ir::BufferPtr& data) {
  return data != nullptr && dynamic_cast<const ir::detail::UnloadedPayload*>(data.get()) != nullptr;
}

}  // namespace

std::vector<std::string> unloaded_payloads(const ir::ExportedProgram& program) {
  std::vector<std::string> out;
  for (const auto* table : {&program.state_dict(), &program.constants()}) {
    for (const auto& [name, t] : *table) {
      if (is_stand_in(t.data)) out.push_back(name);
    }
  }
  return out;
}

ETRecord with_payloads(const ETRecord& record, const std::vector<ir::BufferPtr>& available,
                       std::vector<std::string>* missing) {
  // Hash only what some stand-in could be: payloads of a wanted size, each once.
  std::map<size_t, std::vector<const ir::Buffer*>> wanted_sizes;
  auto programs = [&](auto&& fn) {
    for (const auto& [m, p] : record.aten_programs()) fn(m, p);
    for (const auto& [m, p] : record.edge_programs()) fn(m, p);
    for (const auto& [m, p] : record.edge_after_transform()) fn(m, p);
  };
  programs([&](const std::string&, const ProgramPtr& p) {
    for (const auto* table : {&p->state_dict(), &p->constants()}) {
      for (const auto& [name, t] : *table) {
        if (is_stand_in(t.data)) wanted_sizes[t.data->size()].push_back(t.data.get());
      }
    }
  });
  std::map<std::pair<size_t, std::string>, ir::BufferPtr> by_hash;
  for (const ir::BufferPtr& b : available) {
    if (b == nullptr || !wanted_sizes.contains(b->size())) continue;
    by_hash.emplace(std::make_pair(b->size(), ir::payload_hash(*b)), b);
  }
  ETRecord out = record;
  auto resolve = [&](const std::string& method, const ProgramPtr& p) -> ProgramPtr {
    if (unloaded_payloads(*p).empty()) return p;
    auto copy = std::make_shared<ir::ExportedProgram>(*p);
    for (auto* table : {&copy->state_dict(), &copy->constants()}) {
      for (auto& [name, t] : *table) {
        if (!is_stand_in(t.data)) continue;
        auto it = by_hash.find({t.data->size(), ir::payload_hash(*t.data)});
        if (it != by_hash.end()) {
          t.data = it->second;
        } else if (missing != nullptr) {
          missing->push_back(fmt::format("{}: {}", method, name));
        }
      }
    }
    return copy;
  };
  for (const auto& [m, p] : record.aten_programs()) out.set_aten_program(m, resolve(m, p));
  for (const auto& [m, p] : record.edge_programs()) out.set_edge_program(m, resolve(m, p));
  for (const auto& [m, p] : record.edge_after_transform()) {
    out.set_edge_after_transform(m, resolve(m, p));
  }
  return out;
}

ProgramPtr reference_program(const ETRecord& record, const std::string& method) {
  if (auto it = record.edge_programs().find(method); it != record.edge_programs().end()) {
    return it->second;
  }
  if (auto it = record.aten_programs().find(method); it != record.aten_programs().end()) {
    return it->second;
  }
  if (!record.graphs_available()) {
    raise(Error::InvalidArgument, "method {}: no reference program to run: {}", method,
          record.graphs_unavailable_reason());
  }
  raise(Error::InvalidArgument,
        "method {}: the ETRecord has no Edge or ATEN program to run as the reference", method);
}

std::vector<NumericGap> numeric_gap_vs_reference(const Inspector& run, const ETRecord& record,
                                                 GapMetric metric, const ReferenceInputs& inputs) {
  const auto got = logged_values(run);
  static const std::map<int64_t, LoggedValue> kNone;
  ReferenceValues want;
  std::vector<NumericGap> output_gaps;
  for (const std::string& method : run.methods()) {
    const auto logged = got.find(method);
    const std::map<int64_t, LoggedValue>& handles = logged == got.end() ? kNone : logged->second;
    const std::vector<std::vector<float>> outputs = logged_program_outputs(run, method);
    if (handles.empty() && outputs.empty()) continue;
    const ProgramPtr program = reference_program(record, method);
    const std::vector<ir::TensorData>* given = nullptr;
    if (auto it = inputs.find(method); it != inputs.end()) {
      given = &it->second;
    } else if (auto rec = record.representative_inputs().find(method);
               rec != record.representative_inputs().end() && !rec->second.empty()) {
      given = &rec->second.front();
    }
    PTEC_ENFORCE(given != nullptr, InvalidArgument,
                 "method {}: no inputs for the reference run (the ETRecord has no representative "
                 "inputs for it; give the inputs the run used)",
                 method);
    const std::vector<std::string> unloaded = unloaded_payloads(*program);
    PTEC_ENFORCE(unloaded.empty(), InvalidArgument,
                 "method {}: the ETRecord holds {} weights of its program by reference only (e.g. "
                 "{}): take their bytes from the exported program first (with_payloads; ptec "
                 "inspect --program FILE.pte)",
                 method, unloaded.size(), unloaded.front());
    std::map<int64_t, std::vector<float>>& values = want[method];
    ReferenceRunner runner(*program, {.name = fmt::format("method {}", method)});
    const std::vector<ir::TensorData> reference = runner.run(*given, [&](const ObservedOutput& o) {
      if (!handles.contains(o.debug_handle) || o.outputs.empty()) return;
      const ir::TensorData& t = o.outputs.front();
      if (t.spec.dtype != DType::Float || t.data == nullptr) return;
      std::vector<float>& v = values[o.debug_handle];
      v.resize(t.data->size() / sizeof(float));
      std::memcpy(v.data(), t.data->data(), v.size() * sizeof(float));
    });

    // The program outputs, under the handle of the node that computes each, when no kernel
    // event logged that node (e.g. a delegate computed it).
    const std::vector<ir::Node*> output_nodes = program->graph().outputs();
    for (size_t k = 0; k < outputs.size() && k < reference.size() && k < output_nodes.size(); ++k) {
      const ir::Node* node = output_nodes[k];
      const ir::TensorData& t = reference[k];
      if (node == nullptr || handles.contains(node->debug_handle()) || outputs[k].empty() ||
          t.spec.dtype != DType::Float || t.data == nullptr ||
          t.data->size() != outputs[k].size() * sizeof(float)) {
        continue;
      }
      std::vector<float> b(outputs[k].size());
      std::memcpy(b.data(), t.data->data(), b.size() * sizeof(float));
      NumericGap g = measure(outputs[k], b, metric);
      g.method = method;
      g.debug_handle = node->debug_handle();
      g.op = node->is_call() ? node->target() : "placeholder";
      g.source = node->meta().source;
      g.event = fmt::format("program output {}", k);
      output_gaps.push_back(std::move(g));
    }
  }
  std::vector<NumericGap> out = compare(got, want, metric);
  out.insert(out.end(), output_gaps.begin(), output_gaps.end());
  sort_gaps(out, metric);
  return out;
}

}  // namespace ptec::devtools
