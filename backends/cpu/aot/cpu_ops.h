#pragma once

// What PtecCpuBackend runs: one place that both the partitioner (which nodes to claim) and
// preprocess (how to lower them) consult, so that they cannot disagree.

#include <string>

#include "ir/exported_program.h"
#include "ir/node.h"

namespace ptec::backends::cpu {

inline constexpr const char* kCpuBackendId = "PtecCpuBackend";

/// The backend's own kind of a supported call node.
enum class CpuOpKind {
  Unsupported,
  Conv2d,         // aten::convolution, 2-D, not transposed, constant weight (and bias)
  Linear,         // aten::addmm (beta = alpha = 1, constant bias row) / aten::mm, constant weight
  WeightPermute,  // aten::permute_copy [1, 0] of a constant: absorbed into a Linear's packing
  MaxPool2d,      // aten::max_pool2d_with_indices whose indices are unused
  GetItem,        // getitem 0 of a claimed max pool
  GlobalAvgPool,  // aten::mean.dim over the last two dims of a 4-D tensor
  Unary,          // relu, clamp, hardtanh, sigmoid, tanh, gelu, silu, hardswish
  Binary,         // add / sub (alpha = 1), mul, div, broadcasting
  Copy,           // view_copy, squeeze_copy, unsqueeze_copy, clone, _to_copy to fp32
  Cat,            // cat
};

/// The kind of `node` in `program` (an EDGE program), Unsupported when the backend cannot run it
/// with these arguments: every tensor it reads or writes must be fp32 with static sizes.
CpuOpKind classify(const ir::ExportedProgram& program, const ir::Node& node);

/// True when `node` is a placeholder whose value is a constant of the program (a weight).
bool is_constant(const ir::ExportedProgram& program, const ir::Node& node);

}  // namespace ptec::backends::cpu
