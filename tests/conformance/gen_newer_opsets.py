#!/usr/bin/python3
"""ONNX backend-test folders for operators of opsets 18-25, which Debian's libonnx-testdata
(ONNX 1.12, opsets up to 17) does not have: model.onnx plus test_data_set_0/{input,output}_K.pb,
the layout conformance_runner reads. The expected outputs come from NumPy implementations of
the ONNX operator definitions written here (ONNX 1.12 has no reference evaluator).

    /usr/bin/python3 tests/conformance/gen_newer_opsets.py OUT_DIR

writes OUT_DIR/newer/<test>/ and OUT_DIR/stamp. Only onnx and numpy are needed. The models are
written without onnx.checker: ONNX 1.12 does not know these opsets.
"""

import math
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(2026)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def save_test(root, name, nodes, inputs, outputs, opset, initializers=(), ir_version=8):
    """inputs / outputs: lists of (name, array); initializers: list of (name, array)."""
    def info(n, a):
        return helper.make_tensor_value_info(n, _elem_type(a.dtype), list(a.shape))
    graph = helper.make_graph(
        nodes, name, [info(n, a) for n, a in inputs], [info(n, a) for n, a in outputs],
        initializer=[numpy_helper.from_array(a, n) for n, a in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_operatorsetid("", opset)],
                              producer_name="ptec-gen-newer-opsets")
    model.ir_version = ir_version
    d = os.path.join(root, "newer", name)
    data = os.path.join(d, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for kind, values in (("input", inputs), ("output", outputs)):
        for i, (n, a) in enumerate(values):
            with open(os.path.join(data, f"{kind}_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, n).SerializeToString())


def _elem_type(dtype):
    return {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64,
            np.dtype(np.int8): TensorProto.INT8, np.dtype(np.uint8): TensorProto.UINT8,
            np.dtype(np.int32): TensorProto.INT32, np.dtype(np.bool_): TensorProto.BOOL}[np.dtype(dtype)]


# ---- reference implementations (ONNX operator definitions) ----

def conv2d(x, w, b, pad):
    n, c, h, wd = x.shape
    oc, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, oc, oh, ow), np.float64)
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("nchw,oc->nohw", xp[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
    return (y + b.reshape(1, -1, 1, 1)).astype(np.float32)


def group_norm(x, scale_c, bias_c, groups, eps):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1).astype(np.float64)
    mean = g.mean(axis=2, keepdims=True)
    var = g.var(axis=2, keepdims=True)
    y = ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return (y * scale_c.reshape(shape) + bias_c.reshape(shape)).astype(np.float32)


def softplus(x):
    return np.log(np.exp(x.astype(np.float64)) + 1)


def erf(v):
    return np.vectorize(math.erf)(v)


# Resize, one axis at a time (ONNX's resize is separable): the source coordinate of each output,
# its n nearest neighbours in the edge-padded axis, and the mode's coefficients.
def _cubic(x, a):
    x = abs(x)
    if x <= 1:
        return (a + 2) * x ** 3 - (a + 3) * x ** 2 + 1
    if x < 2:
        return a * x ** 3 - 5 * a * x ** 2 + 8 * a * x - 4 * a
    return 0.0


def _coeffs(mode, ratio, scale, antialias, cubic_a):
    if mode == "nearest":  # round_prefer_floor
        return [0.0, 1.0] if ratio == 1 else [float(ratio <= 0.5), float(ratio > 0.5)]
    if antialias and scale < 1:
        reach = 1.0 if mode == "linear" else 2.0
        start = int(math.floor(-reach / scale) + 1)
        xs = [(start + i - ratio) * scale for i in range(2 - 2 * start)]
        c = [max(0.0, 1 - abs(v)) if mode == "linear" else _cubic(v, cubic_a) for v in xs]
        total = sum(c)
        return [v / total for v in c]
    if mode == "linear":
        return [1 - ratio, ratio]
    return [_cubic(ratio + 1, cubic_a), _cubic(ratio, cubic_a), _cubic(1 - ratio, cubic_a),
            _cubic(2 - ratio, cubic_a)]


def _resize_axis(x, axis, out, scale, mode, coord, antialias=False, cubic_a=-0.75):
    n_in = x.shape[axis]
    length = scale * n_in
    rows = []
    for o in range(out):
        if coord == "half_pixel":
            src = (o + 0.5) / scale - 0.5
        elif coord == "half_pixel_symmetric":
            src = n_in / 2 * (1 - out / length) + (o + 0.5) / scale - 0.5
        elif coord == "asymmetric":
            src = o / scale
        else:
            raise ValueError(coord)
        fl = math.floor(src)
        ratio = 1.0 if src == fl else src - fl
        c = _coeffs(mode, ratio, scale, antialias, cubic_a)
        pad = (len(c) + 1) // 2
        cand = sorted(range(-pad, n_in + pad), key=lambda p: (abs(src - p), p))[:len(c)]
        row = np.zeros(n_in)
        for idx, w in zip(sorted(cand), c):
            row[min(max(idx, 0), n_in - 1)] += w
        rows.append(row)
    m = np.array(rows)  # out x in
    y = np.tensordot(np.moveaxis(x.astype(np.float64), axis, -1), m, axes=([-1], [1]))
    return np.moveaxis(y, -1, axis)


def resize(x, sizes, scales, mode, coord, **kw):
    y = x.astype(np.float64)
    for d in range(x.ndim):
        if sizes[d] != x.shape[d] or scales[d] != 1:
            y = _resize_axis(y, d, sizes[d], scales[d], mode, coord, **kw)
    return y.astype(np.float32)


# ---- the tests ----

def main(root):
    n = helper.make_node

    # Conv-11 and Flatten-21 in an opset-21 model of IR version 10; Conv-22 at opset 22.
    x, w, b = rand(1, 3, 8, 8), rand(4, 3, 3, 3), rand(4)
    y = np.maximum(conv2d(x, w, b, 1), 0).reshape(1, -1)
    for opset in (21, 22):
        save_test(root, f"conv_relu_flatten_opset{opset}",
                  [n("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), n("Relu", ["c"], ["r"]),
                   n("Flatten", ["r"], ["y"], axis=1)],
                  [("x", x)], [("y", y)], opset, initializers=[("w", w), ("b", b)], ir_version=10)

    # Reductions with their axes as an input (version 18) and ReduceMax-20.
    x = rand(2, 3, 4, 5)
    save_test(root, "reduce_axes_input_opset20",
              [n("ReduceMean", ["x", "a23"], ["mean"], keepdims=1),
               n("ReduceMax", ["x", "a1"], ["max"], keepdims=0),
               n("ReduceL2", ["x", "a3"], ["l2"], keepdims=1),
               n("ReduceSumSquare", ["x", "a0"], ["ss"], keepdims=0)],
              [("x", x)],
              [("mean", x.mean(axis=(2, 3), keepdims=True)), ("max", x.max(axis=1)),
               ("l2", np.sqrt((x.astype(np.float64) ** 2).sum(axis=3, keepdims=True)).astype(np.float32)),
               ("ss", (x.astype(np.float64) ** 2).sum(axis=0).astype(np.float32))],
              20, initializers=[("a23", np.array([2, 3], np.int64)), ("a1", np.array([1], np.int64)),
                                ("a3", np.array([-1], np.int64)), ("a0", np.array([0], np.int64))])

    # Split-18's num_outputs: 7 = 3 + 3 + 1.
    x = rand(2, 7)
    save_test(root, "split_num_outputs_opset18",
              [n("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3)],
              [("x", x)], [("a", x[:, :3]), ("b", x[:, 3:6]), ("c", x[:, 6:])], 18)

    # Pad with axes (version 18) in an opset-19 model: constant and edge.
    x = rand(1, 2, 3, 4)
    save_test(root, "pad_axes_opset19",
              [n("Pad", ["x", "p", "v", "ax"], ["y"], mode="constant"),
               n("Pad", ["x", "p", "", "ax"], ["z"], mode="edge")],
              [("x", x)],
              [("y", np.pad(x, ((0, 0), (0, 0), (1, 2), (0, 1)), constant_values=1.5)),
               ("z", np.pad(x, ((0, 0), (0, 0), (1, 2), (0, 1)), mode="edge"))],
              19, initializers=[("p", np.array([1, 0, 2, 1], np.int64)),
                                ("v", np.array(1.5, np.float32)),
                                ("ax", np.array([2, 3], np.int64))])

    # Resize-18: axes, keep_aspect_ratio_policy, antialias; Resize-19: half_pixel_symmetric.
    x = rand(1, 2, 4, 6)
    save_test(root, "resize_axes_linear_opset18",
              [n("Resize", ["x", "", "", "s"], ["y"], mode="linear", axes=[2, 3])],
              [("x", x)], [("y", resize(x, [1, 2, 8, 9], [1, 1, 2, 1.5], "linear", "half_pixel"))],
              18, initializers=[("s", np.array([8, 9], np.int64))])
    # not_larger: scale min(8/4, 8/6) = 4/3 -> sizes round(5.33) = 5, round(8) = 8.
    save_test(root, "resize_not_larger_opset18",
              [n("Resize", ["x", "", "", "s"], ["y"], mode="linear", axes=[2, 3],
                 keep_aspect_ratio_policy="not_larger")],
              [("x", x)], [("y", resize(x, [1, 2, 5, 8], [1, 1, 4 / 3, 4 / 3], "linear", "half_pixel"))],
              18, initializers=[("s", np.array([8, 8], np.int64))])
    # not_smaller: scale max(3/4, 5/6) = 5/6 -> sizes round(3.33) = 3, 5.
    save_test(root, "resize_not_smaller_cubic_opset18",
              [n("Resize", ["x", "", "", "s"], ["y"], mode="cubic", axes=[2, 3],
                 keep_aspect_ratio_policy="not_smaller")],
              [("x", x)], [("y", resize(x, [1, 2, 3, 5], [1, 1, 5 / 6, 5 / 6], "cubic", "half_pixel"))],
              18, initializers=[("s", np.array([3, 5], np.int64))])
    x = rand(1, 1, 8, 10)
    save_test(root, "resize_antialias_linear_opset18",
              [n("Resize", ["x", "", "sc"], ["y"], mode="linear", antialias=1)],
              [("x", x)],
              [("y", resize(x, [1, 1, 4, 6], [1, 1, 0.5, 0.6], "linear", "half_pixel", antialias=True))],
              18, initializers=[("sc", np.array([1, 1, 0.5, 0.6], np.float32))])
    save_test(root, "resize_antialias_cubic_opset18",
              [n("Resize", ["x", "", "sc"], ["y"], mode="cubic", antialias=1)],
              [("x", x)],
              [("y", resize(x, [1, 1, 3, 7], [1, 1, 0.4, 0.75], "cubic", "half_pixel", antialias=True))],
              18, initializers=[("sc", np.array([1, 1, 0.4, 0.75], np.float32))])
    x = rand(1, 1, 5, 7)
    save_test(root, "resize_half_pixel_symmetric_opset19",
              [n("Resize", ["x", "", "sc"], ["y"], mode="linear",
                 coordinate_transformation_mode="half_pixel_symmetric")],
              [("x", x)],
              [("y", resize(x, [1, 1, 8, 4], [1, 1, 1.7, 0.7], "linear", "half_pixel_symmetric"))],
              19, initializers=[("sc", np.array([1, 1, 1.7, 0.7], np.float32))])

    # New operators: Gelu-20, Mish-18, GroupNormalization-18 (per-group scale) and -21.
    x = rand(2, 3, 5)
    xd = x.astype(np.float64)
    gelu = 0.5 * xd * (1 + erf(xd / math.sqrt(2)))
    gelu_tanh = 0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3)))
    save_test(root, "gelu_opset20",
              [n("Gelu", ["x"], ["y"]), n("Gelu", ["x"], ["z"], approximate="tanh")],
              [("x", x)], [("y", gelu.astype(np.float32)), ("z", gelu_tanh.astype(np.float32))], 20)
    save_test(root, "mish_opset18", [n("Mish", ["x"], ["y"])], [("x", x)],
              [("y", (xd * np.tanh(softplus(x))).astype(np.float32))], 18)
    x = rand(2, 6, 3, 4)
    scale_g, bias_g = rand(3), rand(3)
    save_test(root, "group_norm_opset18",
              [n("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3, epsilon=1e-3)],
              [("x", x)], [("y", group_norm(x, np.repeat(scale_g, 2), np.repeat(bias_g, 2), 3, 1e-3))],
              18, initializers=[("s", scale_g), ("b", bias_g)])
    scale_c, bias_c = rand(6), rand(6)
    save_test(root, "group_norm_opset21",
              [n("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2)],
              [("x", x)], [("y", group_norm(x, scale_c, bias_c, 2, 1e-5))],
              21, initializers=[("s", scale_c), ("b", bias_c)])

    # RMSNormalization-23 over the last two dims.
    x, scale = rand(2, 3, 4, 5), rand(4, 5)
    xd = x.astype(np.float64)
    rms = np.sqrt((xd * xd).mean(axis=(2, 3), keepdims=True) + 1e-4)
    save_test(root, "rms_norm_opset23",
              [n("RMSNormalization", ["x", "s"], ["y"], axis=-2, epsilon=1e-4)],
              [("x", x)], [("y", (xd / rms * scale).astype(np.float32))], 23,
              initializers=[("s", scale)])

    # QuantizeLinear-21's output_dtype (no zero point), then DequantizeLinear.
    x = (rand(2, 8) * 3).astype(np.float32)
    scale = np.array(0.05, np.float32)
    q = np.clip(np.round(x / scale), -128, 127).astype(np.int8)
    save_test(root, "quantize_output_dtype_opset21",
              [n("QuantizeLinear", ["x", "s"], ["q"], output_dtype=TensorProto.INT8),
               n("DequantizeLinear", ["q", "s"], ["y"])],
              [("x", x)], [("q", q), ("y", (q.astype(np.float32) * scale).astype(np.float32))],
              21, initializers=[("s", scale)])

    # Shape operators of versions 21-25 (types only) and Cast-25 in an opset-25 model.
    x = rand(2, 3, 4)
    y = np.transpose(x, (0, 2, 1)).reshape(2, 12)[:, None, :].astype(np.float32)
    save_test(root, "shape_ops_opset25",
              [n("Transpose", ["x"], ["t"], perm=[0, 2, 1]), n("Reshape", ["t", "shape"], ["r"]),
               n("Unsqueeze", ["r", "one"], ["u"]), n("Identity", ["u"], ["i"]),
               n("Cast", ["i"], ["y"], to=TensorProto.FLOAT),
               n("Shape", ["x"], ["s"]), n("Size", ["x"], ["sz"])],
              [("x", x)],
              [("y", y), ("s", np.array([2, 3, 4], np.int64)), ("sz", np.array(24, np.int64))],
              25, initializers=[("shape", np.array([2, 12], np.int64)), ("one", np.array([1], np.int64))],
              ir_version=10)

    # TopK-24 and pooling of version 22 (AveragePool-19 with its dilations at 1).
    x = rand(3, 10)
    order = np.argsort(-x, axis=1, kind="stable")[:, :4]
    save_test(root, "topk_opset24",
              [n("TopK", ["x", "k"], ["v", "i"], axis=1)],
              [("x", x)], [("v", np.take_along_axis(x, order, 1)), ("i", order.astype(np.int64))],
              24, initializers=[("k", np.array([4], np.int64))])
    x = rand(1, 2, 6, 6)
    avg = x.reshape(1, 2, 3, 2, 3, 2).mean(axis=(3, 5))
    mx = x.reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5))
    save_test(root, "pool_opset22",
              [n("AveragePool", ["x"], ["a"], kernel_shape=[2, 2], strides=[2, 2], dilations=[1, 1]),
               n("MaxPool", ["x"], ["m"], kernel_shape=[2, 2], strides=[2, 2])],
              [("x", x)], [("a", avg.astype(np.float32)), ("m", mx)], 22)

    # Einsum (unchanged since version 12) in an opset-21 model: attention-style batched
    # contractions, a diagonal, uppercase subscripts beside "...", three operands, broadcasting,
    # an outer product, the implicit form, a full reduction and int64.
    q, k, v = rand(2, 3, 5, 4), rand(2, 3, 6, 4), rand(2, 3, 6, 4)
    sq, xs = rand(2, 4, 4), rand(3, 2, 5, 4)
    a, b, c = rand(4, 5), rand(5, 6), rand(6, 3)
    u, w = rand(5), rand(1, 3, 5)
    i1, i2 = RNG.integers(-5, 5, (3, 4)).astype(np.int64), RNG.integers(-5, 5, (4, 2)).astype(np.int64)
    cases = [("scores", "bhid,bhjd->bhij", [q, k]), ("context", "bhij,bhjd->bihd",
                                                      [np.einsum("bhid,bhjd->bhij", q, k), v]),
             ("diag", "bii->bi", [sq]), ("trace", "bii", [sq]),
             ("upper", "...Aj,jB->...AB", [xs, rand(4, 3)]), ("chain", "ij,jk,kl->il", [a, b, c]),
             ("bcast", "bij,j->bi", [w, u]), ("outer", "i,j", [u, rand(3)]),
             ("total", "ijk->", [xs[0]]), ("int_mm", "ij,jk->ik", [i1, i2])]
    for name, eq, ops in cases:
        names = ["x%d" % i for i in range(len(ops))]
        y = np.einsum(eq, *[o.astype(np.float64) if o.dtype == np.float32 else o for o in ops])
        y = np.asarray(y).astype(ops[0].dtype)
        save_test(root, f"einsum_{name}_opset21", [n("Einsum", names, ["y"], equation=eq)],
                  list(zip(names, ops)), [("y", y)], 21, ir_version=10)

    with open(os.path.join(root, "stamp"), "w") as f:
        f.write("ok\n")


if __name__ == "__main__":
    main(sys.argv[1])
