// Spectral ops as matrix products: DFT (opset 17+) multiplies the signal, moved to the last dim,
// by constant cos / sin matrices (O(n^2) per transform, which for the frame lengths of audio
// front ends is one GEMM); STFT cuts frames with a constant index, applies the window and takes
// their one-sided DFT; MelWeightMatrix (all inputs known at import) is evaluated at import.

#include <cmath>
#include <numbers>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

/// The DFT of `x` (static shape [..., n at `axis`, ..., c], c = 1 for a real signal or 2 for
/// real and imaginary parts) over `length` points (the signal truncated or zero-padded to it):
/// [..., bins at `axis`, ..., 2] with bins = length, or length / 2 + 1 when `onesided`.
ir::Node* dft(ImportContext& ctx, const NodeView& node, ir::Node* x, int64_t axis, int64_t length,
              bool inverse, bool onesided) {
  std::vector<int64_t> in = x->spec().upper_bound_sizes();
  const auto rank = static_cast<int64_t>(in.size());
  const int64_t parts = in.back();
  if (parts != 1 && parts != 2) {
    node.fail(Error::InvalidArgument, "the last dim must be 1 (real) or 2 (complex), got {}",
              parts);
  }
  if (axis == rank - 1) node.fail(Error::InvalidArgument, "axis must not be the last dim");
  if (length <= 0) node.fail(Error::InvalidArgument, "dft_length {} is not positive", length);
  const int64_t n = in[static_cast<size_t>(axis)];
  if (length < n) {
    x = ctx.call("aten::slice_copy.Tensor", {x, axis, int64_t{0}, length, int64_t{1}});
  } else if (length > n) {  // zero-pad the end of `axis` (constant_pad_nd lists the last dim first)
    std::vector<int64_t> pad(static_cast<size_t>(2 * (rank - axis)), 0);
    pad[static_cast<size_t>(2 * (rank - 1 - axis) + 1)] = length - n;
    x = ctx.call("aten::constant_pad_nd", {x, pad, 0.0});
  }
  in[static_cast<size_t>(axis)] = length;
  const int64_t bins = onesided ? length / 2 + 1 : length;
  // [length, bins] matrices: cos and sin of 2 pi k t / length, scaled by 1 / length for the
  // inverse.
  std::vector<double> cos_m(static_cast<size_t>(length * bins)), sin_m(cos_m.size());
  const double scale = inverse ? 1.0 / static_cast<double>(length) : 1.0;
  for (int64_t t = 0; t < length; ++t) {
    for (int64_t k = 0; k < bins; ++k) {
      // (k t) mod length keeps the angle small and exact for long transforms.
      const double angle = 2.0 * std::numbers::pi * static_cast<double>((k * t) % length) /
                           static_cast<double>(length);
      cos_m[static_cast<size_t>(t * bins + k)] = std::cos(angle) * scale;
      sin_m[static_cast<size_t>(t * bins + k)] = std::sin(angle) * scale;
    }
  }
  const DType dtype = x->spec().dtype;
  ir::Node* c = ctx.constant_tensor(node.source() + "_cos",
                                    ConstTensor::from_double(dtype, {length, bins}, cos_m));
  ir::Node* s = ctx.constant_tensor(node.source() + "_sin",
                                    ConstTensor::from_double(dtype, {length, bins}, sin_m));
  // Each part moved to [rows, length]: the signal's dims but `axis` and the last, then `axis`.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d) {
    if (d != axis) perm.push_back(d);
  }
  perm.push_back(axis);
  int64_t rows = 1;
  std::vector<int64_t> moved;  // the permuted sizes, `axis` last, with `bins` there
  for (size_t i = 0; i + 1 < perm.size(); ++i) {
    rows *= in[static_cast<size_t>(perm[i])];
    moved.push_back(in[static_cast<size_t>(perm[i])]);
  }
  moved.push_back(bins);
  auto part = [&](int64_t p) {
    ir::Node* v = ctx.call("aten::select_copy.int", {x, rank - 1, p});
    v = ctx.call("aten::permute_copy", {v, perm});
    return view(ctx, v, {rows, length});
  };
  ir::Node* re = part(0);
  ir::Node* im = parts == 2 ? part(1) : nullptr;
  // Forward: re' = re C + im S, im' = im C - re S. Inverse (e^{+i}): re' = re C - im S,
  // im' = im C + re S.
  ir::Node* out_re = ctx.call("aten::mm", {re, c});
  ir::Node* out_im = ctx.call("aten::mm", {re, s});
  if (!inverse) out_im = ctx.call("aten::neg", {out_im});
  if (im != nullptr) {
    ir::Node* im_c = ctx.call("aten::mm", {im, c});
    ir::Node* im_s = ctx.call("aten::mm", {im, s});
    out_re = ctx.call(inverse ? "aten::sub.Tensor" : "aten::add.Tensor", {out_re, im_s});
    out_im = ctx.call("aten::add.Tensor", {out_im, im_c});
  }
  // Back to the signal's layout with a trailing [re, im] dim.
  std::vector<int64_t> inverse_perm(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse_perm[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  auto restore = [&](ir::Node* v) {
    v = view(ctx, v, moved);
    v = ctx.call("aten::permute_copy", {v, inverse_perm});
    return ctx.call("aten::unsqueeze_copy", {v, rank - 1});
  };
  return ctx.call("aten::cat", {ir::ArgumentList{restore(out_re), restore(out_im)}, rank - 1});
}

void import_dft(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  const auto rank = static_cast<int64_t>(in.size());
  if (rank < 2) node.fail(Error::InvalidArgument, "input of rank {}", rank);
  // DFT-20 takes the axis as an input; 17 as an attribute (default 1).
  int64_t axis = node.attr_int("axis", 1);
  if (node.opset() >= 20 && node.has_input(2)) axis = require_int(ctx, node, 2, "axis");
  axis = node.normalize_axis(axis, rank);
  const int64_t length =
      node.has_input(1) ? require_int(ctx, node, 1, "dft_length") : in[static_cast<size_t>(axis)];
  const bool inverse = node.attr_int("inverse", 0) != 0;
  const bool onesided = node.attr_int("onesided", 0) != 0;
  if (inverse && onesided) node.fail(Error::NotSupported, "an inverse one-sided DFT");
  if (!is_floating_point(ctx.input_dtype(node, 0))) {
    node.fail(Error::InvalidArgument, "the signal must be floating point");
  }
  ctx.set_output(node, 0, dft(ctx, node, ctx.input(node, 0), axis, length, inverse, onesided));
}

/// STFT: frames of frame_length (or the window's length) every frame_step samples, times the
/// window, then their DFT: [batch, frames, bins, 2].
void import_stft(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  if (in.size() != 3) {
    node.fail(Error::InvalidArgument, "signal must be [batch, length, 1 or 2], got {}",
              sizes_to_string(in));
  }
  const int64_t step = require_int(ctx, node, 1, "frame_step");
  const bool has_window = node.has_input(2);
  int64_t frame = 0;
  if (has_window) {
    const std::vector<int64_t> w = ctx.input_sizes(node, 2);
    if (w.size() != 1) node.fail(Error::InvalidArgument, "window must be 1-D");
    frame = w[0];
  }
  if (node.has_input(3)) {
    const int64_t given = require_int(ctx, node, 3, "frame_length");
    if (has_window && given != frame) {
      node.fail(Error::InvalidArgument, "frame_length {} differs from the window's {}", given,
                frame);
    }
    frame = given;
  }
  if (frame <= 0) node.fail(Error::InvalidArgument, "no window and no frame_length");
  if (step <= 0) node.fail(Error::InvalidArgument, "frame_step {} is not positive", step);
  if (frame > in[1]) {
    node.fail(Error::InvalidArgument, "frames of {} in a signal of {}", frame, in[1]);
  }
  const int64_t frames = 1 + (in[1] - frame) / step;
  std::vector<int64_t> idx;
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t j = 0; j < frame; ++j) idx.push_back(f * step + j);
  }
  ir::Node* index = ctx.constant_tensor(node.source() + "_frames", ConstTensor::int64_vector(idx));
  ir::Node* x = ctx.call("aten::index_select", {ctx.input(node, 0), int64_t{1}, index});
  x = view(ctx, x, {in[0], frames, frame, in[2]});
  if (has_window) {
    ir::Node* w = view(ctx, ctx.input(node, 2), {1, 1, frame, 1});
    if (w->spec().dtype != x->spec().dtype) {
      w = ctx.call("aten::_to_copy", {w, x->spec().dtype});
    }
    x = ctx.call("aten::mul.Tensor", {x, w});
  }
  const bool onesided = node.attr_int("onesided", 1) != 0;
  ctx.set_output(node, 0, dft(ctx, node, x, 2, frame, false, onesided));
}

/// MelWeightMatrix (every input known at import): [dft_length / 2 + 1, num_mel_bins] triangular
/// filters between num_mel_bins + 2 mel-spaced edges (the mel range split in that many steps, as
/// the ONNX reference does), each edge's frequency rounded down to a DFT bin.
void import_mel_weight_matrix(ImportContext& ctx, const NodeView& node) {
  const int64_t mels = require_int(ctx, node, 0, "num_mel_bins");
  const int64_t dft_length = require_int(ctx, node, 1, "dft_length");
  const int64_t rate = require_int(ctx, node, 2, "sample_rate");
  const ConstTensor& lo_t = ctx.require_constant(node, 3, "lower_edge_hertz");
  const ConstTensor& hi_t = ctx.require_constant(node, 4, "upper_edge_hertz");
  if (mels <= 0 || dft_length <= 0 || rate <= 0 || lo_t.numel() != 1 || hi_t.numel() != 1) {
    node.fail(Error::InvalidArgument, "bad num_mel_bins, dft_length, sample_rate or edges");
  }
  const int64_t bins = dft_length / 2 + 1;
  auto to_mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  const double lo_mel = to_mel(lo_t.double_at(0));
  const double step = (to_mel(hi_t.double_at(0)) - lo_mel) / static_cast<double>(mels + 2);
  std::vector<int64_t> edge(static_cast<size_t>(mels + 2));
  for (int64_t i = 0; i < mels + 2; ++i) {
    const double hz =
        700.0 * (std::pow(10.0, (lo_mel + step * static_cast<double>(i)) / 2595.0) - 1.0);
    const int64_t b = static_cast<int64_t>(
        std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(rate)));
    if (b < 0 || b >= bins) {
      node.fail(Error::InvalidArgument, "edge {} falls in DFT bin {}, outside [0, {})", i, b, bins);
    }
    edge[static_cast<size_t>(i)] = b;
  }
  std::vector<double> w(static_cast<size_t>(bins * mels), 0.0);
  auto at = [&](int64_t b, int64_t m) -> double& { return w[static_cast<size_t>(b * mels + m)]; };
  for (int64_t m = 0; m < mels; ++m) {
    const int64_t left = edge[static_cast<size_t>(m)], center = edge[static_cast<size_t>(m + 1)],
                  right = edge[static_cast<size_t>(m + 2)];
    if (center == left) {
      at(center, m) = 1.0;
    } else {
      for (int64_t b = left; b <= center; ++b) {
        at(b, m) = static_cast<double>(b - left) / static_cast<double>(center - left);
      }
    }
    for (int64_t b = center; b < right; ++b) {
      at(b, m) = static_cast<double>(right - b) / static_cast<double>(right - center);
    }
  }
  const DType dtype =
      dtype_from_onnx(static_cast<int32_t>(node.attr_int("output_datatype", 1)), node.where());
  ctx.set_output(node, 0, ConstTensor::from_double(dtype, {bins, mels}, w));
}

}  // namespace

std::vector<OpEntry> spectral_ops() {
  return {
      {"DFT", 17, 25, import_dft},
      {"STFT", 17, 25, import_stft},
      {"MelWeightMatrix", 17, 25, import_mel_weight_matrix},
  };
}

}  // namespace ptec::onnx_import
