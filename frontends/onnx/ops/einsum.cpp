// Einsum → products of two operands at a time as mm / bmm (the way PyTorch's einsum contracts),
// never the broadcast product of all operands (which for attention-style equations like
// "bhid,bhjd->bhij" would materialize b*h*i*j*d elements):
//
// 1. a letter repeated within one operand (a diagonal, "ii->i") is taken with index_select
//    over the two dims flattened;
// 2. letters of one operand that no other operand and not the output has are summed out;
// 3. operands are contracted left to right: batch letters (in both and needed later), the
//    contracted ones (in both, not needed later), and each side's own, permuted and viewed as
//    [batch, left, K] x [batch, K, right];
// 4. the result is summed over what remains unneeded, permuted to the output order and expanded
//    where broadcasting left a size-1 dim.
//
// Handles any number of operands, "..." (its dims take internal letters below ' ') and the
// implicit output form. Dims may be dynamic: a letter's dims are then the same symbol (or 1 where
// they broadcast), and flattened dims become products of symbols (flat_view); a repeated letter
// needs a static dim.

#include <cctype>
#include <map>
#include <string>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

/// The internal letter of ellipsis dim i (right-aligned across operands): below any subscript.
char ellipsis_letter(size_t i) { return static_cast<char>(1 + i); }
bool is_ellipsis_letter(char c) { return c > 0 && c < ' '; }

/// An operand's subscripts with "..." expanded into internal letters: the ellipsis of an operand
/// of `rank` covers the last of `total` ellipsis dims, which right-aligns them for broadcasting.
std::string expand_ellipsis(const NodeView& node, const std::string& term, size_t rank,
                            size_t total) {
  const size_t dots = term.find("...");
  if (dots == std::string::npos) return term;
  const size_t named = term.size() - 3;
  if (rank < named) node.fail(Error::InvalidArgument, "'{}' has more letters than dims", term);
  std::string pseudo;
  for (size_t i = total - (rank - named); i < total; ++i) pseudo += ellipsis_letter(i);
  return term.substr(0, dots) + pseudo + term.substr(dots + 3);
}

/// The size of letter `c` where it has sizes `a` and `b`: the same, or one of them where the
/// other is 1 (broadcast).
ir::SymInt broadcast_size(const NodeView& node, char c, const ir::SymInt& a, const ir::SymInt& b) {
  if (a == b || (b.is_static() && b.value() == 1)) return a;
  if (a.is_static() && a.value() == 1) return b;
  node.fail(Error::InvalidArgument, "subscript '{}' has sizes {} and {}", c, a.to_string(),
            b.to_string());
}

/// An operand on the way: its value and one letter per dim.
struct Operand {
  ir::Node* value;
  std::string letters;
  ir::Shape sizes;
};

/// x permuted so that its dims follow `order` (a permutation of x.letters); no node if already.
Operand permuted(ImportContext& ctx, const Operand& x, const std::string& order) {
  if (order == x.letters) return x;
  std::vector<int64_t> perm;
  ir::Shape sizes;
  for (char c : order) {
    const size_t d = x.letters.find(c);
    perm.push_back(static_cast<int64_t>(d));
    sizes.push_back(x.sizes[d]);
  }
  return {ctx.call("aten::permute_copy", {x.value, perm}), order, sizes};
}

/// x summed over its letters that `keep` does not hold.
Operand summed_out(ImportContext& ctx, const Operand& x, const std::string& keep) {
  std::vector<int64_t> dims;
  Operand out{x.value, "", {}};
  for (size_t d = 0; d < x.letters.size(); ++d) {
    if (keep.find(x.letters[d]) == std::string::npos) {
      dims.push_back(static_cast<int64_t>(d));
    } else {
      out.letters += x.letters[d];
      out.sizes.push_back(x.sizes[d]);
    }
  }
  if (dims.empty()) return x;
  out.value = ctx.call("aten::sum.dim_IntList", {x.value, dims, false, x.value->spec().dtype});
  return out;
}

/// x with its repeated letters reduced to their diagonals: for a letter at dims d1 < d2, the two
/// dims go last, are flattened, and index_select keeps positions k * (n + 1).
Operand diagonals(ImportContext& ctx, const NodeView& node, Operand x) {
  for (size_t d1 = 0; d1 < x.letters.size(); ++d1) {
    const size_t d2 = x.letters.find(x.letters[d1], d1 + 1);
    if (d2 == std::string::npos) continue;
    const char c = x.letters[d1];
    if (x.sizes[d1] != x.sizes[d2]) {
      node.fail(Error::InvalidArgument,
                "subscript '{}' repeated in one operand has sizes {} and {}", c,
                x.sizes[d1].to_string(), x.sizes[d2].to_string());
    }
    if (x.sizes[d1].is_symbolic()) {
      node.fail(Error::NotSupported,
                "subscript '{}' repeated in one operand has the dynamic size {}", c,
                x.sizes[d1].to_string());
    }
    const int64_t n = x.sizes[d1].value();
    std::string order;
    for (size_t d = 0; d < x.letters.size(); ++d) {
      if (d != d1 && d != d2) order += x.letters[d];
    }
    // permuted() finds letters by name: give the two dims distinct temporary names.
    Operand named = x;
    named.letters[d2] = '\x7f';
    named = permuted(ctx, named, order + c + '\x7f');
    ir::Shape flat(named.sizes.begin(), named.sizes.end() - 2);
    flat.push_back(n * n);
    std::vector<int64_t> positions;
    for (int64_t k = 0; k < n; ++k) positions.push_back(k * (n + 1));
    ir::Node* index =
        ctx.constant_tensor(node.source() + ".diagonal", ConstTensor::int64_vector(positions));
    ir::Node* diagonal =
        ctx.call("aten::index_select",
                 {sym_view(ctx, named.value, flat), static_cast<int64_t>(flat.size() - 1), index});
    ir::Shape sizes(named.sizes.begin(), named.sizes.end() - 2);
    sizes.push_back(n);
    x = {diagonal, order + c, sizes};
    d1 = static_cast<size_t>(-1);  // rescan: the letters moved
  }
  return x;
}

/// a x b over their shared letters that `keep` does not hold, as one mm or bmm.
Operand contract(ImportContext& ctx, const NodeView& node, const Operand& a0, const Operand& b0,
                 const std::string& keep) {
  // Letters of one side that neither the other side nor `keep` needs are summed out first.
  const Operand a = summed_out(ctx, a0, keep + b0.letters);
  const Operand b = summed_out(ctx, b0, keep + a.letters);
  std::string batch, left, right, inner;
  for (char c : a.letters) {
    const bool shared = b.letters.find(c) != std::string::npos;
    (shared ? (keep.find(c) != std::string::npos ? batch : inner) : left) += c;
  }
  for (char c : b.letters) {
    if (a.letters.find(c) == std::string::npos) right += c;
  }
  auto size_in = [](const Operand& x, char c) { return x.sizes[x.letters.find(c)]; };
  // Shared letters take the broadcast size of the two.
  std::map<char, ir::SymInt> shared;
  for (const std::string* s : {&batch, &inner}) {
    for (char c : *s) {
      shared[c] = broadcast_size(node, c, size_in(a, c), size_in(b, c));
    }
  }
  auto product_of = [](const Operand& x, const std::string& letters,
                       const std::map<char, ir::SymInt>& fixed) {
    ir::SymInt p(1);
    for (char c : letters) {
      const auto it = fixed.find(c);
      p = ir::times(p, it != fixed.end() ? it->second : x.sizes[x.letters.find(c)]);
    }
    return p;
  };
  // One side as [batch..., first..., second...], expanded to the shared sizes and viewed as 3-D
  // (2-D without batch letters).
  auto arrange = [&](const Operand& x, const std::string& first, const std::string& second) {
    Operand p = permuted(ctx, x, batch + first + second);
    ir::Shape full = p.sizes;
    for (size_t d = 0; d < p.letters.size(); ++d) {
      if (const auto it = shared.find(p.letters[d]); it != shared.end()) full[d] = it->second;
    }
    ir::Node* value = p.value;
    if (full != p.sizes) {
      value = ctx.call("aten::expand_copy", {value, ctx.size_args(full), false});
    }
    ir::Shape flat = {product_of(p, first, shared), product_of(p, second, shared)};
    if (!batch.empty()) flat.insert(flat.begin(), product_of(p, batch, shared));
    return flat_view(ctx, node, value, flat, "an operand's flattened dims");
  };
  ir::Node* product = ctx.call(batch.empty() ? "aten::mm" : "aten::bmm",
                               {arrange(a, left, inner), arrange(b, inner, right)});
  Operand out{nullptr, batch + left + right, {}};
  for (char c : out.letters) {
    const auto it = shared.find(c);
    out.sizes.push_back(it != shared.end()                       ? it->second
                        : a.letters.find(c) != std::string::npos ? size_in(a, c)
                                                                 : size_in(b, c));
  }
  out.value = sym_view(ctx, product, out.sizes);
  return out;
}

void import_einsum(ImportContext& ctx, const NodeView& node) {
  std::string equation;
  for (char c : node.attr_string("equation", "")) {
    if (c != ' ') equation += c;
  }
  for (char c : equation) {
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != ',' && c != '.' && c != '-' &&
        c != '>') {
      node.fail(Error::InvalidArgument, "equation '{}' has the character '{}'", equation, c);
    }
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
    const size_t rank = ctx.input_shape(node, i).size();
    if (terms[i].find("...") != std::string::npos && rank + 3 >= terms[i].size()) {
      max_ellipsis = std::max(max_ellipsis, rank + 3 - terms[i].size());
    }
  }
  std::map<char, ir::SymInt> size_of;
  std::map<char, int> count;  // operands using each letter
  std::vector<Operand> operands;
  for (size_t i = 0; i < terms.size(); ++i) {
    const ir::Shape sizes = ctx.input_shape(node, i);
    terms[i] = expand_ellipsis(node, terms[i], sizes.size(), max_ellipsis);
    if (terms[i].size() != sizes.size()) {
      node.fail(Error::InvalidArgument, "operand {} has rank {} but subscripts '{}'", i,
                sizes.size(), terms[i]);
    }
    for (size_t d = 0; d < sizes.size(); ++d) {
      const char c = terms[i][d];
      if (terms[i].find(c) == d) ++count[c];
      auto [it, inserted] = size_of.emplace(c, sizes[d]);
      if (!inserted) it->second = broadcast_size(node, c, it->second, sizes[d]);
    }
    operands.push_back(diagonals(ctx, node, {ctx.input(node, i), terms[i], sizes}));
  }
  std::string output;
  if (arrow != std::string::npos) {
    const std::string rhs = equation.substr(arrow + 2);
    const bool dots = rhs.find("...") != std::string::npos;
    output = dots ? expand_ellipsis(node, rhs, max_ellipsis + rhs.size() - 3, max_ellipsis) : rhs;
    for (char c : output) {
      if (size_of.count(c) == 0) {
        node.fail(Error::InvalidArgument, "output subscript '{}' is in no operand", c);
      }
      if (output.find(c) != output.rfind(c)) {
        node.fail(Error::InvalidArgument, "output subscript '{}' is repeated", c);
      }
    }
  } else {
    // Implicit form: the ellipsis dims, then the letters of one operand only (counted once per
    // operand; a letter repeated within it is still summed, numpy's rule), in ASCII order.
    for (size_t i = 0; i < max_ellipsis; ++i) output += ellipsis_letter(i);
    for (const auto& [c, n] : count) {
      bool repeated = false;
      for (const std::string& t : terms) repeated = repeated || t.find(c) != t.rfind(c);
      if (n == 1 && !repeated && !is_ellipsis_letter(c)) output += c;
    }
  }
  // Contract left to right; each step keeps the output's letters and those of the operands left.
  Operand result = operands[0];
  for (size_t i = 1; i < operands.size(); ++i) {
    std::string keep = output;
    for (size_t j = i + 1; j < operands.size(); ++j) keep += operands[j].letters;
    result = contract(ctx, node, result, operands[i], keep);
  }
  result = permuted(ctx, summed_out(ctx, result, output), output);
  ir::Shape out_sizes;
  for (char c : output) out_sizes.push_back(size_of.at(c));
  // A broadcast operand may leave a size-1 dim where the output needs the full size.
  if (result.sizes != out_sizes) {
    result.value = ctx.call("aten::expand_copy", {result.value, ctx.size_args(out_sizes), false});
  }
  ctx.set_output(node, 0, result.value);
}

}  // namespace

std::vector<OpEntry> einsum_ops() { return {{"Einsum", 12, 17, import_einsum}}; }

}  // namespace ptec::onnx_import
