#include "passes/pad_folding.h"

#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "ir/exported_program.h"
#include "ir/op_schema.h"
#include "memory/lifetime.h"
#include "passes/rewrite_utils.h"

namespace ptec::passes {
namespace {

/// `node`'s arguments with the schema's defaults filled in up to the last argument.
ir::ArgumentList full_args(const ir::Node& node) {
  ir::ArgumentList args = node.args();
  const std::vector<ir::ArgSchema>& schema = node.op()->args;
  for (size_t i = args.size(); i < schema.size(); ++i) {
    args.push_back(schema[i].default_value ? *schema[i].default_value : ir::Argument());
  }
  return args;
}

/// An int[2] argument (a single int, or a list of one or two ints) as {h, w}.
std::optional<std::array<int64_t, 2>> pair_of(const ir::Argument& a) {
  if (a.is_int()) return std::array<int64_t, 2>{a.as_int(), a.as_int()};
  if (!a.is_list()) return std::nullopt;
  for (const ir::Argument& item : a.as_list()) {
    if (!item.is_int()) return std::nullopt;
  }
  const std::vector<int64_t> v = a.to_int_vector();
  if (v.size() == 1) return std::array<int64_t, 2>{v[0], v[0]};
  if (v.size() == 2) return std::array<int64_t, 2>{v[0], v[1]};
  return std::nullopt;
}

/// The {top, left} pad of a symmetric constant pad of only the last two dims of a 4-D tensor.
std::optional<std::array<int64_t, 2>> spatial_pad(const ir::Node& pad) {
  const ir::Node* x = pad.arg(0).is_node() ? pad.arg(0).as_node() : nullptr;
  if (x == nullptr || x->spec().rank() != 4 || !pad.arg(1).is_list()) return std::nullopt;
  const std::vector<int64_t> p = pad.arg(1).to_int_vector();  // last dim first
  if (p.size() < 4 || p.size() % 2 != 0 || p[0] != p[1] || p[2] != p[3] || p[0] < 0 || p[2] < 0) {
    return std::nullopt;
  }
  for (size_t i = 4; i < p.size(); ++i) {
    if (p[i] != 0) return std::nullopt;
  }
  return std::array<int64_t, 2>{p[2], p[0]};
}

/// Folds `pad` into its one reader; false when the pattern does not apply.
bool fold(ir::ExportedProgram& program, ir::Node* pad) {
  if (pad->users().size() != 1 || is_program_output(program, pad)) return false;
  const std::optional<std::array<int64_t, 2>> extra = spatial_pad(*pad);
  if (!extra) return false;
  const ir::ArgumentList pad_args = full_args(*pad);
  if (!pad_args[2].is_int() && !pad_args[2].is_double()) return false;
  const double value = pad_args[2].to_double();
  ir::Node* user = pad->users()[0];
  const bool conv = user->is_op("aten::convolution");
  const bool avg = user->is_op("aten::avg_pool2d");
  if ((!conv && !avg && !user->is_op("aten::max_pool2d_with_indices")) || user->args().empty() ||
      !user->arg(0).is_node() || user->arg(0).as_node() != pad) {
    return false;
  }
  ir::ArgumentList args = full_args(*user);
  const ir::OpSchema& op = *user->op();
  const auto padding_index = static_cast<size_t>(op.arg_index("padding"));
  const std::optional<std::array<int64_t, 2>> padding = pair_of(args[padding_index]);
  if (!padding) return false;
  const std::array<int64_t, 2> total = {(*padding)[0] + (*extra)[0], (*padding)[1] + (*extra)[1]};

  if (conv) {
    const ir::Argument& transposed = args[static_cast<size_t>(op.arg_index("transposed"))];
    if (value != 0.0 || !transposed.is_bool() || transposed.as_bool()) return false;
  } else {  // avg_pool2d or max_pool2d_with_indices
    const ir::Argument& ceil = args[static_cast<size_t>(op.arg_index("ceil_mode"))];
    const std::optional<std::array<int64_t, 2>> kernel =
        pair_of(args[static_cast<size_t>(op.arg_index("kernel_size"))]);
    std::array<int64_t, 2> dilation = {1, 1};
    if (!avg) {
      const std::optional<std::array<int64_t, 2>> d =
          pair_of(args[static_cast<size_t>(op.arg_index("dilation"))]);
      if (!d) return false;
      dilation = *d;
    }
    const bool pad_value_ok = avg ? value == 0.0 : std::isinf(value) && value < 0.0;
    if (!pad_value_ok || !kernel || (*padding)[0] != 0 || (*padding)[1] != 0 || !ceil.is_bool() ||
        ceil.as_bool()) {
      return false;
    }
    for (size_t i = 0; i < 2; ++i) {  // ATen: padding at most half the effective kernel
      if (2 * total[i] > dilation[i] * ((*kernel)[i] - 1) + 1) return false;
    }
    if (avg) {
      args[static_cast<size_t>(op.arg_index("count_include_pad"))] = true;
    } else {
      for (const ir::Node* item : user->users()) {  // the indices index the padded tensor
        if (!memory::is_getitem(*item)) return false;
        if (memory::resolve_value(item).second != 0 && !item->users().empty()) return false;
      }
    }
  }
  args[0] = pad->arg(0);
  args[padding_index] = std::vector<int64_t>{total[0], total[1]};
  program.graph().set_args(user, std::move(args));
  program.graph().erase(pad);
  return true;
}

}  // namespace

PassResult PadFolding::run(ir::ExportedProgram& program) {
  std::vector<ir::Node*> candidates;
  for (ir::Node* node : program.graph().nodes()) {
    if (node->is_op("aten::constant_pad_nd")) candidates.push_back(node);
  }
  bool modified = false;
  for (ir::Node* pad : candidates) modified |= fold(program, pad);
  return {modified};
}

}  // namespace ptec::passes
