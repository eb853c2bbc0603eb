// Shape functions of matrix products: mm, bmm, addmm.

#include "ir/shape/shape_fns.h"
#include "ir/shape/shape_util.h"

namespace ptec::ir::shape {
namespace {

void require_rank(const OpSchema& op, std::string_view name, const TensorSpec& spec, size_t rank) {
  if (spec.rank() != rank) {
    fail(op, name, "expected a {}-d tensor, got {}", rank, spec.to_string());
  }
}

void require_same_dtype(const OpSchema& op, std::string_view a_name, const TensorSpec& a,
                        std::string_view b_name, const TensorSpec& b) {
  if (a.dtype != b.dtype) {
    fail(op, b_name, "dtype {} does not match {} of '{}'", to_string(b.dtype), to_string(a.dtype),
         a_name);
  }
}

void require_inner(const OpSchema& op, std::string_view a_name, const TensorSpec& a,
                   std::string_view b_name, const TensorSpec& b) {
  const SymInt& k1 = a.shape[a.rank() - 1];
  const SymInt& k2 = b.shape[b.rank() - 2];
  if (k1 != k2) {
    fail(op, b_name, "{} cannot be multiplied with '{}' {} (inner dimensions {} and {})",
         b.to_string(), a_name, a.to_string(), k1.to_string(), k2.to_string());
  }
}

}  // namespace

std::vector<TensorSpec> mm(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec& mat2 = tensor(op, args, "mat2");
  require_rank(op, "self", self, 2);
  require_rank(op, "mat2", mat2, 2);
  require_same_dtype(op, "self", self, "mat2", mat2);
  require_inner(op, "self", self, "mat2", mat2);
  return {make_spec(self.dtype, {self.shape[0], mat2.shape[1]})};
}

std::vector<TensorSpec> bmm(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec& mat2 = tensor(op, args, "mat2");
  require_rank(op, "self", self, 3);
  require_rank(op, "mat2", mat2, 3);
  require_same_dtype(op, "self", self, "mat2", mat2);
  if (self.shape[0] != mat2.shape[0]) {
    fail(op, "mat2", "batch size {} does not match {} of 'self'", mat2.shape[0].to_string(),
         self.shape[0].to_string());
  }
  require_inner(op, "self", self, "mat2", mat2);
  return {make_spec(self.dtype, {self.shape[0], self.shape[1], mat2.shape[2]})};
}

std::vector<TensorSpec> addmm(const OpSchema& op, const ArgumentList& args) {
  const TensorSpec& self = tensor(op, args, "self");
  const TensorSpec& mat1 = tensor(op, args, "mat1");
  const TensorSpec& mat2 = tensor(op, args, "mat2");
  require_rank(op, "mat1", mat1, 2);
  require_rank(op, "mat2", mat2, 2);
  require_same_dtype(op, "mat1", mat1, "mat2", mat2);
  require_same_dtype(op, "mat1", mat1, "self", self);
  require_inner(op, "mat1", mat1, "mat2", mat2);
  const Shape out = {mat1.shape[0], mat2.shape[1]};
  const Shape b = broadcast(op, "self", self.shape, "mat1 @ mat2", out);
  if (b != out) {
    fail(op, "self", "{} does not broadcast to the product's shape [{}, {}]", self.to_string(),
         out[0].to_string(), out[1].to_string());
  }
  for (const char* name : {"beta", "alpha"}) {
    const Argument& a = arg(op, args, name);
    if (!a.is_int() && !a.is_double() && !a.is_bool()) fail(op, name, "expected a number");
  }
  return {make_spec(mat1.dtype, out)};
}

}  // namespace ptec::ir::shape
