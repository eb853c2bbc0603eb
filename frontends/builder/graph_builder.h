#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/exported_program.h"
#include "ir/op_schema.h"

namespace ptec::builder {

using ir::Shape;
using ir::SymInt;
using ir::TensorData;
using ir::TensorSpec;

/// A value of the program being built: a graph node (a tensor, or a symbolic int produced by a
/// scalar prim). Valid as long as the GraphBuilder that made it lives and has not built.
class Value {
 public:
  Value() = default;
  explicit Value(ir::Node* node) : node_(node) {}

  bool valid() const { return node_ != nullptr; }
  ir::Node* node() const { return node_; }
  const std::string& name() const;
  /// The tensor spec; throws InvalidState for a node without exactly one.
  const TensorSpec& spec() const;
  DType dtype() const { return spec().dtype; }
  const Shape& shape() const { return spec().shape; }

 private:
  ir::Node* node_ = nullptr;
};

/// One argument of GraphBuilder::call: None (`nullptr` or `Arg()`), a Value, a number, a bool, a
/// string, a dtype, a SymInt (a symbolic one becomes a `sym_size.int` of an input that has that
/// symbol), or a list (`{1, 1}`, `std::vector<int64_t>`, `std::vector<Value>`). An int given for
/// a sized list such as `int[2] padding` means that value repeated (as in ATen); an int for a
/// float argument becomes a float.
class Arg {
 public:
  using List = std::vector<Arg>;

  Arg() = default;
  /* implicit */ Arg(std::nullptr_t) {}
  /* implicit */ Arg(std::nullopt_t) {}
  /* implicit */ Arg(Value v) : value_(v) {}
  /* implicit */ Arg(int v) : value_(int64_t{v}) {}
  /* implicit */ Arg(long v) : value_(static_cast<int64_t>(v)) {}
  /* implicit */ Arg(long long v) : value_(static_cast<int64_t>(v)) {}
  /* implicit */ Arg(unsigned long v) : value_(static_cast<int64_t>(v)) {}
  /* implicit */ Arg(double v) : value_(v) {}
  /* implicit */ Arg(bool v) : value_(v) {}
  /* implicit */ Arg(const char* v) : value_(std::string(v)) {}
  /* implicit */ Arg(std::string v) : value_(std::move(v)) {}
  /* implicit */ Arg(DType v) : value_(v) {}
  /* implicit */ Arg(SymInt v) : value_(std::move(v)) {}
  /* implicit */ Arg(std::initializer_list<Arg> items) : value_(List(items)) {}
  /* implicit */ Arg(const std::vector<int64_t>& items);
  /* implicit */ Arg(const std::vector<double>& items);
  /* implicit */ Arg(const std::vector<Value>& items);
  /* implicit */ Arg(const Shape& items);
  /// An explicit (possibly empty) list: `Arg::list({})` is `[]`, whereas `{}` is None.
  static Arg list(List items);

  using Variant =
      std::variant<std::monostate, Value, int64_t, double, bool, std::string, DType, SymInt, List>;
  const Variant& value() const { return value_; }

 private:
  Variant value_;
};

/// Keyword arguments of GraphBuilder::call: `{{"alpha", 2}, {"keepdim", true}}`.
using Kwargs = std::vector<std::pair<std::string, Arg>>;

/// Writes an ATEN-stage ExportedProgram in C++ (tests, users without ONNX):
///
///   GraphBuilder b("tiny");
///   SymInt batch = b.symbol("batch", 1, 8);
///   Value x = b.input("x", DType::Float, {batch, 3, 32, 32});
///   Value w = b.parameter("conv.weight", weight_data);
///   Value y = b.call("aten::convolution", {x, w, nullptr, {1, 1}, {0, 0}, {1, 1}, false,
///                                          {0, 0}, 1});
///   b.output({b.call("aten::relu", {y})});
///   ir::ExportedProgram program = b.build();
///
/// Every call is checked as it is made: the op must exist (the error lists close names), the
/// positional and keyword arguments must fit the schema (count, names, types), omitted
/// arguments take the schema's defaults, and the op's shape function computes meta.val (so a
/// wrong dtype or shape fails at the call, naming the op and the argument). Errors are
/// ptec::Exception (NotFound for an unknown op, InvalidArgument otherwise).
class GraphBuilder {
 public:
  /// `name` is recorded in the program's provenance ("import", "builder: <name>").
  explicit GraphBuilder(std::string name = "graph");

  /// A named symbolic dimension with an inclusive range; the same name returns the same symbol
  /// (a different range for an existing name is an error). With `multiple` above 1, every size
  /// is a multiple of it (min and max must be; see ir::Symbol::multiple).
  SymInt symbol(const std::string& name, int64_t min, int64_t max, int64_t multiple = 1);

  /// A user input. Symbolic dims may be shared by several inputs.
  Value input(const std::string& name, DType dtype, const Shape& shape);
  /// A parameter: a PARAMETER placeholder named "p_<fqn with '.' as '_'>" plus a state_dict
  /// entry `fqn` holding `data` (its payload is shared, never copied).
  Value parameter(const std::string& fqn, TensorData data);
  Value parameter(const std::string& fqn, DType dtype, const std::vector<int64_t>& sizes,
                  ir::BufferPtr payload);
  /// A buffer (BUFFER placeholder "b_<fqn>", state_dict entry).
  Value buffer(const std::string& fqn, TensorData data);
  /// A lifted tensor constant (CONSTANT_TENSOR placeholder "c_<name>", constants entry).
  Value constant(const std::string& name, TensorData data);

  /// Calls `op` ("aten::convolution", "aten::add.Tensor", ...). `args` fill the schema's
  /// arguments in order, `kwargs` by name; the rest take defaults. The op must produce one
  /// tensor (or a scalar, for prims); use call_multi for multi-output ops. `name` is the node
  /// name hint (default: the op's base name).
  Value call(std::string_view op, const std::vector<Arg>& args, const Kwargs& kwargs = {},
             const std::string& name = "");
  /// Calls a multi-output op (max_pool2d_with_indices, native_layer_norm, split, ...) and
  /// returns one Value per output, each a `getitem` node.
  std::vector<Value> call_multi(std::string_view op, const std::vector<Arg>& args,
                                const Kwargs& kwargs = {}, const std::string& name = "");

  /// Sets the program outputs (USER_OUTPUT each).
  void output(const std::vector<Value>& values);

  /// The verified ATEN-stage program. The builder is spent afterwards (InvalidState on reuse).
  ir::ExportedProgram build();

  /// The program under construction (for tests and advanced use).
  ir::ExportedProgram& program() { return program_; }

  // Convenience helpers for common ops (each is a `call`).
  Value conv2d(Value x, Value weight, std::optional<Value> bias = std::nullopt,
               std::vector<int64_t> stride = {1, 1}, std::vector<int64_t> padding = {0, 0},
               std::vector<int64_t> dilation = {1, 1}, int64_t groups = 1);
  Value relu(Value x);
  Value add(Value a, Value b);
  Value mul(Value a, Value b);
  /// x @ weight.T + bias, as aten::addmm(bias, x, t_copy(weight)) (or mm without bias).
  Value linear(Value x, Value weight, std::optional<Value> bias = std::nullopt);
  Value mean(Value x, std::vector<int64_t> dims, bool keepdim = false);
  Value view(Value x, Shape size);
  Value softmax(Value x, int64_t dim);

 private:
  ir::Node* create_call(std::string_view op_name, const std::vector<Arg>& args,
                        const Kwargs& kwargs, const std::string& name);
  ir::Argument convert(const ir::OpSchema& op, const ir::ArgSchema& schema, const Arg& arg);
  ir::Argument convert_item(const ir::OpSchema& op, const ir::ArgSchema& schema, const Arg& arg);
  ir::Node* sym_size_node(const SymInt& dim, const ir::OpSchema& op, const ir::ArgSchema& schema);
  Value add_weight(const std::string& placeholder, ir::InputKind kind, const std::string& target,
                   TensorData data);
  void require_building() const;
  void register_symbols(const Shape& shape);

  std::string name_;
  ir::ExportedProgram program_;
  std::map<std::string, ir::InputKind> kinds_;  // placeholder name → kind
  std::map<std::string, std::string> targets_;  // placeholder name → state_dict/constants key
  std::map<std::pair<const ir::Node*, int64_t>, ir::Node*> sym_sizes_;
  bool built_ = false;
};

}  // namespace ptec::builder
