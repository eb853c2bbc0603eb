#include "passes/conv3d_as_conv2d.h"

#include <array>
#include <optional>
#include <vector>

#include "ir/exported_program.h"
#include "ir/op_schema.h"
#include "passes/rewrite_utils.h"

namespace ptec::passes {
namespace {

using Ints = std::vector<int64_t>;

/// An int[3] argument (three ints, or one for all three dims), else nullopt.
std::optional<std::array<int64_t, 3>> triple_of(const ir::Argument& a) {
  if (!a.is_list()) return std::nullopt;
  for (const ir::Argument& item : a.as_list()) {
    if (!item.is_int()) return std::nullopt;
  }
  const Ints v = a.to_int_vector();
  if (v.size() == 1) return std::array<int64_t, 3>{v[0], v[0], v[0]};
  if (v.size() == 3) return std::array<int64_t, 3>{v[0], v[1], v[2]};
  return std::nullopt;
}

/// Rewrites `conv`; false when it is not a 3-D convolution of a factored block.
bool rewrite(ir::ExportedProgram& program, ir::Node* conv) {
  const ir::OpSchema& op = *conv->op();
  auto arg = [&](const char* name) -> const ir::Argument& {
    return conv->arg(static_cast<size_t>(op.arg_index(name)));
  };
  if (conv->args().size() != op.args.size() || !arg("input").is_node() ||
      !arg("weight").is_node() || !arg("transposed").is_bool() || arg("transposed").as_bool() ||
      !arg("groups").is_int()) {
    return false;
  }
  ir::Node* input = arg("input").as_node();
  ir::Node* weight = arg("weight").as_node();
  const ir::TensorSpec& in_spec = input->spec();
  if (in_spec.rank() != 5 || !in_spec.is_static() || in_spec.dtype != DType::Float ||
      !conv->spec().is_static()) {
    return false;
  }
  const ir::TensorData* w = float_constant(program, arg("weight"));
  if (w == nullptr || w->spec.rank() != 5) return false;
  const auto stride = triple_of(arg("stride"));
  const auto padding = triple_of(arg("padding"));
  const auto dilation = triple_of(arg("dilation"));
  if (!stride || !padding || !dilation) return false;
  const auto [s_t, s_h, s_w] = *stride;
  const auto [p_t, p_h, p_w] = *padding;
  const auto [d_t, d_h, d_w] = *dilation;
  const Ints x = in_spec.upper_bound_sizes();  // N, C, T, H, W
  const Ints k = w->spec.upper_bound_sizes();  // OC, C/g, KT, KH, KW
  const Ints y = conv->spec().upper_bound_sizes();
  const bool temporal = k[3] == 1 && k[4] == 1 && s_h == 1 && s_w == 1 && p_h == 0 && p_w == 0;
  const bool frames = !temporal && k[2] == 1 && p_t == 0;
  if (!temporal && !frames) return false;

  ir::Graph& g = program.graph();
  auto call = [&](const char* name, ir::ArgumentList args) {
    return insert_call(g, ir::get_op(name), std::move(args), conv, conv);
  };
  ir::ArgumentList args = conv->args();
  auto slot = [&](const char* name) -> ir::Argument& {
    return args[static_cast<size_t>(op.arg_index(name))];
  };
  // The weights as 4-D: the same bytes under a shape without the unit dim.
  const Ints k4 = temporal ? Ints{k[0], k[1], k[2], 1} : Ints{k[0], k[1], k[3], k[4]};
  slot("weight") = add_parameter(program, weight->name() + "_2d",
                                 ir::TensorData{ir::TensorSpec(DType::Float, k4), w->data}, weight);
  slot("stride") = temporal ? Ints{s_t, 1} : Ints{s_h, s_w};
  slot("padding") = temporal ? Ints{p_t, 0} : Ints{p_h, p_w};
  slot("dilation") = temporal ? Ints{d_t, 1} : Ints{d_h, d_w};
  slot("output_padding") = Ints{0, 0};
  // The frames read (every s_t-th one for a strided projection) as the batch, [N, T', C, H, W]
  // before the view; a single frame needs no permute.
  const int64_t frames_read = y[2];
  const bool permuted = frames && frames_read != 1;
  if (temporal) {
    slot("input") = call("aten::view_copy", {input, Ints{x[0], x[1], x[2], x[3] * x[4]}});
  } else {
    ir::Node* read = s_t == 1 ? input : call("aten::slice_copy.Tensor", {input, 2, 0, x[2], s_t});
    ir::Node* images = permuted ? call("aten::permute_copy", {read, Ints{0, 2, 1, 3, 4}}) : read;
    slot("input") = call("aten::view_copy", {images, Ints{x[0] * frames_read, x[1], x[3], x[4]}});
  }
  ir::Node* conv2d = call("aten::convolution", std::move(args));
  ir::Node* result =
      call("aten::view_copy", {conv2d, permuted ? Ints{y[0], y[2], y[1], y[3], y[4]} : y});
  if (permuted) result = call("aten::permute_copy", {result, Ints{0, 2, 1, 3, 4}});
  replace_all_uses(program, conv, result);
  g.erase(conv);
  return true;
}

}  // namespace

PassResult Conv3dAsConv2d::run(ir::ExportedProgram& program) {
  std::vector<ir::Node*> candidates;
  for (ir::Node* node : program.graph().nodes()) {
    if (node->is_op("aten::convolution")) candidates.push_back(node);
  }
  bool modified = false;
  for (ir::Node* conv : candidates) modified |= rewrite(program, conv);
  if (modified) remove_unused_constants(program);
  return {modified};
}

}  // namespace ptec::passes
