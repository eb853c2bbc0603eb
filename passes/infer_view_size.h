#pragma once

#include "passes/pass.h"

namespace ptec::passes {

/// A view_copy whose size list holds one run-time size (a `sym_size.int` or scalar arithmetic on
/// it) and static sizes otherwise takes -1 in its place, which the kernel infers from the input's
/// elements, as ATen's view does:
///
///   s = aten::sym_size.int(x, 0);  y = aten::view_copy(x, [1, s, 768])
///   becomes y = aten::view_copy(x, [1, -1, 768])
///
/// The scalar instructions that only computed the size then go (dead-code elimination), and the
/// view reads nothing but its tensor, so a backend can take it with its neighbours (the CPU
/// backend's dynamic rows). Applied only where the op's shape function infers the node's own
/// output shape from the new size list; sizes with a 0 (which leave -1 undetermined), lists with
/// a -1 already and lists with two run-time sizes stay as they are.
class InferViewSize final : public Pass {
 public:
  std::string name() const override { return "infer_view_size"; }
  PassResult run(ir::ExportedProgram& program) override;
};

}  // namespace ptec::passes
