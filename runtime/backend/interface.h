#pragma once

// The runtime side of a backend delegate (FORMAT.md §4): a BackendInterface registered by name;
// Method::load initializes one handle per BackendDelegate and DelegateCall executes it.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/result.h"
#include "core/span.h"
#include "runtime/core/evalue.h"
#include "runtime/core/event_tracer.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/named_data_map.h"

namespace ptec::runtime {

/// A backend's per-delegate state, returned by init() and passed back to execute()/destroy().
using DelegateHandle = void;

/// Bytes of a compile spec value; points into the program's flatbuffer.
struct SizedBuffer {
  const void* buffer = nullptr;
  size_t nbytes = 0;
};

/// One CompileSpec of a BackendDelegate. `key` is NUL-terminated; both point into the
/// program's flatbuffer and live as long as the Program.
struct CompileSpec {
  const char* key = nullptr;
  SizedBuffer value;
};

/// What a backend may use while it initializes a delegate.
class BackendInitContext final {
 public:
  BackendInitContext(MemoryAllocator* runtime_allocator, EventTracer* event_tracer,
                     const char* method_name, const NamedDataMap* named_data_map)
      : runtime_allocator_(runtime_allocator),
        event_tracer_(event_tracer),
        method_name_(method_name),
        named_data_map_(named_data_map) {}

  /// The method allocator: memory that lives as long as the Method.
  MemoryAllocator* get_runtime_allocator() const { return runtime_allocator_; }
  /// May be null.
  EventTracer* event_tracer() const { return event_tracer_; }
  const char* get_method_name() const { return method_name_; }
  /// The .ptd map merged with the program's named_data, whichever exist; may be null.
  const NamedDataMap* get_named_data_map() const { return named_data_map_; }

 private:
  MemoryAllocator* runtime_allocator_;
  EventTracer* event_tracer_;
  const char* method_name_;
  const NamedDataMap* named_data_map_;
};

/// What a backend may use while it executes a delegate.
class BackendExecutionContext final {
 public:
  BackendExecutionContext(EventTracer* event_tracer, MemoryAllocator* temp_allocator,
                          const char* method_name)
      : event_tracer_(event_tracer), temp_allocator_(temp_allocator), method_name_(method_name) {}

  /// May be null.
  EventTracer* event_tracer() const { return event_tracer_; }
  /// Scratch memory valid until execute() returns; may be null.
  MemoryAllocator* get_temp_allocator() const { return temp_allocator_; }
  void* allocate(size_t size, size_t alignment = MemoryAllocator::kDefaultAlignment) const {
    return temp_allocator_ == nullptr ? nullptr : temp_allocator_->allocate(size, alignment);
  }
  const char* get_method_name() const { return method_name_; }

 private:
  EventTracer* event_tracer_;
  MemoryAllocator* temp_allocator_;
  const char* method_name_;
};

/// A backend's runtime. One instance serves every delegate of its id; it must outlive every
/// Method that uses it.
class BackendInterface {
 public:
  virtual ~BackendInterface() = default;

  /// False when the backend cannot run here (e.g. missing hardware); load then fails.
  virtual bool is_available() const = 0;

  /// Prepares one delegate. `processed` is the blob: it stays valid until the Method is
  /// destroyed unless the backend calls processed->free() (e.g. after copying what it needs).
  /// `compile_specs` point into the program. Returns a handle (may be null) or an error, which
  /// fails Method loading.
  virtual Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed,
                                       Span<const CompileSpec> compile_specs) const = 0;

  /// Runs the delegate. `args` are DelegateCall.args resolved to values: the inputs, then the
  /// flattened outputs (no extra return slot).
  virtual Error execute(BackendExecutionContext& context, DelegateHandle* handle,
                        Span<EValue*> args) const = 0;

  /// Releases a handle from init(); called once when the Method is destroyed.
  virtual void destroy(DelegateHandle* handle) const { (void)handle; }
};

/// A registry entry. `name` is what BackendDelegate.id must equal; it must have static storage
/// duration (or outlive the registry entry), as must `backend`.
struct Backend {
  const char* name;
  BackendInterface* backend;
};

/// Most backends the registry holds (a fixed table; no heap).
constexpr size_t kMaxRegisteredBackends = 32;

/// Adds a backend. Errors: InvalidArgument (null name/backend, or the name is already taken),
/// OutOfResources (table full). Usable from a static initializer.
Error register_backend(const Backend& backend);

/// The backend registered under `name`, or nullptr.
BackendInterface* get_backend_class(std::string_view name);

/// Number of registered backends and the name of entry `index` (nullptr when out of range).
size_t get_num_registered_backends();
const char* get_registered_backend_name(size_t index);

}  // namespace ptec::runtime
