#include "frontends/builder/graph_builder.h"

#include <algorithm>

#include <fmt/format.h>

#include "ir/exception.h"
#include "ir/op_schema.h"
#include "ir/verifier.h"

namespace ptec::builder {

// ---------------------------------------------------------------------------------------------
// Value and Arg
// ---------------------------------------------------------------------------------------------

const std::string& Value::name() const {
  PTEC_ENFORCE(node_ != nullptr, InvalidState, "use of an empty builder Value");
  return node_->name();
}

const TensorSpec& Value::spec() const {
  PTEC_ENFORCE(node_ != nullptr, InvalidState, "use of an empty builder Value");
  return node_->spec();
}

Arg::Arg(const std::vector<int64_t>& items) {
  List list;
  for (int64_t v : items) list.emplace_back(v);
  value_ = std::move(list);
}

Arg::Arg(const std::vector<double>& items) {
  List list;
  for (double v : items) list.emplace_back(v);
  value_ = std::move(list);
}

Arg::Arg(const std::vector<Value>& items) {
  List list;
  for (const Value& v : items) list.emplace_back(v);
  value_ = std::move(list);
}

Arg::Arg(const Shape& items) {
  List list;
  for (const SymInt& v : items) list.emplace_back(v);
  value_ = std::move(list);
}

Arg Arg::list(List items) {
  Arg a;
  a.value_ = std::move(items);
  return a;
}

// ---------------------------------------------------------------------------------------------
// GraphBuilder
// ---------------------------------------------------------------------------------------------

namespace {

std::string placeholder_name(std::string_view prefix, std::string_view fqn) {
  std::string out(prefix);
  for (char c : fqn) out.push_back(c == '.' ? '_' : c);
  return out;
}

std::string arg_names(const ir::OpSchema& op) {
  std::vector<std::string> names;
  for (const ir::ArgSchema& a : op.args) names.push_back(a.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

GraphBuilder::GraphBuilder(std::string name) : name_(std::move(name)) {}

void GraphBuilder::require_building() const {
  PTEC_ENFORCE(!built_, InvalidState, "GraphBuilder '{}' has already built its program", name_);
}

SymInt GraphBuilder::symbol(const std::string& name, int64_t min, int64_t max, int64_t multiple) {
  require_building();
  PTEC_ENFORCE(min <= max, InvalidArgument, "symbol '{}': empty range [{}, {}]", name, min, max);
  PTEC_ENFORCE(min >= 0, InvalidArgument, "symbol '{}': negative minimum {}", name, min);
  PTEC_ENFORCE(multiple >= 1 && min % multiple == 0 && max % multiple == 0, InvalidArgument,
               "symbol '{}': the bounds of [{}, {}] must be multiples of {}", name, min, max,
               multiple);
  auto& constraints = program_.range_constraints();
  auto it = constraints.find(name);
  if (it != constraints.end()) {
    PTEC_ENFORCE(
        it->second->min == min && it->second->max == max && it->second->multiple == multiple,
        InvalidArgument, "symbol '{}' already exists with range [{}, {}], not [{}, {}]{}", name,
        it->second->min, it->second->max, min, max,
        it->second->multiple == multiple
            ? std::string()
            : fmt::format(" (multiples of {}, not {})", it->second->multiple, multiple));
    return SymInt(it->second);
  }
  auto symbol = std::make_shared<ir::Symbol>(ir::Symbol{name, min, max});
  symbol->multiple = multiple;
  constraints.emplace(name, symbol);
  return SymInt(symbol);
}

void GraphBuilder::register_symbols(const Shape& shape) {
  for (const SymInt& d : shape) {
    if (!d.is_symbolic()) continue;
    const ir::SymbolPtr& s = d.symbol();
    auto& constraints = program_.range_constraints();
    auto it = constraints.find(s->name);
    if (it == constraints.end()) {
      constraints.emplace(s->name, s);
    } else {
      PTEC_ENFORCE(it->second->min == s->min && it->second->max == s->max, InvalidArgument,
                   "symbol '{}' is used with ranges [{}, {}] and [{}, {}]", s->name,
                   it->second->min, it->second->max, s->min, s->max);
    }
  }
}

Value GraphBuilder::input(const std::string& name, DType dtype, const Shape& shape) {
  require_building();
  PTEC_ENFORCE(program_.graph().find(name) == nullptr, InvalidArgument,
               "input '{}': the name is already used", name);
  for (const SymInt& d : shape) {
    PTEC_ENFORCE(d.is_symbolic() || d.value() >= 0, InvalidArgument,
                 "input '{}': negative dimension {}", name, d.value());
  }
  register_symbols(shape);
  ir::Node* node = program_.graph().add_placeholder(name, TensorSpec(dtype, shape));
  PTEC_ENFORCE(node->name() == name, InvalidArgument,
               "input '{}': not a valid name (letters, digits and '_'; it became '{}')", name,
               node->name());
  kinds_[node->name()] = ir::InputKind::UserInput;
  return Value(node);
}

Value GraphBuilder::add_weight(const std::string& placeholder, ir::InputKind kind,
                               const std::string& target, TensorData data) {
  require_building();
  data.check(target);
  auto& table =
      kind == ir::InputKind::ConstantTensor ? program_.constants() : program_.state_dict();
  PTEC_ENFORCE(table.count(target) == 0, InvalidArgument, "'{}' is already defined", target);
  ir::Node* node = program_.graph().add_placeholder(placeholder, data.spec);
  kinds_[node->name()] = kind;
  targets_[node->name()] = target;
  table.emplace(target, std::move(data));  // shares the payload
  return Value(node);
}

Value GraphBuilder::parameter(const std::string& fqn, TensorData data) {
  return add_weight(placeholder_name("p_", fqn), ir::InputKind::Parameter, fqn, std::move(data));
}

Value GraphBuilder::parameter(const std::string& fqn, DType dtype,
                              const std::vector<int64_t>& sizes, ir::BufferPtr payload) {
  return parameter(fqn, TensorData{TensorSpec(dtype, sizes), std::move(payload)});
}

Value GraphBuilder::buffer(const std::string& fqn, TensorData data) {
  return add_weight(placeholder_name("b_", fqn), ir::InputKind::Buffer, fqn, std::move(data));
}

Value GraphBuilder::constant(const std::string& name, TensorData data) {
  return add_weight(placeholder_name("c_", name), ir::InputKind::ConstantTensor, name,
                    std::move(data));
}

ir::Node* GraphBuilder::sym_size_node(const SymInt& dim, const ir::OpSchema& op,
                                      const ir::ArgSchema& schema) {
  // The first placeholder dimension with this symbol gives its value at run time.
  for (ir::Node* p : program_.graph().placeholders()) {
    if (p->meta().val.size() != 1) continue;
    const Shape& shape = p->meta().val[0].shape;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] != dim) continue;
      auto key = std::make_pair(static_cast<const ir::Node*>(p), static_cast<int64_t>(i));
      auto it = sym_sizes_.find(key);
      if (it != sym_sizes_.end()) return it->second;
      const ir::OpSchema& sym_size = ir::get_op("aten::sym_size.int");
      ir::Node* node = program_.graph().add_call(sym_size, {p, static_cast<int64_t>(i)});
      sym_sizes_.emplace(key, node);
      return node;
    }
  }
  raise(Error::InvalidArgument, "{}: argument '{}': symbol '{}' is not a dimension of any input",
        op.qualified_name(), schema.name, dim.symbol()->name);
}

ir::Argument GraphBuilder::convert_item(const ir::OpSchema& op, const ir::ArgSchema& schema,
                                        const Arg& arg) {
  const Arg::Variant& v = arg.value();
  if (std::holds_alternative<std::monostate>(v)) return ir::Argument();
  if (const Value* value = std::get_if<Value>(&v)) {
    PTEC_ENFORCE(value->valid(), InvalidArgument, "{}: argument '{}': an empty Value",
                 op.qualified_name(), schema.name);
    PTEC_ENFORCE(&value->node()->graph() == &program_.graph(), InvalidArgument,
                 "{}: argument '{}': %{} belongs to another builder", op.qualified_name(),
                 schema.name, value->node()->name());
    return ir::Argument(value->node());
  }
  if (const int64_t* i = std::get_if<int64_t>(&v)) {
    if (schema.type.base == ir::BaseType::Float) return ir::Argument(static_cast<double>(*i));
    return ir::Argument(*i);
  }
  if (const double* d = std::get_if<double>(&v)) return ir::Argument(*d);
  if (const bool* b = std::get_if<bool>(&v)) return ir::Argument(*b);
  if (const std::string* s = std::get_if<std::string>(&v)) return ir::Argument(*s);
  if (const DType* t = std::get_if<DType>(&v)) return ir::Argument(*t);
  if (const SymInt* s = std::get_if<SymInt>(&v)) {
    if (s->is_static()) return ir::Argument(s->value());
    return ir::Argument(sym_size_node(*s, op, schema));
  }
  ir::ArgumentList items;
  for (const Arg& item : std::get<Arg::List>(v)) items.push_back(convert_item(op, schema, item));
  return ir::Argument(std::move(items));
}

ir::Argument GraphBuilder::convert(const ir::OpSchema& op, const ir::ArgSchema& schema,
                                   const Arg& arg) {
  ir::Argument value = convert_item(op, schema, arg);
  const ir::TypeRef& t = schema.type;
  // A single int (or value) for a list type: `int[2] padding=1` means [1, 1], `int[] dim=1`
  // means [1].
  if (t.is_list && !value.is_list() && !value.is_none() &&
      !(t.base == ir::BaseType::Tensor && value.is_node())) {
    const size_t n = static_cast<size_t>(std::max(t.list_size, 1));
    value = ir::Argument(ir::ArgumentList(n, value));
  }
  if (auto problem = ir::check_argument(schema, value)) {
    raise(Error::InvalidArgument, "{}: argument '{}': {}", op.qualified_name(), schema.name,
          *problem);
  }
  return value;
}

ir::Node* GraphBuilder::create_call(std::string_view op_name, const std::vector<Arg>& args,
                                    const Kwargs& kwargs, const std::string& name) {
  require_building();
  const ir::OpSchema& op = ir::get_op(op_name);  // NotFound lists close names
  PTEC_ENFORCE(!op.opaque_outputs, NotSupported,
               "{}: its output specs come from an engine or delegate; GraphBuilder cannot create "
               "it",
               op.qualified_name());
  const size_t count = op.args.size();
  if (args.size() > count) {
    raise(Error::InvalidArgument, "{} takes {} argument{} ({}), got {}", op.qualified_name(), count,
          count == 1 ? "" : "s", arg_names(op), args.size());
  }
  std::vector<const Arg*> slots(count, nullptr);
  for (size_t i = 0; i < args.size(); ++i) slots[i] = &args[i];
  for (const auto& [key, value] : kwargs) {
    const int index = op.arg_index(key);
    if (index < 0) {
      raise(Error::InvalidArgument, "{} has no argument '{}' (arguments: {})", op.qualified_name(),
            key, arg_names(op));
    }
    PTEC_ENFORCE(slots[static_cast<size_t>(index)] == nullptr, InvalidArgument,
                 "{}: argument '{}' is given twice", op.qualified_name(), key);
    slots[static_cast<size_t>(index)] = &value;
  }
  ir::ArgumentList converted;
  for (size_t i = 0; i < count; ++i) {
    const ir::ArgSchema& schema = op.args[i];
    if (slots[i] == nullptr) {
      if (!schema.default_value) {
        raise(Error::InvalidArgument, "{}: missing argument '{}' (argument {} of {}: {})",
              op.qualified_name(), schema.name, i + 1, count, arg_names(op));
      }
      converted.push_back(*schema.default_value);
    } else {
      converted.push_back(convert(op, schema, *slots[i]));
    }
  }
  // The shape function checks dtypes and shapes and names the op and argument on failure.
  std::vector<TensorSpec> specs = op.shape_fn(op, converted);
  ir::Node* node = program_.graph().add_call(op, std::move(converted), name);
  node->meta().val = std::move(specs);
  return node;
}

Value GraphBuilder::call(std::string_view op, const std::vector<Arg>& args, const Kwargs& kwargs,
                         const std::string& name) {
  const ir::OpSchema& schema = ir::get_op(op);
  PTEC_ENFORCE(!ir::is_multi_output_op(schema), InvalidArgument,
               "{} returns several tensors; use call_multi", schema.qualified_name());
  return Value(create_call(op, args, kwargs, name));
}

std::vector<Value> GraphBuilder::call_multi(std::string_view op, const std::vector<Arg>& args,
                                            const Kwargs& kwargs, const std::string& name) {
  const ir::OpSchema& schema = ir::get_op(op);
  PTEC_ENFORCE(ir::is_multi_output_op(schema), InvalidArgument, "{} returns one value; use call",
               schema.qualified_name());
  ir::Node* node = create_call(op, args, kwargs, name);
  const ir::OpSchema& getitem = ir::get_op("getitem");
  std::vector<Value> out;
  for (size_t i = 0; i < node->meta().val.size(); ++i) {
    ir::Node* item = program_.graph().add_call(getitem, {node, static_cast<int64_t>(i)});
    item->meta().val = {node->meta().val[i]};
    out.emplace_back(item);
  }
  return out;
}

void GraphBuilder::output(const std::vector<Value>& values) {
  require_building();
  std::vector<ir::Node*> nodes;
  auto& outputs = program_.signature().outputs;
  outputs.clear();
  for (const Value& v : values) {
    PTEC_ENFORCE(v.valid(), InvalidArgument, "output: an empty Value");
    nodes.push_back(v.node());
    outputs.push_back(ir::OutputSpec{ir::OutputKind::UserOutput, v.node()->name(), ""});
  }
  program_.graph().set_output(nodes);
}

ir::ExportedProgram GraphBuilder::build() {
  require_building();
  PTEC_ENFORCE(program_.graph().output_node() != nullptr, InvalidState,
               "GraphBuilder '{}': call output() before build()", name_);
  auto& inputs = program_.signature().inputs;
  inputs.clear();
  for (const ir::Node* p : program_.graph().placeholders()) {
    const auto target = targets_.find(p->name());
    inputs.push_back(ir::InputSpec{kinds_.at(p->name()), p->name(),
                                   target == targets_.end() ? std::string() : target->second});
  }
  program_.set_stage(ir::Stage::Aten);
  program_.provenance().push_back({"import", "builder: " + name_});
  ir::verify_or_throw(program_);
  built_ = true;
  return std::move(program_);
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

Value GraphBuilder::conv2d(Value x, Value weight, std::optional<Value> bias,
                           std::vector<int64_t> stride, std::vector<int64_t> padding,
                           std::vector<int64_t> dilation, int64_t groups) {
  return call("aten::convolution", {x, weight, bias ? Arg(*bias) : Arg(), stride, padding, dilation,
                                    false, Arg(std::vector<int64_t>{0, 0}), groups});
}

Value GraphBuilder::relu(Value x) { return call("aten::relu", {x}); }
Value GraphBuilder::add(Value a, Value b) { return call("aten::add.Tensor", {a, b}); }
Value GraphBuilder::mul(Value a, Value b) { return call("aten::mul.Tensor", {a, b}); }

Value GraphBuilder::linear(Value x, Value weight, std::optional<Value> bias) {
  const Value wt = call("aten::t_copy", {weight});
  if (bias) return call("aten::addmm", {*bias, x, wt});
  return call("aten::mm", {x, wt});
}

Value GraphBuilder::mean(Value x, std::vector<int64_t> dims, bool keepdim) {
  return call("aten::mean.dim", {x, dims, keepdim});
}

Value GraphBuilder::view(Value x, Shape size) { return call("aten::view_copy", {x, size}); }

Value GraphBuilder::softmax(Value x, int64_t dim) {
  return call("aten::_softmax", {x, dim, false});
}

}  // namespace ptec::builder
