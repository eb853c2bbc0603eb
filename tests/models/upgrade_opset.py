#!/usr/bin/python3
"""Rewrites a generated model (opset 13-17) as the same model at a newer opset, the way a newer
exporter writes it: the Reduce* ops' axes attribute becomes their second input (opset 18), the
IR version becomes 10; every other operator of these models means the same at the newer opset.

    /usr/bin/python3 tests/models/upgrade_opset.py IN.onnx OUT.onnx OPSET

The model is written without onnx.checker, which (ONNX 1.12) knows opsets up to 17 only.
"""

import sys

import numpy as np
import onnx
from onnx import numpy_helper

# The reductions whose axes became an input in opset 18 (ReduceSum's did in opset 13).
REDUCTIONS = {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
              "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}


def main(src, dst, opset):
    model = onnx.load(src)
    if opset < 18:
        sys.exit("upgrade_opset.py: the target opset must be 18 or newer")
    for i, node in enumerate(model.graph.node):
        if node.op_type not in REDUCTIONS:
            continue
        axes = [a for a in node.attribute if a.name == "axes"]
        if not axes:
            continue
        name = "%s_axes_%d" % (node.name or node.op_type, i)
        model.graph.initializer.append(
            numpy_helper.from_array(np.array(list(axes[0].ints), np.int64), name))
        node.attribute.remove(axes[0])
        node.input.append(name)
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = opset
    model.ir_version = 10
    onnx.save(model, dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
