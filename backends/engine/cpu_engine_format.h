#pragma once

// The engine bytes of a "cpu" engine (the device format inside an engine blob, engine_blob.h):
// plans of the CPU backend's kernels, one per shape point of the engine's profile, and the
// weights they share. Little-endian; offsets are from the start of the engine bytes:
//
//   offset  size  field
//        0     4  magic "PCE1"
//        4     4  number of weights W
//        8     4  number of plans P
//       12     4  reserved (zero)
//       16  24*W  weights: u64 data offset, u64 data size, u32 key offset, u32 key size
//        .  16*P  plans: u64 offset, u64 size of a PCB1 graph (backends/cpu/schema)
//        .     .  keys, then data (weights and plans, each at a multiple of 64)
//
// A plan is the CPU backend's delegate description with static sizes, nodes carrying the
// implementation choices (e.g. Node.threads) the engine builder measured; its constants name
// weights by key. The runtime picks the plan whose input sizes equal the call's.
//
// parse_cpu_engine is runtime code: no heap, no exceptions.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "core/error.h"
#include "core/log.h"

namespace ptec::engine {

inline constexpr char kCpuEngineMagic[4] = {'P', 'C', 'E', '1'};
inline constexpr size_t kCpuEngineHeaderSize = 16;
inline constexpr size_t kCpuEngineWeightEntrySize = 24;
inline constexpr size_t kCpuEnginePlanEntrySize = 16;
inline constexpr size_t kCpuEngineDataAlignment = 64;

/// A validated view of cpu engine bytes.
class CpuEngineView {
 public:
  /// Checks the header and that every key, weight and plan lies inside `size` bytes.
  /// InvalidProgram (with a log line) otherwise.
  Error parse(const uint8_t* data, size_t size) {
    if (data == nullptr || size < kCpuEngineHeaderSize ||
        std::memcmp(data, kCpuEngineMagic, 4) != 0) {
      PTEC_LOG(Error, "cpu engine: %zu bytes without the \"PCE1\" header", size);
      return Error::InvalidProgram;
    }
    num_weights_ = u32(data + 4);
    num_plans_ = u32(data + 8);
    const uint64_t tables = kCpuEngineHeaderSize +
                            uint64_t{num_weights_} * kCpuEngineWeightEntrySize +
                            uint64_t{num_plans_} * kCpuEnginePlanEntrySize;
    if (tables > size) {
      PTEC_LOG(Error, "cpu engine: %u weights and %u plans do not fit %zu bytes", num_weights_,
               num_plans_, size);
      return Error::InvalidProgram;
    }
    data_ = data;
    size_ = size;
    for (uint32_t i = 0; i < num_weights_; ++i) {
      const uint8_t* e = weight_entry(i);
      if (!inside(u64(e), u64(e + 8)) || !inside(u32(e + 16), u32(e + 20))) {
        PTEC_LOG(Error, "cpu engine: weight %u lies outside the engine", i);
        return Error::InvalidProgram;
      }
    }
    for (uint32_t i = 0; i < num_plans_; ++i) {
      const uint8_t* e = plan_entry(i);
      if (!inside(u64(e), u64(e + 8)) || u64(e + 8) == 0) {
        PTEC_LOG(Error, "cpu engine: plan %u lies outside the engine", i);
        return Error::InvalidProgram;
      }
    }
    return Error::Ok;
  }

  uint32_t num_weights() const { return num_weights_; }
  uint32_t num_plans() const { return num_plans_; }
  std::string_view weight_key(uint32_t i) const {
    const uint8_t* e = weight_entry(i);
    return {reinterpret_cast<const char*>(data_ + u32(e + 16)), u32(e + 20)};
  }
  const uint8_t* weight_data(uint32_t i) const { return data_ + u64(weight_entry(i)); }
  size_t weight_size(uint32_t i) const { return static_cast<size_t>(u64(weight_entry(i) + 8)); }
  const uint8_t* plan_data(uint32_t i) const { return data_ + u64(plan_entry(i)); }
  size_t plan_size(uint32_t i) const { return static_cast<size_t>(u64(plan_entry(i) + 8)); }

  static uint32_t u32(const uint8_t* p) {
    return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
           static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
  }
  static uint64_t u64(const uint8_t* p) { return uint64_t{u32(p)} | uint64_t{u32(p + 4)} << 32; }

 private:
  const uint8_t* weight_entry(uint32_t i) const {
    return data_ + kCpuEngineHeaderSize + size_t{i} * kCpuEngineWeightEntrySize;
  }
  const uint8_t* plan_entry(uint32_t i) const {
    return data_ + kCpuEngineHeaderSize + size_t{num_weights_} * kCpuEngineWeightEntrySize +
           size_t{i} * kCpuEnginePlanEntrySize;
  }
  bool inside(uint64_t offset, uint64_t n) const { return offset <= size_ && n <= size_ - offset; }

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  uint32_t num_weights_ = 0;
  uint32_t num_plans_ = 0;
};

}  // namespace ptec::engine
