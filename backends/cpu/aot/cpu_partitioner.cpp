#include "backends/cpu/aot/cpu_partitioner.h"

#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "backends/cpu/aot/cpu_ops.h"
#include "backends/cpu/aot/cpu_quant.h"

namespace ptec::backends::cpu {
namespace {

using Group = int;
constexpr Group kNone = -1;

// Groups claimed nodes in topological order. A node joins the group of one of its claimed
// producers unless some path from that group reaches the node through a node outside the group
// (joining would make the group non-convex); otherwise it starts a group. The groups of its other
// claimed producers merge into it too when no path leads from one of the two groups to the other
// through an outside node (independent branches, such as the two convolutions of a ResNet
// downsample block, end up in one delegate). Neither may close a cycle between groups (group A
// feeding group B through one path and B feeding A through another): the delegates could not be
// ordered. `reach[n]`: the groups from which a path leaves the group and arrives at n;
// `reached[g]`: the groups with a path into g (transitively). Group ids are resolved through
// `merged_into` (union-find) before every comparison. Nodes join or merge only with groups of
// their own `rows` key (rows_symbol: static nodes, and each run-time row count, apart).
std::map<const ir::Node*, Group> group_nodes(const ir::Graph& graph,
                                             const std::set<const ir::Node*>& claimed,
                                             const std::map<const ir::Node*, std::string>& rows) {
  std::map<const ir::Node*, Group> group;
  std::vector<std::string> group_rows;  // by group id (merged groups share their key)
  std::map<const ir::Node*, std::set<Group>> reach;
  std::vector<Group> merged_into;
  std::map<Group, std::set<Group>> reached;
  auto find = [&](Group g) {
    while (merged_into[static_cast<size_t>(g)] != g) g = merged_into[static_cast<size_t>(g)];
    return g;
  };
  auto resolved = [&](const std::set<Group>& groups) {
    std::set<Group> r;
    for (Group g : groups) r.insert(find(g));
    return r;
  };
  for (const ir::Node* node : graph.nodes()) {
    std::set<Group> incoming;  // groups reaching node's inputs from outside
    for (const ir::Node* input : node->inputs()) {
      const auto& r = reach[input];
      incoming.insert(r.begin(), r.end());
    }
    incoming = resolved(incoming);
    // Every group with a path into node: through outside nodes (incoming) or directly.
    std::set<Group> feeding = incoming;
    for (const ir::Node* input : node->inputs()) {
      auto it = group.find(input);
      if (it != group.end()) feeding.insert(find(it->second));
    }
    // Node may join `cand` unless that closes a cycle between groups: a path from cand leaves
    // it and reaches a group that feeds node.
    const std::string& key = claimed.count(node) != 0 ? rows.at(node) : std::string();
    auto can_join = [&](Group cand) {
      if (incoming.count(cand) != 0 || group_rows[static_cast<size_t>(cand)] != key) return false;
      for (Group h : feeding) {
        if (h != cand && resolved(reached[h]).count(cand) != 0) return false;
      }
      return true;
    };
    Group g = kNone;
    if (claimed.count(node) != 0) {
      for (const ir::Node* input : node->inputs()) {
        auto it = group.find(input);
        if (it != group.end() && can_join(find(it->second))) {
          g = find(it->second);
          break;
        }
      }
      if (g == kNone) {
        g = static_cast<Group>(merged_into.size());
        merged_into.push_back(g);
        group_rows.push_back(key);
      } else {
        for (const ir::Node* input : node->inputs()) {
          auto it = group.find(input);
          if (it == group.end()) continue;
          const Group other = find(it->second);
          if (other == g || incoming.count(other) != 0 ||
              group_rows[static_cast<size_t>(other)] != key) {
            continue;
          }
          const std::set<Group> into_g = resolved(reached[g]);
          const std::set<Group> into_other = resolved(reached[other]);
          if (into_g.count(other) != 0 || into_other.count(g) != 0) continue;
          merged_into[static_cast<size_t>(other)] = g;
          reached[g].insert(into_other.begin(), into_other.end());
        }
      }
      group[node] = g;
      for (Group h : feeding) {
        if (find(h) != g) reached[g].insert(find(h));
      }
    }
    std::set<Group>& mine = reach[node];
    mine = incoming;
    for (const ir::Node* input : node->inputs()) {
      auto it = group.find(input);
      if (it != group.end() && find(it->second) != g) mine.insert(find(it->second));
    }
  }
  for (auto& [node, g] : group) g = find(g);
  return group;
}

}  // namespace

partition::PartitionResult CpuPartitioner::partition(
    const ir::ExportedProgram& program, const partition::PartitionContext& context) const {
  const ir::Graph& graph = program.graph();
  // Weight permutes only reorder a constant for their linear layer: they join its group
  // afterwards instead of seeding groups of their own.
  std::set<const ir::Node*> claimed;
  std::set<const ir::Node*> permutes;
  std::map<const ir::Node*, std::string> rows;
  for (const ir::Node* node : graph.nodes()) {
    const CpuOpKind kind = classify(program, *node);
    if (kind == CpuOpKind::WeightPermute) {
      permutes.insert(node);
    } else if (kind != CpuOpKind::Unsupported) {
      claimed.insert(node);
    }
    rows[node] = rows_symbol(program, *node);
  }
  // Quantized patterns (dq → conv / linear → q, q / dq around simple ops, lone q and dq): each
  // set must end up whole in one delegate, which lowers it to int8 kernels.
  const QuantPlan quant = plan_quant(program);
  claimed.insert(quant.claimed.begin(), quant.claimed.end());
  std::map<const ir::Node*, std::vector<size_t>> sets_of;
  for (size_t i = 0; i < quant.together.size(); ++i) {
    for (const ir::Node* n : quant.together[i]) sets_of[n].push_back(i);
  }
  auto give_up_set = [&](size_t i) {
    bool any = false;
    for (const ir::Node* n : quant.together[i]) any |= claimed.erase(n) != 0;
    return any;
  };
  // A constant must go with the one group that uses it; a claimed node whose weight is also used
  // elsewhere is given up (which can change the groups, so repeat until stable).
  std::map<const ir::Node*, Group> group;
  std::map<const ir::Node*, Group> constant_group;
  for (bool changed = true; changed;) {
    changed = false;
    group = group_nodes(graph, claimed, rows);
    for (const ir::Node* permute : permutes) {
      auto it = group.find(permute->users()[0]);  // a weight permute has one user
      if (it != group.end()) group[permute] = it->second;
    }
    constant_group.clear();
    for (const ir::Node* node : graph.nodes()) {
      if (!is_constant(program, *node) || node->users().empty()) continue;
      Group g = kNone;
      bool one_group = true;
      for (const ir::Node* user : node->users()) {
        auto it = group.find(user);
        if (it == group.end() || (g != kNone && it->second != g)) one_group = false;
        if (it != group.end()) g = it->second;
      }
      if (one_group) {
        constant_group[node] = g;
        continue;
      }
      // Weights and biases of convolutions and linear layers must be the backend's own, and so
      // must every constant a quantized pattern reads (weights, scales, zero points).
      for (const ir::Node* user : node->users()) {
        if (auto it = sets_of.find(user); it != sets_of.end()) {
          for (size_t i : it->second) changed |= give_up_set(i);
        }
        const CpuOpKind kind = classify(program, *user);
        const ir::Node* layer = kind == CpuOpKind::WeightPermute ? user->users()[0] : user;
        const bool needs_constant = kind == CpuOpKind::Conv2d || kind == CpuOpKind::Linear ||
                                    kind == CpuOpKind::ConvTranspose2d ||
                                    kind == CpuOpKind::WeightPermute ||
                                    kind == CpuOpKind::BatchNorm || kind == CpuOpKind::LayerNorm;
        if (needs_constant && claimed.erase(layer) != 0) changed = true;
      }
    }
    // A quantized pattern split over delegates (or partly unclaimed) is given up whole.
    for (size_t i = 0; i < quant.together.size(); ++i) {
      Group g = kNone;
      bool whole = true;
      for (const ir::Node* n : quant.together[i]) {
        auto it = group.find(n);
        if (it == group.end() || (g != kNone && it->second != g)) whole = false;
        if (it != group.end()) g = it->second;
      }
      if (!whole) changed |= give_up_set(i);
    }
    // A max pool, batch, group or layer norm or split without its getitems (or the reverse)
    // cannot be lowered alone.
    for (const ir::Node* node : graph.nodes()) {
      const CpuOpKind kind = classify(program, *node);
      if (kind == CpuOpKind::GetItem && claimed.count(node) != 0 &&
          claimed.count(node->arg(0).as_node()) == 0) {
        claimed.erase(node);  // its producer was given up (e.g. for a weight used elsewhere)
        changed = true;
        continue;
      }
      if ((kind != CpuOpKind::MaxPool2d && kind != CpuOpKind::BatchNorm &&
           kind != CpuOpKind::GroupNorm && kind != CpuOpKind::LayerNorm &&
           kind != CpuOpKind::Split) ||
          claimed.count(node) == 0) {
        continue;
      }
      for (const ir::Node* user : node->users()) {
        if (claimed.count(user) == 0 && claimed.erase(node) != 0) changed = true;
      }
    }
  }

  partition::PartitionResult result;
  std::set<Group> used;
  for (const auto& [node, g] : group) {
    result.node_tags[node->name()] = fmt::format("cpu_{}", g);
    used.insert(g);
  }
  for (const auto& [node, g] : constant_group) {
    result.node_tags[node->name()] = fmt::format("cpu_{}", g);
  }
  for (Group g : used) {
    partition::DelegationSpec spec;
    spec.backend_id = kCpuBackendId;
    spec.compile_specs.push_back(partition::CompileSpec::from_string(
        partition::kMethodNameCompileSpec, context.method_name));
    result.partition_tags[fmt::format("cpu_{}", g)] = spec;
  }
  return result;
}

}  // namespace ptec::backends::cpu
