#pragma once

// Shared helpers for the runtime tests: fixture paths, log capture, memory for a method, and a
// writer that turns a ProgramT (flatbuffers object API) into .pte bytes with segments.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "core/log.h"
#include "flatbuffers/idl.h"
#include "runtime/executor/program.h"
#include "schema/extended_header.h"
#include "schema/program_generated.h"

namespace ptec::runtime::testing {

namespace fs = std::filesystem;
namespace et = executorch_flatbuffer;

inline fs::path fixtures_dir() { return fs::path(PTEC_SOURCE_DIR) / ".." / "shared" / "fixtures"; }

inline std::vector<uint8_t> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

#define PTEC_SKIP_WITHOUT_FIXTURES()                                                       \
  do {                                                                                     \
    if (!::std::filesystem::exists(::ptec::runtime::testing::fixtures_dir())) {            \
      GTEST_SKIP() << "fixtures not found at " << ::ptec::runtime::testing::fixtures_dir() \
                   << " (the shared/ folder beside the repository)";                       \
    }                                                                                      \
  } while (0)

/// Collects log lines while alive.
class LogCapture {
 public:
  LogCapture() { set_log_sink(&LogCapture::sink, this); }
  ~LogCapture() { set_log_sink(nullptr, nullptr); }
  const std::vector<std::string>& lines() const { return lines_; }
  bool contains(const std::string& needle) const {
    for (const auto& l : lines_) {
      if (l.find(needle) != std::string::npos) return true;
    }
    return false;
  }
  std::string all() const {
    std::string out;
    for (const auto& l : lines_) out += l + "\n";
    return out;
  }

 private:
  static void sink(LogLevel, const char* message, void* user) {
    static_cast<LogCapture*>(user)->lines_.emplace_back(message);
  }
  std::vector<std::string> lines_;
};

/// Bytes in a 64-byte-aligned heap buffer (a std::vector's data is only 16-byte aligned).
class AlignedBytes {
 public:
  explicit AlignedBytes(const std::vector<uint8_t>& bytes) : size_(bytes.size()) {
    data_.reset(
        static_cast<uint8_t*>(::operator new(size_ == 0 ? 1 : size_, std::align_val_t(64))));
    if (size_ > 0) std::memcpy(data_.get(), bytes.data(), size_);
  }
  uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Deleter {
    void operator()(uint8_t* p) const { ::operator delete(p, std::align_val_t(64)); }
  };
  std::unique_ptr<uint8_t, Deleter> data_;
  size_t size_;
};

/// Method allocator, planned buffers (sized from MethodMeta) and temp allocator for one method.
class TestMemory {
 public:
  explicit TestMemory(const MethodMeta& meta, size_t method_bytes = 1 << 20)
      : method_pool_(method_bytes),
        temp_pool_(1 << 16),
        method_allocator_(method_pool_.data(), method_pool_.size()),
        temp_allocator_(temp_pool_.data(), temp_pool_.size()) {
    for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
      Result<int64_t> size = meta.memory_planned_buffer_size(i);
      buffers_.emplace_back(size.ok() ? static_cast<size_t>(size.get()) : 0);
    }
    for (auto& b : buffers_) spans_.emplace_back(b.data(), b.size());
    planned_ = std::make_unique<HierarchicalAllocator>(Span<Span<uint8_t>>(spans_));
    manager_.method_allocator = &method_allocator_;
    manager_.planned_memory = planned_.get();
    manager_.temp_allocator = &temp_allocator_;
  }
  MemoryManager* manager() { return &manager_; }

 private:
  std::vector<uint8_t> method_pool_;
  std::vector<uint8_t> temp_pool_;
  MemoryAllocator method_allocator_;
  MemoryAllocator temp_allocator_;
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<Span<uint8_t>> spans_;
  std::unique_ptr<HierarchicalAllocator> planned_;
  MemoryManager manager_;
};

/// Inserts the eh00 header into a finished program flatbuffer and appends `segments` at
/// segment_base_offset + Program.segments[i].offset (FORMAT.md §1). Without segments the
/// flatbuffer is returned unchanged.
inline std::vector<uint8_t> insert_segments(const std::vector<uint8_t>& fb,
                                            const std::vector<std::vector<uint8_t>>& segments) {
  if (segments.empty()) return fb;
  const et::Program* program = et::GetProgram(fb.data());
  std::vector<uint8_t> out;
  const uint32_t root = static_cast<uint32_t>(fb[0] | fb[1] << 8 | fb[2] << 16 | fb[3] << 24) +
                        schema::ExtendedHeader::kPaddedLength;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(root >> (8 * i)));
  out.insert(out.end(), fb.begin() + 4, fb.begin() + 8);
  out.resize(out.size() + schema::ExtendedHeader::kPaddedLength);
  out.insert(out.end(), fb.begin() + 8, fb.end());
  schema::ExtendedHeader header;
  header.program_size = out.size();
  header.segment_base_offset = schema::aligned_size(out.size(), 128);
  uint64_t end = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    const et::DataSegment* seg = program->segments()->Get(static_cast<uint32_t>(i));
    EXPECT_EQ(seg->size(), segments[i].size()) << "segment " << i;
    end = std::max<uint64_t>(end, seg->offset() + segments[i].size());
  }
  header.segment_data_size = end;
  header.write(out.data() + schema::kHeaderOffset);
  out.resize(header.segment_base_offset + end);
  for (size_t i = 0; i < segments.size(); ++i) {
    const et::DataSegment* seg = program->segments()->Get(static_cast<uint32_t>(i));
    std::copy(segments[i].begin(), segments[i].end(),
              out.begin() + static_cast<ptrdiff_t>(header.segment_base_offset + seg->offset()));
  }
  return out;
}

/// Parses `json` (flatc's JSON form of schema/program.fbs, field names as in FORMAT.md) into a
/// .pte, inserting the header and segments when given. Unlike the object API, empty vectors
/// written in the JSON stay present (inputs: [] is not the same as no inputs).
inline std::vector<uint8_t> pte_from_json(const std::string& json,
                                          const std::vector<std::vector<uint8_t>>& segments = {}) {
  const fs::path schema_dir = fs::path(PTEC_SOURCE_DIR) / "schema";
  std::ifstream in(schema_dir / "program.fbs");
  const std::string schema((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  flatbuffers::Parser parser;
  const std::string include = schema_dir.string();
  const char* include_paths[] = {include.c_str(), nullptr};
  if (!parser.Parse(schema.c_str(), include_paths, "program.fbs")) {
    ADD_FAILURE() << "schema: " << parser.error_;
    return {};
  }
  if (!parser.Parse(json.c_str())) {
    ADD_FAILURE() << "json: " << parser.error_;
    return {};
  }
  std::vector<uint8_t> fb(parser.builder_.GetBufferPointer(),
                          parser.builder_.GetBufferPointer() + parser.builder_.GetSize());
  return insert_segments(fb, segments);
}

/// Bytes of `values` (little-endian host).
template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

/// A minimal valid program: one method `forward` without values, inputs, outputs or
/// instructions, and the required constant_segment placeholder.
inline std::vector<uint8_t> empty_pte() {
  return pte_from_json(R"({
    "execution_plan": [{"name": "forward", "values": [], "inputs": [], "outputs": [],
      "chains": [{"instructions": []}], "operators": [], "delegates": [],
      "non_const_buffer_sizes": [0]}],
    "segments": [], "constant_segment": {"offsets": [0]}})");
}

}  // namespace ptec::runtime::testing

#include "runtime/loader/file_data_loader.h"

namespace ptec::runtime::testing {

/// A fixture file opened with a FileDataLoader and loaded as a Program.
class FixtureProgram {
 public:
  explicit FixtureProgram(const std::string& relative_path) {
    Result<FileDataLoader> loader = FileDataLoader::from((fixtures_dir() / relative_path).c_str());
    if (!loader.ok()) {
      error_ = loader.error();
      return;
    }
    loader_ = std::make_unique<FileDataLoader>(std::move(loader.get()));
    Result<Program> program = Program::load(loader_.get());
    if (!program.ok()) {
      error_ = program.error();
      return;
    }
    program_ = std::make_unique<Program>(std::move(program.get()));
  }
  Error error() const { return error_; }
  Program* get() const { return program_.get(); }
  Program* operator->() const { return program_.get(); }

 private:
  Error error_ = Error::Ok;
  std::unique_ptr<FileDataLoader> loader_;
  std::unique_ptr<Program> program_;
};

}  // namespace ptec::runtime::testing

namespace ptec::runtime::testing {

/// JSON of a Tensor EValue with contiguous dim order, planned at (memory_id, offset) when
/// memory_id > 0. `extra` is appended inside the tensor object (e.g. "\"data_buffer_idx\": 1").
inline std::string tensor_json(const std::string& dtype, const std::vector<int>& sizes,
                               int memory_id = 0, int offset = 0, const std::string& extra = "") {
  std::string s = R"({"val_type": "Tensor", "val": {"scalar_type": ")" + dtype + R"(", "sizes": [)";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  s += R"(], "dim_order": [)";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(i);
  s += "]";
  if (memory_id > 0) {
    s += R"(, "allocation_info": {"memory_id": )" + std::to_string(memory_id) +
         R"(, "memory_offset_low": )" + std::to_string(offset) + "}";
  }
  if (!extra.empty()) s += ", " + extra;
  return s + "}}";
}

inline std::string int_json(int64_t v) {
  return R"({"val_type": "Int", "val": {"int_val": )" + std::to_string(v) + "}}";
}

}  // namespace ptec::runtime::testing
