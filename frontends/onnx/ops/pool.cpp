// Pooling: MaxPool → max_pool2d_with_indices, AveragePool → avg_pool2d, GlobalAveragePool →
// mean.dim, GlobalMaxPool → amax. 1-D pools run as 2-D pools over a [N, C, 1, L] view. Padding
// that ATen cannot express (asymmetric, or more than half the kernel) becomes an explicit
// constant_pad_nd; AveragePool with count_include_pad=0 over such padding then sums windows
// (divisor_override=1) and divides by a constant tensor of per-window counts of input elements.
// MaxPool's Indices output is ATen's per-plane index mapped to ONNX's flat index over the whole
// tensor (row- or column-major per storage_order) by a constant lookup table plus plane offsets.
// MaxUnpool scatters X into a zero tensor at those flat indices.

#include <limits>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

struct PoolSetup {
  ir::Node* input;  // 4-D
  std::vector<int64_t> kernel, strides, dilations, padding;
  bool lifted = false;  // a 1-D pool run as 2-D
  /// Pads applied by constant_pad_nd (zeros when none), the input's static [C, H, W] sizes (2-D
  /// form) and its batch dim.
  std::vector<int64_t> explicit_begin{0, 0}, explicit_end{0, 0};
  std::vector<int64_t> chw;
  ir::SymInt batch;
  bool dynamic = false;  // some spatial dim is dynamic (chw holds its bound)
};

/// Kernel, strides, dilations and pads of a MaxPool/AveragePool node in 2-D form. Pads that the
/// ATen op cannot take are applied with constant_pad_nd(`pad_value`).
PoolSetup pool_setup(ImportContext& ctx, const NodeView& node, double pad_value) {
  std::vector<bool> dynamic;
  const std::vector<int64_t> x = spatial_bounds(ctx, node, 0, &dynamic);
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
  Pads pads = resolve_pads(node, std::vector<int64_t>(x.begin() + 2, x.end()), effective, strides,
                           &dynamic);

  PoolSetup s;
  s.dynamic = std::find(dynamic.begin(), dynamic.end(), true) != dynamic.end();
  s.input = ctx.input(node, 0);
  if (n == 1) {
    s.lifted = true;
    s.input = sym_view(ctx, s.input, {x_shape[0], x[1], 1, x_shape[2]});
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
    s.input = ctx.call("aten::constant_pad_nd",
                       {s.input, aten_pad_list(pads.begin, pads.end), pad_value});
    s.padding = {0, 0};
    s.explicit_begin = pads.begin;
    s.explicit_end = pads.end;
  }
  s.batch = x_shape[0];
  s.chw = {x[1], n == 1 ? 1 : x[2], x.back()};
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

/// ONNX's Indices from max_pool2d_with_indices' per-plane indices `idx` ([N, C, OH, OW] of the
/// possibly padded input): a lookup table maps a padded-plane index to the input plane's row- or
/// column-major index, then (n * C + c) * H * W is added.
ir::Node* onnx_indices(ImportContext& ctx, const NodeView& node, const PoolSetup& s, ir::Node* idx,
                       bool column_major) {
  if (!s.batch.is_static() || s.dynamic) {
    node.fail(Error::NotSupported, "the Indices output needs static sizes");
  }
  const int64_t batch = s.batch.value();
  const int64_t c = s.chw[0], h = s.chw[1], w = s.chw[2];
  const int64_t ph = h + s.explicit_begin[0] + s.explicit_end[0];
  const int64_t pw = w + s.explicit_begin[1] + s.explicit_end[1];
  const bool padded = ph != h || pw != w;
  std::vector<int64_t> out = idx->spec().upper_bound_sizes();
  if (padded || column_major) {
    std::vector<int64_t> table(static_cast<size_t>(ph * pw));
    for (int64_t y = 0; y < ph; ++y) {
      for (int64_t x = 0; x < pw; ++x) {
        // A window wholly in the padding has its max there: clamp to the nearest input element.
        const int64_t iy = std::clamp<int64_t>(y - s.explicit_begin[0], 0, h - 1);
        const int64_t ix = std::clamp<int64_t>(x - s.explicit_begin[1], 0, w - 1);
        table[static_cast<size_t>(y * pw + x)] = column_major ? ix * h + iy : iy * w + ix;
      }
    }
    ir::Node* lookup =
        ctx.constant_tensor(node.source() + ".index_table", ConstTensor::int64_vector(table));
    ir::Node* flat = view(ctx, idx, {element_count(out)});
    idx = view(ctx, ctx.call("aten::index_select", {lookup, int64_t{0}, flat}), out);
  }
  std::vector<int64_t> offsets;
  for (int64_t p = 0; p < batch * c; ++p) offsets.push_back(p * h * w);
  if (batch * c == 1) return idx;
  ir::Node* base =
      ctx.constant_tensor(node.source() + ".plane_offset",
                          ConstTensor::from_int64(DType::Long, {batch, c, 1, 1}, offsets));
  return ctx.call("aten::add.Tensor", {idx, base});
}

/// MaxPool / AveragePool over a rank-5 input: max_pool3d_with_indices + getitem 0 / avg_pool3d.
/// Pads that ATen cannot take (asymmetric, more than half the kernel) become constant_pad_nd
/// (lowest value for MaxPool, zeros for AveragePool with count_include_pad=1). MaxPool's Indices
/// output is not produced for 3-D pools.
void import_pool3d(ImportContext& ctx, const NodeView& node, bool is_max) {
  const std::vector<int64_t> x = ctx.input_sizes_batch(node, 0);
  constexpr size_t n = 3;
  if (!node.has_attr("kernel_shape")) node.fail(Error::InvalidArgument, "kernel_shape is required");
  const std::vector<int64_t> kernel = node.attr_ints("kernel_shape", {});
  const std::vector<int64_t> strides = node.attr_ints("strides", std::vector<int64_t>(n, 1));
  const std::vector<int64_t> dilations = node.attr_ints("dilations", std::vector<int64_t>(n, 1));
  if (kernel.size() != n || strides.size() != n || dilations.size() != n) {
    node.fail(Error::InvalidArgument, "kernel_shape/strides/dilations need {} values", n);
  }
  std::vector<int64_t> effective(n);
  for (size_t i = 0; i < n; ++i) {
    if (kernel[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0) {
      node.fail(Error::InvalidArgument, "kernel_shape, strides and dilations must be positive");
    }
    if (!is_max && dilations[i] != 1) {
      node.fail(Error::NotSupported, "dilations are not supported for AveragePool");
    }
    effective[i] = (kernel[i] - 1) * dilations[i] + 1;
  }
  if (is_max && node.has_output(1)) {
    node.fail(Error::NotSupported, "the Indices output of a 3-D MaxPool is not supported");
  }
  const Pads pads =
      resolve_pads(node, std::vector<int64_t>(x.begin() + 2, x.end()), effective, strides);
  const bool count_include_pad = !is_max && node.attr_int("count_include_pad", 0) != 0;
  const bool ceil_mode = node.attr_int("ceil_mode", 0) != 0;
  bool fits = pads.symmetric();
  for (size_t i = 0; i < n && fits; ++i) fits = pads.begin[i] * 2 <= kernel[i];
  ir::Node* input = ctx.input(node, 0);
  std::vector<int64_t> padding = pads.begin;
  if (!fits) {
    if (!is_max && !count_include_pad) {
      node.fail(Error::NotSupported,
                "pads {} / {} cannot be expressed by avg_pool3d with count_include_pad=0",
                sizes_to_string(pads.begin), sizes_to_string(pads.end));
    }
    const DType dtype = ctx.input_dtype(node, 0);
    const double pad_value = !is_max                    ? 0.0
                             : is_floating_point(dtype) ? -std::numeric_limits<double>::infinity()
                             : dtype == DType::Byte     ? 0.0
                             : dtype == DType::Char     ? -128.0
                                                        : -2147483648.0;
    input =
        ctx.call("aten::constant_pad_nd", {input, aten_pad_list(pads.begin, pads.end), pad_value});
    padding.assign(n, 0);
  }
  if (is_max) {
    ir::Node* pool = ctx.call("aten::max_pool3d_with_indices",
                              {input, kernel, strides, padding, dilations, ceil_mode});
    ctx.set_output(node, 0, ctx.getitem(pool, 0));
  } else {
    ctx.set_output(node, 0,
                   ctx.call("aten::avg_pool3d", {input, kernel, strides, padding, ceil_mode,
                                                 count_include_pad, ir::Argument()}));
  }
}

void import_max_pool(ImportContext& ctx, const NodeView& node) {
  if (ctx.input_rank(node, 0) == 5) return import_pool3d(ctx, node, /*is_max=*/true);
  const int64_t storage_order = node.attr_int("storage_order", 0);
  if (storage_order != 0 && storage_order != 1) {
    node.fail(Error::InvalidArgument, "storage_order must be 0 or 1, got {}", storage_order);
  }
  const DType dtype = ctx.input_dtype(node, 0);
  const double lowest = is_floating_point(dtype) ? -std::numeric_limits<double>::infinity()
                        : dtype == DType::Byte   ? 0.0
                        : dtype == DType::Char   ? -128.0
                                                 : -2147483648.0;
  const PoolSetup s = pool_setup(ctx, node, lowest);
  const bool ceil_mode = node.attr_int("ceil_mode", 0) != 0;
  ir::Node* pool = ctx.call("aten::max_pool2d_with_indices",
                            {s.input, s.kernel, s.strides, s.padding, s.dilations, ceil_mode});
  ctx.set_output(node, 0, unlift(ctx, s, ctx.getitem(pool, 0)));
  if (node.has_output(1)) {
    ir::Node* idx = onnx_indices(ctx, node, s, ctx.getitem(pool, 1), storage_order == 1);
    ctx.set_output(node, 1, unlift(ctx, s, idx));
  }
}

/// Per-output counts of input (not padding) elements in each window, [OH, OW]: the divisor of
/// AveragePool with count_include_pad=0 over explicitly padded input.
std::vector<double> window_counts(const PoolSetup& s, int64_t oh, int64_t ow) {
  auto axis = [&](size_t a, int64_t out) {
    const int64_t in = s.chw[a + 1];
    std::vector<int64_t> counts;
    for (int64_t o = 0; o < out; ++o) {
      const int64_t lo = std::max(o * s.strides[a], s.explicit_begin[a]);
      const int64_t hi = std::min(o * s.strides[a] + s.kernel[a], s.explicit_begin[a] + in);
      counts.push_back(std::max<int64_t>(0, hi - lo));
    }
    return counts;
  };
  const std::vector<int64_t> ch = axis(0, oh), cw = axis(1, ow);
  std::vector<double> counts;
  for (int64_t y : ch) {
    for (int64_t x : cw) counts.push_back(static_cast<double>(y * x));
  }
  return counts;
}

void import_average_pool(ImportContext& ctx, const NodeView& node) {
  if (ctx.input_rank(node, 0) == 5) return import_pool3d(ctx, node, /*is_max=*/false);
  const bool count_include_pad = node.attr_int("count_include_pad", 0) != 0;
  const PoolSetup s = pool_setup(ctx, node, 0.0);
  for (int64_t d : s.dilations) {
    if (d != 1) node.fail(Error::NotSupported, "dilations are not supported for AveragePool");
  }
  const bool ceil_mode = node.attr_int("ceil_mode", 0) != 0;
  const bool explicit_pad = s.explicit_begin != std::vector<int64_t>{0, 0} ||
                            s.explicit_end != std::vector<int64_t>{0, 0};
  if (count_include_pad || !explicit_pad) {
    ir::Node* pool = ctx.call("aten::avg_pool2d", {s.input, s.kernel, s.strides, s.padding,
                                                   ceil_mode, count_include_pad, ir::Argument()});
    ctx.set_output(node, 0, unlift(ctx, s, pool));
    return;
  }
  const DType dtype = ctx.input_dtype(node, 0);
  if (!is_floating_point(dtype)) {
    node.fail(Error::NotSupported, "AveragePool of a {} tensor", to_string(dtype));
  }
  if (s.dynamic) {
    node.fail(Error::NotSupported,
              "count_include_pad=0 with pads that need constant_pad_nd, on a dynamic spatial dim");
  }
  // Window sums over the zero-padded input, divided by the number of input elements in each.
  ir::Node* sum = ctx.call("aten::avg_pool2d",
                           {s.input, s.kernel, s.strides, s.padding, ceil_mode, true, int64_t{1}});
  const std::vector<int64_t> out = sum->spec().upper_bound_sizes();
  ir::Node* counts = ctx.constant_tensor(
      node.source() + ".window_count",
      ConstTensor::from_double(dtype, {out[2], out[3]}, window_counts(s, out[2], out[3])));
  ctx.set_output(node, 0, unlift(ctx, s, ctx.call("aten::div.Tensor", {sum, counts})));
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

/// MaxUnpool: Y = zeros(output shape) with Y.flat[I.flat] = X.flat (ONNX's indices are flat over
/// the whole output, as MaxPool's Indices) → full, scatter.src over a 1-D view, view_copy. The
/// output shape is the output_shape input (known at import time) or, per spatial dim,
/// (in - 1) * stride + kernel - pad_begin - pad_end.
void import_max_unpool(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> x = ctx.input_sizes(node, 0);
  if (x.size() < 3) {
    node.fail(Error::InvalidArgument, "input of rank {} has no spatial dims", x.size());
  }
  if (ctx.input_sizes(node, 1) != x) {
    node.fail(Error::InvalidArgument, "indices have sizes {}, X has {}",
              sizes_to_string(ctx.input_sizes(node, 1)), sizes_to_string(x));
  }
  const size_t n = x.size() - 2;
  const std::vector<int64_t> kernel = node.attr_ints("kernel_shape", {});
  const std::vector<int64_t> strides = node.attr_ints("strides", std::vector<int64_t>(n, 1));
  const std::vector<int64_t> pads = node.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (kernel.size() != n || strides.size() != n || pads.size() != 2 * n) {
    node.fail(Error::InvalidArgument, "kernel_shape/strides need {} values and pads {}", n, 2 * n);
  }
  // The pooling's input shape, which MaxPool's indices address.
  std::vector<int64_t> unpooled = {x[0], x[1]};
  for (size_t i = 0; i < n; ++i) {
    unpooled.push_back((x[i + 2] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + n]);
  }
  std::vector<int64_t> out = unpooled;
  if (node.has_input(2)) {
    out = ctx.require_constant(node, 2, "output_shape").to_int64();
    if (out.size() != x.size()) {
      node.fail(Error::InvalidArgument, "output_shape has {} values for an input of rank {}",
                out.size(), x.size());
    }
  }
  if (out[0] != x[0] || out[1] != x[1]) {
    node.fail(Error::InvalidArgument, "output_shape {} changes N or C of {}", sizes_to_string(out),
              sizes_to_string(x));
  }
  for (int64_t d : out) {
    if (d <= 0) node.fail(Error::InvalidArgument, "output shape {}", sizes_to_string(out));
  }
  const DType dtype = ctx.input_dtype(node, 0);
  ir::Node* index = view(ctx, ctx.input(node, 1), {element_count(x)});
  if (index->spec().dtype != DType::Long) index = ctx.call("aten::_to_copy", {index, DType::Long});
  if (out != unpooled) {
    // An output_shape other than the pooling input's: each index keeps its coordinates (the
    // output is that shape padded at the end of each spatial dim), so it is recomputed from
    // them for the output's strides.
    for (size_t i = 2; i < out.size(); ++i) {
      if (out[i] < unpooled[i]) {
        node.fail(Error::InvalidArgument, "output_shape {} is smaller than the unpooled shape {}",
                  sizes_to_string(out), sizes_to_string(unpooled));
      }
    }
    const int64_t plane_in = product(unpooled, 2, unpooled.size());
    const int64_t plane_out = product(out, 2, out.size());
    auto floor_div = [&](ir::Node* v, int64_t d) {
      ir::Node* divisor = ctx.constant_tensor(node.source() + "_divisor",
                                              ConstTensor::from_int64(DType::Long, {}, {d}));
      return ctx.call("aten::div.Tensor_mode", {v, divisor, std::string("floor")});
    };
    ir::Node* rest = ctx.call("aten::remainder.Scalar", {index, plane_in});
    ir::Node* remapped = ctx.call("aten::mul.Scalar", {floor_div(index, plane_in), plane_out});
    int64_t stride = 1;
    for (size_t i = out.size(); i-- > 2;) {
      ir::Node* coord = ctx.call("aten::remainder.Scalar", {rest, unpooled[i]});
      remapped =
          ctx.call("aten::add.Tensor", {remapped, ctx.call("aten::mul.Scalar", {coord, stride})});
      rest = floor_div(rest, unpooled[i]);
      stride *= out[i];
    }
    index = remapped;
  }
  ir::Node* zeros = ctx.call(
      "aten::full", {std::vector<int64_t>{element_count(out)}, scalar_arg(0, dtype), dtype});
  ir::Node* y = ctx.call("aten::scatter.src", {zeros, int64_t{0}, index,
                                               view(ctx, ctx.input(node, 0), {element_count(x)})});
  ctx.set_output(node, 0, view(ctx, y, out));
}

}  // namespace

/// RoiAlign -> ptec::roi_align. Version 10's only coordinate mode is 16's "output_half_pixel"
/// (no half-pixel shift, rois of at least one pixel); 16 defaults to "half_pixel". The roi
/// count may be data-dependent (the boxes an NMS kept).
void import_roi_align(ImportContext& ctx, const NodeView& node) {
  const std::string mode = node.attr_string("mode", "avg");
  if (mode != "avg" && mode != "max") {
    node.fail(Error::InvalidArgument, "mode '{}' (expected avg or max)", mode);
  }
  const std::string transform = node.attr_string(
      "coordinate_transformation_mode", node.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel") {
    node.fail(Error::InvalidArgument,
              "coordinate_transformation_mode '{}' (expected half_pixel or output_half_pixel)",
              transform);
  }
  if (ctx.input_dtype(node, 0) != DType::Float || ctx.input_dtype(node, 1) != DType::Float) {
    node.fail(Error::NotSupported, "X and rois must be float32 (got {} and {})",
              to_string(ctx.input_dtype(node, 0)), to_string(ctx.input_dtype(node, 1)));
  }
  ir::Node* indices = ctx.input(node, 2);
  if (indices->spec().dtype != DType::Long) {
    indices = ctx.call("aten::_to_copy", {indices, DType::Long});
  }
  ctx.set_output(
      node, 0,
      ctx.call("ptec::roi_align",
               {ctx.input(node, 0), ctx.input(node, 1), indices, node.attr_int("output_height", 1),
                node.attr_int("output_width", 1), node.attr_int("sampling_ratio", 0),
                static_cast<double>(node.attr_float("spatial_scale", 1.0f)),
                transform == "half_pixel", mode == "max"}));
}

std::vector<OpEntry> pool_ops() {
  return {
      {"MaxPool", 1, 22, import_max_pool},
      {"AveragePool", 1, 22, import_average_pool},
      {"GlobalAveragePool", 1, 22, import_global_pool},
      {"GlobalMaxPool", 1, 22, import_global_pool},
      {"MaxUnpool", 9, 22, import_max_unpool},
      {"RoiAlign", 10, 22, import_roi_align},
  };
}

}  // namespace ptec::onnx_import
