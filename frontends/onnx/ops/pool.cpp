// Pooling: MaxPool → max_pool2d_with_indices + getitem 0, AveragePool → avg_pool2d,
// GlobalAveragePool → mean.dim, GlobalMaxPool → amax. 1-D pools run as 2-D pools over a
// [N, C, 1, L] view. Padding that ATen cannot express (asymmetric, or more than half the
// kernel) becomes an explicit constant_pad_nd.

#include <limits>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

struct PoolSetup {
  ir::Node* input;  // 4-D
  std::vector<int64_t> kernel, strides, dilations, padding;
  bool lifted = false;  // a 1-D pool run as 2-D
};

/// Kernel, strides, dilations and pads of a MaxPool/AveragePool node in 2-D form. Pads that the
/// ATen op cannot take are applied with constant_pad_nd(`pad_value`); when `allow_explicit_pad`
/// is false such pads are an error.
PoolSetup pool_setup(ImportContext& ctx, const NodeView& node, double pad_value,
                     bool allow_explicit_pad) {
  const std::vector<int64_t> x = ctx.input_sizes_batch(node, 0);
  const ir::Shape x_shape = ctx.input_shape(node, 0);
  if (x.size() != 3 && x.size() != 4) {
    node.fail(Error::NotSupported, "input of rank {}: only 1-D and 2-D pooling is supported",
              x.size());
  }
  const size_t n = x.size() - 2;
  if (!node.has_attr("kernel_shape")) node.fail(Error::InvalidArgument, "kernel_shape is required");
  std::vector<int64_t> kernel = node.attr_ints("kernel_shape", {});
  std::vector<int64_t> strides = node.attr_ints("strides", std::vector<int64_t>(n, 1));
  std::vector<int64_t> dilations = node.attr_ints("dilations", std::vector<int64_t>(n, 1));
  if (kernel.size() != n || strides.size() != n || dilations.size() != n) {
    node.fail(Error::InvalidArgument, "kernel_shape/strides/dilations need {} values", n);
  }
  std::vector<int64_t> effective(n);
  for (size_t i = 0; i < n; ++i) {
    if (kernel[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0) {
      node.fail(Error::InvalidArgument, "kernel_shape, strides and dilations must be positive");
    }
    effective[i] = (kernel[i] - 1) * dilations[i] + 1;
  }
  Pads pads = resolve_pads(node, std::vector<int64_t>(x.begin() + 2, x.end()), effective, strides);

  PoolSetup s;
  s.input = ctx.input(node, 0);
  if (n == 1) {
    s.lifted = true;
    s.input = sym_view(ctx, s.input, {x_shape[0], x[1], 1, x[2]});
    kernel.insert(kernel.begin(), 1);
    strides.insert(strides.begin(), 1);
    dilations.insert(dilations.begin(), 1);
    effective.insert(effective.begin(), 1);
    pads.begin.insert(pads.begin.begin(), 0);
    pads.end.insert(pads.end.begin(), 0);
  }
  bool fits = pads.symmetric();
  for (size_t i = 0; i < 2 && fits; ++i) fits = pads.begin[i] * 2 <= effective[i];
  if (fits) {
    s.padding = pads.begin;
  } else {
    if (!allow_explicit_pad) {
      node.fail(Error::NotSupported,
                "pads {} / {} cannot be expressed by avg_pool2d with count_include_pad=0",
                sizes_to_string(pads.begin), sizes_to_string(pads.end));
    }
    s.input = ctx.call("aten::constant_pad_nd",
                       {s.input, aten_pad_list(pads.begin, pads.end), pad_value});
    s.padding = {0, 0};
  }
  s.kernel = kernel;
  s.strides = strides;
  s.dilations = dilations;
  return s;
}

/// Drops the dummy H dim of a lifted 1-D pool.
ir::Node* unlift(ImportContext& ctx, const PoolSetup& s, ir::Node* y) {
  if (!s.lifted) return y;
  ir::Shape sizes = y->spec().shape;
  sizes.erase(sizes.begin() + 2);
  return sym_view(ctx, y, sizes);
}

void import_max_pool(ImportContext& ctx, const NodeView& node) {
  if (node.attr_int("storage_order", 0) != 0 && node.has_output(1)) {
    node.fail(Error::NotSupported, "storage_order=1 is not supported");
  }
  const DType dtype = ctx.input_dtype(node, 0);
  const double lowest = is_floating_point(dtype) ? -std::numeric_limits<double>::infinity()
                        : dtype == DType::Byte   ? 0.0
                        : dtype == DType::Char   ? -128.0
                                                 : -2147483648.0;
  const PoolSetup s = pool_setup(ctx, node, lowest, true);
  const bool ceil_mode = node.attr_int("ceil_mode", 0) != 0;
  ir::Node* pool = ctx.call("aten::max_pool2d_with_indices",
                            {s.input, s.kernel, s.strides, s.padding, s.dilations, ceil_mode});
  // Output 1 (Indices) is not produced: ATen's indices are per plane, ONNX's are flat over the
  // whole tensor. The importer reports it when a later node uses it.
  ctx.set_output(node, 0, unlift(ctx, s, ctx.getitem(pool, 0)));
}

void import_average_pool(ImportContext& ctx, const NodeView& node) {
  const bool count_include_pad = node.attr_int("count_include_pad", 0) != 0;
  const PoolSetup s = pool_setup(ctx, node, 0.0, count_include_pad);
  for (int64_t d : s.dilations) {
    if (d != 1) node.fail(Error::NotSupported, "dilations are not supported for AveragePool");
  }
  const bool ceil_mode = node.attr_int("ceil_mode", 0) != 0;
  ir::Node* pool = ctx.call("aten::avg_pool2d", {s.input, s.kernel, s.strides, s.padding, ceil_mode,
                                                 count_include_pad, ir::Argument()});
  ctx.set_output(node, 0, unlift(ctx, s, pool));
}

void import_global_pool(ImportContext& ctx, const NodeView& node) {
  const int64_t rank = ctx.input_rank(node, 0);
  if (rank < 3) node.fail(Error::InvalidArgument, "input of rank {} has no spatial dims", rank);
  std::vector<int64_t> dims;
  for (int64_t d = 2; d < rank; ++d) dims.push_back(d);
  ir::Node* x = ctx.input(node, 0);
  if (node.op_type() == "GlobalAveragePool") {
    ctx.set_output(node, 0, ctx.call("aten::mean.dim", {x, dims, true, ir::Argument()}));
  } else {
    ctx.set_output(node, 0, ctx.call("aten::amax", {x, dims, true}));
  }
}

}  // namespace

std::vector<OpEntry> pool_ops() {
  return {
      {"MaxPool", 1, 17, import_max_pool},
      {"AveragePool", 1, 17, import_average_pool},
      {"GlobalAveragePool", 1, 17, import_global_pool},
      {"GlobalMaxPool", 1, 17, import_global_pool},
  };
}

}  // namespace ptec::onnx_import
