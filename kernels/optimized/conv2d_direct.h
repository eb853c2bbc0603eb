#pragma once

// Direct convolution (internal to kernels/optimized; conv2d() chooses it): the GEMM of conv2d.h
// without an im2col copy. The input of a group is copied once into zero-padded planes, split
// by stride into phases (stride 1: one phase, the padded plane itself; stride 2: the four
// even/odd row and column combinations, only those some tap reads). Output pixel (oy, ox) is
// flat index i = oy * q + ox (q: a phase's row pitch) and reads tap (c, ky, kx) at a fixed
// offset from i in one phase of channel c, so row p = (c, ky, kx) of the GEMM's B is a shifted
// view of the copy (gemm_indirect): nr consecutive flat outputs are one contiguous vector load
// per tap, however narrow the image. The q - ow extra columns per row are computed into a flat
// result and dropped when it is copied out with the epilogue; where K fits one slice and that
// result would not stay in L2 (a stem), the GEMM stores each tile's kept columns itself
// (GemmColumnRows).

#include <cstddef>

#include "kernels/optimized/conv2d.h"

namespace ptec::kernels::optimized {

/// Not a depthwise or an unpadded stride-1 pointwise convolution (those have their own paths),
/// strides up to 64.
bool conv2d_direct_applies(const Conv2dShape& s);

/// Group g's weights, as conv2d_pack_weights packed them at `packed_weights`, as the GEMM's A.
PackedMatrix conv2d_group_weights(const Conv2dShape& s, const float* packed_weights, int64_t g);

/// Whether a grouped convolution's groups are too small to share the threads: each group's GEMM
/// has fewer than 4 MFLOP (gemm()'s own bound for waking the threads), and a group's few parallel
/// regions (its input copy, the GEMM, the stores) cost more than they save (ResNeXt-50's 32-group
/// 3x3 layers took 0.39-0.91 ms on one thread and 1.47-1.74 ms on two). Its groups then go to
/// the threads whole (conv2d_direct's workers), or run on the calling thread.
bool conv2d_groups_serial(const Conv2dShape& s);

/// Scratch of conv2d_direct (64-byte aligned) for `workers` workers: one group's buffers per
/// worker where the groups are spread over the threads (conv2d_groups_serial), else one.
size_t conv2d_direct_scratch_bytes(const Conv2dShape& s, int64_t workers = 1);

/// conv2d() for a shape where conv2d_direct_applies, with packed weights (conv2d_pack_weights).
/// Small groups (conv2d_groups_serial) are spread over up to `workers` threads, each group on one;
/// the scratch must then hold conv2d_direct_scratch_bytes(s, workers).
bool conv2d_direct(const Conv2dShape& s, const float* input, const float* packed_weights,
                   const GemmEpilogue& epilogue, float* output, void* scratch,
                   const float* input_scale, int64_t workers = 1);

}  // namespace ptec::kernels::optimized
