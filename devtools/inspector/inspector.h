#pragma once

// The Inspector (DESIGN.md §10): joins what the runtime recorded (ETDump: which instruction or
// delegate node ran and for how long) with what export recorded (ETRecord: the maps from
// instructions and delegate debug ids back to the Edge graph's nodes and their ONNX source
// nodes). Host-side code: errors throw ptec::Exception.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "devtools/etdump/etdump.h"
#include "devtools/etrecord/etrecord.h"

namespace ptec::devtools {

/// Summary statistics of a set of samples (milliseconds). Percentiles interpolate linearly
/// between the sorted samples (numpy's default).
struct PerfStats {
  double p10 = 0;
  double p50 = 0;
  double p90 = 0;
  double avg = 0;
  double min = 0;
  double max = 0;
  bool operator==(const PerfStats&) const = default;
};

/// Statistics of `samples`; all zero for no samples.
PerfStats compute_stats(const std::vector<double>& samples);

/// What an event is.
enum class EventKind : uint8_t {
  Kernel,        // "native_call_<op>.<overload>": one kernel instruction
  DelegateCall,  // "DELEGATE_CALL": one delegate instruction as a whole
  Delegate,      // an event the delegate logged for one of its own nodes (delegate_debug_id)
  Other,         // anything else ("Method::execute", load events, ...)
};
const char* to_string(EventKind kind);

/// A tensor the runtime logged as an event's output (`ptec run --debug-buffer`), from the first
/// run block that logged it. The statistics cover Float tensors whose bytes are in the debug
/// buffer (`has_stats`).
struct LoggedOutput {
  ETDumpTensor tensor;
  bool has_stats = false;
  double min = 0;
  double max = 0;
  double mean = 0;
  /// NaN and infinite elements (left out of min / max / mean).
  size_t non_finite = 0;
};

/// One profile event, the same event of every run block of its method joined (one sample per
/// run).
struct InspectorEvent {
  std::string name;
  EventKind kind = EventKind::Other;
  int32_t chain_index = 0;
  int32_t instruction_id = -1;
  int32_t delegate_debug_id = -1;
  std::string delegate_debug_id_str;
  /// The backend of the delegate call the event belongs to ("" for kernels).
  std::string delegate_backend;
  /// Debug handles of the Edge nodes the event ran (through debug_handle_map for kernels and
  /// delegate calls, delegate_map for a delegate's own events).
  std::vector<int64_t> debug_handles;
  /// The recorded nodes of those handles (handles the record does not know are left out).
  std::vector<RecordedNode> nodes;
  /// Distinct op types of `nodes` in order, e.g. {"aten::convolution", "aten::relu"}.
  std::vector<std::string> op_types;
  /// Distinct non-empty source locations (ONNX node names) of `nodes` in order.
  std::vector<std::string> source_locations;
  /// Durations (ms), one per run block in which the event occurred.
  std::vector<double> samples;
  PerfStats stats;
  /// The tensors the runtime logged for this event (a kernel's out value), when it logged any.
  std::vector<LoggedOutput> outputs;

  /// The op type key totals use: the op types joined with "+" ("" when unmapped).
  std::string op_type_key() const;
  bool is_runtime_event() const { return kind != EventKind::Other; }
};

/// The events of one method's blocks of one name ("Execute": each Method::execute; "Default":
/// the method's load).
struct EventBlock {
  std::string method;
  std::string name;
  /// How many run blocks were joined (the iterations for "Execute").
  size_t runs = 0;
  std::vector<InspectorEvent> events;
};

/// Time per operator type over the leaf runtime events (kernels and delegate nodes; a delegate
/// call as a whole is not counted again) of the "Execute" blocks of one method.
struct OperatorTotal {
  std::string method;
  std::string op_type;
  /// Runtime events of this type (per run).
  size_t events = 0;
  /// Sum over the events of their average duration (ms): the op type's time per run.
  double avg_ms_per_run = 0;
  /// Sum of every sample of every event (ms).
  double total_ms = 0;
};

/// How many runtime events (kernels, delegate calls, delegate nodes; one per joined event) map
/// to op types and to source locations.
struct MappingCoverage {
  size_t runtime_events = 0;
  size_t with_op_type = 0;
  size_t with_source = 0;
  double op_type_fraction() const;
  double source_fraction() const;
};

class Inspector {
 public:
  /// Joins `etdump` with `record`. Run blocks without a method name (written by the upstream
  /// runtime) belong to the record's only method, else to "forward". InvalidArgument when a
  /// run block names a method the record does not know, or when the record has no executorch
  /// maps.
  Inspector(ETRecord record, ETDump etdump, std::vector<uint8_t> debug_buffer = {});

  /// Loads the files (errors name the path); `debug_buffer_path` may be empty.
  static Inspector load(const std::string& etrecord_path, const std::string& etdump_path,
                        const std::string& debug_buffer_path = "");

  const ETRecord& etrecord() const { return record_; }
  const ETDump& etdump() const { return etdump_; }
  const std::vector<uint8_t>& debug_buffer() const { return debug_buffer_; }

  /// Blocks in the order of their first run block: per method, "Default" then "Execute".
  const std::vector<EventBlock>& event_blocks() const { return blocks_; }
  /// Methods with at least one run block.
  std::vector<std::string> methods() const;

  /// Totals per method and op type, largest time first within each method.
  std::vector<OperatorTotal> operator_totals() const;
  /// Coverage over every "Execute" block.
  MappingCoverage coverage() const;

  /// {"methods": [...], "event_blocks": [...], "operator_totals": [...], "coverage": {...}}.
  nlohmann::json to_json() const;
  /// One line per event (header first), tab separated.
  std::string to_tsv() const;
  /// A human-readable table per block, then the totals and the coverage.
  std::string to_text() const;

 private:
  void build();

  ETRecord record_;
  ETDump etdump_;
  std::vector<uint8_t> debug_buffer_;
  std::vector<EventBlock> blocks_;
};

/// How numeric_gap measures the difference of two tensors.
enum class GapMetric : uint8_t { MSE, L1, SNR };
/// "mse", "l1" or "snr"; InvalidArgument naming the accepted names otherwise.
GapMetric parse_gap_metric(const std::string& name);
const char* to_string(GapMetric metric);

/// The numeric gap of one node: the runtime's logged output against the reference's.
struct NumericGap {
  std::string method;
  /// The node whose value the event produced (the event's last debug handle).
  int64_t debug_handle = 0;
  std::string op;
  std::string source;
  /// The event of the inspected run that logged it.
  std::string event;
  size_t numel = 0;
  /// MSE / mean absolute error, or SNR in dB (infinite when the outputs are equal).
  double value = 0;
};

/// Compares, per debug handle, the Float outputs `run` logged (ptec run --debug-buffer) with
/// those `reference` logged for the same node (e.g. the same model exported with the portable
/// recipe and run on the same inputs), over every method both have; worst first (largest MSE or
/// L1, smallest SNR). Nodes logged by only one side, or with other element counts, are left out.
std::vector<NumericGap> numeric_gap(const Inspector& run, const Inspector& reference,
                                    GapMetric metric);

/// The payloads a .pte stores: the bytes of every constant tensor (constant segment) and every
/// named-data blob (e.g. a delegate's weights), as slices of the mapped file (no copy).
/// Errors name the path: AccessFailed, InvalidProgram for a file that is not a valid program.
std::vector<ir::BufferPtr> program_payloads(const std::string& pte_path);

/// `record` with the payloads its programs only refer to (a record saved without them loads
/// stand-ins of the right size and hash, whose bytes are zeros) replaced by the payload of
/// `available` with the same size and content hash (ir::payload_hash), e.g. program_payloads of
/// the exported .pte. Programs without stand-ins are shared; `missing`, when given, receives
/// "<method>: <tensor name>" for each stand-in left unresolved.
ETRecord with_payloads(const ETRecord& record, const std::vector<ir::BufferPtr>& available,
                       std::vector<std::string>* missing = nullptr);

/// Names of the state_dict / constants entries of `program` whose bytes are stand-ins (see
/// with_payloads).
std::vector<std::string> unloaded_payloads(const ir::ExportedProgram& program);

/// Inputs of reference runs: method → one tensor per user input.
using ReferenceInputs = std::map<std::string, std::vector<ir::TensorData>>;

/// The program numeric_gap_vs_reference runs for `method`: the record's Edge program before
/// partitioning, else its ATEN program. InvalidArgument naming the method when the record has
/// neither (e.g. a record written by the Python toolchain, whose graphs ptec cannot read).
ProgramPtr reference_program(const ETRecord& record, const std::string& method);

/// The numeric gap of `run` against a reference computed in-process: for every method whose run
/// logged outputs, reference_program(record, method) runs on the portable kernels
/// (devtools/reference) on `inputs[method]`, else on the record's first representative inputs of
/// the method, and its node outputs are compared per debug handle with the Float outputs the run
/// logged (as numeric_gap does; worst first). The program outputs the run logged are compared
/// too, under the handle of the node computing each (event "program output K"), when no kernel
/// event logged that node: a delegate's result. The run must have used the same inputs.
/// Errors: InvalidArgument naming the method when it has no inputs (neither given nor recorded),
/// no program in the record, or weights whose bytes the record does not hold (resolve them with
/// with_payloads first); those of the reference runner (e.g. a node without a portable kernel).
std::vector<NumericGap> numeric_gap_vs_reference(const Inspector& run, const ETRecord& record,
                                                 GapMetric metric,
                                                 const ReferenceInputs& inputs = {});

}  // namespace ptec::devtools
