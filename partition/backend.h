#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "ir/exported_program.h"
#include "partition/delegation_spec.h"

namespace ptec::partition {

/// What Backend::preprocess produces for one partition.
struct PreprocessResult {
  /// The blob the runtime backend's init() receives (BackendDelegate.processed).
  ir::BufferPtr processed_bytes;
  /// Backend-defined delegate debug id → debug handles of the subgraph's nodes it covers
  /// (ExecuTorch's delegate map; may be empty).
  std::map<int64_t, std::vector<int64_t>> debug_handle_map;
  /// Blobs the runtime serves through the NamedDataMap (Program.named_data), by key.
  std::map<std::string, ir::BufferPtr> named_data;
};

/// The ahead-of-time half of a backend (ExecuTorch's BackendDetails): compiles one partition.
class Backend {
 public:
  virtual ~Backend() = default;
  /// The id the runtime looks the backend up by (BackendDelegate.id).
  virtual std::string id() const = 0;
  /// Compiles `subgraph` (an EDGE program: user inputs, then the partition's parameters, and
  /// one output per value the rest of the method uses). Throws ptec::Exception on failure.
  virtual PreprocessResult preprocess(const ir::ExportedProgram& subgraph,
                                      const std::vector<CompileSpec>& compile_specs) const = 0;
};

/// Registers `backend` under backend->id() in the process-wide ahead-of-time registry.
/// Throws InvalidArgument for a null backend or an id that is already taken by another object.
void register_backend(std::shared_ptr<const Backend> backend);
/// The backend registered as `id`; throws NotFound "Backend <id> is not registered
/// (registered: ...)".
const Backend& get_backend(const std::string& id);
/// Ids of every registered backend, sorted.
std::vector<std::string> registered_backends();

}  // namespace ptec::partition
