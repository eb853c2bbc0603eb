#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "ir/tensor_spec.h"
#include "memory/memory_plan.h"
#include "schema/program_generated.h"

namespace ptec::emit {

/// Bytes of one segment that come straight from a payload Buffer (no copy): they are written at
/// `offset` from the start of their segment; the gaps between pieces are zeros.
struct SegmentPiece {
  ir::BufferPtr data;
  uint64_t offset = 0;
};

/// One entry of Program.segments, described by the payloads it is made of.
struct Segment {
  /// Offset from segment_base_offset (equals Program.segments[i].offset).
  uint64_t offset = 0;
  /// Bytes, padding between pieces included (equals Program.segments[i].size).
  uint64_t size = 0;
  std::vector<SegmentPiece> pieces;
};

/// One DelegateCall instruction, for the devtools (exir's delegate_map and
/// instruction_id_to_num_outs_map).
struct DelegateCallRecord {
  std::string backend_id;
  /// Index into the method's delegates table.
  int32_t delegate_index = 0;
  /// Number of tensors the call writes.
  size_t num_outputs = 0;
  /// Debug handles of the nodes the delegate replaced.
  std::vector<int64_t> debug_handles;
  /// The backend's delegate debug id → debug handles (exir's delegate_map; may be empty).
  std::map<int64_t, std::vector<int64_t>> delegate_debug_map;
};

/// Per-method records for the devtools and `ptec info`.
struct EmittedMethod {
  std::string name;
  /// True for a constant method (values only, no instructions).
  bool is_constant_method = false;
  /// instruction id → debug handle of the node it came from (exir's debug_handle_map).
  std::map<int64_t, int64_t> debug_handle_map;
  /// The memory plan of the method (empty for constant methods).
  memory::MemoryPlan memory_plan;
  /// instruction id → the delegate call it is.
  std::map<int64_t, DelegateCallRecord> delegate_calls;
};

/// The emitted program: the flatbuffer object model (which holds no constant bytes), the
/// segment payloads (shared Buffers, not copies) and the per-method records. The pte writer
/// streams it to a file.
struct EmittedProgram {
  std::unique_ptr<executorch_flatbuffer::ProgramT> program;
  /// Segments in Program.segments order (segment 0 is the constant segment).
  std::vector<Segment> segments;
  /// One entry per execution plan, in the same order.
  std::vector<EmittedMethod> methods;
  /// Alignment of the first segment's file offset.
  uint64_t segment_alignment = 128;
  /// Tensors stored outside the .pte (EmitConfig::external_constants), by fully qualified
  /// name: what write_ptd puts in the .ptd. Payloads are shared.
  std::map<std::string, ir::TensorData> external_tensors;

  /// Total segment bytes (padding between segments included): 0 means no extended header.
  uint64_t segment_data_size() const;
  /// Bytes of constant data stored (after deduplication, without padding).
  uint64_t constant_bytes() const;
  /// method name → instruction id → debug handle.
  std::map<std::string, std::map<int64_t, int64_t>> debug_handle_map() const;
  /// The record of method `name`; throws NotFound.
  const EmittedMethod& method(const std::string& name) const;
};

}  // namespace ptec::emit
