// Local normalizations decomposed into ATen ops:
//   LRN: y = x / (bias + alpha / size * window_sum(x^2))^beta, the window running over channels
//        [c - floor((size-1)/2), c + ceil((size-1)/2)]: x^2 viewed as [N, 1, C, rest], zero-padded
//        along C, summed by avg_pool2d with a (size, 1) kernel and divisor_override=1.
//   MeanVarianceNormalization: (x - mean) / (sqrt(mean((x - mean)^2)) + 1e-9) over `axes`
//        (default [0, 2, 3]), as ONNX's function body defines it.

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

void import_lrn(ImportContext& ctx, const NodeView& node) {
  const ir::Shape shape = ctx.input_shape(node, 0);
  const std::vector<int64_t> x = ctx.input_sizes_batch(node, 0);
  if (x.size() < 3) {
    node.fail(Error::InvalidArgument, "input of rank {}: LRN needs [N, C, D1, ...]", x.size());
  }
  const DType dtype = ctx.input_dtype(node, 0);
  if (!is_floating_point(dtype)) node.fail(Error::InvalidArgument, "{} input", to_string(dtype));
  const std::optional<int64_t> size_attr = node.attr_int_opt("size");
  if (!size_attr || *size_attr <= 0) {
    node.fail(Error::InvalidArgument, "size must be given and positive");
  }
  const int64_t size = *size_attr;
  const double alpha = node.attr_float("alpha", 1e-4f);
  const double beta = node.attr_float("beta", 0.75f);
  const double bias = node.attr_float("bias", 1.0f);
  const int64_t c = x[1];
  const int64_t rest = product(x, 2, x.size());
  const int64_t before = (size - 1) / 2, after = size - 1 - before;

  ir::Node* input = ctx.input(node, 0);
  ir::Node* sq = ctx.call("aten::mul.Tensor", {input, input});
  sq = sym_view(ctx, sq, {shape[0], 1, c, rest});
  sq = ctx.call("aten::constant_pad_nd", {sq, std::vector<int64_t>{0, 0, before, after}, 0.0});
  ir::Node* sum =
      ctx.call("aten::avg_pool2d", {sq, std::vector<int64_t>{size, 1}, std::vector<int64_t>{1, 1},
                                    std::vector<int64_t>{0, 0}, false, true, int64_t{1}});
  sum = sym_view(ctx, sum, shape);
  ir::Node* denom = ctx.call("aten::mul.Scalar", {sum, alpha / static_cast<double>(size)});
  denom = ctx.call("aten::add.Scalar", {denom, bias});
  denom = ctx.call("aten::pow.Tensor_Scalar", {denom, beta});
  ctx.set_output(node, 0, ctx.call("aten::div.Tensor", {input, denom}));
}

void import_mvn(ImportContext& ctx, const NodeView& node) {
  const int64_t rank = ctx.input_rank(node, 0);
  const DType dtype = ctx.input_dtype(node, 0);
  if (!is_floating_point(dtype)) node.fail(Error::InvalidArgument, "{} input", to_string(dtype));
  std::vector<int64_t> axes = node.attr_ints("axes", {0, 2, 3});
  for (int64_t& a : axes) a = node.normalize_axis(a, rank, "axes");
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    node.fail(Error::InvalidArgument, "axes {} repeat a dim", sizes_to_string(axes));
  }
  ir::Node* x = ctx.input(node, 0);
  ir::Node* mean = ctx.call("aten::mean.dim", {x, axes, true, ir::Argument()});
  ir::Node* centred = ctx.call("aten::sub.Tensor", {x, mean});
  ir::Node* var = ctx.call("aten::mul.Tensor", {centred, centred});
  var = ctx.call("aten::mean.dim", {var, axes, true, ir::Argument()});
  ir::Node* std = ctx.call("aten::sqrt", {var});
  std = ctx.call("aten::add.Scalar", {std, 1e-9});
  ctx.set_output(node, 0, ctx.call("aten::div.Tensor", {centred, std}));
}

}  // namespace

std::vector<OpEntry> local_norm_ops() {
  return {
      {"LRN", 1, 17, import_lrn},
      {"MeanVarianceNormalization", 9, 17, import_mvn},
  };
}

}  // namespace ptec::onnx_import
