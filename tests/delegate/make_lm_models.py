#!/usr/bin/env python3
"""Writes two small ONNX models that share their weights (a GPT-style prefill / decode pair
with one attention layer: embedding -> q/k/v MatMul -> softmax attention -> output MatMul), one
input set for each, and reference outputs computed with NumPy.

Usage: make_lm_models.py OUT_DIR
Writes OUT_DIR/{prefill,decode}.onnx and OUT_DIR/{prefill,decode}/input_K.pb, ref/output_K.pb.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

V, D, S = 32, 16, 8
rng = np.random.default_rng(11)
W = {
    "tok_embeddings.weight": rng.uniform(-0.5, 0.5, (V, D)).astype(np.float32),
    "attn.wq": rng.uniform(-0.5, 0.5, (D, D)).astype(np.float32),
    "attn.wk": rng.uniform(-0.5, 0.5, (D, D)).astype(np.float32),
    "attn.wv": rng.uniform(-0.5, 0.5, (D, D)).astype(np.float32),
    "attn.wo": rng.uniform(-0.5, 0.5, (D, D)).astype(np.float32),
    "output.weight": rng.uniform(-0.5, 0.5, (D, V)).astype(np.float32),
}
SCALE = np.array(1.0 / np.sqrt(D), dtype=np.float32)


def initializers():
    inits = [numpy_helper.from_array(v, k) for k, v in W.items()]
    inits.append(numpy_helper.from_array(SCALE, "scale"))
    return inits


def attention_nodes(k_name, v_name, mask):
    nodes = [
        helper.make_node("Transpose", [k_name], ["kt"], perm=[1, 0]),
        helper.make_node("MatMul", ["q", "kt"], ["scores0"]),
        helper.make_node("Mul", ["scores0", "scale"], ["scores1"]),
    ]
    last = "scores1"
    if mask:
        nodes.append(helper.make_node("Add", ["scores1", "mask"], ["scores2"]))
        last = "scores2"
    nodes += [
        helper.make_node("Softmax", [last], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", v_name], ["ctx"]),
        helper.make_node("MatMul", ["ctx", "attn.wo"], ["proj"]),
        helper.make_node("Add", ["h", "proj"], ["o"]),
        helper.make_node("MatMul", ["o", "output.weight"], ["logits"]),
    ]
    return nodes


def prefill_model():
    mask = np.triu(np.full((S, S), -1e9, dtype=np.float32), 1)
    inits = initializers() + [numpy_helper.from_array(mask, "mask")]
    nodes = [
        helper.make_node("Gather", ["tok_embeddings.weight", "tokens"], ["h"], axis=0),
        helper.make_node("MatMul", ["h", "attn.wq"], ["q"]),
        helper.make_node("MatMul", ["h", "attn.wk"], ["k"]),
        helper.make_node("MatMul", ["h", "attn.wv"], ["v"]),
    ] + attention_nodes("k", "v", mask=True)
    graph = helper.make_graph(
        nodes, "prefill",
        [helper.make_tensor_value_info("tokens", TensorProto.INT64, [S])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [S, V]),
         helper.make_tensor_value_info("k", TensorProto.FLOAT, [S, D]),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [S, D])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def decode_model():
    nodes = [
        helper.make_node("Gather", ["tok_embeddings.weight", "token"], ["h"], axis=0),
        helper.make_node("MatMul", ["h", "attn.wq"], ["q"]),
        helper.make_node("MatMul", ["h", "attn.wk"], ["k_new"]),
        helper.make_node("MatMul", ["h", "attn.wv"], ["v_new"]),
        helper.make_node("Concat", ["k_cache", "k_new"], ["k"], axis=0),
        helper.make_node("Concat", ["v_cache", "v_new"], ["v"], axis=0),
    ] + attention_nodes("k", "v", mask=False)
    graph = helper.make_graph(
        nodes, "decode",
        [helper.make_tensor_value_info("token", TensorProto.INT64, [1]),
         helper.make_tensor_value_info("k_cache", TensorProto.FLOAT, [S, D]),
         helper.make_tensor_value_info("v_cache", TensorProto.FLOAT, [S, D])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, V])],
        initializers())
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def reference(tokens, k_cache=None, v_cache=None, mask=None):
    h = W["tok_embeddings.weight"][tokens]
    q, k, v = h @ W["attn.wq"], h @ W["attn.wk"], h @ W["attn.wv"]
    if k_cache is not None:
        k, v = np.concatenate([k_cache, k]), np.concatenate([v_cache, v])
    s = (q @ k.T) * SCALE
    if mask is not None:
        s = s + mask
    o = h + (softmax(s) @ v) @ W["attn.wo"]
    return (o @ W["output.weight"]).astype(np.float32), k.astype(np.float32), v.astype(np.float32)


def save(d, name, arrays):
    os.makedirs(d, exist_ok=True)
    for i, a in enumerate(arrays):
        with open(os.path.join(d, f"{name}_{i}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a).SerializeToString())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, model in (("prefill", prefill_model()), ("decode", decode_model())):
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out, f"{name}.onnx"))
    tokens = rng.integers(0, V, (S,)).astype(np.int64)
    mask = np.triu(np.full((S, S), -1e9, dtype=np.float32), 1)
    logits, k, v = reference(tokens, mask=mask)
    save(os.path.join(out, "prefill"), "input", [tokens])
    save(os.path.join(out, "prefill", "ref"), "output", [logits, k, v])
    token = np.array([3], dtype=np.int64)
    dlogits, _, _ = reference(token, k_cache=k, v_cache=v)
    save(os.path.join(out, "decode"), "input", [token, k, v])
    save(os.path.join(out, "decode", "ref"), "output", [dlogits])


if __name__ == "__main__":
    main()
