#include "devtools/etrecord/etrecord.h"

#include <zip.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "emit/atomic_file.h"
#include "emit/emitted_program.h"
#include "ir/detail/text_payload.h"
#include "ir/exception.h"
#include "ir/graph_json.h"
#include "ir/printer.h"

namespace ptec::devtools {

namespace e = etrecord_entries;
using nlohmann::json;

namespace {

std::atomic<uint64_t> g_snapshots{0};

constexpr const char* kManifestFormat = "ptec.etrecord";
constexpr int kManifestVersion = 1;
/// Entries get a fixed modification time so that equal records give equal files.
constexpr time_t kEntryTime = 315619200;  // 1980-01-02

template <typename Map>
std::string keys_of(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : map) keys.push_back(k);
  return keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", "));
}

// ---- map JSON (FORMAT.md §7) ----

json debug_handle_map_json(const std::map<std::string, MethodDebugHandleMap>& map,
                           const std::map<std::string, MethodDelegateMap>& delegates) {
  json out = json::object();
  for (const auto& [method, entries] : map) {
    json m = json::object();
    auto d = delegates.find(method);
    for (const auto& [id, handles] : entries) {
      const bool is_delegate = d != delegates.end() && d->second.count(id) != 0;
      if (handles.size() == 1 && !is_delegate) {
        m[std::to_string(id)] = handles[0];
      } else {
        m[std::to_string(id)] = handles;
      }
    }
    out[method] = std::move(m);
  }
  return out;
}

json delegate_map_json(const std::map<std::string, MethodDelegateMap>& map) {
  json out = json::object();
  for (const auto& [method, entries] : map) {
    json m = json::object();
    for (const auto& [id, call] : entries) {
      json inner = json::object();
      for (const auto& [debug_id, handles] : call.delegate_map) {
        inner[std::to_string(debug_id)] = handles;
      }
      m[std::to_string(id)] = json{{"name", call.name}, {"delegate_map", std::move(inner)}};
    }
    out[method] = std::move(m);
  }
  return out;
}

json num_outs_map_json(const std::map<std::string, MethodNumOutsMap>& map) {
  json out = json::object();
  for (const auto& [method, entries] : map) {
    json m = json::object();
    for (const auto& [id, n] : entries) m[std::to_string(id)] = n;
    out[method] = std::move(m);
  }
  return out;
}

[[noreturn]] void bad_entry(const std::string& path, const std::string& entry,
                            const std::string& problem) {
  raise(Error::InvalidArgument, "{}: etrecord entry '{}': {}", path, entry, problem);
}

int64_t parse_id(const std::string& key, const std::string& path, const std::string& entry) {
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(key, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != key.size() || key.empty()) {
    bad_entry(path, entry, fmt::format("'{}' is not an integer id", key));
  }
  return v;
}

std::vector<int64_t> handles_from(const json& j, const std::string& path,
                                  const std::string& entry) {
  std::vector<int64_t> out;
  if (j.is_number_integer()) {
    out.push_back(j.get<int64_t>());
  } else if (j.is_array()) {
    for (const json& h : j) {
      if (!h.is_number_integer()) bad_entry(path, entry, "a debug handle is not an integer");
      out.push_back(h.get<int64_t>());
    }
  } else if (!j.is_null()) {
    bad_entry(path, entry, fmt::format("expected a debug handle or a list, got {}", j.dump()));
  }
  return out;
}

const json& method_object(const json& doc, const std::string& path, const std::string& entry) {
  if (!doc.is_object()) bad_entry(path, entry, "expected an object keyed by method");
  return doc;
}

std::map<std::string, MethodDebugHandleMap> debug_handle_map_from(const json& doc,
                                                                  const std::string& path) {
  std::map<std::string, MethodDebugHandleMap> out;
  for (const auto& [method, entries] : method_object(doc, path, e::kDebugHandleMap).items()) {
    if (!entries.is_object())
      bad_entry(path, e::kDebugHandleMap, "a method's map is not an object");
    MethodDebugHandleMap& m = out[method];
    for (const auto& [id, handles] : entries.items()) {
      m[parse_id(id, path, e::kDebugHandleMap)] = handles_from(handles, path, e::kDebugHandleMap);
    }
  }
  return out;
}

std::map<std::string, MethodDelegateMap> delegate_map_from(const json& doc,
                                                           const std::string& path) {
  std::map<std::string, MethodDelegateMap> out;
  for (const auto& [method, entries] : method_object(doc, path, e::kDelegateMap).items()) {
    if (!entries.is_object()) bad_entry(path, e::kDelegateMap, "a method's map is not an object");
    MethodDelegateMap& m = out[method];
    for (const auto& [id, call] : entries.items()) {
      if (!call.is_object()) bad_entry(path, e::kDelegateMap, "a delegate call is not an object");
      DelegateCallInfo info;
      if (call.contains("name") && call["name"].is_string()) info.name = call["name"];
      if (call.contains("delegate_map") && call["delegate_map"].is_object()) {
        for (const auto& [debug_id, handles] : call["delegate_map"].items()) {
          info.delegate_map[parse_id(debug_id, path, e::kDelegateMap)] =
              handles_from(handles, path, e::kDelegateMap);
        }
      }
      m[parse_id(id, path, e::kDelegateMap)] = std::move(info);
    }
  }
  return out;
}

std::map<std::string, MethodNumOutsMap> num_outs_map_from(const json& doc,
                                                          const std::string& path) {
  std::map<std::string, MethodNumOutsMap> out;
  for (const auto& [method, entries] : method_object(doc, path, e::kNumOutsMap).items()) {
    if (!entries.is_object()) bad_entry(path, e::kNumOutsMap, "a method's map is not an object");
    MethodNumOutsMap& m = out[method];
    for (const auto& [id, n] : entries.items()) {
      if (!n.is_number_integer()) bad_entry(path, e::kNumOutsMap, "a count is not an integer");
      m[parse_id(id, path, e::kNumOutsMap)] = n.get<int64_t>();
    }
  }
  return out;
}

json parse_json(const std::string& text, const std::string& path, const std::string& entry) {
  try {
    return json::parse(text);
  } catch (const json::exception& ex) {
    bad_entry(path, entry, fmt::format("not valid JSON: {}", ex.what()));
  }
}

// ---- zip writing (in memory, then one atomic file write) ----

class ZipWriter {
 public:
  ZipWriter() {
    zip_error_t error;
    zip_error_init(&error);
    source_ = zip_source_buffer_create(nullptr, 0, 0, &error);
    if (source_ == nullptr) fail_with(&error, "cannot create the archive in memory");
    zip_source_keep(source_);
    archive_ = zip_open_from_source(source_, ZIP_TRUNCATE, &error);
    if (archive_ == nullptr) {
      zip_source_free(source_);
      source_ = nullptr;
      fail_with(&error, "cannot create the archive in memory");
    }
    zip_error_fini(&error);
  }
  ~ZipWriter() {
    if (archive_ != nullptr) zip_discard(archive_);
    if (source_ != nullptr) zip_source_free(source_);
  }
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  bool has(const std::string& name) const { return names_.count(name) != 0; }

  /// Adds an entry holding `text` (deflated).
  void add(const std::string& name, std::string text) {
    texts_.push_back(std::move(text));
    add_bytes(name, texts_.back().data(), texts_.back().size(), /*store=*/false);
  }
  /// Adds an entry holding a payload's bytes (stored, not compressed; read at close).
  void add(const std::string& name, const ir::BufferPtr& payload) {
    payloads_.push_back(payload);
    add_bytes(name, payload->data(), payload->size(), /*store=*/true);
  }

  /// Finishes the archive and writes it to `path` atomically.
  void write_to(const std::string& path) {
    if (zip_close(archive_) != 0) {
      const std::string message = zip_error_strerror(zip_get_error(archive_));
      raise(Error::AccessFailed, "cannot write '{}': {}", path, message);
    }
    archive_ = nullptr;
    emit::AtomicFileWriter out(path);
    if (zip_source_open(source_) != 0) {
      raise(Error::AccessFailed, "cannot write '{}': {}", path,
            zip_error_strerror(zip_source_error(source_)));
    }
    std::vector<char> chunk(1 << 16);
    for (;;) {
      const zip_int64_t n = zip_source_read(source_, chunk.data(), chunk.size());
      if (n < 0) {
        const std::string message = zip_error_strerror(zip_source_error(source_));
        zip_source_close(source_);
        raise(Error::AccessFailed, "cannot write '{}': {}", path, message);
      }
      if (n == 0) break;
      out.write(chunk.data(), static_cast<size_t>(n));
    }
    zip_source_close(source_);
    out.commit();
  }

 private:
  [[noreturn]] static void fail_with(zip_error_t* error, const char* what) {
    const std::string message = zip_error_strerror(error);
    zip_error_fini(error);
    raise(Error::AccessFailed, "etrecord: {}: {}", what, message);
  }

  void add_bytes(const std::string& name, const void* data, size_t size, bool store) {
    PTEC_ENFORCE(names_.insert(name).second, InvalidState, "etrecord: entry '{}' written twice",
                 name);
    zip_source_t* src = zip_source_buffer(archive_, data, size, 0);
    if (src == nullptr) {
      raise(Error::AccessFailed, "etrecord: cannot add entry '{}': {}", name,
            zip_error_strerror(zip_get_error(archive_)));
    }
    const zip_int64_t index = zip_file_add(archive_, name.c_str(), src, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(src);
      raise(Error::AccessFailed, "etrecord: cannot add entry '{}': {}", name,
            zip_error_strerror(zip_get_error(archive_)));
    }
    const auto i = static_cast<zip_uint64_t>(index);
    if (store) zip_set_file_compression(archive_, i, ZIP_CM_STORE, 0);
    zip_file_set_mtime(archive_, i, kEntryTime, 0);
  }

  zip_source_t* source_ = nullptr;
  zip_t* archive_ = nullptr;
  std::deque<std::string> texts_;
  std::vector<ir::BufferPtr> payloads_;
  std::set<std::string> names_;
};

// ---- zip reading ----

class ZipReader {
 public:
  explicit ZipReader(std::string path) : path_(std::move(path)) {
    std::ifstream probe(path_, std::ios::binary);
    if (!probe) {
      raise(Error::AccessFailed, "cannot read '{}': {}", path_, std::strerror(errno));
    }
    char magic[4] = {};
    probe.read(magic, 4);
    const bool zip_magic = probe.gcount() == 4 && magic[0] == 'P' && magic[1] == 'K' &&
                           ((magic[2] == 3 && magic[3] == 4) || (magic[2] == 5 && magic[3] == 6));
    if (!zip_magic) {
      raise(Error::InvalidArgument, "{}: invalid etrecord file (not a zip archive)", path_);
    }
    int code = 0;
    archive_ = zip_open(path_.c_str(), ZIP_RDONLY, &code);
    if (archive_ == nullptr) {
      zip_error_t error;
      zip_error_init_with_code(&error, code);
      const std::string message = zip_error_strerror(&error);
      zip_error_fini(&error);
      raise(Error::InvalidArgument, "{}: invalid etrecord file ({})", path_, message);
    }
    const zip_int64_t n = zip_get_num_entries(archive_, 0);
    for (zip_int64_t i = 0; i < n; ++i) {
      const char* name = zip_get_name(archive_, static_cast<zip_uint64_t>(i), 0);
      if (name != nullptr) names_.insert(name);
    }
  }
  ~ZipReader() {
    if (archive_ != nullptr) zip_discard(archive_);
  }
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;

  const std::set<std::string>& names() const { return names_; }
  bool has(const std::string& name) const { return names_.count(name) != 0; }

  std::vector<uint8_t> read(const std::string& name) const {
    const zip_int64_t index = zip_name_locate(archive_, name.c_str(), 0);
    if (index < 0) bad_entry(path_, name, "missing");
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(archive_, static_cast<zip_uint64_t>(index), 0, &st) != 0 ||
        (st.valid & ZIP_STAT_SIZE) == 0) {
      bad_entry(path_, name, zip_error_strerror(zip_get_error(archive_)));
    }
    zip_file_t* file = zip_fopen_index(archive_, static_cast<zip_uint64_t>(index), 0);
    if (file == nullptr) bad_entry(path_, name, zip_error_strerror(zip_get_error(archive_)));
    std::vector<uint8_t> bytes(static_cast<size_t>(st.size));
    size_t at = 0;
    while (at < bytes.size()) {
      const zip_int64_t got = zip_fread(file, bytes.data() + at, bytes.size() - at);
      if (got <= 0) {
        const std::string message = zip_error_strerror(zip_file_get_error(file));
        zip_fclose(file);
        bad_entry(path_, name, fmt::format("cannot read: {}", message));
      }
      at += static_cast<size_t>(got);
    }
    zip_fclose(file);
    return bytes;
  }

  std::string read_text(const std::string& name) const {
    const std::vector<uint8_t> bytes = read(name);
    return std::string(bytes.begin(), bytes.end());
  }

 private:
  std::string path_;
  zip_t* archive_ = nullptr;
  std::set<std::string> names_;
};

std::string payload_entry(const ir::Buffer& payload) {
  // A stand-in (a record loaded without payload bytes) has no bytes to store.
  PTEC_ENFORCE(dynamic_cast<const ir::detail::UnloadedPayload*>(&payload) == nullptr, InvalidState,
               "cannot store payload {} ({} bytes): its bytes are not available (the record was "
               "loaded from a file that holds references only)",
               ir::payload_hash(payload), payload.size());
  return fmt::format("{}{}_{}", e::kPayloadPrefix, ir::payload_hash(payload), payload.size());
}

/// Writes payload bytes into the archive (once per content) and returns their entry name.
ir::PayloadWriter storing_writer(ZipWriter& zip, std::map<const ir::Buffer*, ir::BufferPtr>& keep,
                                 const ir::ExportedProgram& program) {
  // The writer receives Buffer references; find the shared pointers to keep them alive.
  auto remember = [&keep](const ir::BufferPtr& b) {
    if (b != nullptr) keep.emplace(b.get(), b);
  };
  for (const auto& [n, t] : program.state_dict()) remember(t.data);
  for (const auto& [n, t] : program.constants()) remember(t.data);
  for (const auto& [n, o] : program.custom_objects()) remember(o.payload);
  for (const ir::TensorData& t : program.example_inputs()) remember(t.data);
  return [&zip, &keep](const std::string&, const ir::Buffer& payload) {
    const std::string name = payload_entry(payload);
    if (!zip.has(name)) zip.add(name, keep.at(&payload));
    return name;
  };
}

json tensors_json(ZipWriter& zip,
                  const std::map<std::string, std::vector<std::vector<ir::TensorData>>>& runs) {
  json out = json::object();
  for (const auto& [method, list] : runs) {
    json m = json::array();
    for (const auto& run : list) {
      json r = json::array();
      for (const ir::TensorData& t : run) {
        json entry{{"dtype", to_string(t.spec.dtype)}, {"sizes", t.spec.upper_bound_sizes()}};
        if (t.data != nullptr) {
          const std::string name = payload_entry(*t.data);
          if (!zip.has(name)) zip.add(name, t.data);
          entry["payload"] =
              json{{"key", name}, {"nbytes", t.data->size()}, {"hash", ir::payload_hash(*t.data)}};
        }
        r.push_back(std::move(entry));
      }
      m.push_back(std::move(r));
    }
    out[method] = std::move(m);
  }
  return out;
}

}  // namespace

ProgramPtr snapshot(const ir::ExportedProgram& program) {
  g_snapshots.fetch_add(1, std::memory_order_relaxed);
  return std::make_shared<const ir::ExportedProgram>(program);
}

uint64_t snapshot_count() { return g_snapshots.load(std::memory_order_relaxed); }

// ---- accessors ----

ProgramPtr ETRecord::aten_program(const std::string& method) const {
  auto it = aten_.find(method);
  PTEC_ENFORCE(it != aten_.end(), NotFound,
               "ETRecord: no ATEN program for method '{}' (recorded: {})", method, keys_of(aten_));
  return it->second;
}

ProgramPtr ETRecord::exported_program() const {
  auto it = aten_.find("forward");
  if (it != aten_.end()) return it->second;
  return aten_.size() == 1 ? aten_.begin()->second : nullptr;
}

ProgramPtr ETRecord::edge_program(const std::string& method) const {
  PTEC_ENFORCE(graphs_available(), NotSupported, "ETRecord: {}", graphs_unavailable_reason());
  auto it = edge_.find(method);
  PTEC_ENFORCE(it != edge_.end(), NotFound,
               "ETRecord: no Edge program for method '{}' (recorded: {})", method, keys_of(edge_));
  return it->second;
}

std::vector<std::string> ETRecord::methods() const {
  std::vector<std::string> out;
  for (const auto& [name, p] : edge_) out.push_back(name);
  return out;
}

std::map<int64_t, RecordedNode> ETRecord::node_index(const std::string& method) const {
  std::map<int64_t, RecordedNode> out;
  auto add = [&out](const ir::ExportedProgram& program) {
    for (const ir::Node* node : program.graph().nodes()) {
      if (!node->is_call() && !node->is_placeholder()) continue;
      if (out.count(node->debug_handle()) != 0) continue;
      out[node->debug_handle()] =
          RecordedNode{node->name(), node->is_call() ? node->target() : "placeholder",
                       node->meta().source, node->debug_handle()};
    }
  };
  add(*edge_program(method));
  auto after = after_.find(method);
  if (after != after_.end()) add(*after->second);
  return out;
}

std::vector<RecordedNode> ETRecord::nodes_for_instruction(const std::string& method,
                                                          int64_t instruction_id) const {
  std::vector<RecordedNode> out;
  auto m = debug_handle_map_.find(method);
  if (m == debug_handle_map_.end()) return out;
  auto it = m->second.find(instruction_id);
  if (it == m->second.end()) return out;
  const std::map<int64_t, RecordedNode> index = node_index(method);
  for (int64_t handle : it->second) {
    auto n = index.find(handle);
    if (n != index.end()) out.push_back(n->second);
  }
  return out;
}

const MethodDebugHandleMap& ETRecord::debug_handle_map(const std::string& method) const {
  auto it = debug_handle_map_.find(method);
  PTEC_ENFORCE(it != debug_handle_map_.end(), NotFound,
               "ETRecord: no debug_handle_map for method '{}' (recorded: {})", method,
               keys_of(debug_handle_map_));
  return it->second;
}

const MethodDelegateMap& ETRecord::delegate_map(const std::string& method) const {
  auto it = delegate_map_.find(method);
  PTEC_ENFORCE(it != delegate_map_.end(), NotFound,
               "ETRecord: no delegate_map for method '{}' (recorded: {})", method,
               keys_of(delegate_map_));
  return it->second;
}

const MethodNumOutsMap& ETRecord::instruction_id_to_num_outs_map(const std::string& method) const {
  auto it = num_outs_map_.find(method);
  PTEC_ENFORCE(it != num_outs_map_.end(), NotFound,
               "ETRecord: no instruction_id_to_num_outs_map for method '{}' (recorded: {})", method,
               keys_of(num_outs_map_));
  return it->second;
}

void ETRecord::set_representative_inputs(const std::string& method,
                                         std::vector<std::vector<ir::TensorData>> runs) {
  representative_inputs_[method] = std::move(runs);
}

void ETRecord::set_reference_outputs(const std::string& method,
                                     std::vector<std::vector<ir::TensorData>> runs) {
  reference_outputs_[method] = std::move(runs);
}

void ETRecord::set_aten_program(const std::string& method, ProgramPtr program) {
  PTEC_ENFORCE(program != nullptr, InvalidArgument, "ETRecord: null ATEN program for '{}'", method);
  aten_[method] = std::move(program);
}

void ETRecord::set_edge_program(const std::string& method, ProgramPtr program) {
  PTEC_ENFORCE(program != nullptr, InvalidArgument, "ETRecord: null Edge program for '{}'", method);
  edge_[method] = std::move(program);
}

void ETRecord::set_edge_after_transform(const std::string& method, ProgramPtr program) {
  PTEC_ENFORCE(program != nullptr, InvalidArgument,
               "ETRecord: null transformed Edge program for '{}'", method);
  after_[method] = std::move(program);
}

void ETRecord::set_executorch_maps(std::map<std::string, MethodDebugHandleMap> debug_handle_map,
                                   std::map<std::string, MethodDelegateMap> delegate_map,
                                   std::map<std::string, MethodNumOutsMap> num_outs_map) {
  debug_handle_map_ = std::move(debug_handle_map);
  delegate_map_ = std::move(delegate_map);
  num_outs_map_ = std::move(num_outs_map);
  has_maps_ = true;
}

std::string ETRecord::graphs_unavailable_reason() const {
  if (graphs_available()) return "";
  return fmt::format(
      "the record's graphs are in {} format, which ptec does not read; its maps "
      "(debug_handle_map, delegate_map) are available",
      graph_format_);
}

void record_executorch_maps(ETRecord& record, const emit::EmittedProgram& emitted) {
  std::map<std::string, MethodDebugHandleMap> handles;
  std::map<std::string, MethodDelegateMap> delegates;
  std::map<std::string, MethodNumOutsMap> num_outs;
  for (const emit::EmittedMethod& m : emitted.methods) {
    if (m.is_constant_method) continue;
    MethodDebugHandleMap& h = handles[m.name];
    MethodDelegateMap& d = delegates[m.name];
    MethodNumOutsMap& n = num_outs[m.name];
    for (const auto& [id, handle] : m.debug_handle_map) h[id] = {handle};
    for (const auto& [id, call] : m.delegate_calls) {
      h[id] = call.debug_handles;
      d[id] = DelegateCallInfo{call.backend_id, call.delegate_debug_map};
      n[id] = static_cast<int64_t>(call.num_outputs);
    }
  }
  record.set_executorch_maps(std::move(handles), std::move(delegates), std::move(num_outs));
}

// ---- save ----

void ETRecord::save(const std::string& path, const ETRecordSaveOptions& options) const {
  PTEC_ENFORCE(graphs_available(), InvalidState, "cannot save the ETRecord to '{}': {}", path,
               graphs_unavailable_reason());
  PTEC_ENFORCE(!edge_.empty(), InvalidState,
               "cannot save the ETRecord to '{}': it has no Edge program (export with "
               "generate_etrecord, or pass the EdgeProgramManager to generate_etrecord)",
               path);
  PTEC_ENFORCE(has_maps_, InvalidState,
               "cannot save the ETRecord to '{}': it has no debug_handle_map, delegate_map or "
               "instruction_id_to_num_outs_map (they are recorded by to_executorch; save the "
               "ExecutorchProgramManager's record)",
               path);

  ZipWriter zip;
  zip.add(e::kIdentifier, std::string());
  std::map<const ir::Buffer*, ir::BufferPtr> keep;
  auto graph = [&](const ir::ExportedProgram& program) {
    if (!options.store_payloads) return ir::to_json(program);
    return ir::to_json(program, storing_writer(zip, keep, program));
  };

  json manifest{{"format", kManifestFormat}, {"version", kManifestVersion}};
  const ProgramPtr exported = exported_program();
  std::string exported_method;
  json aten_methods = json::array();
  for (const auto& [method, program] : aten_) {
    aten_methods.push_back(method);
    if (program == exported && exported_method.empty()) {
      exported_method = method;
      zip.add(e::kExportedProgram, graph(*program));
    } else {
      zip.add(e::kAtenPrefix + method, graph(*program));
    }
  }
  manifest["aten_methods"] = std::move(aten_methods);
  if (!exported_method.empty()) manifest["exported_program_method"] = exported_method;
  json edge_methods = json::array();
  for (const auto& [method, program] : edge_) {
    edge_methods.push_back(method);
    zip.add(e::kEdgePrefix + method, graph(*program));
  }
  manifest["methods"] = std::move(edge_methods);
  json after_methods = json::array();
  for (const auto& [method, program] : after_) {
    after_methods.push_back(method);
    zip.add(e::kEdgeAfterTransformPrefix + method, graph(*program));
  }
  manifest["edge_after_transform"] = std::move(after_methods);
  manifest["store_payloads"] = options.store_payloads;

  zip.add(e::kDebugHandleMap, debug_handle_map_json(debug_handle_map_, delegate_map_).dump());
  zip.add(e::kDelegateMap, delegate_map_json(delegate_map_).dump());
  zip.add(e::kNumOutsMap, num_outs_map_json(num_outs_map_).dump());
  if (!representative_inputs_.empty()) {
    zip.add(e::kRepresentativeInputs, tensors_json(zip, representative_inputs_).dump());
  }
  if (!reference_outputs_.empty()) {
    zip.add(e::kReferenceOutputs, tensors_json(zip, reference_outputs_).dump());
  }
  if (export_graph_id_) zip.add(e::kExportGraphId, json(*export_graph_id_).dump());
  zip.add(e::kManifest, manifest.dump());
  zip.write_to(path);
}

// ---- load ----

ETRecord ETRecord::load(const std::string& path) {
  ZipReader zip(path);
  if (!zip.has(e::kIdentifier)) {
    raise(Error::InvalidArgument,
          "{}: invalid etrecord file: identifier missing (no {} entry; entries: {})", path,
          e::kIdentifier, fmt::join(zip.names(), ", "));
  }
  ETRecord record;
  record.entries_.assign(zip.names().begin(), zip.names().end());

  // Maps (both formats).
  if (zip.has(e::kDebugHandleMap) || zip.has(e::kDelegateMap)) record.has_maps_ = true;
  if (zip.has(e::kDebugHandleMap)) {
    record.debug_handle_map_ = debug_handle_map_from(
        parse_json(zip.read_text(e::kDebugHandleMap), path, e::kDebugHandleMap), path);
  }
  if (zip.has(e::kDelegateMap)) {
    record.delegate_map_ =
        delegate_map_from(parse_json(zip.read_text(e::kDelegateMap), path, e::kDelegateMap), path);
  }
  if (zip.has(e::kNumOutsMap)) {
    record.num_outs_map_ =
        num_outs_map_from(parse_json(zip.read_text(e::kNumOutsMap), path, e::kNumOutsMap), path);
  }
  if (zip.has(e::kExportGraphId)) {
    const json id = parse_json(zip.read_text(e::kExportGraphId), path, e::kExportGraphId);
    if (!id.is_number_integer()) bad_entry(path, e::kExportGraphId, "not an integer");
    record.export_graph_id_ = id.get<int64_t>();
  }

  if (!zip.has(e::kManifest)) {
    // Written by ExecuTorch's Python toolchain: torch.export-serialized graphs.
    record.graph_format_ = "torch.export JSON (ExecuTorch's Python toolchain)";
    return record;
  }
  const json manifest = parse_json(zip.read_text(e::kManifest), path, e::kManifest);
  if (!manifest.is_object() || manifest.value("format", "") != kManifestFormat) {
    bad_entry(path, e::kManifest, "not a ptec ETRecord manifest");
  }
  if (manifest.value("version", 0) != kManifestVersion) {
    bad_entry(path, e::kManifest,
              fmt::format("version {} is not supported (this build reads version {})",
                          manifest.value("version", 0), kManifestVersion));
  }
  record.graph_format_ = "ptec";

  // Payloads stored in the archive are read once and shared by every program that uses them.
  std::map<std::string, ir::BufferPtr> payloads;
  auto payload = [&](const std::string& key) -> ir::BufferPtr {
    if (key.rfind(e::kPayloadPrefix, 0) != 0 || !zip.has(key)) return nullptr;
    auto it = payloads.find(key);
    if (it == payloads.end())
      it = payloads.emplace(key, ir::Buffer::from_vector(zip.read(key))).first;
    return it->second;
  };
  const ir::PayloadReader reader = [&](const std::string& key, size_t, const std::string&) {
    return payload(key);
  };
  auto program = [&](const std::string& entry) -> ProgramPtr {
    try {
      return std::make_shared<const ir::ExportedProgram>(
          ir::program_from_json(zip.read_text(entry), reader));
    } catch (const Exception& ex) {
      bad_entry(path, entry, ex.what());
    }
  };
  auto strings = [&](const char* key) {
    std::vector<std::string> out;
    if (manifest.contains(key) && manifest[key].is_array()) {
      for (const json& s : manifest[key]) {
        if (s.is_string()) out.push_back(s.get<std::string>());
      }
    }
    return out;
  };
  const std::string exported_method = manifest.value("exported_program_method", "");
  for (const std::string& method : strings("aten_methods")) {
    record.aten_[method] =
        method == exported_method ? program(e::kExportedProgram) : program(e::kAtenPrefix + method);
  }
  for (const std::string& method : strings("methods")) {
    record.edge_[method] = program(e::kEdgePrefix + method);
  }
  for (const std::string& method : strings("edge_after_transform")) {
    record.after_[method] = program(e::kEdgeAfterTransformPrefix + method);
  }

  auto tensors = [&](const char* entry) {
    std::map<std::string, std::vector<std::vector<ir::TensorData>>> out;
    const json doc = parse_json(zip.read_text(entry), path, entry);
    if (!doc.is_object()) bad_entry(path, entry, "expected an object keyed by method");
    for (const auto& [method, runs] : doc.items()) {
      auto& list = out[method];
      for (const json& run : runs) {
        std::vector<ir::TensorData> row;
        for (const json& t : run) {
          const std::string dtype_name = t.value("dtype", "");
          const std::optional<DType> dtype = dtype_from_string(dtype_name);
          if (!dtype) bad_entry(path, entry, fmt::format("unknown dtype '{}'", dtype_name));
          ir::TensorData data;
          data.spec = ir::TensorSpec(*dtype, t.value("sizes", std::vector<int64_t>{}));
          if (t.contains("payload")) {
            const std::string key = t["payload"].value("key", "");
            data.data = payload(key);
            if (data.data == nullptr)
              bad_entry(path, entry, fmt::format("payload '{}' is missing", key));
          }
          row.push_back(std::move(data));
        }
        list.push_back(std::move(row));
      }
    }
    return out;
  };
  try {
    if (zip.has(e::kRepresentativeInputs)) {
      record.representative_inputs_ = tensors(e::kRepresentativeInputs);
    }
    if (zip.has(e::kReferenceOutputs)) record.reference_outputs_ = tensors(e::kReferenceOutputs);
  } catch (const json::exception& ex) {
    raise(Error::InvalidArgument, "{}: etrecord tensors: {}", path, ex.what());
  }
  return record;
}

}  // namespace ptec::devtools
