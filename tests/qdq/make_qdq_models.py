#!/usr/bin/python3
"""Builds small ONNX QDQ models with onnx's helper API and NumPy (no PyTorch, no ONNX Runtime).

Usage: /usr/bin/python3 tests/qdq/make_qdq_models.py OUT_DIR [NAME ...]

Models (deterministic: seeded NumPy, float32 throughout, so the committed ONNX Runtime
references in tests/qdq/reference stay valid):
  convnet_u8_tensor, convnet_s8_axis:  Q → DQ → Conv (int32 bias) → Relu → Q → DQ → MaxPool →
      Q → DQ → Conv → Q → DQ → Conv 1x1 → Q → DQ → Add → Relu → Q → DQ → GlobalAveragePool →
      Q → DQ → Flatten → Gemm → Q → DQ
  transformer_u8_axis, transformer_s8_tensor: a pre-norm-free encoder block (single-head
      attention with QDQ around every MatMul, softmax, residual adds, ReLU FFN), [1, 16, 32].
"_tensor" uses per-tensor weight scales, "_axis" per-output-channel ones; "u8" / "s8" is the
activation type (asymmetric zero points). Activation ranges are calibrated with a NumPy float
forward pass on the model's own input. Each model goes to OUT_DIR/NAME/model.onnx with
test_data_set_0/input_0.pb and info.json ({"output_step": the final output's scale}).
"""

import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32 = np.float32


class Builder:
    def __init__(self, name, act_signed, per_axis, seed):
        self.name = name
        self.nodes, self.inits = [], []
        self.act_signed = act_signed
        self.per_axis = per_axis
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def uid(self, base):
        self.count += 1
        return "%s_%d" % (base, self.count)

    def const(self, base, array):
        name = self.uid(base)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op, inputs, **attrs):
        out = self.uid(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    # Activation QDQ with the range observed in `value` (the float forward pass).
    def qdq(self, name, value):
        lo, hi = min(float(value.min()), 0.0), max(float(value.max()), 0.0)
        qmin, qmax = (-128, 127) if self.act_signed else (0, 255)
        scale = F32((hi - lo) / (qmax - qmin) if hi > lo else 1.0)
        zp = int(np.clip(round(qmin - lo / float(scale)), qmin, qmax))
        dt = np.int8 if self.act_signed else np.uint8
        s = self.const("scale", np.array(scale, dtype=F32))
        z = self.const("zp", np.array(zp, dtype=dt))
        q = self.node("QuantizeLinear", [name, s, z])
        dq = self.node("DequantizeLinear", [q, s, z])
        # The value downstream float ops see: what DequantizeLinear gives.
        quant = np.clip(np.rint(value / scale) + zp, qmin, qmax)
        return dq, ((quant - zp) * scale).astype(F32), float(scale)

    # An int8 weight (symmetric), per output channel along `axis` or per tensor.
    def weight(self, shape, axis):
        w = self.rng.uniform(-0.5, 0.5, size=shape).astype(F32)
        if self.per_axis:
            red = tuple(d for d in range(len(shape)) if d != axis)
            scale = (np.abs(w).max(axis=red) / 127.0).astype(F32)
            bshape = [1] * len(shape)
            bshape[axis] = shape[axis]
            q = np.clip(np.rint(w / scale.reshape(bshape)), -127, 127).astype(np.int8)
            deq = (q.astype(F32) * scale.reshape(bshape)).astype(F32)
            s = self.const("w_scale", scale)
            z = self.const("w_zp", np.zeros(shape[axis], dtype=np.int8))
            name = self.node("DequantizeLinear", [self.const("w", q), s, z], axis=axis)
        else:
            scale = F32(np.abs(w).max() / 127.0)
            q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
            deq = (q.astype(F32) * scale).astype(F32)
            s = self.const("w_scale", np.array(scale, dtype=F32))
            z = self.const("w_zp", np.array(0, dtype=np.int8))
            name = self.node("DequantizeLinear", [self.const("w", q), s, z])
        return name, deq, scale

    def model(self, x_name, x_shape, out_name, out_shape):
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info(x_name, TensorProto.FLOAT, x_shape)],
            [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, out_shape)],
            self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 7
        onnx.checker.check_model(m)
        return m


def conv2d(x, w, b, stride=1, pad=0):
    n, c, h, wd = x.shape
    oc, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    cols = np.empty((n, c * kh * kw, oh * ow), dtype=F32)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            cols[:, np.arange(c) * kh * kw + i * kw + j, :] = patch.reshape(n, c, -1)
    y = np.einsum("ok,nkp->nop", w.reshape(oc, -1), cols).reshape(n, oc, oh, ow)
    return (y + (0 if b is None else b.reshape(1, -1, 1, 1))).astype(F32)


def convnet(name, act_signed, per_axis):
    b = Builder(name, act_signed, per_axis, seed=7)
    x = np.random.default_rng(1).uniform(-1, 1, size=(1, 3, 16, 16)).astype(F32)
    cur, v, xs = b.qdq("x", x)

    def conv(cur, v, xs, cin, cout, k, pad, relu):
        w_name, w, ws = b.weight((cout, cin, k, k), 0)
        bias = b.rng.uniform(-0.2, 0.2, size=cout).astype(F32)
        # The bias as ONNX Runtime's quantizer writes it: int32 in the scale x_scale * w_scale.
        bscale = (np.float32(xs) * np.asarray(ws, dtype=F32)).astype(F32)
        bq = np.rint(bias / bscale).astype(np.int32)
        bscale_arr = bscale if per_axis else np.array(bscale, dtype=F32)
        bzp = np.zeros(cout, dtype=np.int32) if per_axis else np.array(0, dtype=np.int32)
        attrs = {"axis": 0} if per_axis else {}
        b_name = b.node("DequantizeLinear", [b.const("b", bq), b.const("b_scale", bscale_arr),
                                             b.const("b_zp", bzp)], **attrs)
        y = conv2d(v, w, (bq * bscale).astype(F32), 1, pad)
        out = b.node("Conv", [cur, w_name, b_name], pads=[pad] * 4)
        if relu:
            out, y = b.node("Relu", [out]), np.maximum(y, 0)
        return b.qdq(out, y)

    cur, v, xs = conv(cur, v, xs, 3, 8, 3, 1, True)
    # MaxPool 2x2 keeps the quantization of its input.
    out = b.node("MaxPool", [cur], kernel_shape=[2, 2], strides=[2, 2])
    pooled = v.reshape(1, 8, 8, 2, 8, 2).max(axis=(3, 5))
    s_name = b.nodes[-2].input[1]
    z_name = b.nodes[-2].input[2]
    q = b.node("QuantizeLinear", [out, s_name, z_name])
    cur = b.node("DequantizeLinear", [q, s_name, z_name])
    v = pooled
    c2, v2, s2 = conv(cur, v, xs, 8, 12, 3, 1, False)
    c3, v3, s3 = conv(c2, v2, s2, 12, 12, 1, 0, False)
    add = b.node("Relu", [b.node("Add", [c2, c3])])
    cur, v, xs = b.qdq(add, np.maximum(v2 + v3, 0))
    gap = b.node("GlobalAveragePool", [cur])
    cur, v, xs = b.qdq(gap, v.mean(axis=(2, 3), keepdims=True).astype(F32))
    flat = b.node("Flatten", [cur])
    w_name, w, ws = b.weight((10, 12), 0)
    bias = b.rng.uniform(-0.2, 0.2, size=10).astype(F32)
    gemm = b.node("Gemm", [flat, w_name, b.const("gemm_b", bias)], transB=1)
    y = v.reshape(1, 12) @ w.T + bias
    out, _, step = b.qdq(gemm, y.astype(F32))
    return b.model("x", [1, 3, 16, 16], out, [1, 10]), x, step


def transformer(name, act_signed, per_axis):
    b = Builder(name, act_signed, per_axis, seed=11)
    S, D, H = 16, 32, 64
    x = np.random.default_rng(2).uniform(-1, 1, size=(1, S, D)).astype(F32)
    cur, v, _ = b.qdq("x", x)
    x_name, xv = cur, v

    def linear(cur, v, din, dout, relu=False):
        w_name, w, _ = b.weight((din, dout), 1)
        bias = b.rng.uniform(-0.1, 0.1, size=dout).astype(F32)
        out = b.node("Add", [b.node("MatMul", [cur, w_name]), b.const("bias", bias)])
        y = (v @ w + bias).astype(F32)
        if relu:
            out, y = b.node("Relu", [out]), np.maximum(y, 0)
        return b.qdq(out, y)

    q, qv, _ = linear(cur, v, D, D)
    k, kv, _ = linear(cur, v, D, D)
    vv_name, vv, _ = linear(cur, v, D, D)
    kt = b.node("Transpose", [k], perm=[0, 2, 1])
    scores, sv, _ = b.qdq(b.node("MatMul", [q, kt]), (qv @ kv.transpose(0, 2, 1)).astype(F32))
    scaled = b.node("Mul", [scores, b.const("inv_sqrt_d", np.array(1 / np.sqrt(D), dtype=F32))])
    sv = (sv * F32(1 / np.sqrt(D))).astype(F32)
    e = np.exp(sv - sv.max(axis=-1, keepdims=True))
    p_name, pv, _ = b.qdq(b.node("Softmax", [scaled], axis=-1), (e / e.sum(-1, keepdims=True)).astype(F32))
    att, av, _ = b.qdq(b.node("MatMul", [p_name, vv_name]), (pv @ vv).astype(F32))
    o, ov, _ = linear(att, av, D, D)
    r1, rv, _ = b.qdq(b.node("Add", [o, x_name]), (ov + xv).astype(F32))
    h1, hv, _ = linear(r1, rv, D, H, relu=True)
    h2, h2v, _ = linear(h1, hv, H, D)
    out, _, step = b.qdq(b.node("Add", [h2, r1]), (h2v + rv).astype(F32))
    return b.model("x", [1, S, D], out, [1, S, D]), x, step


MODELS = {
    "convnet_u8_tensor": lambda: convnet("convnet_u8_tensor", False, False),
    "convnet_s8_axis": lambda: convnet("convnet_s8_axis", True, True),
    "transformer_u8_axis": lambda: transformer("transformer_u8_axis", False, True),
    "transformer_s8_tensor": lambda: transformer("transformer_s8_tensor", True, False),
}


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    for name in names:
        model, x, step = MODELS[name]()
        d = os.path.join(out_dir, name)
        os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
        onnx.save(model, os.path.join(d, "model.onnx"))
        t = numpy_helper.from_array(x, "x")
        with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
            f.write(t.SerializeToString())
        with open(os.path.join(d, "info.json"), "w") as f:
            json.dump({"output_step": step}, f)
        # For bench/ort_time.mjs-style runners: raw input and a manifest.
        x.tofile(os.path.join(d, "input_0.bin"))
        with open(os.path.join(d, "inputs.json"), "w") as f:
            json.dump([{"name": "x", "dtype": "float32", "shape": list(x.shape),
                        "file": os.path.join(d, "input_0.bin")}], f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
