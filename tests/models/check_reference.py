#!/usr/bin/python3
"""Checks the generated test data independently of PyTorch and of ptec.

Usage: /usr/bin/python3 tests/models/check_reference.py [MODEL_DIR] [--only NAME ...]

Runs every NAME.onnx in MODEL_DIR (default build/models) through a small NumPy interpreter that
follows the ONNX operator specifications (float64 accumulation) and compares the result against
NAME/test_data_set_0/output_K.pb from PyTorch. It validates the fixtures: if this passes, an e2e
failure is ptec's, not the exporter's. Only the operators the generated models use are implemented.
"""

import argparse
import math
import os
import subprocess
import sys
import time

import numpy as np
import onnx
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def pool_geometry(x, kernel, strides, pads, ceil_mode, dilations=None):
    """Returns output spatial sizes for 2-D pooling/conv (ONNX formula, with the ceil_mode rule that
    the last window must start inside the input or left padding)."""
    out = []
    dil = dilations or [1, 1]
    for i in range(2):
        n = x.shape[2 + i] + pads[i] + pads[i + 2] - ((kernel[i] - 1) * dil[i] + 1)
        o = (math.ceil(n / strides[i]) if ceil_mode else n // strides[i]) + 1
        if ceil_mode and (o - 1) * strides[i] >= x.shape[2 + i] + pads[i]:
            o -= 1
        out.append(o)
    return out


def windows(xp, kernel, strides, out, dil=(1, 1)):
    """xp: N,C,H,W (padded). Returns N,C,oh,ow,kh,kw view."""
    n, c, h, w = xp.shape
    s = xp.strides
    return np.lib.stride_tricks.as_strided(
        xp, (n, c, out[0], out[1], kernel[0], kernel[1]),
        (s[0], s[1], s[2] * strides[0], s[3] * strides[1], s[2] * dil[0], s[3] * dil[1]),
        writeable=False)


def pad_for_windows(x, kernel, strides, pads, out, value, dil=(1, 1)):
    """Pads x so that every window of the out x out grid lies inside (ceil_mode may need extra)."""
    need_h = (out[0] - 1) * strides[0] + (kernel[0] - 1) * dil[0] + 1
    need_w = (out[1] - 1) * strides[1] + (kernel[1] - 1) * dil[1] + 1
    extra_h = max(0, need_h - (x.shape[2] + pads[0] + pads[2]))
    extra_w = max(0, need_w - (x.shape[3] + pads[1] + pads[3]))
    return np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2] + extra_h), (pads[1], pads[3] + extra_w)),
                  constant_values=value)


def conv_attrs(a, nd):
    """group, strides, pads, dilations of a Conv / ConvTranspose with `nd` spatial dims."""
    assert a.get("auto_pad", b"NOTSET") in (b"NOTSET", "NOTSET")
    return (a.get("group", 1), a.get("strides", [1] * nd), a.get("pads", [0] * (2 * nd)),
            a.get("dilations", [1] * nd))


def op_conv_nd(node, x, w, b=None):
    """Convolution of any number of spatial dims, one kernel tap at a time (3-D models)."""
    kernel = list(w.shape[2:])
    nd = len(kernel)
    group, strides, pads, dil = conv_attrs(attrs(node), nd)
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(pads[i], pads[i + nd]) for i in range(nd)])
    out = [(xp.shape[2 + i] - dil[i] * (kernel[i] - 1) - 1) // strides[i] + 1 for i in range(nd)]
    n, c = x.shape[:2]
    m = w.shape[0]
    cg, mg = c // group, m // group
    y = np.zeros((n, m) + tuple(out))
    for tap in np.ndindex(*kernel):
        window = tuple(slice(tap[i] * dil[i], tap[i] * dil[i] + strides[i] * (out[i] - 1) + 1, strides[i])
                       for i in range(nd))
        xs = xp[(slice(None), slice(None)) + window]
        for g in range(group):
            wg = w[g * mg:(g + 1) * mg][(slice(None), slice(None)) + tap].astype(np.float64)  # mg, cg
            y[:, g * mg:(g + 1) * mg] += np.einsum("nc...,mc->nm...", xs[:, g * cg:(g + 1) * cg], wg)
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y


def op_conv_transpose(node, x, w, b=None):
    """Transposed convolution of any number of spatial dims: every tap scatters the input, strided,
    into the uncropped output; then the pads are cropped."""
    a = attrs(node)
    kernel = list(w.shape[2:])
    nd = len(kernel)
    group, strides, pads, dil = conv_attrs(a, nd)
    out_pad = a.get("output_padding", [0] * nd)
    assert "output_shape" not in a
    n, c = x.shape[:2]
    cg, mg = c // group, w.shape[1]
    full = [(x.shape[2 + i] - 1) * strides[i] + dil[i] * (kernel[i] - 1) + 1 + out_pad[i] for i in range(nd)]
    y = np.zeros((n, mg * group) + tuple(full))
    for tap in np.ndindex(*kernel):
        window = tuple(slice(tap[i] * dil[i], tap[i] * dil[i] + strides[i] * (x.shape[2 + i] - 1) + 1, strides[i])
                       for i in range(nd))
        for g in range(group):
            wg = w[g * cg:(g + 1) * cg][(slice(None), slice(None)) + tap].astype(np.float64)  # cg, mg
            y[(slice(None), slice(g * mg, (g + 1) * mg)) + window] += np.einsum(
                "nc...,cm->nm...", x[:, g * cg:(g + 1) * cg].astype(np.float64), wg)
    y = y[(slice(None), slice(None)) + tuple(slice(pads[i], full[i] - pads[i + nd]) for i in range(nd))]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y


def op_conv(node, x, w, b=None):
    if x.ndim != 4:
        return op_conv_nd(node, x, w, b)
    a = attrs(node)
    group = a.get("group", 1)
    kernel = list(w.shape[2:])
    strides = a.get("strides", [1, 1])
    pads = a.get("pads", [0, 0, 0, 0])
    dil = a.get("dilations", [1, 1])
    assert a.get("auto_pad", b"NOTSET") in (b"NOTSET", "NOTSET")
    out = pool_geometry(x, kernel, strides, pads, False, dil)
    xp = pad_for_windows(x.astype(np.float64), kernel, strides, pads, out, 0.0, dil)
    win = windows(xp, kernel, strides, out, dil)  # N,C,oh,ow,kh,kw
    n, c = x.shape[:2]
    m = w.shape[0]
    cg, mg = c // group, m // group
    ys = []
    for g in range(group):
        wg = w[g * mg:(g + 1) * mg].astype(np.float64)  # mg,cg,kh,kw
        ys.append(np.einsum("nchwij,mcij->nmhw", win[:, g * cg:(g + 1) * cg], wg, optimize=True))
    y = np.concatenate(ys, axis=1)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def op_pool(node, x, kind):
    a = attrs(node)
    kernel = a["kernel_shape"]
    strides = a.get("strides", [1, 1])
    pads = a.get("pads", [0, 0, 0, 0])
    ceil_mode = a.get("ceil_mode", 0)
    out = pool_geometry(x, kernel, strides, pads, ceil_mode)
    if kind == "max":
        xp = pad_for_windows(x.astype(np.float64), kernel, strides, pads, out, -np.inf)
        return windows(xp, kernel, strides, out).max(axis=(4, 5))
    xp = pad_for_windows(x.astype(np.float64), kernel, strides, pads, out, 0.0)
    s = windows(xp, kernel, strides, out).sum(axis=(4, 5))
    # Divisor: non-padding elements (count_include_pad=0) or elements inside input+pads.
    if a.get("count_include_pad", 0):  # padding counts; the ceil_mode overhang beyond it does not
        ones = np.pad(np.ones((1, 1) + x.shape[2:]), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])),
                      constant_values=1.0)
        onesp = pad_for_windows(ones, kernel, strides, [0, 0, 0, 0], out, 0.0)
    else:
        onesp = pad_for_windows(np.ones((1, 1) + x.shape[2:]), kernel, strides, pads, out, 0.0)
    cnt = windows(onesp, kernel, strides, out).sum(axis=(4, 5))
    return s / cnt


def op_slice(x, starts, ends, axes=None, steps=None):
    axes = list(range(len(starts))) if axes is None else list(axes)
    steps = [1] * len(starts) if steps is None else list(steps)
    sl = [slice(None)] * x.ndim
    for s, e, ax, st in zip(starts, ends, axes, steps):
        dim = x.shape[ax]
        s, e = int(s), int(e)
        # ONNX clamps; Python slicing clamps the same way for these ranges except huge values.
        s = max(-dim - 1, min(dim, s))
        e = max(-dim - 1, min(dim, e))
        if st < 0 and e < -dim:
            e = None
        sl[ax] = slice(s, e, int(st))
    return x[tuple(sl)]


def op_recurrent(kind, a, ins):
    """LSTM / GRU as the ONNX spec writes them: layout 0, default activations, no clip, no
    sequence_lens or peepholes (what torch.onnx exports for nn.LSTM / nn.GRU)."""
    assert a.get("layout", 0) == 0 and "activations" not in a and "clip" not in a
    assert len(ins) < 5 or ins[4] is None, "sequence_lens"
    x, w, r = (v.astype(np.float64) for v in ins[:3])
    hidden = a["hidden_size"]
    gates = 4 if kind == "LSTM" else 3
    dirs = w.shape[0]
    bias = ins[3] if len(ins) > 3 and ins[3] is not None else np.zeros((dirs, 2 * gates * hidden))
    seq, batch = x.shape[:2]

    def sigmoid(v):
        return 1.0 / (1.0 + np.exp(-v))

    ys, hs, cs = [], [], []
    for d in range(dirs):
        direction = a.get("direction", b"forward")
        reverse = direction in (b"reverse", "reverse") or d == 1
        wb, rb = np.split(bias[d].astype(np.float64), 2)
        h = ins[5][d].astype(np.float64) if len(ins) > 5 and ins[5] is not None else np.zeros((batch, hidden))
        c = ins[6][d].astype(np.float64) if len(ins) > 6 and ins[6] is not None else np.zeros((batch, hidden))
        y = np.zeros((seq, batch, hidden))
        for t in (range(seq - 1, -1, -1) if reverse else range(seq)):
            xw = x[t] @ w[d].T + wb
            if kind == "LSTM":
                g = xw + h @ r[d].T + rb
                i, o, f, cc = np.split(g, 4, axis=1)
                c = sigmoid(f) * c + sigmoid(i) * np.tanh(cc)
                h = sigmoid(o) * np.tanh(c)
            else:
                xz, xr, xh = np.split(xw, 3, axis=1)
                rz, rr, rh = np.split(r[d], 3, axis=0)
                bz, br, bh = np.split(rb, 3)
                z = sigmoid(xz + h @ rz.T + bz)
                rg = sigmoid(xr + h @ rr.T + br)
                if a.get("linear_before_reset", 0):
                    hh = np.tanh(xh + rg * (h @ rh.T + bh))
                else:
                    hh = np.tanh(xh + (rg * h) @ rh.T + bh)
                h = (1 - z) * hh + z * h
            y[t] = h
        ys.append(y)
        hs.append(h)
        cs.append(c)
    return [np.stack(ys, axis=1), np.stack(hs), np.stack(cs)]


def run(model, inputs):
    env = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for vi, val in zip([i for i in model.graph.input if i.name not in env], inputs):
        env[vi.name] = val
    for node in model.graph.node:
        a = attrs(node)
        ins = [env[i] if i else None for i in node.input]
        t = node.op_type
        if t == "Constant":
            out = [numpy_helper.to_array(a["value"])]
        elif t in ("Add", "Sub", "Mul", "Div"):
            f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[t]
            r = f(ins[0], ins[1])
            out = [r.astype(np.result_type(ins[0].dtype, ins[1].dtype)) if ins[0].dtype.kind == "i" else r]
        elif t == "Relu":
            out = [np.maximum(ins[0], 0)]
        elif t == "Sigmoid":
            out = [1.0 / (1.0 + np.exp(-ins[0].astype(np.float64)))]
        elif t == "HardSigmoid":
            out = [np.clip(a.get("alpha", 0.2) * ins[0] + a.get("beta", 0.5), 0, 1)]
        elif t == "Clip":
            lo = ins[1] if len(ins) > 1 and ins[1] is not None else -np.inf
            hi = ins[2] if len(ins) > 2 and ins[2] is not None else np.inf
            out = [np.clip(ins[0], lo, hi)]
        elif t in ("Identity", "Dropout"):
            out = [ins[0]]
        elif t == "Conv":
            out = [op_conv(node, *ins)]
        elif t == "ConvTranspose":
            out = [op_conv_transpose(node, *ins)]
        elif t == "BatchNormalization":
            x, s, b, mean, var = ins
            sh = (1, -1) + (1,) * (x.ndim - 2)
            out = [(x - mean.reshape(sh)) / np.sqrt(var.reshape(sh).astype(np.float64) + a.get("epsilon", 1e-5))
                   * s.reshape(sh) + b.reshape(sh)]
        elif t == "InstanceNormalization":
            x, s, b = ins
            axes = tuple(range(2, x.ndim))
            xd = x.astype(np.float64)
            sh = (1, -1) + (1,) * (x.ndim - 2)
            out = [(xd - xd.mean(axis=axes, keepdims=True))
                   / np.sqrt(xd.var(axis=axes, keepdims=True) + a.get("epsilon", 1e-5))
                   * s.reshape(sh) + b.reshape(sh)]
        elif t == "MaxPool":
            out = [op_pool(node, ins[0], "max")]
        elif t == "AveragePool":
            out = [op_pool(node, ins[0], "avg")]
        elif t == "GlobalAveragePool":
            out = [ins[0].mean(axis=tuple(range(2, ins[0].ndim)), keepdims=True)]
        elif t == "Flatten":
            ax = a.get("axis", 1)
            out = [ins[0].reshape(int(np.prod(ins[0].shape[:ax])), -1)]
        elif t == "Gemm":
            A = ins[0].T if a.get("transA", 0) else ins[0]
            B = ins[1].T if a.get("transB", 0) else ins[1]
            y = a.get("alpha", 1.0) * (A.astype(np.float64) @ B)
            if len(ins) > 2 and ins[2] is not None:
                y = y + a.get("beta", 1.0) * ins[2]
            out = [y]
        elif t == "MatMul":
            out = [np.matmul(ins[0].astype(np.float64), ins[1])]
        elif t == "Softmax":
            ax = a.get("axis", -1)
            e = np.exp(ins[0] - ins[0].max(axis=ax, keepdims=True))
            out = [e / e.sum(axis=ax, keepdims=True)]
        elif t == "Concat":
            out = [np.concatenate(ins, axis=a["axis"])]
        elif t == "Reshape":
            shape = [int(d) for d in ins[1]]
            shape = [ins[0].shape[k] if d == 0 and not a.get("allowzero", 0) else d for k, d in enumerate(shape)]
            out = [ins[0].reshape(shape)]
        elif t == "Transpose":
            out = [np.transpose(ins[0], a.get("perm"))]
        elif t == "Slice":
            out = [op_slice(ins[0], *[i for i in ins[1:]] + [None] * (5 - len(ins)))]
        elif t == "Cast":
            out = [ins[0].astype(helper.tensor_dtype_to_np_dtype(a["to"]))
                   if hasattr(helper, "tensor_dtype_to_np_dtype")
                   else ins[0].astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[a["to"]])]
        elif t == "ConstantOfShape":
            v = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
            out = [np.full([int(d) for d in ins[0]], v.reshape(-1)[0], dtype=v.dtype)]
        elif t == "Pad":
            assert a.get("mode", b"constant") in (b"constant", "constant")
            p = [int(v) for v in ins[1]]
            r = len(p) // 2
            cval = ins[2].reshape(-1)[0] if len(ins) > 2 and ins[2] is not None else 0
            assert min(p) >= 0
            out = [np.pad(ins[0], [(p[k], p[k + r]) for k in range(r)], constant_values=cval)]
        elif t == "Split":
            ax = a.get("axis", 0)
            sizes = [int(v) for v in ins[1]] if len(ins) > 1 and ins[1] is not None else \
                [ins[0].shape[ax] // len(node.output)] * len(node.output)
            out = np.split(ins[0], np.cumsum(sizes)[:-1], axis=ax)
        elif t == "ReduceMean":
            axes = a.get("axes")
            out = [ins[0].mean(axis=tuple(axes) if axes is not None else None, keepdims=bool(a.get("keepdims", 1)))]
        elif t == "Shape":
            out = [np.array(ins[0].shape, dtype=np.int64)]
        elif t == "Gather":
            out = [np.take(ins[0], ins[1], axis=a.get("axis", 0))]
        elif t == "Unsqueeze":
            out = [np.expand_dims(ins[0], tuple(int(v) for v in ins[1]))]
        elif t == "Squeeze":
            out = [np.squeeze(ins[0], axis=tuple(int(v) for v in ins[1]))]
        elif t == "Expand":
            shape = np.broadcast_shapes(ins[0].shape, tuple(int(d) for d in ins[1]))
            out = [np.broadcast_to(ins[0], shape).copy()]
        elif t == "Pow":
            out = [np.power(ins[0].astype(np.float64), ins[1])]
        elif t == "Sqrt":
            out = [np.sqrt(ins[0].astype(np.float64))]
        elif t == "Erf":
            out = [np.vectorize(math.erf, otypes=[np.float64])(ins[0])]
        elif t == "Equal":
            out = [np.equal(ins[0], ins[1])]
        elif t == "Not":
            out = [np.logical_not(ins[0])]
        elif t == "Where":
            out = [np.where(ins[0], ins[1], ins[2])]
        elif t == "Mod":
            f = np.fmod if a.get("fmod", 0) else np.mod  # C's fmod, or the divisor's sign
            out = [f(ins[0], ins[1])]
        elif t == "Range":
            out = [np.arange(ins[0], ins[1], ins[2]).astype(ins[0].dtype)]
        elif t == "ScatterND":
            assert a.get("reduction", "none") in ("none", b"none")
            r = ins[0].copy()
            idx = ins[1].reshape(-1, ins[1].shape[-1])
            upd = ins[2].reshape((idx.shape[0],) + ins[0].shape[ins[1].shape[-1]:])
            for k in range(idx.shape[0]):
                r[tuple(idx[k])] = upd[k]
            out = [r]
        elif t in ("LSTM", "GRU"):
            out = op_recurrent(t, a, ins)
        else:
            raise NotImplementedError("check_reference: no NumPy implementation of %s" % t)
        for name, v in zip(node.output, out):
            if name:
                v = np.asarray(v)
                if ins and ins[0] is not None and ins[0].dtype == np.float32 and v.dtype == np.float64:
                    v = v.astype(np.float64)  # keep float64 through the graph
                env[name] = v
    return [env[o.name] for o in model.graph.output]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model_dir", nargs="?", default="build/models")
    parser.add_argument("--only", nargs="+")
    parser.add_argument("--tol", type=float, default=1e-4)
    args = parser.parse_args()
    names = args.only or sorted(f[:-5] for f in os.listdir(args.model_dir) if f.endswith(".onnx"))
    failed = []
    for name in names:
        t0 = time.time()
        model = onnx.load(os.path.join(args.model_dir, name + ".onnx"))
        data = os.path.join(args.model_dir, name, "test_data_set_0")
        k, inputs = 0, []
        while os.path.exists(os.path.join(data, "input_%d.pb" % k)):
            t = onnx.TensorProto()
            with open(os.path.join(data, "input_%d.pb" % k), "rb") as f:
                t.ParseFromString(f.read())
            inputs.append(numpy_helper.to_array(t))
            k += 1
        outs = run(model, inputs)
        out_dir = os.path.join(args.model_dir, "numpy_ref", name)
        os.makedirs(out_dir, exist_ok=True)
        for k, o in enumerate(outs):
            with open(os.path.join(out_dir, "output_%d.pb" % k), "wb") as f:
                f.write(numpy_helper.from_array(o.astype(np.float32)).SerializeToString())
        print("== %s (numpy interpreter %.1fs)" % (name, time.time() - t0))
        sys.stdout.flush()
        rc = subprocess.call([sys.executable, os.path.join(HERE, "..", "e2e", "compare.py"), data, out_dir,
                              "--tol", str(args.tol)])
        if rc != 0:
            failed.append(name)
    if failed:
        print("check_reference: FAIL: %s" % " ".join(failed), file=sys.stderr)
        return 1
    print("check_reference: all %d models agree with the NumPy ONNX interpreter" % len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
