#include "ir/program_archive.h"

#include <unistd.h>
#include <zip.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ir/exception.h"
#include "ir/graph_json.h"

namespace ptec::ir {
namespace {

using json = nlohmann::json;

constexpr const char* kFormat = "ptec.program_archive";
constexpr int kVersion = 1;
constexpr const char* kManifestEntry = "archive.json";
constexpr const char* kProgramEntry = "program.json";
constexpr size_t kAlignment = 64;
constexpr uint16_t kPaddingFieldId = 0xD935;  // as zipalign: an extra field of zeros
constexpr time_t kEntryTime = 315532800;      // 1980-01-01: archives are reproducible

std::mutex g_loaders_mutex;
std::map<std::string, CustomObjectLoader>& loaders() {
  static std::map<std::string, CustomObjectLoader> map;
  return map;
}

// ---- Writing ----

class ArchiveWriter {
 public:
  explicit ArchiveWriter(const std::string& path) : path_(path) {
    tmp_ = fmt::format("{}.tmp.{}", path, ::getpid());
    int code = 0;
    archive_ = zip_open(tmp_.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    if (archive_ == nullptr) {
      zip_error_t error;
      zip_error_init_with_code(&error, code);
      const std::string message = zip_error_strerror(&error);
      zip_error_fini(&error);
      raise(Error::AccessFailed, "cannot write '{}': {}", path_, message);
    }
  }
  ~ArchiveWriter() {
    if (archive_ != nullptr) {
      zip_discard(archive_);
      std::remove(tmp_.c_str());
    }
  }
  ArchiveWriter(const ArchiveWriter&) = delete;
  ArchiveWriter& operator=(const ArchiveWriter&) = delete;

  /// Adds a stored entry whose data starts at a multiple of kAlignment in the file. The bytes
  /// are read when the archive is closed (`keep` holds them until then).
  void add(const std::string& name, const uint8_t* data, size_t size, std::shared_ptr<void> keep) {
    keep_.push_back(std::move(keep));
    zip_source_t* src = zip_source_buffer(archive_, data, size, 0);
    const zip_int64_t index =
        src == nullptr ? -1 : zip_file_add(archive_, name.c_str(), src, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      if (src != nullptr) zip_source_free(src);
      fail(fmt::format("cannot add entry '{}'", name));
    }
    const auto i = static_cast<zip_uint64_t>(index);
    zip_set_file_compression(archive_, i, ZIP_CM_STORE, 0);
    zip_file_set_mtime(archive_, i, kEntryTime, 0);
    // Local header: 30 bytes, the name, then our padding field (4-byte header + zeros).
    const size_t header = 30 + name.size() + 4;
    const size_t pad = (kAlignment - (offset_ + header) % kAlignment) % kAlignment;
    static const std::vector<uint8_t> zeros(kAlignment, 0);
    if (zip_file_extra_field_set(archive_, i, kPaddingFieldId, ZIP_EXTRA_FIELD_NEW, zeros.data(),
                                 static_cast<zip_uint16_t>(pad), ZIP_FL_LOCAL) != 0) {
      fail(fmt::format("cannot pad entry '{}'", name));
    }
    offset_ += header + pad + size;
  }

  void commit() {
    if (zip_close(archive_) != 0) fail("cannot finish the archive");
    archive_ = nullptr;
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      const int err = errno;
      std::remove(tmp_.c_str());
      raise(Error::AccessFailed, "cannot write '{}': {}", path_, std::strerror(err));
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    raise(Error::AccessFailed, "cannot write '{}': {}: {}", path_, what,
          zip_error_strerror(zip_get_error(archive_)));
  }

  std::string path_;
  std::string tmp_;
  zip_t* archive_ = nullptr;
  size_t offset_ = 0;
  std::vector<std::shared_ptr<void>> keep_;
};

// ---- Reading: the central directory of the mapped file ----

struct Entry {
  uint16_t method = 0;
  uint64_t compressed = 0;
  uint64_t size = 0;
  uint64_t local = 0;
};

class ArchiveReader {
 public:
  explicit ArchiveReader(const std::string& path) : path_(path) {
    file_ = Buffer::map_file(path);
    const uint8_t* p = file_->data();
    const size_t n = file_->size();
    if (n < 4 || std::memcmp(p, "PK\x03\x04", 4) != 0) {
      raise(Error::InvalidArgument, "{}: not a program archive (not a zip file)", path_);
    }
    // End of central directory (and its zip64 form).
    size_t eocd = SIZE_MAX;
    for (size_t at = n >= 22 ? n - 22 : 0; n >= 22; --at) {
      if (u32(p + at) == 0x06054b50) {
        eocd = at;
        break;
      }
      if (at == 0 || n - at > 22 + 65535) break;
    }
    check(eocd != SIZE_MAX, "no end of central directory");
    uint64_t count = u16(p + eocd + 10);
    uint64_t cd_size = u32(p + eocd + 12);
    uint64_t cd_offset = u32(p + eocd + 16);
    if (count == 0xFFFF || cd_offset == 0xFFFFFFFF || cd_size == 0xFFFFFFFF) {
      check(eocd >= 20 && u32(p + eocd - 20) == 0x07064b50, "no zip64 locator");
      const uint64_t z = u64(p + eocd - 20 + 8);
      check(z <= n - 56 && u32(p + z) == 0x06064b50, "bad zip64 end of central directory");
      count = u64(p + z + 32);
      cd_size = u64(p + z + 40);
      cd_offset = u64(p + z + 48);
    }
    check(cd_offset <= n && cd_size <= n - cd_offset, "central directory past the end");
    uint64_t at = cd_offset;
    for (uint64_t i = 0; i < count; ++i) {
      check(at + 46 <= cd_offset + cd_size && u32(p + at) == 0x02014b50,
            "bad central directory entry");
      Entry e;
      e.method = u16(p + at + 10);
      e.compressed = u32(p + at + 20);
      e.size = u32(p + at + 24);
      const uint16_t name_len = u16(p + at + 28), extra_len = u16(p + at + 30);
      const uint16_t comment_len = u16(p + at + 32);
      e.local = u32(p + at + 42);
      check(at + 46 + name_len + extra_len + comment_len <= cd_offset + cd_size,
            "central directory entry past its end");
      const std::string name(reinterpret_cast<const char*>(p + at + 46), name_len);
      // Zip64 sizes and offset.
      const uint8_t* x = p + at + 46 + name_len;
      for (size_t k = 0; k + 4 <= extra_len;) {
        const uint16_t id = u16(x + k), len = u16(x + k + 2);
        check(k + 4 + len <= extra_len, "bad extra field");
        if (id == 0x0001) {
          size_t f = k + 4;
          auto take = [&](uint64_t& v) {
            if (v != 0xFFFFFFFF) return;
            check(f + 8 <= k + 4 + len, "bad zip64 extra field");
            v = u64(x + f);
            f += 8;
          };
          take(e.size);
          take(e.compressed);
          take(e.local);
        }
        k += 4 + len;
      }
      entries_[name] = e;
      at += 46 + name_len + extra_len + comment_len;
    }
  }
  ~ArchiveReader() {
    if (zip_ != nullptr) zip_discard(zip_);
  }
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  bool has(const std::string& name) const { return entries_.count(name) != 0; }

  /// The bytes of entry `name`: a view into the mapping when stored and aligned, else read once.
  BufferPtr read(const std::string& name) {
    auto it = entries_.find(name);
    check(it != entries_.end(), fmt::format("entry '{}' is missing", name));
    const Entry& e = it->second;
    const uint8_t* p = file_->data();
    const size_t n = file_->size();
    check(e.local <= n - 30 && u32(p + e.local) == 0x04034b50,
          fmt::format("entry '{}' has no local header", name));
    const uint64_t data = e.local + 30 + u16(p + e.local + 26) + u16(p + e.local + 28);
    if (e.method == 0 && e.compressed == e.size && data <= n && e.size <= n - data &&
        reinterpret_cast<uintptr_t>(p + data) % 16 == 0) {
      return Buffer::slice(file_, static_cast<size_t>(data), static_cast<size_t>(e.size));
    }
    return read_with_libzip(name, e.size);
  }

 private:
  void check(bool ok, const std::string& what) const {
    if (!ok) raise(Error::InvalidProgram, "{}: damaged program archive: {}", path_, what);
  }
  static uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
  static uint32_t u32(const uint8_t* p) {
    return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
           static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
  }
  static uint64_t u64(const uint8_t* p) { return uint64_t{u32(p)} | uint64_t{u32(p + 4)} << 32; }

  BufferPtr read_with_libzip(const std::string& name, uint64_t size) {
    if (zip_ == nullptr) {
      int code = 0;
      zip_ = zip_open(path_.c_str(), ZIP_RDONLY, &code);
      check(zip_ != nullptr, "libzip cannot open it");
    }
    zip_file_t* f = zip_fopen(zip_, name.c_str(), 0);
    check(f != nullptr, fmt::format("cannot open entry '{}'", name));
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    size_t at = 0;
    while (at < bytes.size()) {
      const zip_int64_t got = zip_fread(f, bytes.data() + at, bytes.size() - at);
      if (got <= 0) break;
      at += static_cast<size_t>(got);
    }
    zip_fclose(f);
    check(at == bytes.size(), fmt::format("entry '{}' is truncated", name));
    return Buffer::from_vector(std::move(bytes));
  }

  std::string path_;
  BufferPtr file_;
  std::map<std::string, Entry> entries_;
  zip_t* zip_ = nullptr;
};

}  // namespace

void register_custom_object_loader(const std::string& type, CustomObjectLoader loader) {
  std::lock_guard<std::mutex> lock(g_loaders_mutex);
  loaders()[type] = std::move(loader);
}

void save_program(const ExportedProgram& program, const std::string& path) {
  // A structural copy in which each live-only object carries its serialized bytes (one
  // serialization per object, even when several entries share it).
  ExportedProgram staged = program;
  std::map<const OpaqueObject*, BufferPtr> serialized;
  json live = json::array();
  for (auto& [name, object] : staged.custom_objects()) {
    if (object.object == nullptr || object.payload != nullptr) continue;
    BufferPtr& bytes = serialized[object.object.get()];
    if (bytes == nullptr) bytes = object.object->serialize();
    PTEC_ENFORCE(bytes != nullptr, InvalidState, "custom object '{}' serialized to nothing", name);
    object.payload = bytes;
    live.push_back(name);
  }
  ArchiveWriter writer(path);
  std::map<const Buffer*, std::string> stored;
  std::vector<std::pair<std::string, const Buffer*>> order;
  const std::string text = to_json(staged, [&](const std::string&, const Buffer& payload) {
    auto it = stored.find(&payload);
    if (it != stored.end()) return it->second;
    const std::string entry = fmt::format("payloads/{}", stored.size());
    stored[&payload] = entry;
    order.emplace_back(entry, &payload);
    return entry;
  });
  // The writer callback sees Buffers by reference; find their owners for keep-alive.
  std::map<const Buffer*, BufferPtr> owners;
  auto own = [&](const BufferPtr& b) {
    if (b != nullptr) owners[b.get()] = b;
  };
  for (const auto& [n, t] : staged.state_dict()) own(t.data);
  for (const auto& [n, t] : staged.constants()) own(t.data);
  for (const auto& [n, o] : staged.custom_objects()) own(o.payload);
  for (const TensorData& t : staged.example_inputs()) own(t.data);
  const json manifest{{"format", kFormat}, {"version", kVersion}, {"live_objects", live}};
  auto manifest_text = std::make_shared<std::string>(manifest.dump());
  auto program_text = std::make_shared<std::string>(text);
  writer.add(kManifestEntry, reinterpret_cast<const uint8_t*>(manifest_text->data()),
             manifest_text->size(), manifest_text);
  writer.add(kProgramEntry, reinterpret_cast<const uint8_t*>(program_text->data()),
             program_text->size(), program_text);
  for (const auto& [entry, buffer] : order) {
    const BufferPtr& owner = owners.at(buffer);
    writer.add(entry, owner->data(), owner->size(), std::const_pointer_cast<Buffer>(owner));
  }
  writer.commit();
}

ExportedProgram load_program(const std::string& path) {
  ArchiveReader reader(path);
  if (!reader.has(kManifestEntry) || !reader.has(kProgramEntry)) {
    raise(Error::InvalidArgument, "{}: not a program archive (no {} and {})", path, kManifestEntry,
          kProgramEntry);
  }
  const BufferPtr manifest_bytes = reader.read(kManifestEntry);
  json manifest;
  try {
    manifest = json::parse(manifest_bytes->data(), manifest_bytes->data() + manifest_bytes->size());
  } catch (const json::exception& e) {
    raise(Error::InvalidProgram, "{}: damaged program archive: {}: {}", path, kManifestEntry,
          e.what());
  }
  if (!manifest.is_object() || manifest.value("format", "") != kFormat) {
    raise(Error::InvalidArgument, "{}: not a program archive (format is not {})", path, kFormat);
  }
  PTEC_ENFORCE(manifest.value("version", 0) == kVersion, InvalidProgram,
               "{}: program archive version {} (this build reads {})", path,
               manifest.value("version", 0), kVersion);
  const BufferPtr program_bytes = reader.read(kProgramEntry);
  ExportedProgram program = program_from_json(
      std::string_view(reinterpret_cast<const char*>(program_bytes->data()), program_bytes->size()),
      [&](const std::string& key, size_t nbytes, const std::string&) -> BufferPtr {
        const BufferPtr data = reader.read(key);
        PTEC_ENFORCE(data->size() == nbytes, InvalidProgram,
                     "{}: damaged program archive: entry '{}' has {} bytes, recorded {}", path, key,
                     data->size(), nbytes);
        return data;
      });
  for (const json& name : manifest.value("live_objects", json::array())) {
    PTEC_ENFORCE(name.is_string(), InvalidProgram, "{}: damaged program archive: live_objects",
                 path);
    auto it = program.custom_objects().find(name.get<std::string>());
    PTEC_ENFORCE(it != program.custom_objects().end(), InvalidProgram,
                 "{}: damaged program archive: live object '{}' is not in the program", path,
                 name.get<std::string>());
    CustomObject& object = it->second;
    CustomObjectLoader loader;
    {
      std::lock_guard<std::mutex> lock(g_loaders_mutex);
      auto l = loaders().find(object.type);
      if (l != loaders().end()) loader = l->second;
    }
    PTEC_ENFORCE(loader != nullptr, InvalidProgram,
                 "{}: custom object '{}' of type '{}' needs a loader (register one with "
                 "register_custom_object_loader; for engines, ptec::engine::"
                 "register_engine_loader())",
                 path, it->first, object.type);
    object.object = loader(it->first, object);
    object.payload = nullptr;
  }
  return program;
}

}  // namespace ptec::ir
