#pragma once

// Inline implementation of partition/lowered_module.h (header-only: the emitter uses it).

#include <cstring>
#include <string>

#include <fmt/format.h>

#include "ir/exception.h"

namespace ptec::partition {
namespace lowered_module_detail {

inline void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

inline uint32_t get_u32(const std::string& in, size_t& at) {
  PTEC_ENFORCE(at + 4 <= in.size(), InvalidProgram, "lowered module: truncated compile specs");
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint32_t>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  at += 4;
  return v;
}

inline std::string get_bytes(const std::string& in, size_t& at, uint32_t n) {
  PTEC_ENFORCE(at + n <= in.size(), InvalidProgram, "lowered module: truncated compile specs");
  std::string out = in.substr(at, n);
  at += n;
  return out;
}

}  // namespace lowered_module_detail

inline void store_lowered_module(ir::ExportedProgram& program, const std::string& name,
                                 const LoweredModule& module) {
  namespace d = lowered_module_detail;
  ir::CustomObject object;
  object.type = kLoweredModuleType;
  object.payload = module.processed;
  object.metadata["backend_id"] = module.backend_id;
  std::string specs;
  d::put_u32(specs, static_cast<uint32_t>(module.compile_specs.size()));
  for (const CompileSpec& spec : module.compile_specs) {
    d::put_u32(specs, static_cast<uint32_t>(spec.key.size()));
    specs += spec.key;
    d::put_u32(specs, static_cast<uint32_t>(spec.value.size()));
    specs.append(reinterpret_cast<const char*>(spec.value.data()), spec.value.size());
  }
  object.metadata["compile_specs"] = std::move(specs);
  object.metadata["debug_handles"] = fmt::format("{}", fmt::join(module.debug_handles, ","));
  if (!module.delegate_debug_map.empty()) {
    // "id:h,h;id:h,h"
    std::string map;
    for (const auto& [id, handles] : module.delegate_debug_map) {
      map += fmt::format("{}{}:{}", map.empty() ? "" : ";", id, fmt::join(handles, ","));
    }
    object.metadata["delegate_debug_map"] = std::move(map);
  }
  std::string keys;
  for (const auto& [key, blob] : module.named_data) {
    keys += (keys.empty() ? "" : "\n") + key;
    ir::CustomObject data;
    data.type = kNamedDataType;
    data.payload = blob;
    program.custom_objects()[name + ".named_data." + key] = std::move(data);
  }
  object.metadata["named_data"] = std::move(keys);
  program.custom_objects()[name] = std::move(object);
}

inline LoweredModule load_lowered_module(const ir::ExportedProgram& program,
                                         const std::string& name) {
  namespace d = lowered_module_detail;
  auto it = program.custom_objects().find(name);
  PTEC_ENFORCE(it != program.custom_objects().end(), NotFound,
               "lowered module '{}' is not in the program", name);
  const ir::CustomObject& object = it->second;
  PTEC_ENFORCE(object.type == kLoweredModuleType, InvalidProgram,
               "'{}' is a {}, not a lowered module", name, object.type);
  LoweredModule module;
  module.processed = object.payload;
  auto meta = [&](const char* key) -> std::string {
    auto m = object.metadata.find(key);
    return m == object.metadata.end() ? std::string() : m->second;
  };
  module.backend_id = meta("backend_id");
  const std::string specs = meta("compile_specs");
  if (!specs.empty()) {
    size_t at = 0;
    const uint32_t n = d::get_u32(specs, at);
    for (uint32_t i = 0; i < n; ++i) {
      CompileSpec spec;
      spec.key = d::get_bytes(specs, at, d::get_u32(specs, at));
      const std::string value = d::get_bytes(specs, at, d::get_u32(specs, at));
      spec.value.assign(value.begin(), value.end());
      module.compile_specs.push_back(std::move(spec));
    }
  }
  const std::string handles = meta("debug_handles");
  size_t start = 0;
  while (start < handles.size()) {
    size_t end = handles.find(',', start);
    if (end == std::string::npos) end = handles.size();
    module.debug_handles.push_back(std::stoll(handles.substr(start, end - start)));
    start = end + 1;
  }
  const std::string debug_map = meta("delegate_debug_map");
  start = 0;
  while (start < debug_map.size()) {
    size_t end = debug_map.find(';', start);
    if (end == std::string::npos) end = debug_map.size();
    const std::string entry = debug_map.substr(start, end - start);
    const size_t colon = entry.find(':');
    PTEC_ENFORCE(colon != std::string::npos, InvalidProgram,
                 "lowered module '{}': malformed delegate_debug_map entry '{}'", name, entry);
    std::vector<int64_t>& list = module.delegate_debug_map[std::stoll(entry.substr(0, colon))];
    size_t at = colon + 1;
    while (at < entry.size()) {
      size_t comma = entry.find(',', at);
      if (comma == std::string::npos) comma = entry.size();
      list.push_back(std::stoll(entry.substr(at, comma - at)));
      at = comma + 1;
    }
    start = end + 1;
  }
  const std::string keys = meta("named_data");
  start = 0;
  while (start < keys.size()) {
    size_t end = keys.find('\n', start);
    if (end == std::string::npos) end = keys.size();
    const std::string key = keys.substr(start, end - start);
    auto blob = program.custom_objects().find(name + ".named_data." + key);
    PTEC_ENFORCE(blob != program.custom_objects().end(), InvalidProgram,
                 "lowered module '{}': named data '{}' is missing", name, key);
    module.named_data[key] = blob->second.payload;
    start = end + 1;
  }
  return module;
}

}  // namespace ptec::partition
