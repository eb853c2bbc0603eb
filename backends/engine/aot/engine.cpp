#include "backends/engine/aot/engine.h"

#include "ir/exception.h"
#include "ir/program_archive.h"

namespace ptec::engine {

std::shared_ptr<const Engine> Engine::from_blob(ir::BufferPtr blob) {
  PTEC_ENFORCE(blob != nullptr, InvalidArgument, "engine: no blob");
  EngineMetadata metadata = read_engine_metadata(blob->data(), blob->size());
  const Result<EngineBlobView> view = parse_engine_blob(blob->data(), blob->size());
  PTEC_ENFORCE(view.ok(), InvalidProgram, "engine: malformed blob");
  ir::BufferPtr bytes =
      ir::Buffer::slice(blob, static_cast<size_t>(view->engine - blob->data()), view->engine_size);
  return std::shared_ptr<const Engine>(
      new Engine(std::move(metadata), std::move(blob), std::move(bytes)));
}

ir::CustomObject make_engine_object(std::shared_ptr<const Engine> engine) {
  ir::CustomObject object;
  object.type = kEngineObjectType;
  object.metadata["device"] = engine->metadata().device;
  object.metadata["target_isa"] = engine->metadata().target_isa;
  object.metadata["builder_version"] = engine->metadata().builder_version;
  object.object = std::move(engine);
  return object;
}

std::shared_ptr<const Engine> engine_of(const ir::CustomObject& object) {
  if (object.type != kEngineObjectType) return nullptr;
  if (object.object != nullptr) {
    auto engine = std::dynamic_pointer_cast<const Engine>(object.object);
    if (engine != nullptr) return engine;
    return Engine::from_blob(object.object->serialize());
  }
  PTEC_ENFORCE(object.payload != nullptr, InvalidProgram, "engine object without payload");
  return Engine::from_blob(object.payload);
}

void attach_engine_objects(ir::ExportedProgram& program) {
  for (auto& [name, object] : program.custom_objects()) {
    if (object.type != kEngineObjectType || object.object != nullptr) continue;
    PTEC_ENFORCE(object.payload != nullptr, InvalidProgram, "engine '{}' has no payload", name);
    try {
      object.object = Engine::from_blob(object.payload);
    } catch (const Exception& e) {
      raise(e.code(), "engine '{}': {}", name, e.what());
    }
  }
}

void register_engine_loader() {
  ir::register_custom_object_loader(
      kEngineObjectType,
      [](const std::string& name,
         const ir::CustomObject& object) -> std::shared_ptr<const ir::OpaqueObject> {
        PTEC_ENFORCE(object.payload != nullptr, InvalidProgram, "engine '{}' has no bytes", name);
        try {
          return Engine::from_blob(object.payload);
        } catch (const Exception& e) {
          raise(e.code(), "engine '{}': {}", name, e.what());
        }
      });
}

}  // namespace ptec::engine
