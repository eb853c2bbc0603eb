// Sequence ops whose sequences are known at import time (their length, not their data): a
// sequence is a list of tensor values (ImportContext::define_seq), so SequenceConstruct /
// SequenceEmpty / SequenceInsert / SequenceErase / SequenceAt / SequenceLength with known
// positions only rearrange values, SplitToSequence slices its input and ConcatFromSequence
// concatenates (or stacks) the items. Exporters write these for torch's list code (e.g.
// repeat_interleave's loop); a sequence never reaches the program itself.

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

const std::vector<Value>& input_seq(ImportContext& ctx, const NodeView& node, size_t i) {
  if (!node.has_input(i)) node.fail(Error::InvalidArgument, "input {} is required", i);
  const std::vector<Value>* seq = ctx.seq_value(node.input(i));
  if (seq == nullptr) {
    node.fail(Error::InvalidArgument, "input '{}' is not a sequence", node.input(i));
  }
  return *seq;
}

/// Input `i` as a tensor value (a copy of its Value).
Value input_value(ImportContext& ctx, const NodeView& node, size_t i) {
  Value* v = ctx.find(node.input(i));
  if (v == nullptr) node.fail(Error::InvalidProgram, "input '{}' is not defined", node.input(i));
  if (ctx.seq_value(node.input(i)) != nullptr || ctx.sym_value(node.input(i)) != nullptr) {
    node.fail(Error::NotSupported, "input '{}' must be a tensor", node.input(i));
  }
  return *v;
}

/// A position input (known at import time) checked against [-n, n - 1], or [-n, n] when
/// `inclusive_end` (SequenceInsert), wrapped to non-negative.
int64_t position(ImportContext& ctx, const NodeView& node, size_t i, int64_t n,
                 bool inclusive_end) {
  const ConstTensor& p = ctx.require_constant(node, i, "position");
  if (p.numel() != 1) node.fail(Error::InvalidArgument, "position is not a scalar");
  int64_t pos = p.to_int64()[0];
  const int64_t hi = inclusive_end ? n : n - 1;
  if (pos < -n || pos > hi) {
    node.fail(Error::InvalidArgument, "position {} is out of range for a sequence of {}", pos, n);
  }
  return pos < 0 ? pos + n : pos;
}

void import_sequence_empty(ImportContext& ctx, const NodeView& node) {
  ctx.define_seq(node.output(0), {}, node.source());
}

void import_sequence_construct(ImportContext& ctx, const NodeView& node) {
  std::vector<Value> items;
  for (size_t i = 0; i < node.num_inputs(); ++i) items.push_back(input_value(ctx, node, i));
  ctx.define_seq(node.output(0), std::move(items), node.source());
}

void import_sequence_insert(ImportContext& ctx, const NodeView& node) {
  std::vector<Value> items = input_seq(ctx, node, 0);
  const auto n = static_cast<int64_t>(items.size());
  const int64_t pos = node.has_input(2) ? position(ctx, node, 2, n, true) : n;
  items.insert(items.begin() + pos, input_value(ctx, node, 1));
  ctx.define_seq(node.output(0), std::move(items), node.source());
}

void import_sequence_erase(ImportContext& ctx, const NodeView& node) {
  std::vector<Value> items = input_seq(ctx, node, 0);
  const auto n = static_cast<int64_t>(items.size());
  if (n == 0) node.fail(Error::InvalidArgument, "erase from an empty sequence");
  const int64_t pos = node.has_input(1) ? position(ctx, node, 1, n, false) : n - 1;
  items.erase(items.begin() + pos);
  ctx.define_seq(node.output(0), std::move(items), node.source());
}

void import_sequence_at(ImportContext& ctx, const NodeView& node) {
  const std::vector<Value>& items = input_seq(ctx, node, 0);
  const int64_t pos = position(ctx, node, 1, static_cast<int64_t>(items.size()), false);
  ctx.define(node.output(0), items[static_cast<size_t>(pos)]);
}

void import_sequence_length(ImportContext& ctx, const NodeView& node) {
  const auto n = static_cast<int64_t>(input_seq(ctx, node, 0).size());
  ctx.set_output(node, 0, ConstTensor::from_int64(DType::Long, {}, {n}));
}

/// SplitToSequence(input, split?): chunks of `split` (a scalar: equal chunks, the last shorter;
/// a list: their sizes) along `axis`; without split, chunks of 1 with the axis kept or removed
/// (keepdims).
void import_split_to_sequence(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> in = ctx.input_sizes(node, 0);
  const int64_t axis =
      node.normalize_axis(node.attr_int("axis", 0), static_cast<int64_t>(in.size()));
  const int64_t dim = in[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (node.has_input(1)) {
    const ConstTensor& split = ctx.require_constant(node, 1, "split");
    const std::vector<int64_t> values = split.to_int64();
    if (split.sizes.empty()) {
      if (values[0] <= 0) node.fail(Error::InvalidArgument, "split {} is not positive", values[0]);
      for (int64_t start = 0; start < dim; start += values[0]) {
        sizes.push_back(std::min(values[0], dim - start));
      }
    } else {
      sizes = values;
      int64_t total = 0;
      for (int64_t s : sizes) {
        if (s < 0) node.fail(Error::InvalidArgument, "negative split size");
        total += s;
      }
      if (total != dim) {
        node.fail(Error::InvalidArgument, "split {} does not cover a dim of size {}",
                  sizes_to_string(sizes), dim);
      }
    }
  } else {
    sizes.assign(static_cast<size_t>(dim), 1);
    squeeze = node.attr_int("keepdims", 1) == 0;
  }
  std::vector<int64_t> squeezed = in;
  squeezed.erase(squeezed.begin() + axis);
  std::vector<Value> items;
  const ConstTensor* c = ctx.constant(node, 0);
  int64_t start = 0;
  for (int64_t size : sizes) {
    if (c != nullptr) {
      ConstTensor part = eval::slice(*c, {eval::SliceAxis{axis, start, 1, size}});
      if (squeeze) part = part.reshaped(squeezed);
      items.push_back(Value{nullptr, std::move(part), false, node.source()});
    } else {
      ir::Node* part =
          ctx.call("aten::slice_copy.Tensor", {ctx.input(node, 0), axis, start, start + size, 1});
      if (squeeze) part = ctx.call("aten::view_copy", {part, squeezed});
      items.push_back(Value{part, std::nullopt, false, node.source()});
    }
    start += size;
  }
  ctx.define_seq(node.output(0), std::move(items), node.source());
}

/// ConcatFromSequence: the items concatenated along `axis`, or stacked along a new `axis` when
/// new_axis = 1.
void import_concat_from_sequence(ImportContext& ctx, const NodeView& node) {
  std::vector<Value> items = input_seq(ctx, node, 0);
  if (items.empty()) node.fail(Error::InvalidArgument, "concatenation of an empty sequence");
  const bool stack = node.attr_int("new_axis", 0) != 0;
  const ir::TensorSpec first =
      items[0].node != nullptr ? items[0].node->spec() : items[0].constant->spec();
  const auto rank = static_cast<int64_t>(first.rank());
  const int64_t axis = node.normalize_axis(node.attr_int("axis", 0), stack ? rank + 1 : rank);
  ctx.define(node.output(0), concat_values(ctx, node, items, node.input(0), axis, stack));
}

}  // namespace

std::vector<OpEntry> sequence_ops() {
  return {
      {"SequenceEmpty", 11, 25, import_sequence_empty},
      {"SequenceConstruct", 11, 25, import_sequence_construct},
      {"SequenceInsert", 11, 25, import_sequence_insert},
      {"SequenceErase", 11, 25, import_sequence_erase},
      {"SequenceAt", 11, 25, import_sequence_at},
      {"SequenceLength", 11, 25, import_sequence_length},
      {"SplitToSequence", 11, 25, import_split_to_sequence},
      {"ConcatFromSequence", 11, 25, import_concat_from_sequence},
  };
}

}  // namespace ptec::onnx_import
