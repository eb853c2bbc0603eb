#include "backends/engine/engine_blob.h"

#include <cstring>
#include <optional>
#include <string_view>

#include "core/log.h"

namespace ptec::engine {
namespace {

#define BLOB_CHECK(cond, ...)       \
  do {                              \
    if (!(cond)) {                  \
      PTEC_LOG(Error, __VA_ARGS__); \
      return Error::InvalidProgram; \
    }                               \
  } while (false)

uint32_t u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

uint64_t u64(const uint8_t* p) {
  return static_cast<uint64_t>(u32(p)) | uint64_t{u32(p + 4)} << 32;
}

// A JSON reader over a byte range: no heap, no exceptions, bounded recursion. Strings are
// returned raw (the bytes between the quotes, escapes unresolved but validated).
class Json {
 public:
  Json(const char* p, const char* end) : p_(p), end_(end) {}

  void ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool at_end() {
    ws();
    return p_ == end_;
  }
  bool peek(char c) {
    ws();
    return p_ < end_ && *p_ == c;
  }
  bool consume(char c) {
    if (!peek(c)) return false;
    ++p_;
    return true;
  }
  bool string(std::string_view* out) {
    if (!consume('"')) return false;
    const char* start = p_;
    while (p_ < end_ && *p_ != '"') {
      if (static_cast<unsigned char>(*p_) < 0x20) return false;
      if (*p_ == '\\') {
        if (++p_ == end_) return false;
        if (*p_ == 'u') {
          for (int i = 0; i < 4; ++i) {
            if (++p_ == end_) return false;
            const char c = *p_;
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
              return false;
            }
          }
        } else if (std::strchr("\"\\/bfnrt", *p_) == nullptr) {
          return false;
        }
      }
      ++p_;
    }
    if (p_ == end_) return false;
    *out = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }
  bool integer(int64_t* out) {
    ws();
    bool negative = false;
    if (p_ < end_ && *p_ == '-') {
      negative = true;
      ++p_;
    }
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    uint64_t v = 0;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
      const uint64_t digit = static_cast<uint64_t>(*p_ - '0');
      if (v > (uint64_t{1} << 62) / 10) return false;  // keep far from overflow
      v = v * 10 + digit;
      ++p_;
    }
    if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
    *out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return true;
  }
  bool literal(const char* word) {
    ws();
    const size_t n = std::strlen(word);
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    p_ += n;
    return true;
  }
  bool skip_value(int depth = 0) {
    if (depth > 32) return false;
    ws();
    if (p_ == end_) return false;
    std::string_view s;
    switch (*p_) {
      case '"': return string(&s);
      case '{':
        ++p_;
        if (consume('}')) return true;
        do {
          if (!string(&s) || !consume(':') || !skip_value(depth + 1)) return false;
        } while (consume(','));
        return consume('}');
      case '[':
        ++p_;
        if (consume(']')) return true;
        do {
          if (!skip_value(depth + 1)) return false;
        } while (consume(','));
        return consume(']');
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: {
        const char* start = p_;
        while (p_ < end_ && std::strchr("+-0123456789.eE", *p_) != nullptr) ++p_;
        return p_ != start;
      }
    }
  }

 private:
  const char* p_;
  const char* end_;
};

// Reads one dim object {"min": a, "max": b, "symbol": "s"?}.
bool read_dim(Json& j, EngineDimView* dim) {
  if (!j.consume('{')) return false;
  bool has_min = false, has_max = false;
  if (!j.consume('}')) {
    do {
      std::string_view key;
      if (!j.string(&key) || !j.consume(':')) return false;
      if (key == "min") {
        if (!j.integer(&dim->min)) return false;
        has_min = true;
      } else if (key == "max") {
        if (!j.integer(&dim->max)) return false;
        has_max = true;
      } else if (key == "symbol") {
        std::string_view s;
        if (!j.string(&s)) return false;
        dim->symbol = s.data();
        dim->symbol_size = s.size();
      } else if (!j.skip_value()) {
        return false;
      }
    } while (j.consume(','));
    if (!j.consume('}')) return false;
  }
  return has_min && has_max && dim->min >= 0 && dim->max >= dim->min;
}

// Reads one binding object; `out` may be null (validation only).
bool read_binding(Json& j, EngineBindingView* out) {
  EngineBindingView b;
  bool has_name = false, has_direction = false, has_dtype = false, has_shape = false;
  if (!j.consume('{')) return false;
  if (!j.consume('}')) {
    do {
      std::string_view key, s;
      if (!j.string(&key) || !j.consume(':')) return false;
      if (key == "name") {
        if (!j.string(&s)) return false;
        b.name = s.data();
        b.name_size = s.size();
        has_name = true;
      } else if (key == "direction") {
        if (!j.string(&s) || (s != "input" && s != "output")) return false;
        b.input = s == "input";
        has_direction = true;
      } else if (key == "dtype") {
        if (!j.string(&s)) return false;
        const std::optional<DType> dtype = dtype_from_string(s);
        if (!dtype.has_value()) return false;
        b.dtype = *dtype;
        has_dtype = true;
      } else if (key == "shape") {
        if (!j.consume('[')) return false;
        if (!j.consume(']')) {
          do {
            if (b.rank == kEngineMaxRank || !read_dim(j, &b.dims[b.rank])) return false;
            ++b.rank;
          } while (j.consume(','));
          if (!j.consume(']')) return false;
        }
        has_shape = true;
      } else if (!j.skip_value()) {
        return false;
      }
    } while (j.consume(','));
    if (!j.consume('}')) return false;
  }
  if (!(has_name && has_direction && has_dtype && has_shape)) return false;
  if (out != nullptr) *out = b;
  return true;
}

// Walks the metadata object; counts (and, when out != null, fills) the bindings.
Error walk_metadata(const char* text, size_t size, EngineBindingView* out, size_t capacity,
                    size_t* count) {
  Json j(text, text + size);
  BLOB_CHECK(j.consume('{'), "engine blob: the metadata is not a JSON object");
  bool found = false;
  size_t n = 0;
  if (!j.consume('}')) {
    do {
      std::string_view key;
      BLOB_CHECK(j.string(&key) && j.consume(':'), "engine blob: malformed metadata JSON");
      if (key == "io_bindings" && !found) {
        found = true;
        BLOB_CHECK(j.consume('['), "engine blob: io_bindings is not an array");
        if (!j.consume(']')) {
          do {
            if (out != nullptr && n == capacity) return Error::OutOfResources;
            BLOB_CHECK(read_binding(j, out != nullptr ? &out[n] : nullptr),
                       "engine blob: io_bindings entry %zu is malformed (needs name, direction "
                       "input/output, dtype and shape of {min, max} with 0 <= min <= max)",
                       n);
            ++n;
          } while (j.consume(','));
          BLOB_CHECK(j.consume(']'), "engine blob: io_bindings is not a closed array");
        }
      } else {
        BLOB_CHECK(j.skip_value(), "engine blob: malformed metadata JSON (field '%.*s')",
                   static_cast<int>(key.size()), key.data());
      }
    } while (j.consume(','));
    BLOB_CHECK(j.consume('}'), "engine blob: malformed metadata JSON");
  }
  BLOB_CHECK(j.at_end(), "engine blob: trailing bytes after the metadata JSON");
  BLOB_CHECK(found, "engine blob: the metadata has no io_bindings");
  *count = n;
  return Error::Ok;
}

}  // namespace

Result<EngineBlobView> parse_engine_blob(const void* data, size_t size) {
  BLOB_CHECK(data != nullptr && size >= kEngineHeaderSize,
             "engine blob: %zu bytes, shorter than the %zu-byte header", size, kEngineHeaderSize);
  const auto* p = static_cast<const uint8_t*>(data);
  BLOB_CHECK(std::memcmp(p, kEngineBlobMagic, 4) == 0,
             "engine blob: unknown magic %02x %02x %02x %02x (this runtime reads \"PEN1\")", p[0],
             p[1], p[2], p[3]);
  const uint64_t meta_offset = u32(p + 4);
  const uint64_t meta_size = u32(p + 8);
  const uint64_t engine_offset = u64(p + 16);
  const uint64_t engine_size = u64(p + 24);
  BLOB_CHECK(meta_offset >= kEngineHeaderSize,
             "engine blob: metadata offset %llu is inside the 32-byte header",
             static_cast<unsigned long long>(meta_offset));
  BLOB_CHECK(engine_offset % kEngineAlignment == 0,
             "engine blob: engine offset %llu is not a multiple of %zu",
             static_cast<unsigned long long>(engine_offset), kEngineAlignment);
  BLOB_CHECK(meta_offset <= size && meta_size <= size - meta_offset,
             "engine blob: metadata [%llu, +%llu) past the end (%zu bytes)",
             static_cast<unsigned long long>(meta_offset),
             static_cast<unsigned long long>(meta_size), size);
  BLOB_CHECK(engine_offset <= size && engine_size <= size - engine_offset,
             "engine blob: engine [%llu, +%llu) past the end (%zu bytes)",
             static_cast<unsigned long long>(engine_offset),
             static_cast<unsigned long long>(engine_size), size);
  BLOB_CHECK(engine_size == 0 || engine_offset >= kEngineHeaderSize,
             "engine blob: the engine overlaps the header");
  BLOB_CHECK(
      meta_size == 0 || engine_size == 0 || meta_offset + meta_size <= engine_offset ||
          engine_offset + engine_size <= meta_offset,
      "engine blob: metadata [%llu, +%llu) and engine [%llu, +%llu) overlap",
      static_cast<unsigned long long>(meta_offset), static_cast<unsigned long long>(meta_size),
      static_cast<unsigned long long>(engine_offset), static_cast<unsigned long long>(engine_size));
  EngineBlobView view;
  view.metadata = reinterpret_cast<const char*>(p + meta_offset);
  view.metadata_size = static_cast<size_t>(meta_size);
  view.engine = p + engine_offset;
  view.engine_size = static_cast<size_t>(engine_size);
  const Error error =
      walk_metadata(view.metadata, view.metadata_size, nullptr, 0, &view.num_bindings);
  if (error != Error::Ok) return error;
  return view;
}

Error parse_engine_bindings(const EngineBlobView& view, EngineBindingView* out, size_t capacity) {
  if (view.num_bindings > capacity) return Error::OutOfResources;
  size_t n = 0;
  return walk_metadata(view.metadata, view.metadata_size, out, capacity, &n);
}

}  // namespace ptec::engine
