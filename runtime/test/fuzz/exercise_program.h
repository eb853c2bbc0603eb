#pragma once

// Loads a program from untrusted bytes and runs every method with bounded memory: the body of
// the fuzzer and of the corruption tests. Every step may fail; none may crash.

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "runtime/executor/flatbuffer_data_map.h"
#include "runtime/executor/program.h"
#include "runtime/loader/buffer_data_loader.h"

namespace ptec::runtime::fuzz {

struct ExerciseStats {
  bool loaded = false;
  size_t methods_loaded = 0;
  size_t methods_executed = 0;
};

/// `data` must be aligned to alignof(std::max_align_t). Planned memory above `max_planned`
/// bytes per method is not provided (the method then fails to load, as it would on a device
/// with too little memory).
inline ExerciseStats exercise_program(const uint8_t* data, size_t size,
                                      const NamedDataMap* external = nullptr,
                                      size_t max_planned = 1 << 20) {
  ExerciseStats stats;
  BufferDataLoader loader(data, size);
  Result<Program> program = Program::load(&loader);
  if (!program.ok()) return stats;
  stats.loaded = true;
  static std::vector<uint8_t> method_pool(1 << 20);
  static std::vector<uint8_t> temp_pool(1 << 16);
  for (size_t m = 0; m < program->num_methods(); ++m) {
    Result<const char*> name = program->get_method_name(m);
    if (!name.ok()) continue;
    Result<MethodMeta> meta = program->method_meta(name.get());
    if (!meta.ok()) continue;
    std::vector<std::unique_ptr<uint64_t[]>> buffers;
    std::vector<Span<uint8_t>> spans;
    size_t total = 0;
    bool fits = true;
    for (size_t i = 0; i < meta->num_memory_planned_buffers() && fits; ++i) {
      Result<int64_t> bytes = meta->memory_planned_buffer_size(i);
      if (!bytes.ok() || static_cast<uint64_t>(bytes.get()) > max_planned - total) {
        fits = false;
        break;
      }
      const size_t n = static_cast<size_t>(bytes.get());
      total += n;
      buffers.emplace_back(new uint64_t[(n + 7) / 8 + 1]());
      spans.emplace_back(reinterpret_cast<uint8_t*>(buffers.back().get()), n);
    }
    if (!fits) continue;
    MemoryAllocator method_allocator(method_pool.data(), method_pool.size());
    MemoryAllocator temp_allocator(temp_pool.data(), temp_pool.size());
    HierarchicalAllocator planned{Span<Span<uint8_t>>(spans)};
    MemoryManager memory{&method_allocator, &planned, &temp_allocator};
    Result<Method> method = program->load_method(name.get(), &memory, nullptr, external);
    if (!method.ok()) continue;
    ++stats.methods_loaded;
    method->set_step_limit(10000);
    // Inputs: ones (as bytes) for tensors of up to 64 KiB; other inputs keep their values.
    std::vector<std::unique_ptr<uint64_t[]>> input_data;
    for (size_t i = 0; i < method->inputs_size(); ++i) {
      Result<EValue> input = method->get_input(i);
      if (!input.ok() || !input->is_tensor()) continue;
      const size_t n = input->to_tensor().nbytes();
      if (n > (1 << 16)) continue;
      input_data.emplace_back(new uint64_t[n / 8 + 1]);
      std::memset(input_data.back().get(), 1, n / 8 * 8 + 8);
      (void)method->set_input_pointer(i, input_data.back().get(), n);
    }
    if (method->execute() == Error::Ok) {
      ++stats.methods_executed;
      for (size_t i = 0; i < method->outputs_size(); ++i) (void)method->get_output(i);
    }
  }
  return stats;
}

/// Loads a .ptd from untrusted bytes and reads every key.
inline bool exercise_data_map(const uint8_t* data, size_t size) {
  BufferDataLoader loader(data, size);
  Result<FlatTensorDataMap> map = FlatTensorDataMap::load(&loader);
  if (!map.ok()) return false;
  Result<uint32_t> n = map->get_num_keys();
  for (uint32_t i = 0; n.ok() && i < n.get(); ++i) {
    Result<const char*> key = map->get_key(i);
    if (!key.ok()) continue;
    (void)map->get_tensor_layout(key.get());
    Result<FreeableBuffer> bytes = map->get_data(key.get());
    if (bytes.ok() && bytes->size() > 0) {
      volatile uint8_t sink = static_cast<const uint8_t*>(bytes->data())[bytes->size() - 1];
      (void)sink;
    }
  }
  return true;
}

}  // namespace ptec::runtime::fuzz
