#include "emit/method_emitter.h"

#include <limits>

#include <fmt/format.h>

#include "ir/exception.h"
#include "memory/greedy_planner.h"
#include "memory/lifetime.h"
#include "memory/naive_planner.h"
#include "partition/lowered_module.h"

namespace ptec::emit {

namespace fb = executorch_flatbuffer;

namespace {

int32_t to_int32(int64_t v, const std::string& what) {
  PTEC_ENFORCE(v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max(),
               InvalidArgument, "{}: {} does not fit the .pte's 32-bit field", what, v);
  return static_cast<int32_t>(v);
}

std::string op_base_name(const ir::OpSchema& op) {
  return op.ns.empty() ? op.name : op.ns + "::" + op.name;
}

bool is_delegate_call(const ir::OpSchema& op) {
  return op.ns.empty() && op.name == "executorch_call_delegate";
}

bool is_user_input(const ir::ExportedProgram& program, const ir::Node& node) {
  const ir::InputSpec* spec = program.signature().find_input(node.name());
  if (spec != nullptr) return spec->kind == ir::InputKind::UserInput;
  return program.constant_for_placeholder(node.name()) == nullptr;
}

}  // namespace

MethodEmitter::MethodEmitter(std::string name, const ir::ExportedProgram& program,
                             const EmitConfig& config, ConstantSegmentBuilder& constants,
                             ProgramTables* tables)
    : name_(std::move(name)),
      program_(program),
      config_(config),
      constants_(constants),
      tables_(tables) {}

void MethodEmitter::fail(Error code, const ir::Node& node, const std::string& message) const {
  const std::string op = node.is_call() ? fmt::format(" ({})", node.target()) : std::string();
  raise(code, "emit: method '{}', node %{}{}: {}", name_, node.name(), op, message);
}

// ----------------------------------------------------------------------------------------------
// Values
// ----------------------------------------------------------------------------------------------

int MethodEmitter::add_value(fb::KernelTypesUnion value) {
  auto ev = std::make_unique<fb::EValueT>();
  ev->val = std::move(value);
  plan_out_->values.push_back(std::move(ev));
  return static_cast<int>(plan_out_->values.size() - 1);
}

int MethodEmitter::add_int(int64_t v) {
  fb::KernelTypesUnion u;
  fb::IntT t;
  t.int_val = v;
  u.Set(std::move(t));
  return add_value(std::move(u));
}

int MethodEmitter::add_double(double v) {
  fb::KernelTypesUnion u;
  fb::DoubleT t;
  t.double_val = v;
  u.Set(std::move(t));
  return add_value(std::move(u));
}

int MethodEmitter::add_bool(bool v) {
  fb::KernelTypesUnion u;
  fb::BoolT t;
  t.bool_val = v;
  u.Set(std::move(t));
  return add_value(std::move(u));
}

int MethodEmitter::add_null() {
  fb::KernelTypesUnion u;
  u.Set(fb::NullT());
  return add_value(std::move(u));
}

int MethodEmitter::add_string(const std::string& v) {
  fb::KernelTypesUnion u;
  fb::StringT t;
  t.string_val = v;
  u.Set(std::move(t));
  return add_value(std::move(u));
}

namespace {
fb::TensorT make_tensor(const ir::TensorSpec& spec, const memory::Allocation* allocation,
                        uint32_t data_buffer_idx, const std::string& what) {
  fb::TensorT t;
  t.scalar_type = static_cast<fb::ScalarType>(static_cast<int8_t>(spec.dtype));
  for (int64_t s : spec.upper_bound_sizes()) t.sizes.push_back(to_int32(s, what + " size"));
  t.dim_order = spec.effective_dim_order();
  t.data_buffer_idx = data_buffer_idx;
  t.shape_dynamism =
      spec.is_static() ? fb::TensorShapeDynamism::STATIC : fb::TensorShapeDynamism::DYNAMIC_BOUND;
  if (allocation != nullptr) {
    t.allocation_info = std::make_unique<fb::AllocationDetailsT>();
    t.allocation_info->memory_id = allocation->memory_id;
    t.allocation_info->memory_offset_low = static_cast<uint32_t>(allocation->offset & 0xffffffffu);
    t.allocation_info->memory_offset_high = static_cast<uint32_t>(allocation->offset >> 32);
  }
  return t;
}
}  // namespace

int MethodEmitter::add_tensor(const ir::TensorSpec& spec, const memory::Allocation* allocation,
                              uint32_t data_buffer_idx) {
  fb::KernelTypesUnion u;
  u.Set(make_tensor(spec, allocation, data_buffer_idx, "method '" + name_ + "'"));
  return add_value(std::move(u));
}

int MethodEmitter::add_tensor_list(const std::vector<int32_t>& items) {
  fb::KernelTypesUnion u;
  fb::TensorListT t;
  t.items = items;
  u.Set(std::move(t));
  return add_value(std::move(u));
}

int MethodEmitter::add_empty_tensor() {
  // An omitted non-optional Tensor argument: an empty BYTE tensor of sizes [0] (FORMAT.md §3).
  return add_tensor(ir::TensorSpec(DType::Byte, std::vector<int64_t>{0}), nullptr, 0);
}

int MethodEmitter::value_of(const ir::Node* node, const ir::Node& user) {
  const auto key = memory::resolve_value(node);
  auto it = node_values_.find(key);
  if (it == node_values_.end()) {
    fail(Error::InvalidProgram, user,
         fmt::format("uses %{}, which has no emitted value (it is defined later, or it is not a "
                     "tensor or symbolic value)",
                     node->name()));
  }
  return it->second;
}

// ----------------------------------------------------------------------------------------------
// Arguments
// ----------------------------------------------------------------------------------------------

void MethodEmitter::bad_argument(const ir::Node& node, const std::string& arg_name,
                                 const ir::TypeRef& type, const char* got) const {
  fail(Error::InvalidProgram, node,
       fmt::format("argument '{}' of type {} holds {}", arg_name, type.to_string(), got));
}

int MethodEmitter::emit_argument(const ir::Argument& arg, const ir::TypeRef& type,
                                 const ir::Node& node, const std::string& arg_name) {
  if (type.is_list) return emit_list(arg, type, node, arg_name);
  if (arg.is_node() && type.base != ir::BaseType::Tensor) {
    // A symbolic value (SymInt, a scalar computed by a prim op).
    return value_of(arg.as_node(), node);
  }
  switch (type.base) {
    case ir::BaseType::Tensor:
      if (arg.is_node()) return value_of(arg.as_node(), node);
      if (arg.is_none()) return type.optional ? add_null() : add_empty_tensor();
      bad_argument(node, arg_name, type, "a non-tensor value");
    case ir::BaseType::Int:
    case ir::BaseType::SymInt:
    case ir::BaseType::ScalarType:
    case ir::BaseType::Layout:
    case ir::BaseType::MemoryFormat:
      if (arg.is_int()) return add_int(arg.as_int());
      if (arg.is_dtype()) return add_int(static_cast<int64_t>(arg.as_dtype()));
      if (arg.is_bool()) return add_int(arg.as_bool() ? 1 : 0);
      if (arg.is_none() && type.optional) return add_null();
      bad_argument(node, arg_name, type, arg.is_none() ? "None" : "a value that is not an integer");
    case ir::BaseType::Float:
      if (arg.is_double()) return add_double(arg.as_double());
      if (arg.is_int()) return add_double(static_cast<double>(arg.as_int()));
      if (arg.is_none() && type.optional) return add_null();
      bad_argument(node, arg_name, type, arg.is_none() ? "None" : "a value that is not a number");
    case ir::BaseType::Bool:
      if (arg.is_bool()) return add_bool(arg.as_bool());
      if (arg.is_int()) return add_bool(arg.as_int() != 0);
      if (arg.is_none() && type.optional) return add_null();
      bad_argument(node, arg_name, type, arg.is_none() ? "None" : "a value that is not a bool");
    case ir::BaseType::Scalar:
      if (arg.is_int()) return add_int(arg.as_int());
      if (arg.is_double()) return add_double(arg.as_double());
      if (arg.is_bool()) return add_bool(arg.as_bool());
      if (arg.is_none() && type.optional) return add_null();
      bad_argument(node, arg_name, type, arg.is_none() ? "None" : "a value that is not a scalar");
    case ir::BaseType::String:
      if (arg.is_string()) return add_string(arg.as_string());
      if (arg.is_none() && type.optional) return add_null();
      bad_argument(node, arg_name, type, arg.is_none() ? "None" : "a value that is not a string");
    case ir::BaseType::Device:
      // Only the default device (None) is meaningful for the portable runtime.
      if (arg.is_none()) return add_null();
      fail(Error::NotSupported, node,
           fmt::format("argument '{}': only Device None can be emitted", arg_name));
    case ir::BaseType::CustomObj:
      fail(Error::NotSupported, node,
           fmt::format("argument '{}': custom objects cannot be emitted as kernel arguments",
                       arg_name));
  }
  bad_argument(node, arg_name, type, "an unknown type");
}

int MethodEmitter::emit_list(const ir::Argument& arg, const ir::TypeRef& type, const ir::Node& node,
                             const std::string& arg_name) {
  if (arg.is_none()) {
    if (type.optional) return add_null();
    fail(Error::InvalidProgram, node,
         fmt::format("argument '{}' of type {} is None", arg_name, type.to_string()));
  }
  ir::ArgumentList items;
  if (arg.is_list()) {
    items = arg.as_list();
  } else if (arg.is_int() || arg.is_double() || arg.is_bool()) {
    // `int[2] padding=0`: a single value stands for a list of list_size copies.
    items.assign(type.list_size > 0 ? static_cast<size_t>(type.list_size) : 1, arg);
  } else if (arg.is_node() && type.base == ir::BaseType::Tensor) {
    items = {arg};
  } else {
    fail(Error::InvalidProgram, node,
         fmt::format("argument '{}' of type {} is not a list", arg_name, type.to_string()));
  }

  fb::KernelTypesUnion u;
  switch (type.base) {
    case ir::BaseType::Tensor: {
      std::vector<int32_t> indices;
      for (const ir::Argument& item : items) {
        if (item.is_node()) {
          indices.push_back(value_of(item.as_node(), node));
        } else if (item.is_none() && type.element_optional) {
          indices.push_back(-1);
        } else {
          fail(Error::InvalidProgram, node,
               fmt::format("argument '{}' of type {} holds an item that is not a tensor", arg_name,
                           type.to_string()));
        }
      }
      if (type.element_optional) {
        fb::OptionalTensorListT t;
        t.items = std::move(indices);
        u.Set(std::move(t));
      } else {
        fb::TensorListT t;
        t.items = std::move(indices);
        u.Set(std::move(t));
      }
      break;
    }
    case ir::BaseType::Int:
    case ir::BaseType::SymInt: {
      // IntList items are value indices of Int EValues (FORMAT.md §2), one per element.
      std::vector<int64_t> indices;
      for (const ir::Argument& item : items) {
        if (item.is_int()) {
          indices.push_back(add_int(item.as_int()));
        } else if (item.is_node()) {
          indices.push_back(value_of(item.as_node(), node));
        } else {
          fail(Error::InvalidProgram, node,
               fmt::format("argument '{}' of type {} holds an item that is not an int", arg_name,
                           type.to_string()));
        }
      }
      fb::IntListT t;
      t.items = std::move(indices);
      u.Set(std::move(t));
      break;
    }
    case ir::BaseType::Float: {
      fb::DoubleListT t;
      for (const ir::Argument& item : items) {
        if (!item.is_double() && !item.is_int()) {
          fail(Error::InvalidProgram, node,
               fmt::format("argument '{}' of type {} holds an item that is not a number", arg_name,
                           type.to_string()));
        }
        t.items.push_back(item.to_double());
      }
      u.Set(std::move(t));
      break;
    }
    case ir::BaseType::Bool: {
      fb::BoolListT t;
      for (const ir::Argument& item : items) {
        if (!item.is_bool()) {
          fail(Error::InvalidProgram, node,
               fmt::format("argument '{}' of type {} holds an item that is not a bool", arg_name,
                           type.to_string()));
        }
        t.items.push_back(item.as_bool());
      }
      u.Set(std::move(t));
      break;
    }
    default:
      fail(Error::NotSupported, node,
           fmt::format("argument '{}': lists of {} cannot be emitted", arg_name, type.to_string()));
  }
  return add_value(std::move(u));
}

int MethodEmitter::operator_index(const std::string& name, const std::string& overload) {
  auto [it, inserted] = operators_.emplace(std::make_pair(name, overload),
                                           static_cast<int>(plan_out_->operators.size()));
  if (inserted) {
    auto op = std::make_unique<fb::OperatorT>();
    op->name = name;
    op->overload = overload;
    plan_out_->operators.push_back(std::move(op));
  }
  return it->second;
}

// ----------------------------------------------------------------------------------------------
// Nodes
// ----------------------------------------------------------------------------------------------

void MethodEmitter::emit_placeholder(const ir::Node& node) {
  if (node.meta().val.size() != 1) {
    fail(Error::NotSupported, node,
         "only tensor placeholders can be emitted (symbolic or object inputs are not supported)");
  }
  const ir::InputSpec* spec = program_.signature().find_input(node.name());
  if (spec != nullptr && spec->kind == ir::InputKind::CustomObj) {
    fail(Error::NotSupported, node, "custom-object inputs are emitted by the backend lowering");
  }
  if (is_user_input(program_, node)) {
    const int index = add_tensor(node.spec(), plan_.find(&node, 0), 0);
    node_values_[{&node, 0}] = index;
    plan_out_->inputs.push_back(index);
    return;
  }
  const ir::TensorData* data = program_.constant_for_placeholder(node.name());
  if (data == nullptr) {
    fail(Error::InvalidProgram, node,
         fmt::format("is a {} input whose target '{}' is not in the program's state_dict or "
                     "constants",
                     ir::to_string(spec->kind), spec->target));
  }
  data->check(fmt::format("emit: method '{}', constant %{}", name_, node.name()));
  if (data->spec.dtype != node.spec().dtype ||
      data->spec.upper_bound_sizes() != node.spec().upper_bound_sizes()) {
    fail(Error::InvalidProgram, node,
         fmt::format("placeholder type {} differs from its data {}", node.spec().to_string(),
                     data->spec.to_string()));
  }
  if (config_.external_constants) {
    // FORMAT.md §5: no data in the .pte; the runtime looks the fully qualified name up in the
    // .ptd and checks the layout.
    if (tables_ == nullptr) fail(Error::Internal, node, "external constants need program tables");
    const std::string key = tables_->add_external(name_, spec->target, *data);
    fb::KernelTypesUnion u;
    fb::TensorT t = make_tensor(node.spec(), nullptr, 0, "method '" + name_ + "'");
    t.extra_tensor_info = std::make_unique<fb::ExtraTensorInfoT>();
    t.extra_tensor_info->fully_qualified_name = key;
    t.extra_tensor_info->location = fb::TensorDataLocation::EXTERNAL;
    u.Set(std::move(t));
    node_values_[{&node, 0}] = add_value(std::move(u));
    return;
  }
  node_values_[{&node, 0}] = add_tensor(node.spec(), nullptr, constants_.add(data->data));
}

int MethodEmitter::delegate_index(const ir::Node& node, const std::string& module_name) {
  auto found = delegates_.find(module_name);
  if (found != delegates_.end()) return found->second;
  if (tables_ == nullptr) fail(Error::Internal, node, "delegate calls need program tables");
  const partition::LoweredModule module = partition::load_lowered_module(program_, module_name);
  auto delegate = std::make_unique<fb::BackendDelegateT>();
  delegate->id = module.backend_id;
  delegate->processed = std::make_unique<fb::BackendDelegateDataReferenceT>();
  const uint32_t blob = tables_->delegate_blobs.add(module.processed);
  // Segment 0 is the constant segment; delegate blobs follow in blob order (emit_program).
  delegate->processed->location =
      config_.extract_delegate_segments ? fb::DataLocation::SEGMENT : fb::DataLocation::INLINE;
  delegate->processed->index = config_.extract_delegate_segments ? blob + 1 : blob;
  for (const partition::CompileSpec& spec : module.compile_specs) {
    auto cs = std::make_unique<fb::CompileSpecT>();
    cs->key = spec.key;
    cs->value = spec.value;
    delegate->compile_specs.push_back(std::move(cs));
  }
  for (const auto& [key, data] : module.named_data) tables_->add_named_data(key, data);
  const int index = static_cast<int>(plan_out_->delegates.size());
  plan_out_->delegates.push_back(std::move(delegate));
  delegates_[module_name] = index;
  return index;
}

void MethodEmitter::emit_delegate_call(const ir::Node& node) {
  if (node.args().empty() || !node.arg(0).is_node() || !node.arg(0).as_node()->is_get_attr()) {
    fail(Error::InvalidProgram, node,
         "a delegate call must take a lowered module (get_attr) first");
  }
  const std::string& module_name = node.arg(0).as_node()->target();
  const int index = delegate_index(node, module_name);
  std::vector<int32_t> args;
  for (size_t i = 1; i < node.args().size(); ++i) {
    const ir::Argument& arg = node.args()[i];
    if (!arg.is_node()) fail(Error::NotSupported, node, "delegate inputs must be tensors");
    args.push_back(value_of(arg.as_node(), node));
  }
  for (size_t i = 0; i < node.meta().val.size(); ++i) {
    const int value = add_tensor(node.meta().val[i], plan_.find(&node, i), 0);
    node_values_[{&node, i}] = value;
    args.push_back(value);
  }
  fb::DelegateCallT call;
  call.delegate_index = index;
  call.args = std::move(args);
  auto instruction = std::make_unique<fb::InstructionT>();
  instruction->instr_args.Set(std::move(call));
  const auto id = static_cast<int64_t>(plan_out_->chains[0]->instructions.size());
  debug_handles_[id] = node.debug_handle();
  DelegateCallRecord record;
  record.backend_id = plan_out_->delegates[static_cast<size_t>(index)]->id;
  record.delegate_index = index;
  record.num_outputs = node.meta().val.size();
  partition::LoweredModule lowered = partition::load_lowered_module(program_, module_name);
  record.debug_handles = std::move(lowered.debug_handles);
  record.delegate_debug_map = std::move(lowered.delegate_debug_map);
  delegate_calls_[id] = std::move(record);
  plan_out_->chains[0]->instructions.push_back(std::move(instruction));
}

void MethodEmitter::emit_out_variant_call(const ir::Node& node) {
  const ir::OpSchema& op = *node.op();
  const size_t num_outs = node.meta().val.size();
  // Out arguments are single tensors (`Tensor(a!) out`) or, for ops such as
  // split_with_sizes_copy, one tensor list (`Tensor(a!)[] out`) that takes every remaining output.
  size_t tensor_outs = 0;
  size_t list_outs = 0;
  for (const ir::ArgSchema& a : op.out_args) {
    if (a.is_out) ++(a.type.is_list ? list_outs : tensor_outs);
  }
  const bool counts_match =
      list_outs == 0 ? tensor_outs == num_outs : list_outs == 1 && tensor_outs <= num_outs;
  if (!counts_match) {
    fail(Error::InvalidProgram, node,
         fmt::format("has {} output tensor specs but {} takes {} out arguments", num_outs,
                     op.out_qualified_name(), tensor_outs + list_outs));
  }

  // The out tensors first (as exir does), then the other arguments in out-variant order.
  std::vector<int32_t> outs;
  for (size_t i = 0; i < num_outs; ++i) {
    const int index = add_tensor(node.meta().val[i], plan_.find(&node, i), 0);
    node_values_[{&node, i}] = index;
    outs.push_back(index);
  }
  std::vector<int32_t> args;
  size_t next_out = 0;
  int32_t list_value = -1;
  for (const ir::ArgSchema& a : op.out_args) {
    if (a.is_out && a.type.is_list) {
      const size_t count = num_outs - tensor_outs;
      list_value = add_tensor_list(
          std::vector<int32_t>(outs.begin() + static_cast<std::ptrdiff_t>(next_out),
                               outs.begin() + static_cast<std::ptrdiff_t>(next_out + count)));
      next_out += count;
      args.push_back(list_value);
      continue;
    }
    if (a.is_out) {
      args.push_back(outs[next_out++]);
      continue;
    }
    const int fi = op.arg_index(a.name);
    ir::Argument value;
    if (fi >= 0 && static_cast<size_t>(fi) < node.args().size()) {
      value = node.args()[static_cast<size_t>(fi)];
    } else if (a.default_value) {
      value = *a.default_value;
    } else if (!a.type.optional) {
      fail(Error::InvalidProgram, node,
           fmt::format("has no value for argument '{}' of {}", a.name, op.out_qualified_name()));
    }
    args.push_back(emit_argument(value, a.type, node, a.name));
  }
  // One return slot (FORMAT.md §3): the out tensor, the out list, or a TensorList of the outs.
  if (list_value >= 0) {
    args.push_back(list_value);
  } else {
    args.push_back(num_outs == 1 ? outs[0] : add_tensor_list(outs));
  }

  fb::KernelCallT call;
  call.op_index = operator_index(op_base_name(op), op.out_overload);
  call.args = std::move(args);
  auto instruction = std::make_unique<fb::InstructionT>();
  instruction->instr_args.Set(std::move(call));
  debug_handles_[static_cast<int64_t>(plan_out_->chains[0]->instructions.size())] =
      node.debug_handle();
  plan_out_->chains[0]->instructions.push_back(std::move(instruction));
}

void MethodEmitter::emit_functional_call(const ir::Node& node) {
  // Ops without an out variant that return no tensor (executorch_prim::*, aten::sym_size.int):
  // the functional arguments, then one return slot holding the result.
  const ir::OpSchema& op = *node.op();
  std::vector<int32_t> args;
  for (size_t i = 0; i < op.args.size(); ++i) {
    const ir::Argument value = i < node.args().size() ? node.args()[i] : ir::Argument();
    args.push_back(emit_argument(value, op.args[i].type, node, op.args[i].name));
  }
  if (op.returns.size() != 1) {
    fail(Error::NotSupported, node, "prim ops with several returns cannot be emitted");
  }
  int ret = 0;
  switch (op.returns[0].base) {
    case ir::BaseType::Float: ret = add_double(0.0); break;
    case ir::BaseType::Bool: ret = add_bool(false); break;
    default: ret = add_int(0); break;
  }
  node_values_[{&node, 0}] = ret;
  args.push_back(ret);

  fb::KernelCallT call;
  call.op_index = operator_index(op_base_name(op), op.overload);
  call.args = std::move(args);
  auto instruction = std::make_unique<fb::InstructionT>();
  instruction->instr_args.Set(std::move(call));
  debug_handles_[static_cast<int64_t>(plan_out_->chains[0]->instructions.size())] =
      node.debug_handle();
  plan_out_->chains[0]->instructions.push_back(std::move(instruction));
}

void MethodEmitter::emit_output(const ir::Node& node) {
  for (const ir::Node* n : program_.graph().outputs()) {
    if (n == nullptr) fail(Error::NotSupported, node, "a None output cannot be emitted");
    if (!memory::is_getitem(*n) && n->meta().val.size() > 1) {
      for (size_t i = 0; i < n->meta().val.size(); ++i) {
        plan_out_->outputs.push_back(node_values_.at({n, i}));
      }
    } else {
      plan_out_->outputs.push_back(value_of(n, node));
    }
  }
}

std::unique_ptr<fb::ExecutionPlanT> MethodEmitter::emit(EmittedMethod& record) {
  memory::PlannerOptions options;
  options.alignment = config_.alignment;
  options.alloc_graph_input = config_.alloc_graph_input;
  options.alloc_graph_output = config_.alloc_graph_output;
  std::unique_ptr<memory::MemoryPlanner> planner;
  if (config_.planner_for(name_) == MemoryPlanning::Naive) {
    planner = std::make_unique<memory::NaivePlanner>();
  } else {
    planner = std::make_unique<memory::GreedyPlanner>();
  }
  plan_ = memory::plan_memory(program_, *planner, options);

  plan_out_ = std::make_unique<fb::ExecutionPlanT>();
  plan_out_->name = name_;
  plan_out_->container_meta_type = std::make_unique<fb::ContainerMetadataT>();
  plan_out_->chains.push_back(std::make_unique<fb::ChainT>());

  for (const ir::Node* node : program_.graph().nodes()) {
    switch (node->kind()) {
      case ir::NodeKind::Placeholder: emit_placeholder(*node); break;
      case ir::NodeKind::GetAttr: {
        // A lowered module is emitted as a BackendDelegate by the delegate call that uses it.
        auto object = program_.custom_objects().find(node->target());
        if (object == program_.custom_objects().end() ||
            object->second.type != partition::kLoweredModuleType) {
          fail(Error::NotSupported, *node,
               "only get_attr nodes of lowered modules (executorch_call_delegate) can be emitted");
        }
        break;
      }
      case ir::NodeKind::Output: emit_output(*node); break;
      case ir::NodeKind::CallFunction: {
        const ir::OpSchema* op = node->op();
        if (op == nullptr) fail(Error::InvalidProgram, *node, "call without an operator schema");
        if (memory::is_getitem(*node)) break;  // names an output of its producer
        if (is_delegate_call(*op)) {
          emit_delegate_call(*node);
          break;
        }
        if (!op->out_overload.empty()) {
          emit_out_variant_call(*node);
        } else if (!op->returns_tensors()) {
          emit_functional_call(*node);
        } else {
          fail(Error::InvalidProgram, *node,
               "the operator has no out variant; run to_edge (decompose) before emitting");
        }
        break;
      }
    }
  }
  if (program_.graph().output_node() == nullptr) {
    raise(Error::InvalidProgram, "emit: method '{}' has no output node", name_);
  }

  for (uint64_t size : plan_.buffer_sizes) {
    PTEC_ENFORCE(size <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), Internal,
                 "planned buffer of {} bytes", size);
    plan_out_->non_const_buffer_sizes.push_back(static_cast<int64_t>(size));
  }
  record.name = name_;
  record.is_constant_method = false;
  record.debug_handle_map = std::move(debug_handles_);
  record.memory_plan = std::move(plan_);
  record.delegate_calls = std::move(delegate_calls_);
  return std::move(plan_out_);
}

// ----------------------------------------------------------------------------------------------
// Constant methods
// ----------------------------------------------------------------------------------------------

namespace {

void flatten_constant(const std::string& method, const ConstantValue& value,
                      ConstantSegmentBuilder& constants, fb::ExecutionPlanT& plan) {
  fb::KernelTypesUnion u;
  if (const auto* list = std::get_if<ConstantValue::List>(&value.value)) {
    for (const ConstantValue& item : *list) flatten_constant(method, item, constants, plan);
    return;
  }
  if (const auto* v = std::get_if<int64_t>(&value.value)) {
    fb::IntT t;
    t.int_val = *v;
    u.Set(std::move(t));
  } else if (const auto* d = std::get_if<double>(&value.value)) {
    fb::DoubleT t;
    t.double_val = *d;
    u.Set(std::move(t));
  } else if (const auto* b = std::get_if<bool>(&value.value)) {
    fb::BoolT t;
    t.bool_val = *b;
    u.Set(std::move(t));
  } else if (const auto* s = std::get_if<std::string>(&value.value)) {
    fb::StringT t;
    t.string_val = *s;
    u.Set(std::move(t));
  } else {
    const auto& tensor = std::get<ir::TensorData>(value.value);
    tensor.check(fmt::format("emit: constant method '{}'", method));
    u.Set(make_tensor(tensor.spec, nullptr, constants.add(tensor.data),
                      "constant method '" + method + "'"));
  }
  auto ev = std::make_unique<fb::EValueT>();
  ev->val = std::move(u);
  plan.outputs.push_back(static_cast<int32_t>(plan.values.size()));
  plan.values.push_back(std::move(ev));
}

}  // namespace

std::unique_ptr<fb::ExecutionPlanT> emit_constant_method(const std::string& name,
                                                         const ConstantValue& value,
                                                         ConstantSegmentBuilder& constants) {
  auto plan = std::make_unique<fb::ExecutionPlanT>();
  plan->name = name;
  plan->container_meta_type = std::make_unique<fb::ContainerMetadataT>();
  plan->chains.push_back(std::make_unique<fb::ChainT>());
  plan->non_const_buffer_sizes = {0};
  flatten_constant(name, value, constants, *plan);
  return plan;
}

}  // namespace ptec::emit
