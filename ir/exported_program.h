#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/signature.h"
#include "ir/tensor_spec.h"

namespace ptec::ir {

/// How far a program has gone through the export flow (DESIGN.md §1).
enum class Stage { Aten = 0, Edge = 1, Lowered = 2, Executorch = 3 };
const char* to_string(Stage stage);

/// A live object behind a CustomObject, e.g. a compiled engine held in memory. Serializing it
/// may be expensive, so whoever packages a program serializes each object once.
class OpaqueObject {
 public:
  virtual ~OpaqueObject() = default;
  /// The bytes that represent the object in a saved program.
  virtual BufferPtr serialize() const = 0;
};

/// An opaque object input (InputKind::CustomObj), e.g. a precompiled engine. The payload and
/// the live object are shared by copies, never copied.
struct CustomObject {
  std::string type;  // e.g. "ptec.engine"
  BufferPtr payload;
  std::map<std::string, std::string> metadata;
  /// The live object, when there is one (nullptr for plain payloads).
  std::shared_ptr<const OpaqueObject> object;
};

/// One step of the record of how a program got to its stage, e.g.
/// {"import", "onnx: resnet18.onnx (opset 13)"} or {"to_edge", "check_ir_validity=true"}.
struct ProvenanceStep {
  std::string stage;
  std::string detail;
  bool operator==(const ProvenanceStep&) const = default;
};

/// A graph with its signature, weights, constants, range constraints, stage and provenance
/// (torch.export's ExportedProgram).
///
/// Copies copy structure only: the graph is cloned (same node names, order, debug handles and
/// meta), containers are new, and every payload Buffer is shared (pointer-equal). The UUID is
/// kept, so records can tell that two programs are the same graph.
class ExportedProgram {
 public:
  /// A program with an empty graph and a fresh UUID.
  ExportedProgram();
  ExportedProgram(const ExportedProgram& other);
  ExportedProgram& operator=(const ExportedProgram& other);
  ExportedProgram(ExportedProgram&&) noexcept = default;
  ExportedProgram& operator=(ExportedProgram&&) noexcept = default;
  ~ExportedProgram() = default;

  Graph& graph() { return *graph_; }
  const Graph& graph() const { return *graph_; }
  /// Replaces the graph (e.g. after a pass rebuilt it).
  void set_graph(std::unique_ptr<Graph> graph) { graph_ = std::move(graph); }

  GraphSignature& signature() { return signature_; }
  const GraphSignature& signature() const { return signature_; }

  /// Parameters and buffers by fully qualified name.
  std::map<std::string, TensorData>& state_dict() { return state_dict_; }
  const std::map<std::string, TensorData>& state_dict() const { return state_dict_; }
  /// Lifted tensor constants by name.
  std::map<std::string, TensorData>& constants() { return constants_; }
  const std::map<std::string, TensorData>& constants() const { return constants_; }
  /// Custom objects (engines) by name.
  std::map<std::string, CustomObject>& custom_objects() { return custom_objects_; }
  const std::map<std::string, CustomObject>& custom_objects() const { return custom_objects_; }

  /// Symbols used by input shapes, by name.
  std::map<std::string, SymbolPtr>& range_constraints() { return range_constraints_; }
  const std::map<std::string, SymbolPtr>& range_constraints() const { return range_constraints_; }

  Stage stage() const { return stage_; }
  void set_stage(Stage stage) { stage_ = stage; }
  std::vector<ProvenanceStep>& provenance() { return provenance_; }
  const std::vector<ProvenanceStep>& provenance() const { return provenance_; }

  /// Example inputs, one per user input (may be empty).
  std::vector<TensorData>& example_inputs() { return example_inputs_; }
  const std::vector<TensorData>& example_inputs() const { return example_inputs_; }

  /// 32 lowercase hex digits, assigned at creation and kept by copies.
  const std::string& uuid() const { return uuid_; }
  void set_uuid(std::string uuid) { uuid_ = std::move(uuid); }

  /// The tensor behind a PARAMETER/BUFFER/CONSTANT_TENSOR placeholder, or nullptr for a user
  /// input or an unknown name.
  const TensorData* constant_for_placeholder(const std::string& placeholder_name) const;

 private:
  std::unique_ptr<Graph> graph_;
  GraphSignature signature_;
  std::map<std::string, TensorData> state_dict_;
  std::map<std::string, TensorData> constants_;
  std::map<std::string, CustomObject> custom_objects_;
  std::map<std::string, SymbolPtr> range_constraints_;
  Stage stage_ = Stage::Aten;
  std::vector<ProvenanceStep> provenance_;
  std::vector<TensorData> example_inputs_;
  std::string uuid_;
};

/// A fresh random UUID (32 hex digits).
std::string new_uuid();

}  // namespace ptec::ir
