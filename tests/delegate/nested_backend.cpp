#include "tests/delegate/nested_backend.h"

#include <cstring>
#include <map>
#include <new>

#include <fmt/format.h>

#include "emit/emitter.h"
#include "emit/pte_writer.h"
#include "ir/exception.h"
#include "ir/op_schema.h"
#include "kernels/portable/register.h"
#include "kernels/quantized/register.h"
#include "passes/decompose.h"
#include "runtime/extension/module.h"

namespace ptec::test {

// ----------------------------------------------------------------------------------------------
// Ahead of time
// ----------------------------------------------------------------------------------------------

partition::PreprocessResult NestedProgramBackend::preprocess(
    const ir::ExportedProgram& subgraph,
    const std::vector<partition::CompileSpec>& compile_specs) const {
  // The nested program runs on the portable kernels: decompose what a partitioner kept whole.
  ir::ExportedProgram program(subgraph);
  passes::Decompose().run(program);
  std::map<std::string, ir::ExportedProgram> methods;
  methods.emplace("forward", std::move(program));
  const emit::EmittedProgram emitted = emit::emit_program(methods, emit::EmitConfig{});
  ir::BufferPtr bytes = ir::Buffer::from_vector(emit::pte_bytes(emitted));

  partition::PreprocessResult result;
  std::vector<int64_t> handles;
  for (const ir::Node* node : subgraph.graph().nodes()) {
    if (node->is_call()) handles.push_back(node->debug_handle());
  }
  result.debug_handle_map[0] = handles;
  bool in_named_data = false;
  for (const partition::CompileSpec& spec : compile_specs) {
    in_named_data |= spec.key == "blob_in_named_data";
  }
  if (in_named_data) {
    const std::string key =
        fmt::format("nested.{}", std::hash<std::string_view>{}(std::string_view(
                                     reinterpret_cast<const char*>(bytes->data()), bytes->size())));
    result.named_data[key] = bytes;
    result.processed_bytes = ir::Buffer::copy_of(key.data(), key.size());
  } else {
    result.processed_bytes = bytes;
  }
  return result;
}

// ----------------------------------------------------------------------------------------------
// Run time
// ----------------------------------------------------------------------------------------------

namespace {

struct Handle {
  uint8_t* storage = nullptr;  // 64-byte aligned copy of the nested program
  size_t size = 0;
  std::unique_ptr<runtime::Module> module;
  size_t num_inputs = 0;
  ~Handle() { ::operator delete[](storage, std::align_val_t(64)); }
};

}  // namespace

Result<runtime::DelegateHandle*> NestedProgramRuntime::init(
    runtime::BackendInitContext& context, runtime::FreeableBuffer* processed,
    Span<const runtime::CompileSpec> compile_specs) const {
  bool in_named_data = false;
  for (const runtime::CompileSpec& spec : compile_specs) {
    if (std::strcmp(spec.key, "method_name") == 0) {
      const std::string named(static_cast<const char*>(spec.value.buffer), spec.value.nbytes);
      if (named != context.get_method_name()) return Error::InvalidArgument;
    }
    in_named_data |= std::strcmp(spec.key, "blob_in_named_data") == 0;
  }
  runtime::FreeableBuffer named_blob;
  const void* data = processed->data();
  size_t size = processed->size();
  if (in_named_data) {
    if (context.get_named_data_map() == nullptr) return Error::NotFound;
    const std::string key(static_cast<const char*>(processed->data()), processed->size());
    auto blob = context.get_named_data_map()->get_data(key);
    if (!blob.ok()) return blob.error();
    named_blob = std::move(*blob);
    data = named_blob.data();
    size = named_blob.size();
  }
  auto handle = std::make_unique<Handle>();
  handle->storage = static_cast<uint8_t*>(::operator new[](size, std::align_val_t(64)));
  handle->size = size;
  std::memcpy(handle->storage, data, size);
  processed->free();  // the copy is all the delegate needs
  handle->module = std::make_unique<runtime::Module>(handle->storage, handle->size);
  if (Error e = handle->module->load(); e != Error::Ok) return e;
  auto meta = handle->module->method_meta("forward");
  if (!meta.ok()) return meta.error();
  handle->num_inputs = meta->num_inputs();
  if (Error e = handle->module->load_method("forward"); e != Error::Ok) return e;
  ++inits;
  init_methods.emplace_back(context.get_method_name());
  return static_cast<runtime::DelegateHandle*>(handle.release());
}

Error NestedProgramRuntime::execute(runtime::BackendExecutionContext& context,
                                    runtime::DelegateHandle* opaque,
                                    Span<runtime::EValue*> args) const {
  auto* handle = static_cast<Handle*>(opaque);
  if (args.size() < handle->num_inputs) return Error::InvalidArgument;
  std::vector<runtime::EValue> inputs;
  for (size_t i = 0; i < handle->num_inputs; ++i) inputs.push_back(*args[i]);
  // The whole nested program is delegate debug id 0 (preprocess maps 0 to every node's handle).
  runtime::EventTracer* tracer = context.event_tracer();
  runtime::EventTracerEntry event;
  if (tracer != nullptr) event = tracer->start_profiling_delegate(nullptr, 0);
  auto outputs = handle->module->execute("forward", inputs);
  if (tracer != nullptr) tracer->end_profiling_delegate(event);
  if (!outputs.ok()) return outputs.error();
  if (tracer != nullptr && tracer->logs_intermediate_outputs()) {
    for (const runtime::EValue& v : *outputs) {
      if (v.is_tensor()) (void)tracer->log_intermediate_output_delegate(nullptr, 0, v.to_tensor());
    }
  }
  if (outputs->size() != args.size() - handle->num_inputs) return Error::InvalidProgram;
  for (size_t i = 0; i < outputs->size(); ++i) {
    runtime::EValue* out = args[handle->num_inputs + i];
    if (!out->is_tensor() || !(*outputs)[i].is_tensor()) return Error::InvalidProgram;
    const runtime::Tensor& from = (*outputs)[i].to_tensor();
    runtime::Tensor& to = out->to_tensor();
    if (Error e = to.resize(from.sizes()); e != Error::Ok) return e;
    if (to.nbytes() != from.nbytes()) return Error::InvalidProgram;
    std::memcpy(to.mutable_data_ptr(), from.const_data_ptr(), from.nbytes());
  }
  ++executes;
  return Error::Ok;
}

void NestedProgramRuntime::destroy(runtime::DelegateHandle* handle) const {
  delete static_cast<Handle*>(handle);
}

NestedProgramRuntime& register_nested_backend() {
  static NestedProgramRuntime* runtime_half = [] {
    auto* r = new NestedProgramRuntime();
    (void)kernels::register_portable_kernels();
    (void)kernels::register_quantized_kernels();
    (void)runtime::register_backend({kNestedBackendId, r});
    partition::register_backend(std::make_shared<NestedProgramBackend>());
    return r;
  }();
  return *runtime_half;
}

// ----------------------------------------------------------------------------------------------
// Partitioner
// ----------------------------------------------------------------------------------------------

partition::PartitionResult OpSetPartitioner::partition(
    const ir::ExportedProgram& program, const partition::PartitionContext& context) const {
  seen_methods.push_back(context.method_name);
  partition::PartitionResult result;
  std::map<const ir::Node*, std::string> tag_of;
  int next = 0;
  for (const ir::Node* node : program.graph().nodes()) {
    if (!node->is_call() || ops_.count(node->target()) == 0) continue;
    // Join the group of a tagged input; otherwise start a new group.
    std::string tag;
    for (const ir::Node* input : node->inputs()) {
      const ir::Node* producer = input;
      if (producer->is_call() && producer->op()->name == "getitem" && producer->arg(0).is_node()) {
        producer = producer->arg(0).as_node();
      }
      auto it = tag_of.find(producer);
      if (it != tag_of.end()) tag = it->second;
    }
    if (tag.empty()) tag = fmt::format("tag{}", next++);
    tag_of[node] = tag;
    result.node_tags[node->name()] = tag;
  }
  if (tag_parameters) {
    for (const ir::Node* node : program.graph().nodes()) {
      if (!node->is_placeholder() || program.constant_for_placeholder(node->name()) == nullptr) {
        continue;
      }
      std::string tag;
      bool only_one = !node->users().empty();
      for (const ir::Node* user : node->users()) {
        auto it = tag_of.find(user);
        if (it == tag_of.end() || (!tag.empty() && tag != it->second)) only_one = false;
        if (it != tag_of.end()) tag = it->second;
      }
      if (only_one) result.node_tags[node->name()] = tag;
    }
  }
  for (int i = 0; i < next; ++i) {
    partition::DelegationSpec spec;
    spec.backend_id = kNestedBackendId;
    if (!fixed_method_name.empty()) {
      spec.compile_specs.push_back(
          partition::CompileSpec::from_string("method_name", fixed_method_name));
    } else if (name_method) {
      spec.compile_specs.push_back(
          partition::CompileSpec::from_string("method_name", context.method_name));
    }
    if (blob_in_named_data) spec.compile_specs.push_back({"blob_in_named_data", {1}});
    result.partition_tags[fmt::format("tag{}", i)] = spec;
  }
  return result;
}

}  // namespace ptec::test
