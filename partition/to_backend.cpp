#include "partition/to_backend.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "ir/exception.h"
#include "ir/op_schema.h"
#include "ir/printer.h"
#include "partition/backend.h"
#include "partition/lowered_module.h"
#include "passes/duplicate_shared_constants.h"
#include "passes/pass_manager.h"

namespace ptec::partition {
namespace {

bool is_getitem(const ir::Node& node) {
  return node.is_call() && node.op() != nullptr && node.op()->ns.empty() &&
         node.op()->name == "getitem";
}

using NodeSet = std::unordered_set<const ir::Node*>;

/// One partition being lowered: its nodes in graph order.
struct Partition {
  std::string tag;
  std::vector<ir::Node*> nodes;
  NodeSet members;
};

class Lowering {
 public:
  Lowering(ir::ExportedProgram& program, const PartitionContext& context,
           const std::string& partitioner)
      : program_(program), context_(context), partitioner_(partitioner) {}

  [[noreturn]] void fail(Error code, const std::string& message) const {
    raise(code, "to_backend: method '{}', partitioner {}: {}", context_.method_name, partitioner_,
          message);
  }

  /// Reads the tags of every node (meta and result), completing getitems of tagged producers.
  std::map<ir::Node*, std::string> collect_tags(const PartitionResult& result) {
    std::map<ir::Node*, std::string> tags;
    for (ir::Node* node : program_.graph().nodes()) {
      if (!node->meta().delegation_tag.empty()) tags[node] = node->meta().delegation_tag;
    }
    for (const auto& [name, tag] : result.node_tags) {
      ir::Node* node = program_.graph().find(name);
      if (node == nullptr) fail(Error::InvalidArgument, fmt::format("tags unknown node %{}", name));
      auto [it, inserted] = tags.emplace(node, tag);
      if (!inserted && it->second != tag) {
        fail(Error::InvalidArgument,
             fmt::format("node %{} is tagged both '{}' and '{}'", name, it->second, tag));
      }
    }
    for (ir::Node* node : program_.graph().nodes()) {
      if (!is_getitem(*node) || tags.count(node) != 0 || !node->arg(0).is_node()) continue;
      auto producer = tags.find(node->arg(0).as_node());
      if (producer != tags.end()) tags[node] = producer->second;
    }
    for (const auto& [node, tag] : tags) {
      if (result.partition_tags.count(tag) == 0) {
        fail(Error::InvalidArgument,
             fmt::format("node %{} has tag '{}', which has no DelegationSpec", node->name(), tag));
      }
      if (node->is_output()) {
        fail(Error::InvalidProgram, fmt::format("the output node %{} is tagged '{}'; the output "
                                                "node is never delegated",
                                                node->name(), tag));
      }
      if (node->is_get_attr()) {
        fail(Error::NotSupported, fmt::format("get_attr %{} is tagged '{}'", node->name(), tag));
      }
      if (node->is_placeholder()) {
        const ir::InputSpec* spec = program_.signature().find_input(node->name());
        if (spec == nullptr || spec->kind == ir::InputKind::UserInput ||
            spec->kind == ir::InputKind::CustomObj) {
          fail(Error::InvalidProgram,
               fmt::format("placeholder %{} is a user input and cannot be tagged", node->name()));
        }
        for (const ir::Node* user : node->users()) {
          auto it = tags.find(const_cast<ir::Node*>(user));
          if (it == tags.end() || it->second != tag) {
            fail(Error::InvalidProgram,
                 fmt::format("tagged parameter %{} (tag '{}') is used by %{} outside its partition",
                             node->name(), tag, user->name()));
          }
        }
      }
    }
    return tags;
  }

  /// Splits each tag's nodes into connected partitions, in graph order of their first node.
  std::vector<Partition> partitions(const std::map<ir::Node*, std::string>& tags) {
    std::unordered_map<const ir::Node*, size_t> component;
    std::vector<Partition> out;
    for (ir::Node* start : program_.graph().nodes()) {
      auto tag = tags.find(start);
      if (tag == tags.end() || component.count(start) != 0) continue;
      const size_t id = out.size();
      out.push_back({tag->second, {}, {}});
      std::deque<ir::Node*> queue{start};
      component[start] = id;
      while (!queue.empty()) {
        ir::Node* n = queue.front();
        queue.pop_front();
        std::vector<ir::Node*> neighbours = n->inputs();
        neighbours.insert(neighbours.end(), n->users().begin(), n->users().end());
        for (ir::Node* m : neighbours) {
          auto t = tags.find(m);
          if (t == tags.end() || t->second != tag->second || component.count(m) != 0) continue;
          component[m] = id;
          queue.push_back(m);
        }
      }
    }
    for (ir::Node* node : program_.graph().nodes()) {
      auto it = component.find(node);
      if (it == component.end()) continue;
      out[it->second].nodes.push_back(node);
      out[it->second].members.insert(node);
    }
    std::stable_sort(out.begin(), out.end(), [](const Partition& a, const Partition& b) {
      return a.nodes.front()->debug_handle() < b.nodes.front()->debug_handle();
    });
    return out;
  }

  /// Nodes outside `p` that depend on it; throws when such a node feeds `p` (not convex).
  NodeSet check_convex(const Partition& p) {
    NodeSet tainted;
    for (ir::Node* node : program_.graph().nodes()) {
      const bool inside = p.members.count(node) != 0;
      for (ir::Node* input : node->inputs()) {
        const bool input_inside = p.members.count(input) != 0;
        if (inside && !input_inside && tainted.count(input) != 0) {
          fail(Error::InvalidProgram,
               fmt::format("partition '{}' is not convex: %{} depends on the partition and feeds "
                           "its node %{}",
                           p.tag, input->name(), node->name()));
        }
        if (!inside && (input_inside || tainted.count(input) != 0)) tainted.insert(node);
      }
    }
    return tainted;
  }

  std::string next_module_name() {
    for (;; ++next_module_) {
      const std::string name = fmt::format("lowered_module_{}", next_module_);
      if (program_.custom_objects().count(name) == 0 && program_.graph().find(name) == nullptr) {
        ++next_module_;
        return name;
      }
    }
  }

  void lower(const Partition& p, const DelegationSpec& spec) {
    const NodeSet tainted = check_convex(p);
    ir::Graph& graph = program_.graph();

    // Inputs (outside nodes used inside, in order of first use) and outputs (inside values
    // used outside, in graph order).
    std::vector<ir::Node*> inputs;
    std::vector<ir::Node*> outputs;
    std::unordered_set<const ir::Node*> seen;
    std::vector<int64_t> handles;
    for (ir::Node* node : p.nodes) {
      if (node->is_call()) handles.push_back(node->debug_handle());
      for (ir::Node* input : node->inputs()) {
        if (p.members.count(input) == 0 && seen.insert(input).second) inputs.push_back(input);
      }
      if (node->is_placeholder()) continue;
      bool used_outside = false;
      for (const ir::Node* user : node->users()) used_outside |= p.members.count(user) == 0;
      if (!used_outside) continue;
      if (node->meta().val.size() != 1) {
        fail(Error::NotSupported,
             fmt::format("partition '{}': %{} has {} outputs and is used whole outside the "
                         "partition",
                         p.tag, node->name(), node->meta().val.size()));
      }
      outputs.push_back(node);
    }
    if (outputs.empty()) {
      fail(Error::InvalidProgram,
           fmt::format("partition '{}' produces no value the method uses", p.tag));
    }

    // The subgraph: user inputs, then the partition's parameters, calls, outputs.
    ir::ExportedProgram sub;
    sub.set_stage(ir::Stage::Edge);
    sub.provenance().push_back(
        {"partition", fmt::format("method {}, tag {}, backend {}", context_.method_name, p.tag,
                                  spec.backend_id)});
    std::unordered_map<const ir::Node*, ir::Node*> map;
    for (ir::Node* input : inputs) {
      if (input->meta().val.size() != 1) {
        fail(Error::NotSupported, fmt::format("partition '{}' takes %{}, which is not one tensor",
                                              p.tag, input->name()));
      }
      ir::Node* ph = sub.graph().add_placeholder(input->name(), input->meta().val[0]);
      ph->meta().source = input->meta().source;
      map[input] = ph;
      sub.signature().inputs.push_back({ir::InputKind::UserInput, ph->name(), ""});
    }
    for (ir::Node* node : p.nodes) {
      if (!node->is_placeholder()) continue;
      const ir::InputSpec& spec_in = *program_.signature().find_input(node->name());
      ir::Node* ph = sub.graph().add_placeholder(node->name(), node->meta().val.at(0));
      map[node] = ph;
      sub.signature().inputs.push_back({spec_in.kind, ph->name(), spec_in.target});
      const ir::TensorData* data = program_.constant_for_placeholder(node->name());
      if (data == nullptr) {
        fail(Error::InvalidProgram, fmt::format("parameter %{} has no data", node->name()));
      }
      if (spec_in.kind == ir::InputKind::ConstantTensor) {
        sub.constants()[spec_in.target] = *data;
      } else {
        sub.state_dict()[spec_in.target] = *data;
      }
    }
    for (ir::Node* node : p.nodes) {
      if (node->is_placeholder()) continue;
      ir::ArgumentList args;
      for (const ir::Argument& arg : node->args()) args.push_back(map_argument(arg, map));
      ir::Node* call = sub.graph().add_call(*node->op(), std::move(args), node->name());
      call->meta() = node->meta();
      call->meta().delegation_tag.clear();
      call->set_debug_handle(node->debug_handle());
      map[node] = call;
    }
    std::vector<ir::Node*> sub_outputs;
    for (ir::Node* node : outputs) {
      sub_outputs.push_back(map.at(node));
      sub.signature().outputs.push_back({ir::OutputKind::UserOutput, map.at(node)->name(), ""});
    }
    sub.graph().set_output(sub_outputs);

    const Backend& backend = get_backend(spec.backend_id);
    PreprocessResult processed = backend.preprocess(sub, spec.compile_specs);
    if (processed.processed_bytes == nullptr) {
      fail(Error::InvalidState, fmt::format("backend {} returned no processed bytes for partition "
                                            "'{}'",
                                            spec.backend_id, p.tag));
    }
    const std::string module_name = next_module_name();
    LoweredModule module;
    module.backend_id = spec.backend_id;
    module.processed = processed.processed_bytes;
    module.compile_specs = spec.compile_specs;
    module.named_data = processed.named_data;
    module.debug_handles = handles;
    module.delegate_debug_map = processed.debug_handle_map;
    store_lowered_module(program_, module_name, module);

    // The delegate call goes right after the partition's last node; outside nodes between the
    // partition's first and last node that depend on it move after the call.
    auto last = std::find(graph.nodes().begin(), graph.nodes().end(), p.nodes.back());
    ir::Node* before = *std::next(last);
    std::vector<ir::Node*> to_move;
    bool in_range = false;
    for (ir::Node* node : graph.nodes()) {
      if (node == p.nodes.front()) in_range = true;
      if (node == p.nodes.back()) break;
      if (in_range && p.members.count(node) == 0 && tainted.count(node) != 0) {
        to_move.push_back(node);
      }
    }
    ir::Node* attr = graph.add_get_attr(module_name, module_name, before);
    ir::ArgumentList args{ir::Argument(attr)};
    for (ir::Node* input : inputs) args.emplace_back(input);
    ir::Node* call = graph.add_call(ir::get_op("executorch_call_delegate"), std::move(args),
                                    "executorch_call_delegate", before);
    for (ir::Node* node : outputs) call->meta().val.push_back(node->meta().val[0]);
    std::vector<ir::Node*> items;
    for (size_t k = 0; k < outputs.size(); ++k) {
      ir::Node* item = graph.add_call(ir::get_op("getitem"),
                                      {ir::Argument(call), ir::Argument(static_cast<int64_t>(k))},
                                      "getitem", before);
      item->meta().val = {outputs[k]->meta().val[0]};
      item->meta().source = outputs[k]->meta().source;
      items.push_back(item);
    }
    for (ir::Node* node : to_move) graph.move_before(node, before);
    for (size_t k = 0; k < outputs.size(); ++k) {
      for (ir::OutputSpec& out : program_.signature().outputs) {
        if (out.name == outputs[k]->name()) out.name = items[k]->name();
      }
      graph.replace_all_uses_with(outputs[k], items[k]);
    }
    std::vector<ir::Node*> parameters;  // collected first: erased calls must not be read again
    for (ir::Node* node : p.nodes) {
      if (node->is_placeholder()) parameters.push_back(node);
    }
    for (auto it = p.nodes.rbegin(); it != p.nodes.rend(); ++it) {
      if (!(*it)->is_placeholder()) graph.erase(*it);
    }
    for (ir::Node* node : parameters) {
      const std::string name = node->name();
      const std::string target = program_.signature().find_input(name)->target;
      graph.erase(node);
      auto& specs = program_.signature().inputs;
      specs.erase(std::remove_if(specs.begin(), specs.end(),
                                 [&](const ir::InputSpec& s) { return s.name == name; }),
                  specs.end());
      const bool still_used = std::any_of(
          specs.begin(), specs.end(), [&](const ir::InputSpec& s) { return s.target == target; });
      if (!still_used) {
        program_.state_dict().erase(target);
        program_.constants().erase(target);
      }
    }
    backends_.insert(spec.backend_id);
  }

  const std::set<std::string>& backends() const { return backends_; }

 private:
  static ir::Argument map_argument(const ir::Argument& arg,
                                   const std::unordered_map<const ir::Node*, ir::Node*>& map) {
    if (arg.is_node()) return ir::Argument(map.at(arg.as_node()));
    if (arg.is_list()) {
      ir::ArgumentList items;
      for (const ir::Argument& item : arg.as_list()) items.push_back(map_argument(item, map));
      return ir::Argument(std::move(items));
    }
    return arg;
  }

  ir::ExportedProgram& program_;
  const PartitionContext& context_;
  const std::string& partitioner_;
  size_t next_module_ = 0;
  std::set<std::string> backends_;
};

}  // namespace

std::string structural_fingerprint(const ir::ExportedProgram& program) {
  ir::ExportedProgram copy(program);
  for (ir::Node* node : copy.graph().nodes()) node->meta().delegation_tag.clear();
  return ir::print(copy);
}

ir::ExportedProgram to_backend(const ir::ExportedProgram& program, const Partitioner& partitioner,
                               const PartitionContext& context) {
  const std::string name = partitioner.name();
  PTEC_ENFORCE(program.stage() == ir::Stage::Edge || program.stage() == ir::Stage::Lowered,
               InvalidState,
               "to_backend: method '{}' is at stage {}; to_backend takes a program at stage {} or "
               "{}",
               context.method_name, ir::to_string(program.stage()), ir::to_string(ir::Stage::Edge),
               ir::to_string(ir::Stage::Lowered));
  // Each user of a shared constant gets its own placeholder, so that a delegate can own the
  // constants of its nodes however many layers share a weight. (A program without any is
  // partitioned as given: no copy holds its payloads meanwhile.)
  std::optional<ir::ExportedProgram> prepared;
  if (passes::DuplicateSharedConstants::applies(program)) {
    prepared.emplace(program);
    passes::DuplicateSharedConstants().run(*prepared);
  }
  const ir::ExportedProgram& source = prepared ? *prepared : program;
  const std::string before = structural_fingerprint(source);
  const PartitionResult result = partitioner.partition(source, context);
  PTEC_ENFORCE(structural_fingerprint(source) == before, InvalidState,
               "to_backend: partitioner {} changed the graph of method '{}'; a partitioner may "
               "only tag nodes",
               name, context.method_name);
  for (const auto& [tag, spec] : result.partition_tags) {
    for (const CompileSpec& cs : spec.compile_specs) {
      if (cs.key != kMethodNameCompileSpec) continue;
      const std::string named(cs.value.begin(), cs.value.end());
      PTEC_ENFORCE(named == context.method_name, InvalidArgument,
                   "to_backend: partitioner {} gives partition '{}' compile spec method_name='{}' "
                   "but it is partitioning method '{}'",
                   name, tag, named, context.method_name);
    }
  }

  ir::ExportedProgram out = prepared ? std::move(*prepared) : ir::ExportedProgram(program);
  Lowering lowering(out, context, name);
  const auto tags = lowering.collect_tags(result);
  const auto partitions = lowering.partitions(tags);
  for (const Partition& p : partitions) lowering.lower(p, result.partition_tags.at(p.tag));
  for (ir::Node* node : out.graph().nodes()) node->meta().delegation_tag.clear();
  passes::verify_program(out);
  out.set_stage(ir::Stage::Lowered);
  out.provenance().push_back(
      {"to_backend",
       fmt::format("method={}, partitioner={}, partitions={}, backends=[{}]", context.method_name,
                   name, partitions.size(), fmt::join(lowering.backends(), ", "))});
  return out;
}

}  // namespace ptec::partition
