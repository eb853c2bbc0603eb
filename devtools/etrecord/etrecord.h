#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/exported_program.h"

namespace ptec::emit {
struct EmittedProgram;
}

namespace ptec::devtools {

/// A program held by a record: shared, never changed.
using ProgramPtr = std::shared_ptr<const ir::ExportedProgram>;

/// instruction id → debug handles: one for a kernel call, the lowered nodes' handles for a
/// delegate call (exir's debug_handle_map of one method).
using MethodDebugHandleMap = std::map<int64_t, std::vector<int64_t>>;

/// One delegate call (exir's delegate_map entry): the backend id and the backend's delegate
/// debug id → debug handles of the nodes it covers.
struct DelegateCallInfo {
  std::string name;
  std::map<int64_t, std::vector<int64_t>> delegate_map;
  bool operator==(const DelegateCallInfo&) const = default;
};
/// instruction id → delegate call.
using MethodDelegateMap = std::map<int64_t, DelegateCallInfo>;
/// instruction id → number of outputs (delegate calls).
using MethodNumOutsMap = std::map<int64_t, int64_t>;

/// One node of a recorded Edge program, found by its debug handle (what the Inspector shows for a
/// runtime event).
struct RecordedNode {
  std::string name;    // node name in the Edge program
  std::string op;      // schema name, e.g. "aten::convolution"
  std::string source;  // source location, e.g. the ONNX node name "/layer1/conv1/Conv"
  int64_t debug_handle = 0;
  bool operator==(const RecordedNode&) const = default;
};

/// A structure copy of `program` for a record (graph cloned, payloads shared; the UUID kept).
/// Counts in snapshot_count().
ProgramPtr snapshot(const ir::ExportedProgram& program);
/// How many snapshots this process has taken (tests prove that export without
/// generate_etrecord takes none).
uint64_t snapshot_count();

/// Options of ETRecord::save.
struct ETRecordSaveOptions {
  /// Also store the programs' payload bytes (weights, constants, delegate blobs) as entries
  /// `payloads/<hash>_<size>` (each distinct payload once). Off by default: the graphs refer to
  /// payloads by name, size and hash only.
  bool store_payloads = false;
};

/// What export recorded for the devtools (ExecuTorch's ETRecord, DESIGN.md §10, FORMAT.md §7):
/// the ATEN program of every method, the EDGE program of every method before partitioning (and
/// after the user's transform passes, when there were any), and, once to_executorch ran, the
/// per-method maps from instruction ids to debug handles and delegate calls.
///
/// A value: copies share the (immutable) programs and copy the maps.
///
/// The file is a zip:
///   ETRECORD_V0                              empty; the identifier
///   ptec_manifest                            JSON: format, version, methods, which entries exist
///   exported_program                         the ATEN program of `forward` (or of the only
///                                            method), ptec's JSON graph format (ir/graph_json.h)
///   aten_dialect_output/<method>             the ATEN program of every other method
///   edge_dialect_exported_program/<method>   the EDGE program of every method before partitioning
///   edge_after_transform/<method>            the EDGE program after the transform passes
///   debug_handle_map                         {method: {instruction_id: handle or [handles]}}
///   delegate_map                             {method: {instruction_id: {"name": backend_id,
///                                                      "delegate_map": {id: [handles]}}}}
///   instruction_id_to_num_outs_map           {method: {instruction_id: num_outputs}}
///   representative_inputs, reference_outputs {method: [[tensor reference, ...], ...]}
///   payloads/<hash>_<size>                   payload bytes (representative inputs, reference
///                                            outputs; every payload with store_payloads)
class ETRecord {
 public:
  ETRecord() = default;

  // ---- programs ----

  /// The ATEN program of every method (empty when none was recorded).
  const std::map<std::string, ProgramPtr>& aten_programs() const { return aten_; }
  /// The ATEN program of `method`; NotFound listing the methods otherwise.
  ProgramPtr aten_program(const std::string& method = "forward") const;
  /// exir's `exported_program`: the ATEN program of "forward", else of the only method, else null.
  ProgramPtr exported_program() const;
  /// The EDGE program of every method before partitioning.
  const std::map<std::string, ProgramPtr>& edge_programs() const { return edge_; }
  /// The EDGE program of `method` before partitioning; NotFound otherwise.
  ProgramPtr edge_program(const std::string& method = "forward") const;
  /// The EDGE programs after the transform passes (only methods the passes ran on).
  const std::map<std::string, ProgramPtr>& edge_after_transform() const { return after_; }
  /// Method names of the Edge programs (sorted).
  std::vector<std::string> methods() const;

  /// Nodes of method `method`'s Edge program by debug handle (calls and placeholders), with
  /// their op and source node name; handles missing there are looked up in the program after the
  /// transform passes. NotFound when the method has no Edge program.
  std::map<int64_t, RecordedNode> node_index(const std::string& method = "forward") const;
  /// The nodes an instruction of `method` came from (through debug_handle_map); empty when the
  /// instruction is unknown.
  std::vector<RecordedNode> nodes_for_instruction(const std::string& method,
                                                  int64_t instruction_id) const;

  // ---- maps (set by to_executorch) ----

  /// True once the executorch maps are recorded.
  bool has_executorch_maps() const { return has_maps_; }
  const std::map<std::string, MethodDebugHandleMap>& debug_handle_map() const {
    return debug_handle_map_;
  }
  /// The map of one method; NotFound listing the methods that have one.
  const MethodDebugHandleMap& debug_handle_map(const std::string& method) const;
  const std::map<std::string, MethodDelegateMap>& delegate_map() const { return delegate_map_; }
  /// The map of one method (empty when the method has no delegate call); NotFound for a method
  /// the record does not know.
  const MethodDelegateMap& delegate_map(const std::string& method) const;
  const std::map<std::string, MethodNumOutsMap>& instruction_id_to_num_outs_map() const {
    return num_outs_map_;
  }
  const MethodNumOutsMap& instruction_id_to_num_outs_map(const std::string& method) const;

  // ---- representative inputs and reference outputs ----

  /// method → inputs of each recorded run (tensors with their bytes).
  const std::map<std::string, std::vector<std::vector<ir::TensorData>>>& representative_inputs()
      const {
    return representative_inputs_;
  }
  const std::map<std::string, std::vector<std::vector<ir::TensorData>>>& reference_outputs() const {
    return reference_outputs_;
  }
  void set_representative_inputs(const std::string& method,
                                 std::vector<std::vector<ir::TensorData>> runs);
  void set_reference_outputs(const std::string& method,
                             std::vector<std::vector<ir::TensorData>> runs);

  /// exir's export_graph_id (optional).
  std::optional<int64_t> export_graph_id() const { return export_graph_id_; }
  void set_export_graph_id(std::optional<int64_t> id) { export_graph_id_ = id; }

  // ---- building (export does this; generate_etrecord too) ----

  void set_aten_program(const std::string& method, ProgramPtr program);
  void set_edge_program(const std::string& method, ProgramPtr program);
  void set_edge_after_transform(const std::string& method, ProgramPtr program);
  void set_executorch_maps(std::map<std::string, MethodDebugHandleMap> debug_handle_map,
                           std::map<std::string, MethodDelegateMap> delegate_map,
                           std::map<std::string, MethodNumOutsMap> num_outs_map);

  // ---- files ----

  /// Writes the record to `path` atomically (a temporary file renamed over it: a failure leaves
  /// nothing behind). InvalidState "cannot save the ETRecord: ..." when there is no Edge program
  /// or no executorch maps (to_executorch has not run), or when store_payloads is asked for
  /// payloads whose bytes the record does not have (it was loaded by reference); AccessFailed
  /// naming the path on I/O failure.
  void save(const std::string& path, const ETRecordSaveOptions& options = {}) const;

  /// Reads a record. Errors (ptec::Exception): AccessFailed when the file cannot be read;
  /// InvalidArgument "<path>: invalid etrecord file (not a zip archive)"; InvalidArgument
  /// "<path>: invalid etrecord file: identifier missing (no ETRECORD_V0 entry)"; InvalidArgument
  /// naming the entry for a malformed map or graph. A record written by ExecuTorch's Python
  /// toolchain loads too: its maps are read and graphs_available() is false.
  static ETRecord load(const std::string& path);

  /// False for a record whose graphs are not in ptec's format (written by the Python toolchain):
  /// its maps are available, its programs are not.
  bool graphs_available() const { return graph_format_.empty() || graph_format_ == "ptec"; }
  /// "ptec", or a description of the foreign format; empty for a record built in memory.
  const std::string& graph_format() const { return graph_format_; }
  /// Why the graphs are unavailable (a sentence for users), or "".
  std::string graphs_unavailable_reason() const;
  /// Entry names of the file the record was loaded from (sorted; empty for a record built in
  /// memory).
  const std::vector<std::string>& entries() const { return entries_; }

 private:
  std::map<std::string, ProgramPtr> aten_;
  std::map<std::string, ProgramPtr> edge_;
  std::map<std::string, ProgramPtr> after_;
  bool has_maps_ = false;
  std::map<std::string, MethodDebugHandleMap> debug_handle_map_;
  std::map<std::string, MethodDelegateMap> delegate_map_;
  std::map<std::string, MethodNumOutsMap> num_outs_map_;
  std::map<std::string, std::vector<std::vector<ir::TensorData>>> representative_inputs_;
  std::map<std::string, std::vector<std::vector<ir::TensorData>>> reference_outputs_;
  std::optional<int64_t> export_graph_id_;
  std::string graph_format_;
  std::vector<std::string> entries_;
};

/// Records the executorch maps of `emitted` in `record` (every method that is not a constant
/// method gets an entry in each map): debug_handle_map from the emitter's instruction → debug
/// handle records (a delegate call maps to the handles of the nodes it replaced), delegate_map
/// and instruction_id_to_num_outs_map from its delegate call records.
void record_executorch_maps(ETRecord& record, const emit::EmittedProgram& emitted);

/// The entry names of FORMAT.md §7.
namespace etrecord_entries {
inline constexpr const char* kIdentifier = "ETRECORD_V0";
inline constexpr const char* kManifest = "ptec_manifest";
inline constexpr const char* kExportedProgram = "exported_program";
inline constexpr const char* kAtenPrefix = "aten_dialect_output/";
inline constexpr const char* kEdgePrefix = "edge_dialect_exported_program/";
inline constexpr const char* kEdgeAfterTransformPrefix = "edge_after_transform/";
inline constexpr const char* kDebugHandleMap = "debug_handle_map";
inline constexpr const char* kDelegateMap = "delegate_map";
inline constexpr const char* kNumOutsMap = "instruction_id_to_num_outs_map";
inline constexpr const char* kRepresentativeInputs = "representative_inputs";
inline constexpr const char* kReferenceOutputs = "reference_outputs";
inline constexpr const char* kExportGraphId = "export_graph_id";
inline constexpr const char* kPayloadPrefix = "payloads/";
}  // namespace etrecord_entries

}  // namespace ptec::devtools
