#include "backends/engine/aot/engine_export.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "backends/engine/engine_blob.h"
#include "backends/engine/engine_ids.h"
#include "core/log.h"
#include "emit/pte_writer.h"
#include "ir/exception.h"
#include "ir/op_schema.h"
#include "partition/lowered_module.h"
#include "partition/to_backend.h"
#include "passes/pass_manager.h"
#include "program/to_edge.h"

namespace ptec::engine {
namespace {

constexpr const char* kWhat = "ptec::engine::export";
/// The provenance stage ptec::engine::compile records.
constexpr const char* kCompileStage = "engine_compile";

bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool is_getitem(const ir::Node& node) {
  return node.is_call() && node.op() != nullptr && node.op()->ns.empty() &&
         node.op()->name == "getitem";
}

/// One `ptec::execute_engine` call and the engine it runs.
struct EngineCall {
  ir::Node* call = nullptr;
  ir::Node* engine_node = nullptr;  // the placeholder (or get_attr) passed as `engine`
  std::string object_name;          // its key in custom_objects
  const ir::CustomObject* object = nullptr;
};

/// The key an engine is serialized under: its live object, else its payload.
const void* engine_key(const ir::CustomObject& object) {
  return object.object != nullptr ? static_cast<const void*>(object.object.get())
                                  : static_cast<const void*>(object.payload.get());
}

/// Every engine call of `program`, in graph order; InvalidProgram naming the node when one's
/// engine is not an engine object.
std::vector<EngineCall> engine_calls(const ir::ExportedProgram& program,
                                     const std::string& method) {
  std::vector<EngineCall> calls;
  for (ir::Node* node : program.graph().nodes()) {
    if (!node->is_op(kExecuteEngineOp)) continue;
    auto fail = [&](const std::string& why) {
      raise(Error::InvalidProgram, "{}: method '{}': engine call %{}: {}", kWhat, method,
            node->name(), why);
    };
    if (node->args().size() != 2 || !node->arg(0).is_list() || !node->arg(1).is_node()) {
      fail("expected ptec::execute_engine(Tensor[] inputs, CustomObj engine)");
    }
    for (const ir::Argument& input : node->arg(0).as_list()) {
      if (!input.is_node()) fail("an engine input is not a tensor value");
    }
    EngineCall c;
    c.call = node;
    c.engine_node = node->arg(1).as_node();
    if (c.engine_node->is_placeholder()) {
      const ir::InputSpec* spec = program.signature().find_input(c.engine_node->name());
      if (spec == nullptr || spec->kind != ir::InputKind::CustomObj) {
        fail(fmt::format("its engine %{} is not a CUSTOM_OBJ input", c.engine_node->name()));
      }
      c.object_name = spec->target;
    } else if (c.engine_node->is_get_attr()) {
      c.object_name = c.engine_node->target();
    } else {
      fail(fmt::format("its engine %{} is not a placeholder or get_attr", c.engine_node->name()));
    }
    auto it = program.custom_objects().find(c.object_name);
    if (it == program.custom_objects().end()) {
      fail(fmt::format("its engine '{}' is not in custom_objects", c.object_name));
    }
    if (it->second.type != kEngineObjectType) {
      fail(fmt::format("its engine '{}' is a '{}', not a '{}'", c.object_name, it->second.type,
                       kEngineObjectType));
    }
    if (it->second.payload == nullptr && it->second.object == nullptr) {
      fail(fmt::format("its engine '{}' has neither a payload nor a live engine", c.object_name));
    }
    c.object = &it->second;
    calls.push_back(std::move(c));
  }
  return calls;
}

/// True when ptec::engine::compile produced `program`: it has engines, or its provenance
/// records the compile step (a compile that found no region leaves no engine).
bool engine_compiled(const ir::ExportedProgram& program) {
  for (const auto& [name, object] : program.custom_objects()) {
    if (object.type == kEngineObjectType) return true;
  }
  for (const ir::Node* node : program.graph().nodes()) {
    if (node->is_op(kExecuteEngineOp)) return true;
  }
  for (const ir::ProvenanceStep& step : program.provenance()) {
    if (step.stage == kCompileStage) return true;
  }
  return false;
}

template <typename List>
const List* for_method(const std::variant<List, std::map<std::string, List>>& option,
                       const std::string& method) {
  if (const auto* all = std::get_if<List>(&option)) return all;
  const auto& per_method = std::get<std::map<std::string, List>>(option);
  auto it = per_method.find(method);
  return it == per_method.end() ? nullptr : &it->second;
}

template <typename List>
void check_methods(const std::variant<List, std::map<std::string, List>>& option,
                   const EngineSources& methods, const char* what) {
  if (const auto* per_method = std::get_if<std::map<std::string, List>>(&option)) {
    for (const auto& [name, list] : *per_method) {
      PTEC_ENFORCE(methods.count(name) != 0, NotFound, "{}: {} given for unknown method '{}'",
                   kWhat, what, name);
    }
  }
}

/// Claims every engine call of a method (and the buffer holding its engine) for
/// PtecEngineBackend, one partition per call.
class EnginePartitioner final : public partition::Partitioner {
 public:
  explicit EnginePartitioner(const std::variant<CompileSpecList, MethodCompileSpecs>& specs)
      : specs_(specs) {}
  std::string name() const override { return "EnginePartitioner"; }
  partition::PartitionResult partition(const ir::ExportedProgram& program,
                                       const partition::PartitionContext& context) const override {
    partition::PartitionResult result;
    const CompileSpecList* specs = for_method(specs_, context.method_name);
    size_t k = 0;
    for (const ir::Node* node : program.graph().nodes()) {
      if (!node->is_op(kExecuteEngineOp)) continue;
      const std::string tag = fmt::format("engine_{}", k++);
      result.node_tags[node->name()] = tag;
      if (node->arg(1).is_node()) result.node_tags[node->arg(1).as_node()->name()] = tag;
      result.partition_tags[tag] =
          partition::DelegationSpec{kBackendId, specs == nullptr ? CompileSpecList{} : *specs};
    }
    return result;
  }
  std::vector<std::string> ops_to_not_decompose(const ir::ExportedProgram&) const override {
    return {kExecuteEngineOp};
  }

 private:
  const std::variant<CompileSpecList, MethodCompileSpecs>& specs_;
};

/// The rewrite of one staged method: each engine call's engine becomes a uint8 buffer holding
/// the engine blob; the staged copy's engine objects are dropped.
class EngineRewrite {
 public:
  /// Blobs by engine_key, kept while a later method still uses the engine.
  using BlobCache = std::unordered_map<const void*, ir::BufferPtr>;

  EngineRewrite(ir::ExportedProgram& program, const std::string& method, BlobCache& cache)
      : program_(program), method_(method), cache_(cache) {
    for (const auto& [name, object] : program.custom_objects()) taken_.insert(name);
    for (const auto& [name, data] : program.state_dict()) taken_.insert(name);
    for (const auto& [name, data] : program.constants()) taken_.insert(name);
    for (const ir::InputSpec& spec : program.signature().inputs) taken_.insert(spec.target);
    for (const ir::Node* node : program.graph().nodes()) {
      if (node->is_get_attr()) taken_.insert(node->target());
    }
  }

  /// Returns the number of engine calls rewritten.
  size_t run() {
    const std::vector<EngineCall> calls = engine_calls(program_, method_);
    if (calls.size() > 1) {
      PTEC_LOG(Info, "%s: method '%s' has %zu engine calls; each becomes a %s delegate", kWhat,
               method_.c_str(), calls.size(), kBackendId);
    }
    std::set<ir::Node*> reused;  // engine placeholders already turned into a buffer
    std::set<ir::Node*> engine_nodes;
    for (const EngineCall& c : calls) {
      const ir::BufferPtr blob = blob_for(c);
      check_blob(c, *blob);
      const std::string buffer = buffer_name(c.object_name);
      const ir::TensorSpec spec(DType::Byte,
                                std::vector<int64_t>{static_cast<int64_t>(blob->size())});
      program_.state_dict()[buffer] = ir::TensorData{spec, blob};
      if (c.engine_node->is_placeholder() && reused.insert(c.engine_node).second) {
        // The first call of an engine placeholder keeps the node (and its name).
        for (ir::InputSpec& in : program_.signature().inputs) {
          if (in.name == c.engine_node->name()) in = {ir::InputKind::Buffer, in.name, buffer};
        }
        c.engine_node->meta().val = {spec};
      } else {
        ir::Node* ph = program_.graph().add_placeholder(buffer, spec);
        program_.signature().inputs.push_back({ir::InputKind::Buffer, ph->name(), buffer});
        program_.graph().set_arg(c.call, 1, ir::Argument(ph));
      }
      engine_nodes.insert(c.engine_node);
    }
    // Engine placeholders and get_attrs that nothing uses (any more) go, and then every engine
    // object nothing refers to: the staged copy holds no engine after the rewrite.
    for (ir::Node* node : program_.graph().placeholders()) {
      const ir::InputSpec* in = program_.signature().find_input(node->name());
      if (in == nullptr || in->kind != ir::InputKind::CustomObj) continue;
      auto object = program_.custom_objects().find(in->target);
      if (object != program_.custom_objects().end() && object->second.type == kEngineObjectType) {
        engine_nodes.insert(node);
      }
    }
    for (ir::Node* node : engine_nodes) {
      if (!node->users().empty() || reused.count(node) != 0) continue;
      const std::string name = node->name();
      auto& inputs = program_.signature().inputs;
      inputs.erase(std::remove_if(inputs.begin(), inputs.end(),
                                  [&](const ir::InputSpec& s) { return s.name == name; }),
                   inputs.end());
      program_.graph().erase(node);
    }
    std::set<std::string> referenced;
    for (const ir::InputSpec& in : program_.signature().inputs) {
      if (in.kind == ir::InputKind::CustomObj) referenced.insert(in.target);
    }
    for (const ir::Node* node : program_.graph().nodes()) {
      if (node->is_get_attr()) referenced.insert(node->target());
    }
    for (auto it = program_.custom_objects().begin(); it != program_.custom_objects().end();) {
      const bool drop = it->second.type == kEngineObjectType && referenced.count(it->first) == 0;
      it = drop ? program_.custom_objects().erase(it) : std::next(it);
    }
    return calls.size();
  }

 private:
  ir::BufferPtr blob_for(const EngineCall& c) {
    const void* key = engine_key(*c.object);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    ir::BufferPtr blob = c.object->payload;
    if (blob == nullptr) {
      try {
        blob = c.object->object->serialize();
      } catch (const Exception& e) {
        raise(e.code(), "{}: method '{}': engine '{}' (call %{}) failed to serialize: {}", kWhat,
              method_, c.object_name, c.call->name(), e.what());
      }
    }
    PTEC_ENFORCE(blob != nullptr && blob->size() != 0, InvalidProgram,
                 "{}: method '{}': engine '{}' (call %{}) serialized to no bytes", kWhat, method_,
                 c.object_name, c.call->name());
    cache_[key] = blob;
    return blob;
  }

  /// The blob is an engine blob whose bindings match the call.
  void check_blob(const EngineCall& c, const ir::Buffer& blob) const {
    EngineMetadata meta;
    try {
      meta = read_engine_metadata(blob.data(), blob.size());
    } catch (const Exception& e) {
      raise(Error::InvalidProgram,
            "{}: method '{}': engine '{}' (call %{}) is not an engine blob: {}", kWhat, method_,
            c.object_name, c.call->name(), e.what());
    }
    size_t inputs = 0;
    for (const EngineBinding& b : meta.io_bindings) inputs += b.input ? 1 : 0;
    const size_t outputs = meta.io_bindings.size() - inputs;
    const size_t call_inputs = c.call->arg(0).as_list().size();
    const size_t call_outputs = c.call->meta().val.size();
    PTEC_ENFORCE(inputs == call_inputs && outputs == call_outputs, InvalidProgram,
                 "{}: method '{}': engine '{}' has {} input and {} output bindings but call %{} "
                 "passes {} inputs and takes {} outputs",
                 kWhat, method_, c.object_name, inputs, outputs, c.call->name(), call_inputs,
                 call_outputs);
  }

  /// "<engine>_blob", or the first "<engine>_blob_N" that no module attribute, state_dict or
  /// constants entry (nor graph node) uses.
  std::string buffer_name(const std::string& engine) {
    const std::string base = engine + "_blob";
    std::string name = base;
    for (int n = 1; taken_.count(name) != 0 || program_.graph().find(name) != nullptr; ++n) {
      name = fmt::format("{}_{}", base, n);
    }
    taken_.insert(name);
    return name;
  }

  ir::ExportedProgram& program_;
  const std::string& method_;
  BlobCache& cache_;
  std::set<std::string> taken_;
};

ir::Argument replace_node(const ir::Argument& arg, const ir::Node* from, ir::Node* to) {
  if (arg.is_node()) return arg.as_node() == from ? ir::Argument(to) : arg;
  if (arg.is_list()) {
    ir::ArgumentList items;
    for (const ir::Argument& item : arg.as_list()) items.push_back(replace_node(item, from, to));
    return ir::Argument(std::move(items));
  }
  return arg;
}

/// Replaces each engine call the engine partitioner claims by a PtecEngineBackend delegate call
/// taking exactly the engine's inputs and returning exactly its outputs (to_backend's generic
/// lowering would merge repeated inputs and drop unused outputs, which an engine's bindings do
/// not allow). The delegate's processed bytes are the engine blob itself (shared).
ir::ExportedProgram lower_engine_calls(const ir::ExportedProgram& program,
                                       const partition::Partitioner& partitioner,
                                       const partition::PartitionContext& context) {
  const std::string& method = context.method_name;
  const partition::PartitionResult result = partitioner.partition(program, context);
  for (const auto& [tag, spec] : result.partition_tags) {
    for (const partition::CompileSpec& cs : spec.compile_specs) {
      if (cs.key != partition::kMethodNameCompileSpec) continue;
      const std::string named(cs.value.begin(), cs.value.end());
      PTEC_ENFORCE(named == method, InvalidArgument,
                   "{}: partitioner {} gives partition '{}' compile spec method_name='{}' but it "
                   "is partitioning method '{}'",
                   kWhat, partitioner.name(), tag, named, method);
    }
  }
  ir::ExportedProgram out(program);
  ir::Graph& graph = out.graph();
  std::vector<ir::Node*> calls;
  for (ir::Node* node : graph.nodes()) {
    if (node->is_op(kExecuteEngineOp)) calls.push_back(node);
  }
  size_t next_module = 0;
  for (ir::Node* node : calls) {
    auto fail = [&](const std::string& why) {
      raise(Error::InvalidProgram, "{}: method '{}': engine call %{}: {}", kWhat, method,
            node->name(), why);
    };
    auto tag = result.node_tags.find(node->name());
    if (tag == result.node_tags.end()) fail("no partitioner claimed it");
    auto spec = result.partition_tags.find(tag->second);
    if (spec == result.partition_tags.end()) {
      fail(fmt::format("its tag '{}' has no DelegationSpec", tag->second));
    }
    ir::Node* engine = node->arg(1).as_node();
    const ir::InputSpec* in = out.signature().find_input(engine->name());
    const ir::TensorData* blob = out.constant_for_placeholder(engine->name());
    if (in == nullptr || in->kind != ir::InputKind::Buffer || blob == nullptr) {
      fail(fmt::format("its engine %{} is not a buffer holding the engine blob", engine->name()));
    }
    std::string module_name;
    do {
      module_name = fmt::format("lowered_module_{}", next_module++);
    } while (out.custom_objects().count(module_name) != 0 || graph.find(module_name) != nullptr);
    partition::LoweredModule module;
    module.backend_id = spec->second.backend_id;
    module.processed = blob->data;
    module.compile_specs = spec->second.compile_specs;
    module.debug_handles = {node->debug_handle()};
    partition::store_lowered_module(out, module_name, module);

    ir::Node* attr = graph.add_get_attr(module_name, module_name, node);
    ir::ArgumentList args{ir::Argument(attr)};
    for (const ir::Argument& input : node->arg(0).as_list()) args.push_back(input);
    ir::Node* delegate = graph.add_call(ir::get_op("executorch_call_delegate"), std::move(args),
                                        "executorch_call_delegate", node);
    delegate->meta().val = node->meta().val;
    delegate->meta().source = node->meta().source;
    // getitems read the delegate's outputs; any other use (of a one-output engine) reads a
    // new getitem of output 0.
    ir::Node* item = nullptr;
    const std::vector<ir::Node*> users = node->users();
    for (ir::Node* user : users) {
      if (is_getitem(*user) && user->arg(0).is_node() && user->arg(0).as_node() == node) {
        graph.set_arg(user, 0, ir::Argument(delegate));
        continue;
      }
      if (item == nullptr) {
        if (node->meta().val.size() != 1) {
          fail(fmt::format("%{} uses all {} outputs at once", user->name(),
                           node->meta().val.size()));
        }
        item = graph.add_call(ir::get_op("getitem"),
                              {ir::Argument(delegate), ir::Argument(int64_t{0})}, "getitem", node);
        item->meta().val = {node->meta().val[0]};
        item->meta().source = node->meta().source;
      }
      ir::ArgumentList user_args;
      for (const ir::Argument& a : user->args()) user_args.push_back(replace_node(a, node, item));
      graph.set_args(user, std::move(user_args));
      for (ir::OutputSpec& o : out.signature().outputs) {
        if (o.name == node->name()) o.name = item->name();
      }
    }
    graph.erase(node);
    if (engine->users().empty()) {
      const std::string name = engine->name();
      const std::string target = in->target;
      graph.erase(engine);
      auto& inputs = out.signature().inputs;
      inputs.erase(std::remove_if(inputs.begin(), inputs.end(),
                                  [&](const ir::InputSpec& s) { return s.name == name; }),
                   inputs.end());
      const bool still_used = std::any_of(
          inputs.begin(), inputs.end(), [&](const ir::InputSpec& s) { return s.target == target; });
      if (!still_used) out.state_dict().erase(target);
    }
  }
  passes::verify_program(out);
  out.set_stage(ir::Stage::Lowered);
  out.provenance().push_back(
      {"to_backend",
       fmt::format("method={}, partitioner={}, partitions={}, backends=[{}]", method,
                   partitioner.name(), calls.size(), calls.empty() ? "" : kBackendId)});
  return out;
}

/// Everything export checks before it stages anything. Returns, for each engine (engine_key),
/// the last method that uses it: its blob is kept only until that method is rewritten.
std::map<const void*, std::string> validate(const EngineSources& methods,
                                            const EngineExportOptions& options) {
  std::map<const void*, std::string> last_use;
  PTEC_ENFORCE(!methods.empty(), InvalidArgument, "{}: the source has no methods", kWhat);
  std::map<const ir::ExportedProgram*, std::string> seen;
  bool any_compiled = false;
  for (const auto& [name, program] : methods) {
    PTEC_ENFORCE(!name.empty(), InvalidArgument, "{}: a method name is empty", kWhat);
    PTEC_ENFORCE(is_identifier(name), InvalidArgument,
                 "{}: method name '{}' is not a valid identifier", kWhat, name);
    PTEC_ENFORCE(program != nullptr, InvalidArgument, "{}: method '{}' has no program", kWhat,
                 name);
    auto [it, inserted] = seen.emplace(program, name);
    PTEC_ENFORCE(inserted, InvalidArgument,
                 "{}: methods '{}' and '{}' are the same program object; give each method its "
                 "own program",
                 kWhat, it->second, name);
    PTEC_ENFORCE(program->stage() == ir::Stage::Aten, InvalidState,
                 "{}: method '{}' is at stage {}; engine export takes programs at stage {} (the "
                 "output of ptec::engine::compile)",
                 kWhat, name, ir::to_string(program->stage()), ir::to_string(ir::Stage::Aten));
    for (const EngineCall& c : engine_calls(*program, name)) last_use[engine_key(*c.object)] = name;
    any_compiled = any_compiled || engine_compiled(*program);
  }
  if (!any_compiled) {
    std::vector<std::string> names;
    for (const auto& [name, program] : methods) names.push_back(name);
    raise(Error::InvalidArgument,
          "{}: {} '{}' {} never engine-compiled (no engine and no engine compile step); compile "
          "it first with ptec::engine::compile",
          kWhat, names.size() == 1 ? "method" : "methods", fmt::join(names, "', '"),
          names.size() == 1 ? "was" : "were");
  }
  for (const auto& [name, value] : options.constant_methods) {
    PTEC_ENFORCE(is_identifier(name), InvalidArgument,
                 "{}: constant method name '{}' is not a valid identifier", kWhat, name);
    PTEC_ENFORCE(methods.count(name) == 0, InvalidArgument,
                 "{}: constant method '{}' has the name of a method", kWhat, name);
  }
  check_methods(options.partitioners, methods, "partitioners");
  check_methods(options.compile_specs, methods, "compile specs");
  check_methods(options.transform_passes, methods, "transform passes");
  for (const auto& [name, program] : methods) {
    if (const auto* list = for_method(options.partitioners, name)) {
      for (const auto& p : *list) {
        PTEC_ENFORCE(p != nullptr, InvalidArgument, "{}: method '{}' has a null partitioner", kWhat,
                     name);
      }
    }
    if (const auto* list = for_method(options.transform_passes, name)) {
      for (const auto& p : *list) {
        PTEC_ENFORCE(p != nullptr, InvalidArgument, "{}: method '{}' has a null transform pass",
                     kWhat, name);
      }
    }
    if (const auto* specs = for_method(options.compile_specs, name)) {
      for (const partition::CompileSpec& cs : *specs) {
        if (cs.key != partition::kMethodNameCompileSpec) continue;
        const std::string named(cs.value.begin(), cs.value.end());
        PTEC_ENFORCE(named == name, InvalidArgument,
                     "{}: the engine compile specs of method '{}' say method_name='{}'", kWhat,
                     name, named);
      }
    }
  }
  return last_use;
}

/// Runs `passes` on a copy of `program` (none: `program` itself, not copied).
program::ProgramPtr transform(program::ProgramPtr program, const std::string& method,
                              const program::PassList* passes,
                              const program::EdgeCompileConfig& config) {
  if (passes == nullptr || passes->empty()) return program;
  program::EdgeProgramManager single({{method, std::move(program)}}, {}, config);
  return single.transform(program::MethodPasses{{method, *passes}}).exported_program_ptr(method);
}

}  // namespace

program::EdgeCompileConfig default_engine_compile_config() {
  program::EdgeCompileConfig config;
  config.check_ir_validity = false;
  return config;
}

program::EdgeProgramManager export_engine_program(const EngineSources& methods,
                                                  const EngineExportOptions& options) {
  const std::map<const void*, std::string> last_use = validate(methods, options);
  const program::EdgeCompileConfig config =
      options.compile_config.value_or(default_engine_compile_config());
  const EnginePartitioner engine_partitioner(options.compile_specs);

  EngineRewrite::BlobCache blobs;

  std::shared_ptr<devtools::ETRecord> record;
  if (options.generate_etrecord) record = std::make_shared<devtools::ETRecord>();
  std::map<std::string, program::ProgramPtr> lowered;
  for (const auto& [name, source] : methods) {
    try {
      program::EdgeCompileConfig method_config = config;
      std::set<std::string> kept;  // ops kept from decomposition for a user partitioner
      const std::set<std::string> preserved(config.preserve_ops.begin(), config.preserve_ops.end());
      const program::PartitionerList* partitioners = for_method(options.partitioners, name);
      std::vector<std::string> keep = engine_partitioner.ops_to_not_decompose(*source);
      if (partitioners != nullptr) {
        for (const auto& p : *partitioners) {
          for (const std::string& op : p->ops_to_not_decompose(*source)) {
            if (preserved.count(op) == 0 && op != kExecuteEngineOp) kept.insert(op);
            keep.push_back(op);
          }
        }
      }
      for (const std::string& op : keep) {
        if (std::find(method_config.preserve_ops.begin(), method_config.preserve_ops.end(), op) ==
            method_config.preserve_ops.end()) {
          method_config.preserve_ops.push_back(op);
        }
      }

      program::ProgramPtr edge;
      {
        ir::ExportedProgram staged(*source);  // structure only; payloads and engines shared
        EngineRewrite(staged, name, blobs).run();
        for (auto it = blobs.begin(); it != blobs.end();) {
          auto last = last_use.find(it->first);
          it = last != last_use.end() && last->second == name ? blobs.erase(it) : std::next(it);
        }
        if (record != nullptr) program::record_aten_program(*record, name, staged);
        edge = std::make_shared<const ir::ExportedProgram>(program::to_edge(staged, method_config));
      }
      if (record != nullptr) record->set_edge_program(name, edge);
      const program::PassList* passes = for_method(options.transform_passes, name);
      program::ProgramPtr current = transform(edge, name, passes, config);
      if (record != nullptr && current != edge) record->set_edge_after_transform(name, current);
      edge.reset();

      const partition::PartitionContext context{name};
      current = std::make_shared<const ir::ExportedProgram>(
          lower_engine_calls(*current, engine_partitioner, context));
      if (partitioners != nullptr) {
        for (const auto& p : *partitioners) {
          current = std::make_shared<const ir::ExportedProgram>(
              partition::to_backend(*current, *p, context));
        }
      }
      for (const ir::Node* node : current->graph().nodes()) {
        if (node->is_call() && kept.count(node->target()) != 0) {
          raise(Error::InvalidProgram,
                "node %{} ({}) was kept from decomposition for a partitioner but no partitioner "
                "delegated it",
                node->name(), node->target());
        }
      }
      lowered[name] = std::move(current);
    } catch (const Exception& e) {
      const std::string what = e.what();
      if (what.rfind(kWhat, 0) == 0) throw;
      raise(e.code(), "{}: method '{}': {}", kWhat, name, what);
    }
  }
  return program::EdgeProgramManager(std::move(lowered), options.constant_methods, config,
                                     std::move(record));
}

program::EdgeProgramManager export_engine_program(
    const std::map<std::string, ir::ExportedProgram>& methods, const EngineExportOptions& options) {
  EngineSources sources;
  for (const auto& [name, program] : methods) sources.emplace(name, &program);
  return export_engine_program(sources, options);
}

program::EdgeProgramManager export_engine_program(const ir::ExportedProgram& program,
                                                  const EngineExportOptions& options) {
  return export_engine_program(EngineSources{{"forward", &program}}, options);
}

SavedEngineProgram save(const EngineSources& methods, const std::string& pte_path,
                        const EngineSaveOptions& options) {
  namespace fs = std::filesystem;
  const fs::path pte(pte_path);
  const fs::path dir = pte.parent_path();
  PTEC_ENFORCE(!pte.filename().empty(), InvalidArgument, "ptec::engine::save: '{}' names no file",
               pte_path);
  PTEC_ENFORCE(dir.empty() || fs::is_directory(dir), NotFound,
               "ptec::engine::save: {}: output directory {} does not exist", pte_path,
               dir.string());
  const program::ExecutorchProgramManager et =
      export_engine_program(methods, options).to_executorch(options.backend_config);

  SavedEngineProgram saved;
  saved.pte = pte_path;
  std::vector<std::string> written;  // removed again when a later write fails
  try {
    if (options.generate_etrecord) {
      saved.etrecord = fs::path(pte).replace_extension(".etrecord").string();
      et.get_etrecord().save(saved.etrecord);
      written.push_back(saved.etrecord);
    }
    if (et.has_external_tensor_data()) {
      saved.ptd =
          et.write_tensor_data_to_file(dir.empty() ? "." : dir.string(), pte.stem().string());
      written.push_back(saved.ptd);
    }
    emit::write_pte(et.emitted(), pte_path);
  } catch (...) {
    for (const std::string& path : written) {
      std::error_code ignored;
      fs::remove(path, ignored);
    }
    throw;
  }
  return saved;
}

SavedEngineProgram save(const ir::ExportedProgram& program, const std::string& pte_path,
                        const EngineSaveOptions& options) {
  return save(EngineSources{{"forward", &program}}, pte_path, options);
}

}  // namespace ptec::engine
