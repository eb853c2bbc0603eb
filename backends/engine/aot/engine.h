#pragma once

// A compiled engine held in memory (DESIGN.md §7): the live object behind an engine-bearing
// program's CUSTOM_OBJ constant (ir::CustomObject::object, type kEngineObjectType). Its
// metadata is readable without serializing; serialize() gives the engine blob (engine_blob.h).
// Programs share engines by pointer; an Engine is immutable.

#include <memory>
#include <string>

#include "backends/engine/engine_blob.h"
#include "backends/engine/engine_ids.h"
#include "ir/exported_program.h"

namespace ptec::engine {

class Engine final : public ir::OpaqueObject {
 public:
  /// Wraps a blob (no copy: the engine bytes are a view into it). Throws InvalidProgram when
  /// the blob is malformed.
  static std::shared_ptr<const Engine> from_blob(ir::BufferPtr blob);

  const EngineMetadata& metadata() const { return metadata_; }
  /// The device's own bytes (for "cpu": cpu_engine_format.h).
  const ir::BufferPtr& engine_bytes() const { return engine_bytes_; }
  /// The engine blob: the one it was made from (shared, not copied).
  ir::BufferPtr serialize() const override { return blob_; }

 private:
  Engine(EngineMetadata metadata, ir::BufferPtr blob, ir::BufferPtr engine_bytes)
      : metadata_(std::move(metadata)),
        blob_(std::move(blob)),
        engine_bytes_(std::move(engine_bytes)) {}

  EngineMetadata metadata_;
  ir::BufferPtr blob_;
  ir::BufferPtr engine_bytes_;
};

/// A CUSTOM_OBJ entry holding `engine` (type kEngineObjectType, no payload: the live object
/// serializes on demand), with the metadata's device, target ISA and builder version.
ir::CustomObject make_engine_object(std::shared_ptr<const Engine> engine);

/// The engine behind `object`: its live Engine, or one recreated from its payload; nullptr when
/// `object` is not an engine. Throws InvalidProgram for a malformed payload.
std::shared_ptr<const Engine> engine_of(const ir::CustomObject& object);

/// Replaces the payload of every engine entry of `program` without a live object by an Engine
/// made from it (what a program archive's loader calls; the payload stays as well).
void attach_engine_objects(ir::ExportedProgram& program);

/// Registers with ir/program_archive.h the loader that gives engines saved in a program archive
/// back as live Engines (views into the archive's mapping, not copies). Idempotent.
void register_engine_loader();

}  // namespace ptec::engine
