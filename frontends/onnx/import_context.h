#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "frontends/onnx/const_tensor.h"
#include "ir/exception.h"
#include "ir/exported_program.h"
#include "ir/op_schema.h"

namespace ptec::onnx_import {

/// A ptec::Exception whose message already names the file, node and op: the importer's driver
/// passes it through unchanged (other exceptions from a handler get that context added).
class LocatedError : public Exception {
 public:
  using Exception::Exception;
};

/// A value of the ONNX graph during import: a graph node, a tensor known at import time, or
/// both (a constant that some op needed as a graph tensor).
struct Value {
  ir::Node* node = nullptr;
  std::optional<ConstTensor> constant;
  bool is_initializer = false;
  /// The ONNX node that produced the value (or the initializer name): the meta.source of the
  /// placeholder a constant gets.
  std::string source;
};

/// A small int64 tensor computed from dynamic dims (Shape of a dynamic tensor and what
/// Gather/Slice/Concat/Unsqueeze/Squeeze/Cast make of it): its items are ints or
/// aten::sym_size.int nodes. Its Value has neither `node` nor `constant`; see sym_shape.h.
struct SymValue {
  ir::ArgumentList items;
  /// True for a scalar (rank 0) rather than a 1-D tensor.
  bool scalar = false;
  /// True after a Cast to a floating-point type (torch.arange(end=w, dtype=float) exports
  /// Range(0.0, Cast(w), 1.0)): the items are still whole numbers, read as a float Range's limit
  /// and nowhere else (an int arithmetic on them would be wrong).
  bool floating = false;
};

/// One ONNX node being imported: inputs, outputs, typed attributes with defaults, and errors that
/// name the file, the node and its op ("model.onnx: node 'conv1' (Conv, opset 13): ...").
class NodeView {
 public:
  /// `proto` and `file` must outlive the view.
  NodeView(onnx::NodeProto& proto, std::string source, int64_t opset, const std::string& file)
      : proto_(&proto), source_(std::move(source)), opset_(opset), file_(&file) {}

  onnx::NodeProto& proto() const { return *proto_; }
  /// The ONNX node name, or "<op_type>_<index>" for an unnamed node.
  const std::string& source() const { return source_; }
  const std::string& op_type() const { return proto_->op_type(); }
  int64_t opset() const { return opset_; }

  size_t num_inputs() const { return static_cast<size_t>(proto_->input_size()); }
  /// True when input `i` is given (present and not the empty name).
  bool has_input(size_t i) const { return i < num_inputs() && !input(i).empty(); }
  const std::string& input(size_t i) const;
  size_t num_outputs() const { return static_cast<size_t>(proto_->output_size()); }
  bool has_output(size_t i) const { return i < num_outputs() && !output(i).empty(); }
  const std::string& output(size_t i) const;

  bool has_attr(std::string_view name) const { return find_attr(name) != nullptr; }
  int64_t attr_int(std::string_view name, int64_t default_value) const;
  std::optional<int64_t> attr_int_opt(std::string_view name) const;
  float attr_float(std::string_view name, float default_value) const;
  std::optional<float> attr_float_opt(std::string_view name) const;
  std::string attr_string(std::string_view name, std::string default_value) const;
  std::optional<std::vector<int64_t>> attr_ints_opt(std::string_view name) const;
  std::vector<int64_t> attr_ints(std::string_view name, std::vector<int64_t> default_value) const;
  std::vector<float> attr_floats(std::string_view name) const;
  /// The TENSOR attribute `name`, or nullptr. Mutable: its raw_data is moved out when imported.
  onnx::TensorProto* attr_tensor(std::string_view name) const;

  /// "model.onnx: node 'conv1' (Conv, opset 13)".
  std::string where() const;

  /// Throws LocatedError(code) with the message prefixed by where().
  template <typename... Args>
  [[noreturn]] void fail(Error code, fmt::format_string<Args...> format, Args&&... args) const {
    throw LocatedError(code, where() + ": " + fmt::format(format, std::forward<Args>(args)...));
  }

  /// A dim index in [-rank, rank) normalized to [0, rank); fails naming `what` otherwise.
  int64_t normalize_axis(int64_t axis, int64_t rank, std::string_view what = "axis") const;

 private:
  const onnx::AttributeProto* find_attr(std::string_view name) const;
  const onnx::AttributeProto& typed_attr(std::string_view name,
                                         onnx::AttributeProto_AttributeType type) const;

  onnx::NodeProto* proto_;
  std::string source_;
  int64_t opset_;
  const std::string* file_;
};

/// State of one import: the program being built, the ONNX values seen so far, and helpers that
/// create graph nodes with meta.source and meta.val set.
class ImportContext {
 public:
  /// `program` must outlive the context. `file` names the model in errors; external data is
  /// looked up relative to `external_data_dir`.
  ImportContext(ir::ExportedProgram& program, std::string file, std::string external_data_dir);

  ir::ExportedProgram& program() { return *program_; }
  ir::Graph& graph() { return program_->graph(); }
  const std::string& file() const { return file_; }

  // --- values --------------------------------------------------------------------------------
  /// Defines ONNX value `name` (fails when it is already defined: ONNX values are SSA).
  void define(const std::string& name, Value value);
  bool is_defined(const std::string& name) const { return values_.count(name) != 0; }
  /// Forgets `name` (and its shape value), so that it can be defined again: a Loop body's names
  /// between two unrolled iterations.
  void undefine(const std::string& name) {
    values_.erase(name);
    sym_values_.erase(name);
    seq_values_.erase(name);
  }
  /// The value named `name`; nullptr when undefined.
  Value* find(const std::string& name);
  /// Defines ONNX value `name` as a shape value computed from dynamic dims.
  void define_sym(const std::string& name, SymValue value, std::string source);
  /// The shape value named `name`; nullptr when `name` is not one.
  const SymValue* sym_value(const std::string& name) const;
  /// Defines ONNX value `name` as a sequence whose length is known at import time (its items
  /// are tensor values); see ops/sequence.cpp.
  void define_seq(const std::string& name, std::vector<Value> items, std::string source);
  /// The sequence named `name`; nullptr when `name` is not one.
  const std::vector<Value>* seq_value(const std::string& name) const;

  // --- inputs of the current node ---------------------------------------------------------------
  /// Input `i` as a graph tensor (a constant gets a placeholder on first use). Fails when the
  /// input is absent.
  ir::Node* input(const NodeView& node, size_t i);
  /// Input `i` when it is known at import time; nullptr when absent or computed at run time.
  const ConstTensor* constant(const NodeView& node, size_t i);
  /// Input `i`'s value, which must be known at import time (fails NotSupported naming `what`).
  const ConstTensor& require_constant(const NodeView& node, size_t i, std::string_view what);
  /// Input `i`'s spec (a constant's spec when it has no node).
  ir::TensorSpec input_spec(const NodeView& node, size_t i);
  /// Input `i`'s static sizes (fails NotSupported for a symbolic dim).
  std::vector<int64_t> input_sizes(const NodeView& node, size_t i);
  /// Input `i`'s shape (symbols kept).
  ir::Shape input_shape(const NodeView& node, size_t i) { return input_spec(node, i).shape; }
  /// Input `i`'s sizes where only dim 0 (the batch) may be symbolic: its upper bound stands in
  /// for it. For ops whose attributes depend on the other dims only (Conv, pooling, Gemm).
  std::vector<int64_t> input_sizes_batch(const NodeView& node, size_t i);
  int64_t input_rank(const NodeView& node, size_t i) { return input_spec(node, i).rank(); }
  DType input_dtype(const NodeView& node, size_t i) { return input_spec(node, i).dtype; }

  // --- outputs of the current node --------------------------------------------------------------
  void set_output(const NodeView& node, size_t i, ir::Node* value);
  void set_output(const NodeView& node, size_t i, ConstTensor value);
  /// Output `i` is input `input_index` (Identity, Dropout, no-op reshapes).
  void forward_input(const NodeView& node, size_t i, size_t input_index);

  // --- emission ---------------------------------------------------------------------------------
  /// Sets the node whose source name the next calls record (and that errors name).
  void set_current(const NodeView* node) { current_ = node; }
  /// A note for the user that an error of a later node should carry (" (...)"), e.g. that sizes
  /// a node subtracted agree for a declared multiple only; the first one is kept.
  void add_hint(std::string hint) {
    if (hint_.empty()) hint_ = std::move(hint);
  }
  const std::string& hint() const { return hint_; }
  /// Adds a call of `op` (qualified name). `args` are the leading schema arguments; the rest take
  /// their defaults (None for optional ones). meta.val comes from the op's shape function and
  /// meta.source from the current node.
  ir::Node* call(std::string_view op, ir::ArgumentList args);
  /// getitem(multi, index): element `index` of a multi-output call.
  ir::Node* getitem(ir::Node* multi, int64_t index);
  /// An int argument for dimension `dim`: the int for a static dim, else an aten::sym_size.int
  /// node reading a user input's dim that carries the symbol, or for a data-dependent symbol the
  /// first call whose output has it (one node per symbol).
  ir::Argument sym_size(const ir::SymInt& dim);
  /// sym_size(dim), or nullopt where no value carries the symbol (a product of symbols that
  /// only a flattening view would make).
  std::optional<ir::Argument> find_sym_size(const ir::SymInt& dim);
  /// A size list for `shape` (ints and sym_size nodes).
  ir::ArgumentList size_args(const ir::Shape& shape);
  /// A CONSTANT_TENSOR placeholder holding `value` (constants entry named after `hint`).
  ir::Node* constant_tensor(const std::string& hint, ConstTensor value);
  /// A PARAMETER placeholder holding `value` (state_dict entry `key`, made unique).
  ir::Node* parameter(const std::string& key, ConstTensor value);
  /// The graph node of ONNX value `name`, creating its placeholder when it is a constant.
  ir::Node* materialize(const std::string& name, Value& value);

  // --- tensors from the protobuf ----------------------------------------------------------------
  /// Converts `proto` to a ConstTensor. raw_data is moved into the Buffer (no copy; the proto's
  /// field is left empty); typed fields (float_data, int64_data, ...) are converted once;
  /// external data is memory-mapped. `what` names the tensor in errors.
  ConstTensor tensor_from_proto(onnx::TensorProto& proto, const std::string& what);

  /// Placeholders in creation order, by kind (the importer orders the signature from these).
  const std::vector<std::pair<ir::Node*, ir::InputSpec>>& placeholders() const {
    return placeholders_;
  }
  void add_user_input(ir::Node* node, const std::string& onnx_name);

 private:
  std::string unique_key(const std::string& hint) const;
  [[noreturn]] void fail(Error code, const std::string& message) const;

  ir::ExportedProgram* program_;
  std::string file_;
  std::string external_data_dir_;
  std::unordered_map<std::string, Value> values_;
  std::map<std::string, ir::BufferPtr> external_files_;
  std::vector<std::pair<ir::Node*, ir::InputSpec>> placeholders_;
  std::map<std::string, ir::Node*> sym_sizes_;
  std::map<std::string, std::pair<ir::Node*, int64_t>> data_dims_;
  std::unordered_map<std::string, SymValue> sym_values_;
  std::unordered_map<std::string, std::vector<Value>> seq_values_;
  const NodeView* current_ = nullptr;
  std::string hint_;
};

/// ONNX TensorProto data type → DType; fails (NotSupported) for strings, complex and the like.
DType dtype_from_onnx(int32_t onnx_type, const std::string& where);
/// DType → ONNX TensorProto data type (0 when there is none).
int32_t dtype_to_onnx(DType dtype);

/// Static sizes of `spec`; fails NotSupported naming `where` when a dim is symbolic.
std::vector<int64_t> static_sizes(const ir::TensorSpec& spec, const std::string& where);

}  // namespace ptec::onnx_import
