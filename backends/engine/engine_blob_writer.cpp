// The compiler's side of backends/engine/engine_blob.h: metadata JSON and blob writing.

#include <cstring>

#include <nlohmann/json.hpp>

#include "backends/engine/engine_blob.h"
#include "ir/exception.h"

namespace ptec::engine {
namespace {

using json = nlohmann::json;

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

std::string engine_metadata_json(const EngineMetadata& meta) {
  json bindings = json::array();
  for (const EngineBinding& b : meta.io_bindings) {
    json shape = json::array();
    for (const EngineDim& d : b.shape) {
      json dim{{"min", d.min}, {"max", d.max}};
      if (!d.symbol.empty()) dim["symbol"] = d.symbol;
      shape.push_back(std::move(dim));
    }
    bindings.push_back(json{{"name", b.name},
                            {"direction", b.input ? "input" : "output"},
                            {"dtype", to_string(b.dtype)},
                            {"shape", std::move(shape)}});
  }
  json doc{{"io_bindings", std::move(bindings)},
           {"device", meta.device},
           {"target_isa", meta.target_isa},
           {"builder_version", meta.builder_version},
           {"precision", meta.precision},
           {"threads", meta.threads},
           {"choices", meta.choices}};
  // Names come from models: replace invalid UTF-8 instead of throwing.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::vector<uint8_t> write_engine_blob(const EngineMetadata& meta, const uint8_t* engine,
                                       size_t engine_size) {
  const std::string text = engine_metadata_json(meta);
  PTEC_ENFORCE(text.size() <= 0xFFFFFFFFu, InvalidArgument,
               "engine metadata of {} bytes does not fit the blob header", text.size());
  const size_t engine_offset = (kEngineHeaderSize + text.size() + kEngineAlignment - 1) /
                               kEngineAlignment * kEngineAlignment;
  std::vector<uint8_t> blob(engine_offset + engine_size, 0);
  std::memcpy(blob.data(), kEngineBlobMagic, 4);
  put_u32(blob.data() + 4, static_cast<uint32_t>(kEngineHeaderSize));
  put_u32(blob.data() + 8, static_cast<uint32_t>(text.size()));
  put_u64(blob.data() + 16, engine_offset);
  put_u64(blob.data() + 24, engine_size);
  std::memcpy(blob.data() + kEngineHeaderSize, text.data(), text.size());
  if (engine_size > 0) std::memcpy(blob.data() + engine_offset, engine, engine_size);
  return blob;
}

EngineMetadata read_engine_metadata(const uint8_t* blob, size_t size) {
  const Result<EngineBlobView> view = parse_engine_blob(blob, size);
  PTEC_ENFORCE(view.ok(), InvalidProgram,
               "not a valid engine blob ({} bytes; the log says which check failed)", size);
  json doc;
  try {
    doc = json::parse(view->metadata, view->metadata + view->metadata_size);
    EngineMetadata meta;
    for (const json& b : doc.at("io_bindings")) {
      EngineBinding binding;
      binding.name = b.at("name").get<std::string>();
      binding.input = b.at("direction").get<std::string>() == "input";
      binding.dtype = dtype_from_string(b.at("dtype").get<std::string>()).value_or(DType::Float);
      for (const json& d : b.at("shape")) {
        EngineDim dim;
        dim.min = d.at("min").get<int64_t>();
        dim.max = d.at("max").get<int64_t>();
        if (d.contains("symbol")) dim.symbol = d.at("symbol").get<std::string>();
        binding.shape.push_back(std::move(dim));
      }
      meta.io_bindings.push_back(std::move(binding));
    }
    meta.device = doc.value("device", "");
    meta.target_isa = doc.value("target_isa", "");
    meta.builder_version = doc.value("builder_version", "");
    meta.precision = doc.value("precision", "");
    meta.threads = doc.value("threads", int64_t{0});
    if (doc.contains("choices")) {
      meta.choices = doc.at("choices").get<std::map<std::string, std::string>>();
    }
    return meta;
  } catch (const json::exception& e) {
    raise(Error::InvalidProgram, "engine blob metadata: {}", e.what());
  }
}

}  // namespace ptec::engine
