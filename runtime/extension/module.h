#pragma once

// Module: the one-object way to run a .pte (heap allowed). It owns the data loader, the
// Program, an optional .ptd data map, and for each loaded method its planned buffers (sized from
// MethodMeta), a growable method allocator and a temp allocator.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "runtime/core/evalue.h"
#include "runtime/core/event_tracer.h"
#include "runtime/executor/flatbuffer_data_map.h"
#include "runtime/executor/program.h"
#include "runtime/loader/data_loader.h"

namespace ptec::runtime {

class Module final {
 public:
  enum class LoadMode : uint8_t {
    File,  ///< pread into heap buffers (FileDataLoader)
    Mmap,  ///< map the file read-only (MmapDataLoader)
  };

  /// Nothing is read until load() or the first call that needs the program. `data_path` names
  /// a .ptd with external tensors ("" for none). `event_tracer` (may be null) must outlive the
  /// Module; it receives every method's events, including the allocations of the Module's
  /// method and temp allocators.
  explicit Module(std::string path, std::string data_path = "", LoadMode mode = LoadMode::Mmap,
                  EventTracer* event_tracer = nullptr);
  /// Runs a program already in memory (`data` must outlive the Module and be 16-byte aligned).
  Module(const void* data, size_t size, EventTracer* event_tracer = nullptr);
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// Opens and verifies the program (and the .ptd). Idempotent once it succeeded.
  /// Errors: those of the loaders, Program::load and FlatTensorDataMap::load.
  Error load(Program::Verification verification = Program::Verification::InternalConsistency);
  bool is_loaded() const { return program_ != nullptr; }
  /// The loaded program (loads it first); nullptr when loading failed.
  const Program* program();

  /// Every method name in program order. Errors: those of load().
  Result<std::vector<std::string>> method_names();
  Result<MethodMeta> method_meta(const std::string& method_name);

  /// Loads `method_name` (once) with buffers sized from its MethodMeta. Errors: those of
  /// load() and Program::load_method().
  Error load_method(const std::string& method_name);
  bool is_method_loaded(const std::string& method_name) const;
  /// The loaded method (loading it first). Valid while the Module lives.
  Result<Method*> method(const std::string& method_name);

  /// Sets input `index` of `method_name` (see Method::set_input).
  Error set_input(const std::string& method_name, const EValue& value, size_t index);
  /// Sets every input, executes and returns the outputs. Tensor outputs are views into the
  /// method's memory, valid until its next execution or until the Module is destroyed.
  Result<std::vector<EValue>> execute(const std::string& method_name,
                                      const std::vector<EValue>& inputs);
  /// Executes with the inputs already set.
  Result<std::vector<EValue>> execute(const std::string& method_name);
  Result<std::vector<EValue>> forward(const std::vector<EValue>& inputs) {
    return execute("forward", inputs);
  }

 private:
  struct MethodHolder;

  std::string path_;
  std::string data_path_;
  LoadMode mode_;
  const void* buffer_ = nullptr;
  size_t buffer_size_ = 0;
  EventTracer* event_tracer_;
  std::unique_ptr<DataLoader> loader_;
  std::unique_ptr<DataLoader> data_loader_;
  std::unique_ptr<Program> program_;
  std::unique_ptr<FlatTensorDataMap> data_map_;
  std::map<std::string, std::unique_ptr<MethodHolder>> methods_;
};

}  // namespace ptec::runtime
