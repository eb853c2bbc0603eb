#!/usr/bin/python3
"""Rewrites a generated fp32 model as a float16 one, the way float16 converters write them: every
float initializer, Constant, ConstantOfShape value, Cast target and graph value becomes FLOAT16.
With --keep-io-float32 the graph inputs and outputs stay float32 and Cast nodes convert at the
boundaries (the converters' keep_io_types). The model's test data is written next to it: the
inputs and the PyTorch reference outputs cast to the model's input and output types.

    /usr/bin/python3 tests/models/to_float16.py MODEL_DIR NAME OUT_DIR [--keep-io-float32]

reads MODEL_DIR/NAME.onnx and MODEL_DIR/NAME/test_data_set_0, writes OUT_DIR/NAME.onnx and
OUT_DIR/NAME/test_data_set_0.
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto as TP, helper, numpy_helper


def half_tensor(t):
    if t.data_type != TP.FLOAT:
        return t
    return numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name)


def convert(model, keep_io):
    g = model.graph
    for i, t in enumerate(g.initializer):
        g.initializer[i].CopyFrom(half_tensor(t))
    for node in g.node:
        for a in node.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                a.t.CopyFrom(half_tensor(a.t))
            if node.op_type == "Cast" and a.name == "to" and a.i == TP.FLOAT:
                a.i = TP.FLOAT16
    for vi in g.value_info:
        if vi.type.tensor_type.elem_type == TP.FLOAT:
            vi.type.tensor_type.elem_type = TP.FLOAT16
    boundary = []
    for vi in g.input:
        if vi.type.tensor_type.elem_type != TP.FLOAT:
            continue
        if keep_io:
            inner = vi.name + "_fp16"
            for node in g.node:
                node.input[:] = [inner if x == vi.name else x for x in node.input]
            boundary.append(helper.make_node("Cast", [vi.name], [inner], to=TP.FLOAT16,
                                             name="cast_" + inner))
        else:
            vi.type.tensor_type.elem_type = TP.FLOAT16
    for node in reversed(boundary):
        g.node.insert(0, node)
    for vi in g.output:
        if vi.type.tensor_type.elem_type != TP.FLOAT:
            continue
        if keep_io:
            inner = vi.name + "_fp16"
            for node in g.node:
                node.output[:] = [inner if x == vi.name else x for x in node.output]
                node.input[:] = [inner if x == vi.name else x for x in node.input]
            g.node.append(helper.make_node("Cast", [inner], [vi.name], to=TP.FLOAT,
                                           name="cast_" + vi.name))
        else:
            vi.type.tensor_type.elem_type = TP.FLOAT16
    return model


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model_dir")
    p.add_argument("name")
    p.add_argument("out_dir")
    p.add_argument("--keep-io-float32", action="store_true")
    a = p.parse_args()
    model = convert(onnx.load(os.path.join(a.model_dir, a.name + ".onnx")), a.keep_io_float32)
    onnx.checker.check_model(model)
    onnx.shape_inference.infer_shapes(model, strict_mode=True)
    os.makedirs(a.out_dir, exist_ok=True)
    onnx.save(model, os.path.join(a.out_dir, a.name + ".onnx"))
    src = os.path.join(a.model_dir, a.name, "test_data_set_0")
    dst = os.path.join(a.out_dir, a.name, "test_data_set_0")
    os.makedirs(dst, exist_ok=True)
    types = {"input": [vi.type.tensor_type.elem_type for vi in model.graph.input],
             "output": [vi.type.tensor_type.elem_type for vi in model.graph.output]}
    for f in sorted(os.listdir(src)):
        kind, k = f[:-3].split("_")
        t = onnx.TensorProto()
        with open(os.path.join(src, f), "rb") as fh:
            t.ParseFromString(fh.read())
        x = numpy_helper.to_array(t)
        if types[kind][int(k)] == TP.FLOAT16:
            x = x.astype(np.float16)
        with open(os.path.join(dst, f), "wb") as fh:
            fh.write(numpy_helper.from_array(x, t.name).SerializeToString())


if __name__ == "__main__":
    main()
