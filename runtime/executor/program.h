#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/result.h"
#include "runtime/core/event_tracer.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/named_data_map.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method.h"
#include "runtime/executor/method_meta.h"
#include "runtime/executor/pte_data_map.h"
#include "runtime/loader/data_loader.h"

namespace executorch_flatbuffer {
struct Program;
}  // namespace executorch_flatbuffer

namespace ptec::runtime {

/// A loaded .pte (FORMAT.md §1-2): the verified flatbuffer plus its constant segment. Methods
/// are loaded from it on demand. No heap: the program's bytes come from the DataLoader.
/// Move-only. The loader must outlive the Program; the Program must outlive its Methods,
/// MethodMetas and every string it returns, and must not be moved while Methods loaded from it
/// exist (their delegates may hold its named-data map).
class Program final {
 public:
  enum class Verification : uint8_t {
    /// Only the identifier and the root offset are checked. For trusted files only: a
    /// malformed flatbuffer can then crash the process.
    Minimal,
    /// The flatbuffers Verifier checks the whole structure (the default). Every index and
    /// size the runtime later uses is bounds-checked in both modes.
    InternalConsistency,
  };

  /// Reads the head bytes and optional `eh00` header, checks the sizes against the file size,
  /// loads and verifies the flatbuffer, and loads the constant segment.
  /// Errors: InvalidArgument (null loader), InvalidProgram (malformed or truncated file, or a
  /// file that relies on the deprecated constant_buffer path), or the loader's error.
  static Result<Program> load(DataLoader* loader,
                              Verification verification = Verification::InternalConsistency);

  Program(Program&&) noexcept = default;
  Program& operator=(Program&&) = delete;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program() = default;

  /// Number of execution plans (methods, constant methods included).
  size_t num_methods() const;
  /// Name of method `index`. Errors: InvalidArgument (index), InvalidProgram (no name).
  Result<const char*> get_method_name(size_t index) const;
  /// Errors: NotFound (no such method), InvalidProgram.
  Result<MethodMeta> method_meta(const char* method_name) const;

  /// Loads a method: parses its values and tensors, initializes its delegates and resolves its
  /// kernels. `memory_manager` (and what it points to), `event_tracer` and `named_data_map`
  /// must outlive the Method. `named_data_map` serves external tensors (a .ptd).
  /// Errors: NotFound (method, or an unregistered backend), OperatorMissing (every missing
  /// kernel is logged as "Missing operator: <name>"), InvalidProgram, InvalidExternalData,
  /// MemoryAllocationFailed (method allocator too small), InvalidArgument (planned memory too
  /// small), or a backend's init error.
  Result<Method> load_method(const char* method_name, MemoryManager* memory_manager,
                             EventTracer* event_tracer = nullptr,
                             const NamedDataMap* named_data_map = nullptr) const;

  /// The program's own named data (Program.named_data), or nullptr when it has none.
  const NamedDataMap* get_named_data_map() const {
    return pte_data_map_.num_entries() > 0 ? &pte_data_map_ : nullptr;
  }

  // ---- Used by Method and the tensor parser. ----

  /// The flatbuffer root; valid while the Program lives.
  const executorch_flatbuffer::Program* flatbuffer() const { return program_; }
  /// The bytes of constant `data_buffer_idx` (>= 1), bounds-checked for `nbytes`.
  /// Errors: InvalidProgram.
  Result<const void*> get_constant_data(size_t data_buffer_idx, size_t nbytes) const;
  /// Copies the initial value of mutable tensor `data_buffer_idx` (>= 1) from
  /// mutable_data_segments[0]. Errors: InvalidProgram, or the loader's error.
  Error load_mutable_data_into(size_t data_buffer_idx, void* buffer, size_t nbytes) const;
  /// Loads Program.segments[index]. Errors: InvalidProgram (index, missing header, range
  /// outside the segment data), or the loader's error.
  Result<FreeableBuffer> load_segment(size_t index, DataLoader::SegmentInfo::Type type,
                                      const char* descriptor = nullptr) const;

 private:
  Program(DataLoader* loader, FreeableBuffer program_data,
          const executorch_flatbuffer::Program* program, uint64_t segment_base_offset,
          uint64_t segment_data_size)
      : loader_(loader),
        program_data_(std::move(program_data)),
        program_(program),
        segment_base_offset_(segment_base_offset),
        segment_data_size_(segment_data_size) {}
  Error load_constant_segment();
  Result<size_t> find_method(const char* method_name) const;

  DataLoader* loader_;
  FreeableBuffer program_data_;
  const executorch_flatbuffer::Program* program_;
  uint64_t segment_base_offset_;
  uint64_t segment_data_size_;
  FreeableBuffer constant_segment_;
  PteDataMap pte_data_map_;
};

}  // namespace ptec::runtime
