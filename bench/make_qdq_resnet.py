#!/usr/bin/python3
"""A static, per-channel QDQ ResNet-18 from the benchmark's fp32 one (bench/generate_models.py).

Usage: /usr/bin/python3 bench/make_qdq_resnet.py [MODELS_DIR] [--calibration N]

Reads MODELS_DIR/resnet18.onnx (default build/bench-models; BatchNorm is already folded into the
convolutions) and writes MODELS_DIR/resnet18_qdq.onnx plus MODELS_DIR/resnet18_qdq/ (the same
inputs.json and test_data_set_0 input as resnet18, and info.json with its GFLOP).

Calibration: the fp32 model runs on N random inputs plus the benchmark input in NumPy (the
interpreter of tests/models/check_reference.py); every activation's range (min/max, widened to
include 0) gives a per-tensor uint8 scale and zero point. Then QuantizeLinear → DequantizeLinear
pairs follow the model input and every Conv / Relu / Add / MaxPool / GlobalAveragePool / Gemm
output (a Conv or Add followed by Relu is quantized after the Relu; MaxPool keeps its input's
parameters), so every convolution reads a dequantized uint8 input and writes a quantized output.
Weights are int8, symmetric, per output channel (DequantizeLinear axis 0); biases int32 in the
scale input_scale * weight_scale, as ONNX Runtime's quantizer writes them.
"""

import argparse
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
import check_reference  # noqa: E402  (NumPy ONNX interpreter)


def calibrate(model, inputs):
    """min/max of every node output over `inputs`."""
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    names = [o for n in model.graph.node for o in n.output]
    del probe.graph.output[:]
    for name in [model.graph.input[0].name] + names:
        probe.graph.output.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    ranges = {}
    for x in inputs:
        values = check_reference.run(probe, [x])
        for name, v in zip([model.graph.input[0].name] + names, values):
            lo, hi = float(np.min(v)), float(np.max(v))
            a, b = ranges.get(name, (lo, hi))
            ranges[name] = (min(a, lo), max(b, hi))
    return ranges


def uint8_params(lo, hi):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = np.float32((hi - lo) / 255.0 if hi > lo else 1.0)
    zp = int(np.clip(round(-lo / float(scale)), 0, 255))
    return scale, zp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models_dir", nargs="?", default=os.path.join(ROOT, "build", "bench-models"))
    ap.add_argument("--calibration", type=int, default=2, help="random calibration inputs")
    args = ap.parse_args()
    src = os.path.join(args.models_dir, "resnet18.onnx")
    model = onnx.load(src)
    g = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    rng = np.random.default_rng(0)
    x0 = np.fromfile(os.path.join(args.models_dir, "resnet18", "input_0.bin"), dtype=np.float32)
    x0 = x0.reshape(1, 3, 224, 224)
    inputs = [x0] + [rng.standard_normal((1, 3, 224, 224)).astype(np.float32)
                     for _ in range(args.calibration)]
    ranges = calibrate(model, inputs)

    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    new_nodes, new_inits = [], []
    params = {}  # tensor → (scale name, zp name)

    def add_init(name, array):
        new_inits.append(numpy_helper.from_array(array, name))
        return name

    def qdq(tensor, like=None):
        """Q → DQ after `tensor`; returns the DQ output name (consumers are re-pointed later)."""
        if like is not None:
            s, z = params[like]
        else:
            scale, zp = uint8_params(*ranges[tensor])
            s = add_init(tensor + "_scale", np.array(scale, dtype=np.float32))
            z = add_init(tensor + "_zp", np.array(zp, dtype=np.uint8))
        params[tensor] = (s, z)
        q, dq = tensor + "_q", tensor + "_dq"
        new_nodes.append(helper.make_node("QuantizeLinear", [tensor, s, z], [q]))
        new_nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [dq]))
        return dq

    renamed = {}  # float tensor → its DQ'd version

    def src_of(name):
        return renamed.get(name, name)

    def followed_by_relu(name):
        c = consumers.get(name, [])
        return len(c) == 1 and c[0].op_type == "Relu"

    input_name = g.input[0].name
    renamed[input_name] = qdq(input_name)
    dropped = set()
    for n in g.node:
        ins = [src_of(i) for i in n.input]
        if n.op_type in ("Conv", "Gemm"):
            w = inits[n.input[1]]
            axis = 0
            red = tuple(d for d in range(w.ndim) if d != axis)
            ws = (np.abs(w).max(axis=red) / 127.0).astype(np.float32)
            ws = np.where(ws > 0, ws, np.float32(1e-8)).astype(np.float32)
            shape = [-1] + [1] * (w.ndim - 1)
            wq = np.clip(np.rint(w / ws.reshape(shape)), -127, 127).astype(np.int8)
            wname = n.input[1]
            dropped.add(wname)
            wdq = wname + "_dq"
            new_nodes.append(helper.make_node(
                "DequantizeLinear",
                [add_init(wname + "_q", wq), add_init(wname + "_scale", ws),
                 add_init(wname + "_zp", np.zeros(len(ws), dtype=np.int8))], [wdq], axis=0))
            ins[1] = wdq
            if len(n.input) > 2 and n.input[2]:
                b = inits[n.input[2]]
                # The input's scale: the DQ feeding this op.
                x_float = n.input[0]
                xs_name = params[x_float][0] if x_float in params else None
                if xs_name is not None:
                    xs = float(next(numpy_helper.to_array(i) for i in new_inits if i.name == xs_name))
                    bs = (np.float32(xs) * ws).astype(np.float32)
                    bq = np.rint(b / bs).astype(np.int32)
                    bname = n.input[2]
                    dropped.add(bname)
                    bdq = bname + "_dq"
                    new_nodes.append(helper.make_node(
                        "DequantizeLinear",
                        [add_init(bname + "_q", bq), add_init(bname + "_scale", bs),
                         add_init(bname + "_zp", np.zeros(len(bs), dtype=np.int32))], [bdq],
                        axis=0))
                    ins[2] = bdq
        node = helper.make_node(n.op_type, ins, list(n.output), name=n.name)
        node.attribute.extend(n.attribute)
        new_nodes.append(node)
        out = n.output[0]
        if n.op_type in ("Conv", "Add") and followed_by_relu(out):
            continue  # quantized after the Relu
        if n.op_type in ("Conv", "Add", "Relu", "GlobalAveragePool", "Gemm"):
            renamed[out] = qdq(out)
        elif n.op_type == "MaxPool":
            params_in = n.input[0]
            renamed[out] = qdq(out, like=params_in)
    # The graph output is the DQ of the last node's output.
    for o in g.output:
        o.name = src_of(o.name)
    keep = [i for i in g.initializer if i.name not in dropped]
    del g.initializer[:]
    g.initializer.extend(keep + new_inits)
    del g.node[:]
    g.node.extend(new_nodes)
    onnx.checker.check_model(model)
    dst = os.path.join(args.models_dir, "resnet18_qdq.onnx")
    onnx.save(model, dst)
    # Inputs and info as for the fp32 model.
    d_src, d_dst = os.path.join(args.models_dir, "resnet18"), os.path.join(args.models_dir, "resnet18_qdq")
    os.makedirs(os.path.join(d_dst, "test_data_set_0"), exist_ok=True)
    shutil.copy(os.path.join(d_src, "test_data_set_0", "input_0.pb"),
                os.path.join(d_dst, "test_data_set_0", "input_0.pb"))
    shutil.copy(os.path.join(d_src, "inputs.json"), os.path.join(d_dst, "inputs.json"))
    shutil.copy(os.path.join(d_src, "info.json"), os.path.join(d_dst, "info.json"))
    print("wrote %s (%d nodes)" % (dst, len(g.node)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
