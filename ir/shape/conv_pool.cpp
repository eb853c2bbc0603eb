// Shape functions of convolution, pooling, resizing and padding.

#include <cmath>

#include "ir/shape/shape_fns.h"
#include "ir/shape/shape_util.h"

namespace ptec::ir::shape {
namespace {

// A per-spatial-dim parameter list: one value for all dims or one per dim (`empty_value` when
// the list is empty, e.g. stride=[] meaning "the kernel size").
std::vector<int64_t> expand_param(const OpSchema& op, std::string_view name,
                                  std::vector<int64_t> values, size_t spatial,
                                  const std::vector<int64_t>& empty_value) {
  if (values.empty()) return empty_value;
  if (values.size() == 1) return std::vector<int64_t>(spatial, values[0]);
  if (values.size() != spatial) {
    fail(op, name, "expected 1 or {} values, got {}", spatial, values.size());
  }
  return values;
}

void require_float(const OpSchema& op, std::string_view name, const TensorSpec& spec) {
  if (!is_floating_point(spec.dtype)) {
    fail(op, name, "expected a floating-point tensor, got {}", spec.to_string());
  }
}

// Pooling output size (PyTorch's pooling_output_shape).
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                    bool ceil_mode) {
  const int64_t numerator = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = numerator / stride + 1;
  if (numerator < 0 && numerator % stride != 0) --out;  // floor division for negatives
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// floor((in + add) / stride) + 1 windows along the dynamic dim `dim` of `t`, at least one for
// every size in its range.
SymInt windows(const OpSchema& op, const TensorSpec& t, size_t dim, int64_t add, int64_t stride) {
  const SymInt size = affine(t.shape[dim], 1, add + stride, stride);
  if (size.lower_bound() <= 0) {
    fail(op, "input", "{} is too small at {} = {}, the smallest size of its dynamic dim {}",
         t.to_string(), t.shape[dim].to_string(), t.shape[dim].lower_bound(), dim);
  }
  return size;
}

struct PoolParams {
  std::vector<int64_t> kernel, stride, padding, dilation;
  bool ceil_mode = false;
};

// A pool over the last `spatial` (2 or 3) dims of a tensor of rank spatial + 1 or spatial + 2.
std::vector<TensorSpec> pool_nd(const OpSchema& op, const ArgumentList& args, const PoolParams& p,
                                size_t spatial) {
  const TensorSpec& self = tensor(op, args, "self");
  if (self.rank() != spatial + 1 && self.rank() != spatial + 2) {
    fail(op, "self", "expected a {}-d or {}-d tensor, got {}", spatial + 1, spatial + 2,
         self.to_string());
  }
  Shape out(self.shape.begin(), self.shape.end() - static_cast<ptrdiff_t>(spatial));
  for (size_t i = 0; i < spatial; ++i) {
    const size_t dim = self.rank() - spatial + i;
    if (p.kernel[i] <= 0) fail(op, "kernel_size", "must be positive, got {}", p.kernel[i]);
    if (p.stride[i] <= 0) fail(op, "stride", "must be positive, got {}", p.stride[i]);
    if (p.padding[i] < 0 || p.padding[i] * 2 > p.kernel[i]) {
      fail(op, "padding", "must be between 0 and half the kernel size, got {}", p.padding[i]);
    }
    if (self.shape[dim].is_symbolic()) {
      // floor(numerator / stride) + 1 as pooled_size, with ceil mode's correction (a last window
      // starting in the padding) ruled out for every size: it needs padding + stride > window.
      const int64_t window = p.dilation[i] * (p.kernel[i] - 1) + 1;
      if (p.ceil_mode && p.padding[i] + p.stride[i] > window) {
        fail(op, "ceil_mode",
             "with the dynamic dim {} of {}, a last window may start in the padding (kernel {}, "
             "stride {}, padding {})",
             dim, self.to_string(), p.kernel[i], p.stride[i], p.padding[i]);
      }
      const int64_t add = 2 * p.padding[i] - window + (p.ceil_mode ? p.stride[i] - 1 : 0);
      out.push_back(windows(op, self, dim, add, p.stride[i]));
      continue;
    }
    const int64_t in = static_dim(op, "self", self, dim);
    const int64_t size =
        pooled_size(in, p.kernel[i], p.padding[i], p.stride[i], p.dilation[i], p.ceil_mode);
    if (size <= 0) {
      fail(op, "self", "input {} is too small for kernel {} (output size {})", self.to_string(),
           p.kernel[i], size);
    }
    out.emplace_back(size);
  }
  return {make_spec(self.dtype, std::move(out))};
}

PoolParams pool_params(const OpSchema& op, const ArgumentList& args, bool has_dilation,
                       size_t spatial = 2) {
  PoolParams p;
  const std::vector<int64_t> zeros(spatial, 0), ones(spatial, 1);
  p.kernel = expand_param(op, "kernel_size", int_list(op, args, "kernel_size"), spatial, {});
  if (p.kernel.empty()) fail(op, "kernel_size", "must not be empty");
  p.stride = expand_param(op, "stride", int_list(op, args, "stride"), spatial, p.kernel);
  p.padding = expand_param(op, "padding", int_list(op, args, "padding"), spatial, zeros);
  p.dilation = has_dilation
                   ? expand_param(op, "dilation", int_list(op, args, "dilation"), spatial, ones)
                   : ones;
  p.ceil_mode = bool_value(op, args, "ceil_mode");
  return p;
}

}  // namespace

std::vector<TensorSpec> convolution(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& input = tensor(op, args, "input");
  const TensorSpec& weight = tensor(op, args, "weight");
  const TensorSpec* bias = optional_tensor(op, args, "bias");
  const bool transposed = bool_value(op, args, "transposed");
  const int64_t groups = int_value(op, args, "groups");
  if (input.rank() < 3 || input.rank() > 5) {
    fail(op, "input", "expected a 3-d, 4-d or 5-d tensor, got {}", input.to_string());
  }
  if (weight.rank() != input.rank()) {
    fail(op, "weight", "expected a {}-d tensor like the input, got {}", input.rank(),
         weight.to_string());
  }
  if (weight.dtype != input.dtype) {
    fail(op, "weight", "dtype {} does not match the input's {}", to_string(weight.dtype),
         to_string(input.dtype));
  }
  if (groups <= 0) fail(op, "groups", "must be positive, got {}", groups);
  const size_t spatial = input.rank() - 2;
  const std::vector<int64_t> ones(spatial, 1);
  const std::vector<int64_t> zeros(spatial, 0);
  const auto stride = expand_param(op, "stride", int_list(op, args, "stride"), spatial, ones);
  const auto padding = expand_param(op, "padding", int_list(op, args, "padding"), spatial, zeros);
  const auto dilation = expand_param(op, "dilation", int_list(op, args, "dilation"), spatial, ones);
  const auto output_padding =
      expand_param(op, "output_padding", int_list(op, args, "output_padding"), spatial, zeros);

  const int64_t in_channels = static_dim(op, "input", input, 1);
  SymInt out_channels;
  if (!transposed) {
    const int64_t per_group = static_dim(op, "weight", weight, 1);
    if (per_group * groups != in_channels) {
      fail(op, "weight", "{} expects {} input channels ({} per group x {} groups), input {} has {}",
           weight.to_string(), per_group * groups, per_group, groups, input.to_string(),
           in_channels);
    }
    out_channels = weight.shape[0];
  } else {
    const int64_t w_in = static_dim(op, "weight", weight, 0);
    if (w_in != in_channels) {
      fail(op, "weight", "{} expects {} input channels, input {} has {}", weight.to_string(), w_in,
           input.to_string(), in_channels);
    }
    if (in_channels % groups != 0) {
      fail(op, "groups", "{} input channels are not divisible by {} groups", in_channels, groups);
    }
    out_channels = SymInt(static_dim(op, "weight", weight, 1) * groups);
  }
  if (out_channels.is_static() && out_channels.value() % groups != 0) {
    fail(op, "groups", "{} output channels are not divisible by {} groups", out_channels.value(),
         groups);
  }
  if (bias != nullptr) {
    if (bias->rank() != 1 || bias->shape[0] != out_channels) {
      fail(op, "bias", "expected [{}], got {}", out_channels.to_string(), bias->to_string());
    }
    if (bias->dtype != input.dtype) {
      fail(op, "bias", "dtype {} does not match the input's {}", to_string(bias->dtype),
           to_string(input.dtype));
    }
  }
  Shape out = {input.shape[0], out_channels};
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t k = static_dim(op, "weight", weight, i + 2);
    if (stride[i] <= 0) fail(op, "stride", "must be positive, got {}", stride[i]);
    if (dilation[i] <= 0) fail(op, "dilation", "must be positive, got {}", dilation[i]);
    if (input.shape[i + 2].is_symbolic()) {
      const int64_t window = dilation[i] * (k - 1) + 1;
      if (!transposed) {
        out.push_back(windows(op, input, i + 2, 2 * padding[i] - window, stride[i]));
        continue;
      }
      // (in - 1) * stride - 2 * padding + window + output_padding
      const SymInt size = affine(input.shape[i + 2], stride[i],
                                 window + output_padding[i] - stride[i] - 2 * padding[i], 1);
      if (size.lower_bound() <= 0) {
        fail(op, "input", "{} gives no output at {} = {}", input.to_string(),
             input.shape[i + 2].to_string(), input.shape[i + 2].lower_bound());
      }
      out.push_back(size);
      continue;
    }
    const int64_t in = static_dim(op, "input", input, i + 2);
    int64_t size = 0;
    if (!transposed) {
      size = (in + 2 * padding[i] - dilation[i] * (k - 1) - 1) / stride[i] + 1;
      if (in + 2 * padding[i] < dilation[i] * (k - 1) + 1) size = 0;
    } else {
      if (output_padding[i] < 0 ||
          (output_padding[i] >= stride[i] && output_padding[i] >= dilation[i])) {
        fail(op, "output_padding",
             "{} must be >= 0 and smaller than either stride {} or dilation {}", output_padding[i],
             stride[i], dilation[i]);
      }
      size = (in - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k - 1) + output_padding[i] + 1;
    }
    if (size <= 0) {
      fail(op, "input", "input {} is too small for kernel {} (output size {})", input.to_string(),
           weight.to_string(), size);
    }
    out.emplace_back(size);
  }
  return {make_spec(input.dtype, std::move(out))};
}

std::vector<TensorSpec> max_pool2d_with_indices(const OpSchema& op, const ArgumentList& args) {
  std::vector<TensorSpec> out = pool_nd(op, args, pool_params(op, args, /*has_dilation=*/true), 2);
  out.push_back(make_spec(DType::Long, out[0].shape));
  return out;
}

std::vector<TensorSpec> max_pool3d_with_indices(const OpSchema& op, const ArgumentList& args) {
  std::vector<TensorSpec> out =
      pool_nd(op, args, pool_params(op, args, /*has_dilation=*/true, 3), 3);
  out.push_back(make_spec(DType::Long, out[0].shape));
  return out;
}

std::vector<TensorSpec> avg_pool2d(const OpSchema& op, const ArgumentList& args) {
  require_float(op, "self", tensor(op, args, "self"));
  if (auto divisor = optional_int(op, args, "divisor_override"); divisor && *divisor == 0) {
    fail(op, "divisor_override", "must not be 0");
  }
  return pool_nd(op, args, pool_params(op, args, /*has_dilation=*/false), 2);
}

std::vector<TensorSpec> avg_pool3d(const OpSchema& op, const ArgumentList& args) {
  require_float(op, "self", tensor(op, args, "self"));
  if (auto divisor = optional_int(op, args, "divisor_override"); divisor && *divisor == 0) {
    fail(op, "divisor_override", "must not be 0");
  }
  return pool_nd(op, args, pool_params(op, args, /*has_dilation=*/false, 3), 3);
}

std::vector<TensorSpec> adaptive_avg_pool2d(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  if (self.rank() != 3 && self.rank() != 4) {
    fail(op, "self", "expected a 3-d or 4-d tensor, got {}", self.to_string());
  }
  require_float(op, "self", self);
  Shape size = sym_int_list(op, args, "output_size");
  if (size.size() == 1) size.push_back(size[0]);
  if (size.size() != 2) fail(op, "output_size", "expected 2 values, got {}", size.size());
  Shape out(self.shape.begin(), self.shape.end() - 2);
  out.insert(out.end(), size.begin(), size.end());
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> upsample2d_vec(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& input = tensor(op, args, "input");
  if (input.rank() != 4) fail(op, "input", "expected a 4-d tensor, got {}", input.to_string());
  const bool has_size = !arg(op, args, "output_size").is_none();
  const auto scales = optional_float_list(op, args, "scale_factors");
  if (has_size == scales.has_value()) {
    fail(op, "output_size", "exactly one of 'output_size' and 'scale_factors' must be given");
  }
  Shape out = {input.shape[0], input.shape[1]};
  if (has_size) {
    const Shape size = sym_int_list(op, args, "output_size");
    if (size.size() != 2) fail(op, "output_size", "expected 2 values, got {}", size.size());
    out.insert(out.end(), size.begin(), size.end());
  } else {
    if (scales->size() != 2) {
      fail(op, "scale_factors", "expected 2 values, got {}", scales->size());
    }
    for (size_t i = 0; i < 2; ++i) {
      const double s = (*scales)[i];
      if (!(s > 0)) fail(op, "scale_factors", "must be positive, got {}", s);
      if (s == 1.0) {
        out.push_back(input.shape[2 + i]);
      } else if (input.shape[2 + i].is_symbolic()) {
        if (s != std::floor(s)) {
          fail(op, "scale_factors", "{} of the dynamic dim {} of {} is not an integer", s, 2 + i,
               input.to_string());
        }
        out.push_back(affine(input.shape[2 + i], static_cast<int64_t>(s), 0, 1));
      } else {
        out.emplace_back(static_cast<int64_t>(
            std::floor(static_cast<double>(static_dim(op, "input", input, 2 + i)) * s)));
      }
    }
  }
  return {make_spec(input.dtype, std::move(out))};
}

std::vector<TensorSpec> constant_pad_nd(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const std::vector<int64_t> pad = int_list(op, args, "pad");
  if (pad.size() % 2 != 0 || pad.size() / 2 > self.rank()) {
    fail(op, "pad", "expected an even number of values, at most {}, got {}", 2 * self.rank(),
         pad.size());
  }
  Shape out = self.shape;
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const size_t dim = self.rank() - 1 - i;
    const int64_t before = pad[2 * i];
    const int64_t after = pad[2 * i + 1];
    if (before == 0 && after == 0) continue;
    if (self.shape[dim].is_symbolic()) {
      out[dim] = affine(self.shape[dim], 1, before + after, 1);
      if (out[dim].lower_bound() < 0) {
        fail(op, "pad", "padding gives dimension {} a negative size at {} = {}", dim,
             self.shape[dim].to_string(), self.shape[dim].lower_bound());
      }
      continue;
    }
    const int64_t size = static_dim(op, "self", self, dim) + before + after;
    if (size < 0) fail(op, "pad", "padding gives dimension {} a negative size {}", dim, size);
    out[dim] = SymInt(size);
  }
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> pad_nd_fixed(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const std::vector<int64_t> pad = int_list(op, args, "padding");
  const size_t dims = pad.size() / 2;
  if (pad.size() % 2 != 0 || (self.rank() != dims + 1 && self.rank() != dims + 2)) {
    fail(op, "padding", "{} values do not fit a tensor {}", pad.size(), self.to_string());
  }
  Shape out = self.shape;
  for (size_t i = 0; i < dims; ++i) {
    const size_t dim = self.rank() - 1 - i;
    if (self.shape[dim].is_symbolic()) {
      const int64_t smallest = self.shape[dim].lower_bound();
      if (op.name.rfind("reflection", 0) == 0 &&
          (pad[2 * i] >= smallest || pad[2 * i + 1] >= smallest)) {
        fail(op, "padding",
             "reflection padding must be smaller than the dimension ({} = {} at its smallest)",
             self.shape[dim].to_string(), smallest);
      }
      out[dim] = affine(self.shape[dim], 1, pad[2 * i] + pad[2 * i + 1], 1);
      continue;
    }
    const int64_t in = static_dim(op, "self", self, dim);
    if (op.name.rfind("reflection", 0) == 0 && (pad[2 * i] >= in || pad[2 * i + 1] >= in)) {
      fail(op, "padding", "reflection padding must be smaller than the dimension ({})", in);
    }
    out[dim] = SymInt(in + pad[2 * i] + pad[2 * i + 1]);
  }
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> pixel_shuffle(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const int64_t r = int_value(op, args, "upscale_factor");
  if (self.rank() < 3) fail(op, "self", "expected at least 3 dims, got {}", self.to_string());
  if (r <= 0) fail(op, "upscale_factor", "must be positive, got {}", r);
  const size_t c = self.rank() - 3;
  const int64_t channels = static_dim(op, "self", self, c);
  if (channels % (r * r) != 0) {
    fail(op, "self", "{} channels are not divisible by upscale_factor^2 = {}", channels, r * r);
  }
  Shape out = self.shape;
  out[c] = SymInt(channels / (r * r));
  out[c + 1] = SymInt(static_dim(op, "self", self, c + 1) * r);
  out[c + 2] = SymInt(static_dim(op, "self", self, c + 2) * r);
  return {make_spec(self.dtype, std::move(out))};
}

std::vector<TensorSpec> grid_sampler_2d(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& input = tensor(op, args, "input");
  const TensorSpec& grid = tensor(op, args, "grid");
  if (input.rank() != 4) fail(op, "input", "expected a 4-d tensor, got {}", input.to_string());
  if (grid.rank() != 4 || grid.shape[3] != SymInt(2)) {
    fail(op, "grid", "expected a [N, H_out, W_out, 2] tensor, got {}", grid.to_string());
  }
  if (grid.shape[0] != input.shape[0]) {
    fail(op, "grid", "batch of {} differs from input {}", grid.to_string(), input.to_string());
  }
  if (!is_floating_point(input.dtype) || grid.dtype != input.dtype) {
    fail(op, "grid", "input and grid must be of one floating dtype, got {} and {}",
         input.to_string(), grid.to_string());
  }
  const int64_t interpolation = int_value(op, args, "interpolation_mode");
  const int64_t padding = int_value(op, args, "padding_mode");
  if (interpolation < 0 || interpolation > 2) {
    fail(op, "interpolation_mode", "expected 0 (bilinear), 1 (nearest) or 2 (bicubic), got {}",
         interpolation);
  }
  if (padding < 0 || padding > 2) {
    fail(op, "padding_mode", "expected 0 (zeros), 1 (border) or 2 (reflection), got {}", padding);
  }
  return {make_spec(input.dtype, {input.shape[0], input.shape[1], grid.shape[1], grid.shape[2]})};
}

std::vector<TensorSpec> roi_align(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& x = tensor(op, args, "x");
  const TensorSpec& rois = tensor(op, args, "rois");
  const TensorSpec& indices = tensor(op, args, "batch_indices");
  if (x.rank() != 4 || rois.rank() != 2 || indices.rank() != 1) {
    fail(op, "x", "expected x [N, C, H, W], rois [R, 4] and batch_indices [R], got {}, {} and {}",
         x.to_string(), rois.to_string(), indices.to_string());
  }
  if (static_dim(op, "rois", rois, 1) != 4 || indices.shape[0] != rois.shape[0]) {
    fail(op, "rois", "{} and batch_indices {} do not match", rois.to_string(), indices.to_string());
  }
  const int64_t oh = int_value(op, args, "output_height");
  const int64_t ow = int_value(op, args, "output_width");
  if (oh <= 0 || ow <= 0) fail(op, "output_height", "output size {}x{}", oh, ow);
  return {make_spec(x.dtype, Shape{rois.shape[0], x.shape[1], SymInt(oh), SymInt(ow)})};
}

}  // namespace ptec::ir::shape
