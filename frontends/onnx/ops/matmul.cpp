// Gemm → addmm / mm (+ permute_copy for transA, alpha/beta as addmm's Scalars) and MatMul → mm,
// or bmm over expanded, flattened batch dims.
//
// Gemm with transB=1 and B an initializer stores B transposed as a new PARAMETER ("<B>.T"): the
// one place where the importer creates a new weight payload (one per initializer, shared by
// every Gemm that uses it), so that the program holds mm(A, W) instead of a permute_copy of the
// weight on every run. A B computed at run time gets a permute_copy node instead.

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

ir::Node* transposed_2d(ImportContext& ctx, ir::Node* x) {
  return ctx.call("aten::permute_copy", {x, std::vector<int64_t>{1, 0}});
}

/// B^T for Gemm: a new parameter when B is an initializer (made once per initializer), else
/// permute_copy.
ir::Node* gemm_b_transposed(ImportContext& ctx, const NodeView& node) {
  const std::string& name = node.input(1);
  Value* b = ctx.find(name);
  if (b != nullptr && b->is_initializer && b->constant && b->constant->sizes.size() == 2) {
    const std::string derived = name + "\n.T";  // not a legal ONNX name: cannot collide
    if (Value* done = ctx.find(derived)) return done->node;
    ir::Node* p = ctx.parameter(name + ".T", eval::transpose(*b->constant, {1, 0}));
    ctx.define(derived, Value{p, std::nullopt, false, name});
    return p;
  }
  return transposed_2d(ctx, ctx.input(node, 1));
}

void import_gemm(ImportContext& ctx, const NodeView& node) {
  const std::vector<int64_t> a = ctx.input_sizes_batch(node, 0);
  const std::vector<int64_t> b = ctx.input_sizes(node, 1);
  if (a.size() != 2 || b.size() != 2) {
    node.fail(Error::InvalidArgument, "A {} and B {} must be 2-D", sizes_to_string(a),
              sizes_to_string(b));
  }
  const double alpha = node.attr_float("alpha", 1.0f);
  const double beta = node.attr_float("beta", 1.0f);
  ir::Node* ma = ctx.input(node, 0);
  if (node.attr_int("transA", 0) != 0) ma = transposed_2d(ctx, ma);
  ir::Node* mb =
      node.attr_int("transB", 0) != 0 ? gemm_b_transposed(ctx, node) : ctx.input(node, 1);
  if (node.has_input(2)) {
    ir::Node* c = ctx.input(node, 2);
    ctx.set_output(node, 0, ctx.call("aten::addmm", {c, ma, mb, beta, alpha}));
    return;
  }
  ir::Node* y = ctx.call("aten::mm", {ma, mb});
  if (alpha != 1.0) y = ctx.call("aten::mul.Scalar", {y, alpha});
  ctx.set_output(node, 0, y);
}

}  // namespace

ir::Node* matmul_nodes(ImportContext& ctx, const NodeView& node, ir::Node* x, ir::Node* y) {
  ir::Shape a = x->spec().shape;
  ir::Shape b = y->spec().shape;
  if (a.empty() || b.empty()) node.fail(Error::InvalidArgument, "MatMul of a scalar");
  const std::string a_text = x->spec().to_string();
  const std::string b_text = y->spec().to_string();
  const bool a_vector = a.size() == 1;
  const bool b_vector = b.size() == 1;
  if (a_vector) {
    a = {ir::SymInt(1), a[0]};
    x = sym_view(ctx, x, a);
  }
  if (b_vector) {
    b = {b[0], ir::SymInt(1)};
    y = sym_view(ctx, y, b);
  }
  const ir::SymInt m = a[a.size() - 2], k = a.back(), n = b.back();
  if (b[b.size() - 2] != k) {
    node.fail(Error::InvalidArgument, "MatMul of {} and {}: inner dims differ", a_text, b_text);
  }
  ir::Shape out_sizes;
  ir::Node* out = nullptr;
  if (a.size() == 2 && b.size() == 2) {
    out = ctx.call("aten::mm", {x, y});
    out_sizes = {m, n};
  } else if (b.size() == 2) {
    // [..., M, K] x [K, N]: one mm over the flattened rows.
    const std::optional<ir::SymInt> rows = sym_product(a, 0, a.size() - 1);
    ir::ArgumentList flat{rows ? ctx.sym_size(*rows) : ir::Argument(int64_t{-1}), ctx.sym_size(k)};
    out = ctx.call("aten::mm", {ctx.call("aten::view_copy", {x, std::move(flat)}), y});
    out_sizes.assign(a.begin(), a.end() - 1);
    out_sizes.push_back(n);
  } else {
    // Batch dims broadcast as ONNX does (a dim of 1 takes the other side's); a symbolic dim
    // must meet the same symbol or a 1.
    ir::Shape batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
    const size_t rank = std::max(batch_a.size(), batch_b.size());
    batch_a.insert(batch_a.begin(), rank - batch_a.size(), ir::SymInt(1));
    batch_b.insert(batch_b.begin(), rank - batch_b.size(), ir::SymInt(1));
    ir::Shape batch;
    for (size_t i = 0; i < rank; ++i) {
      const ir::SymInt& p = batch_a[i];
      const ir::SymInt& q = batch_b[i];
      if (p == q || (q.is_static() && q.value() == 1)) {
        batch.push_back(p);
      } else if (p.is_static() && p.value() == 1) {
        batch.push_back(q);
      } else {
        node.fail(Error::InvalidArgument, "MatMul of {} and {}: batch dims {} and {} differ",
                  a_text, b_text, p.to_string(), q.to_string());
      }
    }
    ir::Shape ea = batch, eb = batch;
    ea.insert(ea.end(), {m, k});
    eb.insert(eb.end(), {k, n});
    auto expand = [&](ir::Node* t, const ir::Shape& to) {
      if (t->spec().shape == to) return t;
      return ctx.call("aten::expand_copy", {t, ctx.size_args(to), false});
    };
    // The batch dims flattened into one: static, one of them, or -1 (a product of symbols
    // view_copy infers).
    const std::optional<ir::SymInt> nb = sym_product(batch, 0, batch.size());
    auto flat = [&](ir::Node* t, const ir::SymInt& rows, const ir::SymInt& cols) {
      if (nb && t->spec().shape == ir::Shape{*nb, rows, cols}) return t;
      ir::ArgumentList size{nb ? ctx.sym_size(*nb) : ir::Argument(int64_t{-1}), ctx.sym_size(rows),
                            ctx.sym_size(cols)};
      return ctx.call("aten::view_copy", {t, std::move(size)});
    };
    ir::Node* bx = flat(expand(sym_view(ctx, x, a), ea), m, k);
    ir::Node* by = flat(expand(sym_view(ctx, y, b), eb), k, n);
    out = ctx.call("aten::bmm", {bx, by});
    out_sizes = batch;
    out_sizes.insert(out_sizes.end(), {m, n});
  }
  if (a_vector) out_sizes.erase(out_sizes.end() - 2);
  if (b_vector) out_sizes.pop_back();
  return sym_view(ctx, out, out_sizes);
}

namespace {

void import_matmul(ImportContext& ctx, const NodeView& node) {
  ir::Node* x = ctx.input(node, 0);
  ir::Node* y = ctx.input(node, 1);
  ctx.set_output(node, 0, matmul_nodes(ctx, node, x, y));
}

}  // namespace

std::vector<OpEntry> matmul_ops() {
  return {
      {"Gemm", 6, 17, import_gemm},
      {"MatMul", 1, 17, import_matmul},
  };
}

}  // namespace ptec::onnx_import
