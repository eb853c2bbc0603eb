#pragma once

#include <functional>
#include <string>

#include "frontends/onnx/import_context.h"

namespace ptec::onnx_import {

/// Imports one ONNX node (with `source` as its meta.source prefix); the importer's own loop.
using ImportNodeFn = std::function<void(onnx::NodeProto&, std::string)>;

/// Imports a subgraph's (If branch's, Loop or Scan body's) initializers, then its nodes, each
/// named "<prefix>/<node name>" ("<prefix>/<op>_<i>" for an unnamed one).
void import_subgraph(ImportContext& ctx, onnx::GraphProto& graph, const std::string& prefix,
                     const ImportNodeFn& import_node);

/// Imports a Loop whose iteration count is known at export as its body repeated: the trip count
/// M and the initial condition must be known at import time, and so must each iteration's
/// condition output (a body that passes its condition through, or computes it from the
/// iteration number or static shapes). Loop-carried values flow from one copy of the body to the
/// next; each scan output becomes the concatenation of its per-iteration values along a new
/// axis 0. At most kMaxLoopIterations iterations are unrolled; ptec's programs have no control
/// flow, so a loop whose count depends on run-time data is refused, naming the value.
void import_loop(ImportContext& ctx, const NodeView& node, onnx::NodeProto& proto,
                 const ImportNodeFn& import_node);

/// Imports a Scan (opset 9+) as its body repeated once per step of the scan inputs' axis (static):
/// state values flow from one copy to the next, each copy reads a slice of every scan input (in
/// its direction) and the per-step scan outputs are stacked along their axis.
void import_scan(ImportContext& ctx, const NodeView& node, onnx::NodeProto& proto,
                 const ImportNodeFn& import_node);

inline constexpr int64_t kMaxLoopIterations = 1024;

}  // namespace ptec::onnx_import
