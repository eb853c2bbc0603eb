// Einsum → permute_copy / view_copy each operand onto one shared letter order, multiply them
// (broadcasting), sum over the letters missing from the output. Handles any number of operands,
// "..." and the implicit output form; a letter repeated within one operand (a diagonal) is
// NotSupported.

#include <map>
#include <string>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

/// An operand's subscripts with "..." expanded into pseudo-letters: the ellipsis of an operand
/// of `rank` covers the last of `total` ellipsis dims ('A' + i for dim i), which right-aligns
/// them for broadcasting.
std::string expand_ellipsis(const NodeView& node, const std::string& term, size_t rank,
                            size_t total) {
  const size_t dots = term.find("...");
  if (dots == std::string::npos) return term;
  const size_t named = term.size() - 3;
  if (rank < named) node.fail(Error::InvalidArgument, "'{}' has more letters than dims", term);
  std::string pseudo;
  for (size_t i = total - (rank - named); i < total; ++i) pseudo += static_cast<char>('A' + i);
  return term.substr(0, dots) + pseudo + term.substr(dots + 3);
}

void import_einsum(ImportContext& ctx, const NodeView& node) {
  std::string equation;
  for (char c : node.attr_string("equation", "")) {
    if (c != ' ') equation += c;
  }
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != node.num_inputs()) {
    node.fail(Error::InvalidArgument, "equation '{}' has {} operands, the node {}", equation,
              terms.size(), node.num_inputs());
  }
  size_t max_ellipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const size_t rank = ctx.input_sizes(node, i).size();
    if (terms[i].find("...") != std::string::npos && rank + 3 >= terms[i].size()) {
      max_ellipsis = std::max(max_ellipsis, rank + 3 - terms[i].size());
    }
  }
  std::map<char, int64_t> size_of;
  std::map<char, int> count;
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::vector<int64_t> sizes = ctx.input_sizes(node, i);
    terms[i] = expand_ellipsis(node, terms[i], sizes.size(), max_ellipsis);
    if (terms[i].size() != sizes.size()) {
      node.fail(Error::InvalidArgument, "operand {} has rank {} but subscripts '{}'", i,
                sizes.size(), terms[i]);
    }
    for (size_t d = 0; d < sizes.size(); ++d) {
      const char c = terms[i][d];
      if (terms[i].find(c) != d) {
        node.fail(Error::NotSupported, "repeated subscript '{}' in one operand (a diagonal)", c);
      }
      ++count[c];
      auto [it, inserted] = size_of.emplace(c, sizes[d]);
      if (!inserted && it->second != sizes[d] && it->second != 1 && sizes[d] != 1) {
        node.fail(Error::InvalidArgument, "subscript '{}' has sizes {} and {}", c, it->second,
                  sizes[d]);
      }
      it->second = std::max(it->second, sizes[d]);
    }
  }
  std::string output;
  if (arrow != std::string::npos) {
    const std::string rhs = equation.substr(arrow + 2);
    const bool dots = rhs.find("...") != std::string::npos;
    output = dots ? expand_ellipsis(node, rhs, max_ellipsis + rhs.size() - 3, max_ellipsis) : rhs;
  } else {
    // Implicit form: the ellipsis dims, then the letters used once, in alphabetical order.
    for (size_t i = 0; i < max_ellipsis; ++i) output += static_cast<char>('A' + i);
    for (const auto& [c, n] : count) {
      if (n == 1 && !(c >= 'A' && c < 'A' + static_cast<int>(max_ellipsis))) output += c;
    }
  }
  // The shared order: output letters, then the summed ones.
  std::string order = output;
  for (const auto& [c, n] : count) {
    if (order.find(c) == std::string::npos) order += c;
  }
  ir::Node* product = nullptr;
  for (size_t i = 0; i < terms.size(); ++i) {
    std::vector<int64_t> perm;
    std::vector<int64_t> full;
    const std::vector<int64_t> sizes = ctx.input_sizes(node, i);
    for (char c : order) {
      const size_t d = terms[i].find(c);
      if (d != std::string::npos) perm.push_back(static_cast<int64_t>(d));
      full.push_back(d == std::string::npos ? 1 : sizes[d]);
    }
    ir::Node* x = ctx.input(node, i);
    bool identity = true;
    for (size_t k = 0; k < perm.size(); ++k)
      identity = identity && perm[k] == static_cast<int64_t>(k);
    if (!identity) x = ctx.call("aten::permute_copy", {x, perm});
    x = view(ctx, x, full);
    product = product == nullptr ? x : ctx.call("aten::mul.Tensor", {product, x});
  }
  std::vector<int64_t> summed;
  for (size_t d = output.size(); d < order.size(); ++d) summed.push_back(static_cast<int64_t>(d));
  if (!summed.empty()) {
    product = ctx.call("aten::sum.dim_IntList", {product, summed, false, product->spec().dtype});
  }
  std::vector<int64_t> out_sizes;
  for (char c : output) out_sizes.push_back(size_of.at(c));
  // Broadcast operands may leave a size-1 dim where the output needs the full size.
  if (static_sizes(product->spec(), node.where()) != out_sizes) {
    product = ctx.call("aten::expand_copy", {product, out_sizes, false});
  }
  ctx.set_output(node, 0, product);
}

}  // namespace

std::vector<OpEntry> einsum_ops() { return {{"Einsum", 12, 17, import_einsum}}; }

}  // namespace ptec::onnx_import
