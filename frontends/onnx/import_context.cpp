#include "frontends/onnx/import_context.h"

#include <cstring>
#include <filesystem>

#include <fmt/ranges.h>

namespace ptec::onnx_import {

using onnx::AttributeProto;
using onnx::AttributeProto_AttributeType;
using onnx::TensorProto;

// ---------------------------------------------------------------------------------------------
// dtypes
// ---------------------------------------------------------------------------------------------

DType dtype_from_onnx(int32_t onnx_type, const std::string& where) {
  switch (onnx_type) {
    case TensorProto::FLOAT: return DType::Float;
    case TensorProto::UINT8: return DType::Byte;
    case TensorProto::INT8: return DType::Char;
    case TensorProto::UINT16: return DType::UInt16;
    case TensorProto::INT16: return DType::Short;
    case TensorProto::INT32: return DType::Int;
    case TensorProto::INT64: return DType::Long;
    case TensorProto::BOOL: return DType::Bool;
    case TensorProto::FLOAT16: return DType::Half;
    case TensorProto::DOUBLE: return DType::Double;
    case TensorProto::UINT32: return DType::UInt32;
    case TensorProto::UINT64: return DType::UInt64;
    case TensorProto::BFLOAT16: return DType::BFloat16;
    default: break;
  }
  const std::string name =
      TensorProto::DataType_IsValid(onnx_type)
          ? TensorProto::DataType_Name(static_cast<TensorProto::DataType>(onnx_type))
          : fmt::format("#{}", onnx_type);
  throw LocatedError(Error::NotSupported,
                     fmt::format("{}: ONNX data type {} is not supported", where, name));
}

int32_t dtype_to_onnx(DType dtype) {
  switch (dtype) {
    case DType::Float: return TensorProto::FLOAT;
    case DType::Byte: return TensorProto::UINT8;
    case DType::Char: return TensorProto::INT8;
    case DType::UInt16: return TensorProto::UINT16;
    case DType::Short: return TensorProto::INT16;
    case DType::Int: return TensorProto::INT32;
    case DType::Long: return TensorProto::INT64;
    case DType::Bool: return TensorProto::BOOL;
    case DType::Half: return TensorProto::FLOAT16;
    case DType::Double: return TensorProto::DOUBLE;
    case DType::UInt32: return TensorProto::UINT32;
    case DType::UInt64: return TensorProto::UINT64;
    case DType::BFloat16: return TensorProto::BFLOAT16;
    default: return 0;
  }
}

std::vector<int64_t> static_sizes(const ir::TensorSpec& spec, const std::string& where) {
  if (!spec.is_static()) {
    throw LocatedError(Error::NotSupported,
                       fmt::format("{}: {} has a symbolic dim; dynamic shapes are not supported "
                                   "by the ONNX importer yet",
                                   where, spec.to_string()));
  }
  return spec.upper_bound_sizes();
}

// ---------------------------------------------------------------------------------------------
// NodeView
// ---------------------------------------------------------------------------------------------

const std::string& NodeView::input(size_t i) const {
  static const std::string kEmpty;
  return i < num_inputs() ? proto_->input(static_cast<int>(i)) : kEmpty;
}

const std::string& NodeView::output(size_t i) const {
  static const std::string kEmpty;
  return i < num_outputs() ? proto_->output(static_cast<int>(i)) : kEmpty;
}

std::string NodeView::where() const {
  return fmt::format("{}: node '{}' ({}, opset {})", *file_, source_, op_type(), opset_);
}

const AttributeProto* NodeView::find_attr(std::string_view name) const {
  for (const AttributeProto& a : proto_->attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

const AttributeProto& NodeView::typed_attr(std::string_view name,
                                           AttributeProto_AttributeType type) const {
  const AttributeProto* a = find_attr(name);
  // Older exporters leave `type` unset (UNDEFINED); accept those when the field is present.
  if (a->type() != type && a->type() != AttributeProto::UNDEFINED) {
    fail(Error::InvalidArgument, "attribute '{}' must be {}, not {}", name,
         AttributeProto::AttributeType_Name(type), AttributeProto::AttributeType_Name(a->type()));
  }
  return *a;
}

std::optional<int64_t> NodeView::attr_int_opt(std::string_view name) const {
  if (!has_attr(name)) return std::nullopt;
  return typed_attr(name, AttributeProto::INT).i();
}

int64_t NodeView::attr_int(std::string_view name, int64_t default_value) const {
  return attr_int_opt(name).value_or(default_value);
}

std::optional<float> NodeView::attr_float_opt(std::string_view name) const {
  if (!has_attr(name)) return std::nullopt;
  return typed_attr(name, AttributeProto::FLOAT).f();
}

float NodeView::attr_float(std::string_view name, float default_value) const {
  return attr_float_opt(name).value_or(default_value);
}

std::string NodeView::attr_string(std::string_view name, std::string default_value) const {
  if (!has_attr(name)) return default_value;
  return typed_attr(name, AttributeProto::STRING).s();
}

std::optional<std::vector<int64_t>> NodeView::attr_ints_opt(std::string_view name) const {
  if (!has_attr(name)) return std::nullopt;
  const AttributeProto& a = typed_attr(name, AttributeProto::INTS);
  return std::vector<int64_t>(a.ints().begin(), a.ints().end());
}

std::vector<int64_t> NodeView::attr_ints(std::string_view name,
                                         std::vector<int64_t> default_value) const {
  auto v = attr_ints_opt(name);
  return v ? std::move(*v) : std::move(default_value);
}

std::vector<float> NodeView::attr_floats(std::string_view name) const {
  if (!has_attr(name)) return {};
  const AttributeProto& a = typed_attr(name, AttributeProto::FLOATS);
  return std::vector<float>(a.floats().begin(), a.floats().end());
}

onnx::TensorProto* NodeView::attr_tensor(std::string_view name) const {
  if (!has_attr(name)) return nullptr;
  typed_attr(name, AttributeProto::TENSOR);
  for (AttributeProto& a : *proto_->mutable_attribute()) {
    if (a.name() == name) return a.mutable_t();
  }
  return nullptr;
}

int64_t NodeView::normalize_axis(int64_t axis, int64_t rank, std::string_view what) const {
  if (axis < -rank || axis >= rank) {
    fail(Error::InvalidArgument, "{} {} is out of range for rank {}", what, axis, rank);
  }
  return axis < 0 ? axis + rank : axis;
}

// ---------------------------------------------------------------------------------------------
// ImportContext
// ---------------------------------------------------------------------------------------------

ImportContext::ImportContext(ir::ExportedProgram& program, std::string file,
                             std::string external_data_dir)
    : program_(&program),
      file_(std::move(file)),
      external_data_dir_(std::move(external_data_dir)) {}

void ImportContext::fail(Error code, const std::string& message) const {
  const std::string where = current_ != nullptr ? current_->where() : file_;
  throw LocatedError(code, where + ": " + message);
}

void ImportContext::define(const std::string& name, Value value) {
  if (!values_.emplace(name, std::move(value)).second) {
    fail(Error::InvalidProgram, fmt::format("value '{}' is defined twice", name));
  }
}

void ImportContext::define_sym(const std::string& name, SymValue value, std::string source) {
  define(name, Value{nullptr, std::nullopt, false, std::move(source)});
  sym_values_.emplace(name, std::move(value));
}

void ImportContext::define_seq(const std::string& name, std::vector<Value> items,
                               std::string source) {
  define(name, Value{nullptr, std::nullopt, false, std::move(source)});
  seq_values_.emplace(name, std::move(items));
}

const std::vector<Value>* ImportContext::seq_value(const std::string& name) const {
  auto it = seq_values_.find(name);
  return it == seq_values_.end() ? nullptr : &it->second;
}

const SymValue* ImportContext::sym_value(const std::string& name) const {
  auto it = sym_values_.find(name);
  return it == sym_values_.end() ? nullptr : &it->second;
}

Value* ImportContext::find(const std::string& name) {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

ir::Node* ImportContext::input(const NodeView& node, size_t i) {
  if (!node.has_input(i)) node.fail(Error::InvalidArgument, "input {} is required", i);
  Value* v = find(node.input(i));
  if (v == nullptr) node.fail(Error::InvalidProgram, "input '{}' is not defined", node.input(i));
  return materialize(node.input(i), *v);
}

const ConstTensor* ImportContext::constant(const NodeView& node, size_t i) {
  if (!node.has_input(i)) return nullptr;
  Value* v = find(node.input(i));
  if (v == nullptr) node.fail(Error::InvalidProgram, "input '{}' is not defined", node.input(i));
  return v->constant ? &*v->constant : nullptr;
}

const ConstTensor& ImportContext::require_constant(const NodeView& node, size_t i,
                                                   std::string_view what) {
  if (!node.has_input(i)) node.fail(Error::InvalidArgument, "input '{}' is required", what);
  const ConstTensor* c = constant(node, i);
  if (c == nullptr) {
    node.fail(Error::NotSupported,
              "input '{}' ('{}') is computed at run time; it must be known at import time "
              "(dynamic shapes are not supported yet)",
              what, node.input(i));
  }
  return *c;
}

ir::TensorSpec ImportContext::input_spec(const NodeView& node, size_t i) {
  if (!node.has_input(i)) node.fail(Error::InvalidArgument, "input {} is required", i);
  Value* v = find(node.input(i));
  if (v == nullptr) node.fail(Error::InvalidProgram, "input '{}' is not defined", node.input(i));
  if (v->node != nullptr) return v->node->spec();
  if (const SymValue* sym = sym_value(node.input(i))) {
    return sym->scalar
               ? ir::TensorSpec(DType::Long, std::vector<int64_t>{})
               : ir::TensorSpec(DType::Long,
                                std::vector<int64_t>{static_cast<int64_t>(sym->items.size())});
  }
  return v->constant->spec();
}

std::vector<int64_t> ImportContext::input_sizes(const NodeView& node, size_t i) {
  return static_sizes(input_spec(node, i), node.where() + ": input '" + node.input(i) + "'");
}

std::vector<int64_t> ImportContext::input_sizes_batch(const NodeView& node, size_t i) {
  ir::TensorSpec spec = input_spec(node, i);
  if (spec.rank() > 0 && spec.shape[0].is_symbolic()) spec.shape[0] = spec.shape[0].upper_bound();
  return static_sizes(spec, node.where() + ": input '" + node.input(i) + "'");
}

ir::Argument ImportContext::sym_size(const ir::SymInt& dim) {
  if (std::optional<ir::Argument> found = find_sym_size(dim)) return *found;
  fail(Error::Internal,
       fmt::format("symbol '{}' is not a dimension of any input", dim.symbol()->name));
}

std::optional<ir::Argument> ImportContext::find_sym_size(const ir::SymInt& dim) {
  if (dim.is_static()) return ir::Argument(dim.value());
  auto it = sym_sizes_.find(dim.symbol()->name);
  if (it != sym_sizes_.end()) return ir::Argument(it->second);
  if (auto data = data_dims_.find(dim.symbol()->name); data != data_dims_.end()) {
    ir::Node* n = call("aten::sym_size.int", {data->second.first, data->second.second});
    sym_sizes_.emplace(dim.symbol()->name, n);
    return ir::Argument(n);
  }
  for (const auto& [p, spec] : placeholders_) {
    if (spec.kind != ir::InputKind::UserInput) continue;
    const ir::Shape& shape = p->spec().shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] != dim) continue;
      ir::Node* n = call("aten::sym_size.int", {p, static_cast<int64_t>(d)});
      sym_sizes_.emplace(dim.symbol()->name, n);
      return ir::Argument(n);
    }
  }
  return std::nullopt;
}

ir::ArgumentList ImportContext::size_args(const ir::Shape& shape) {
  ir::ArgumentList out;
  for (const ir::SymInt& d : shape) out.push_back(sym_size(d));
  return out;
}

void ImportContext::set_output(const NodeView& node, size_t i, ir::Node* value) {
  if (!node.has_output(i)) return;
  define(node.output(i), Value{value, std::nullopt, false, node.source()});
}

void ImportContext::set_output(const NodeView& node, size_t i, ConstTensor value) {
  if (!node.has_output(i)) return;
  define(node.output(i), Value{nullptr, std::move(value), false, node.source()});
}

void ImportContext::forward_input(const NodeView& node, size_t i, size_t input_index) {
  if (!node.has_output(i)) return;
  if (!node.has_input(input_index)) {
    node.fail(Error::InvalidArgument, "input {} is required", input_index);
  }
  Value* v = find(node.input(input_index));
  if (v == nullptr) {
    node.fail(Error::InvalidProgram, "input '{}' is not defined", node.input(input_index));
  }
  Value copy = *v;
  define(node.output(i), std::move(copy));
}

ir::Node* ImportContext::call(std::string_view op_name, ir::ArgumentList args) {
  const ir::OpSchema* op = ir::find_op(op_name);
  if (op == nullptr) {
    fail(Error::OperatorMissing, fmt::format("operator {} is not in ptec's op table", op_name));
  }
  if (args.size() > op->args.size()) {
    fail(Error::Internal,
         fmt::format("{} takes {} arguments, got {}", op_name, op->args.size(), args.size()));
  }
  for (size_t i = args.size(); i < op->args.size(); ++i) {
    const ir::ArgSchema& a = op->args[i];
    if (a.default_value) {
      args.push_back(*a.default_value);
    } else if (a.type.optional) {
      args.emplace_back();
    } else {
      fail(Error::Internal, fmt::format("{}: argument '{}' has no default", op_name, a.name));
    }
  }
  if (op->shape_fn == nullptr) {
    fail(Error::Internal, fmt::format("{} has no shape function", op_name));
  }
  std::vector<ir::TensorSpec> specs = op->shape_fn(*op, args);
  ir::Node* n = graph().add_call(*op, std::move(args));
  n->meta().val = std::move(specs);
  // The first tensor with a data-dependent dim (nonzero's count) is where sym_size() reads it.
  if (n->meta().val.size() == 1) {
    const ir::Shape& shape = n->meta().val[0].shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d].is_symbolic() && shape[d].symbol()->data_dependent) {
        data_dims_.emplace(shape[d].symbol()->name, std::pair{n, static_cast<int64_t>(d)});
      }
    }
  }
  if (current_ != nullptr) n->meta().source = current_->source();
  return n;
}

ir::Node* ImportContext::getitem(ir::Node* multi, int64_t index) {
  return call("getitem", {multi, index});
}

std::string ImportContext::unique_key(const std::string& hint) const {
  auto taken = [&](const std::string& k) {
    return program_->state_dict().count(k) != 0 || program_->constants().count(k) != 0;
  };
  if (!taken(hint)) return hint;
  for (int i = 1;; ++i) {
    std::string k = fmt::format("{}_{}", hint, i);
    if (!taken(k)) return k;
  }
}

ir::Node* ImportContext::constant_tensor(const std::string& hint, ConstTensor value) {
  const std::string key = unique_key(hint);
  ir::Node* n = graph().add_placeholder("c_" + key, value.spec());
  n->meta().source = current_ != nullptr ? current_->source() : hint;
  program_->constants().emplace(key, value.to_tensor_data());
  placeholders_.push_back({n, ir::InputSpec{ir::InputKind::ConstantTensor, n->name(), key}});
  return n;
}

ir::Node* ImportContext::parameter(const std::string& key, ConstTensor value) {
  const std::string unique = unique_key(key);
  ir::Node* n = graph().add_placeholder("p_" + unique, value.spec());
  n->meta().source = key;
  program_->state_dict().emplace(unique, value.to_tensor_data());
  placeholders_.push_back({n, ir::InputSpec{ir::InputKind::Parameter, n->name(), unique}});
  return n;
}

void ImportContext::add_user_input(ir::Node* node, const std::string& onnx_name) {
  node->meta().source = onnx_name;
  placeholders_.push_back({node, ir::InputSpec{ir::InputKind::UserInput, node->name(), ""}});
}

ir::Node* ImportContext::materialize(const std::string& name, Value& value) {
  if (value.node != nullptr) return value.node;
  if (sym_value(name) != nullptr) {
    fail(Error::NotSupported,
         fmt::format("value '{}' is computed from dynamic dims and used as a tensor; only "
                     "Shape/Gather/Slice/Concat/Unsqueeze/Squeeze/Cast/Equal/Where chains "
                     "feeding Reshape/Expand/Slice/ConstantOfShape/Range are supported",
                     name));
  }
  if (seq_value(name) != nullptr) {
    fail(Error::NotSupported,
         fmt::format("value '{}' is a sequence, used as a tensor; sequences are supported as "
                     "inputs of the Sequence ops, SplitToSequence and ConcatFromSequence",
                     name));
  }
  if (!value.constant) fail(Error::Internal, fmt::format("value '{}' has no producer", name));
  // Two values with the same bytes and spec (e.g. Identity of an initializer) share one
  // placeholder.
  for (const auto& [node, spec] : placeholders_) {
    if (spec.kind == ir::InputKind::UserInput) continue;
    const ir::TensorData* td = spec.kind == ir::InputKind::Parameter
                                   ? &program_->state_dict().at(spec.target)
                                   : &program_->constants().at(spec.target);
    if (td->data == value.constant->data && td->spec == value.constant->spec()) {
      value.node = node;
      return node;
    }
  }
  value.node = value.is_initializer ? parameter(name, *value.constant)
                                    : constant_tensor(name, *value.constant);
  if (!value.source.empty()) value.node->meta().source = value.source;
  return value.node;
}

// ---------------------------------------------------------------------------------------------
// TensorProto → ConstTensor
// ---------------------------------------------------------------------------------------------

namespace {

template <typename T, typename Field>
ir::BufferPtr bytes_of(const Field& field) {
  std::vector<uint8_t> bytes(static_cast<size_t>(field.size()) * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), field.data(), bytes.size());
  return ir::Buffer::from_vector(std::move(bytes));
}

}  // namespace

ConstTensor ImportContext::tensor_from_proto(TensorProto& proto, const std::string& what) {
  const std::string where = fmt::format("{}: tensor '{}'", file_, what);
  auto bad = [&](const std::string& message) -> LocatedError {
    return LocatedError(Error::InvalidProgram, where + ": " + message);
  };
  ConstTensor t;
  t.dtype = dtype_from_onnx(proto.data_type(), where);
  t.sizes.assign(proto.dims().begin(), proto.dims().end());
  for (int64_t d : t.sizes) {
    if (d < 0) throw bad(fmt::format("negative dim in {}", sizes_to_string(t.sizes)));
  }
  int64_t numel = 0;
  try {
    numel = element_count(t.sizes);
  } catch (const Exception&) {
    throw bad(fmt::format("element count of {} overflows", sizes_to_string(t.sizes)));
  }
  if (numel > static_cast<int64_t>(SIZE_MAX / 16)) throw bad("tensor is too large");
  const size_t expected = static_cast<size_t>(numel) * element_size(t.dtype);
  if (proto.has_segment()) throw bad("segmented tensors are not supported");

  if (proto.data_location() == TensorProto::EXTERNAL) {
    std::string location;
    size_t offset = 0;
    std::optional<size_t> length;
    for (const auto& entry : proto.external_data()) {
      try {
        if (entry.key() == "location") location = entry.value();
        // (stoull takes "-8" as a huge number: a sign is refused first.)
        if ((entry.key() == "offset" || entry.key() == "length") &&
            entry.value().find('-') != std::string::npos) {
          throw std::invalid_argument("negative");
        }
        if (entry.key() == "offset") offset = std::stoull(entry.value());
        if (entry.key() == "length") length = std::stoull(entry.value());
      } catch (const std::exception&) {
        throw bad(fmt::format("external data '{}' is not a non-negative integer: '{}'", entry.key(),
                              entry.value()));
      }
    }
    if (location.empty()) throw bad("external data has no location");
    const std::filesystem::path rel(location);
    for (const auto& part : rel) {
      if (part == "..")
        throw bad(
            fmt::format("external data location '{}' leaves the model "
                        "directory",
                        location));
    }
    if (rel.is_absolute()) {
      throw bad(fmt::format("external data location '{}' is absolute", location));
    }
    ir::BufferPtr& file = external_files_[location];
    if (file == nullptr) {
      const std::string path = external_data_dir_.empty()
                                   ? location
                                   : (std::filesystem::path(external_data_dir_) / rel).string();
      try {
        file = ir::Buffer::map_file(path);
      } catch (const Exception& e) {
        throw LocatedError(e.code(), where + ": external data: " + e.what());
      }
    }
    const size_t size = length.value_or(expected);
    if (size != expected) {
      throw bad(fmt::format("external data length {} does not match {} bytes of {} {}", size,
                            expected, to_string(t.dtype), sizes_to_string(t.sizes)));
    }
    if (offset > file->size() || size > file->size() - offset) {
      throw bad(fmt::format("external data [{}, +{}) is outside '{}' ({} bytes)", offset, size,
                            location, file->size()));
    }
    t.data = ir::Buffer::slice(file, offset, size);
    return t;
  }

  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != expected) {
      throw bad(fmt::format("raw_data has {} bytes; {} {} needs {}", proto.raw_data().size(),
                            to_string(t.dtype), sizes_to_string(t.sizes), expected));
    }
    // Take the protobuf's string without copying its bytes: the Buffer owns the same heap block.
    std::string bytes;
    bytes.swap(*proto.mutable_raw_data());
    proto.clear_raw_data();
    t.data = ir::Buffer::from_string(std::move(bytes));
    return t;
  }

  auto check_count = [&](int count) {
    if (static_cast<int64_t>(count) != numel) {
      throw bad(fmt::format("has {} values; {} needs {}", count, sizes_to_string(t.sizes), numel));
    }
  };
  switch (proto.data_type()) {
    case TensorProto::FLOAT:
      check_count(proto.float_data_size());
      t.data = bytes_of<float>(proto.float_data());
      break;
    case TensorProto::DOUBLE:
      check_count(proto.double_data_size());
      t.data = bytes_of<double>(proto.double_data());
      break;
    case TensorProto::INT64:
      check_count(proto.int64_data_size());
      t.data = bytes_of<int64_t>(proto.int64_data());
      break;
    case TensorProto::UINT32:
    case TensorProto::UINT64: {
      check_count(proto.uint64_data_size());
      std::vector<int64_t> v(proto.uint64_data().begin(), proto.uint64_data().end());
      t.data = ConstTensor::from_int64(t.dtype, t.sizes, v).data;
      break;
    }
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: {
      // int32_data holds the 16-bit patterns.
      check_count(proto.int32_data_size());
      std::vector<int64_t> v(proto.int32_data().begin(), proto.int32_data().end());
      t.data = ConstTensor::from_int64(DType::UInt16, t.sizes, v).data;
      break;
    }
    default: {
      check_count(proto.int32_data_size());
      std::vector<int64_t> v(proto.int32_data().begin(), proto.int32_data().end());
      t.data = ConstTensor::from_int64(t.dtype, t.sizes, v).data;
      break;
    }
  }
  return t;
}

}  // namespace ptec::onnx_import
