#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <optional>

#include "devtools/etrecord/etrecord.h"
#include "emit/constant_value.h"
#include "emit/emitted_program.h"
#include "ir/exported_program.h"
#include "program/executorch_backend_config.h"

namespace ptec::program {

/// The result of to_executorch: the emitted program (memory planned, execution plans, segments)
/// and the per-method programs at stage EXECUTORCH. A value: copies share the emitted program.
class ExecutorchProgramManager {
 public:
  ExecutorchProgramManager(
      std::map<std::string, std::shared_ptr<const ir::ExportedProgram>> methods,
      std::map<std::string, emit::ConstantValue> constant_methods,
      std::shared_ptr<const emit::EmittedProgram> emitted, ExecutorchBackendConfig config,
      std::optional<devtools::ETRecord> etrecord = std::nullopt);

  /// Method names, sorted (the execution plan order).
  std::vector<std::string> methods() const;
  /// Constant method names, sorted.
  std::vector<std::string> config_methods() const;
  /// The EXECUTORCH-stage program of method `name`; NotFound listing the methods otherwise.
  const ir::ExportedProgram& exported_program(const std::string& name = "forward") const;
  const emit::EmittedProgram& emitted() const { return *emitted_; }
  const ExecutorchBackendConfig& config() const { return config_; }

  /// Streams the .pte to `out` (constants and blobs straight from their payloads; no second
  /// in-memory copy). AccessFailed when the stream fails.
  void write_to_file(std::ostream& out) const;
  /// Writes the .pte to `path` atomically and, when the program has external constants, the
  /// .ptd of the same stem beside it. AccessFailed naming the path on failure.
  void write_to_file(const std::string& path) const;
  /// Writes the external constants as `<dir>/<stem>.ptd` (FlatTensor, FORMAT.md §5), `stem`
  /// defaulting to "model". Returns the path written. InvalidState when there are no external
  /// constants (external_constants was off); AccessFailed on I/O failure.
  std::string write_tensor_data_to_file(const std::string& dir,
                                        const std::string& stem = "model") const;
  /// True when write_tensor_data_to_file has something to write.
  bool has_external_tensor_data() const { return !emitted_->external_tensors.empty(); }
  /// The whole .pte in memory (a copy: tests and small programs).
  std::vector<uint8_t> buffer() const;

  /// method → instruction id → debug handle (exir's debug_handle_map).
  std::map<std::string, std::map<int64_t, int64_t>> debug_handle_map() const;
  /// method → instruction id → delegate call (backend id, debug handles).
  std::map<std::string, std::map<int64_t, emit::DelegateCallRecord>> delegate_map() const;
  /// method → instruction id → number of outputs, for delegate calls.
  std::map<std::string, std::map<int64_t, size_t>> instruction_id_to_num_outs_map() const;

  /// This manager's record (export with generate_etrecord): the Edge manager's record plus the
  /// executorch maps of every method. Each to_executorch call makes its own; the non-const
  /// overload lets a user add representative inputs or reference outputs. InvalidState naming the
  /// flag when export ran without it.
  const devtools::ETRecord& get_etrecord() const;
  devtools::ETRecord& get_etrecord();
  bool has_etrecord() const { return etrecord_.has_value(); }

 private:
  std::map<std::string, std::shared_ptr<const ir::ExportedProgram>> methods_;
  std::map<std::string, emit::ConstantValue> constant_methods_;
  std::shared_ptr<const emit::EmittedProgram> emitted_;
  ExecutorchBackendConfig config_;
  std::optional<devtools::ETRecord> etrecord_;
};

}  // namespace ptec::program
