#!/usr/bin/python3
"""Writes the reference cases the portable kernel tests compare against (kernels/test/data/*.bin).

Run with Debian's interpreter (torch 1.13, numpy): /usr/bin/python3 kernels/test/gen_reference.py
Every case is: an op name as the .pte spells it ("aten::add.out"), the out-variant schema's
arguments in schema order (out tensors hold the expected values), and the comparison tolerance
for floating outputs (|actual - expected| <= atol + rtol * |expected|; integral outputs compare
exactly). Inputs are seeded random tensors with small, odd shapes.

File format (little-endian): "PTKT", u32 version=1, u32 case count, then per case
  str name, str op, f64 rtol, f64 atol, u32 argc, argc x (u8 kind, payload)
  str = u32 length + bytes; tensor = i8 dtype, u8 rank, i32 sizes[rank], raw element bytes.
Kinds: 0 None, 1 Int(i64), 2 Double(f64), 3 Bool(u8), 4 String(str), 5 Tensor, 6 IntList(u32 n,
i64[n]), 7 DoubleList(u32 n, f64[n]), 8 BoolList(u32 n, u8[n]), 9 TensorList(u32 n, tensors),
10 out Tensor (expected), 11 out TensorList (expected).
"""

import os
import struct
import sys

import torch

F = torch.float32
D = torch.float64
DTYPES = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
          torch.float32: 6, torch.float64: 7, torch.bool: 11}

# Default tolerances for fp32 (fp64 uses the same; it only ever passes more easily).
RTOL, ATOL = 1e-5, 1e-6
# Ops that accumulate many products (convolution, matmul, norms) in a different order than ATen.
ACC_RTOL, ACC_ATOL = 1e-4, 1e-5


class Out:
    """An out tensor: the kernel's output, compared with `t`."""

    def __init__(self, t):
        self.t = t


class OutList:
    """A Tensor[] out argument (split_with_sizes_copy)."""

    def __init__(self, ts):
        self.ts = list(ts)


class Bools:
    def __init__(self, v):
        self.v = list(v)


class Doubles:
    def __init__(self, v):
        self.v = [float(x) for x in v]


def _str(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def _tensor(t):
    t = t.detach().contiguous()
    out = struct.pack("<bB", DTYPES[t.dtype], t.dim())
    out += b"".join(struct.pack("<i", s) for s in t.shape)
    return out + t.numpy().tobytes()


def _arg(a):
    if a is None:
        return struct.pack("<B", 0)
    if isinstance(a, bool):
        return struct.pack("<BB", 3, a)
    if isinstance(a, int):
        return struct.pack("<Bq", 1, a)
    if isinstance(a, float):
        return struct.pack("<Bd", 2, a)
    if isinstance(a, str):
        return struct.pack("<B", 4) + _str(a)
    if isinstance(a, torch.Tensor):
        return struct.pack("<B", 5) + _tensor(a)
    if isinstance(a, Out):
        return struct.pack("<B", 10) + _tensor(a.t)
    if isinstance(a, OutList):
        return struct.pack("<BI", 11, len(a.ts)) + b"".join(_tensor(t) for t in a.ts)
    if isinstance(a, Bools):
        return struct.pack("<BI", 8, len(a.v)) + b"".join(struct.pack("<B", x) for x in a.v)
    if isinstance(a, Doubles):
        return struct.pack("<BI", 7, len(a.v)) + b"".join(struct.pack("<d", x) for x in a.v)
    if isinstance(a, (list, tuple)):
        if all(isinstance(x, torch.Tensor) for x in a) and len(a) > 0:
            return struct.pack("<BI", 9, len(a)) + b"".join(_tensor(t) for t in a)
        assert all(isinstance(x, int) and not isinstance(x, bool) for x in a), a
        return struct.pack("<BI", 6, len(a)) + b"".join(struct.pack("<q", x) for x in a)
    raise TypeError(f"unsupported argument {a!r}")


class Cases:
    def __init__(self):
        self.cases = []
        self.names = set()

    def add(self, name, op, args, rtol=RTOL, atol=ATOL):
        name = "".join(c if c.isalnum() else "_" for c in name)
        assert name not in self.names, name
        self.names.add(name)
        blob = _str(name) + _str(op) + struct.pack("<ddI", rtol, atol, len(args))
        self.cases.append(blob + b"".join(_arg(a) for a in args))

    def write(self, path):
        with open(path, "wb") as f:
            f.write(b"PTKT" + struct.pack("<II", 1, len(self.cases)))
            for c in self.cases:
                f.write(c)


def rnd(*shape, dtype=F):
    shape = tuple(shape)
    if dtype == torch.bool:
        return torch.rand(shape) > 0.5
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=dtype)
    lo = 0 if dtype == torch.uint8 else -5
    return torch.randint(lo, 6, shape, dtype=dtype)


def sname(t):
    return "x".join(str(s) for s in t.shape) or "scalar"


def dname(dt):
    return str(dt).replace("torch.", "")


# ---------------------------------------------------------------- element-wise arithmetic
def elementwise(c):
    shapes = [((2, 3, 4), (2, 3, 4)), ((2, 1, 4), (1, 3, 1)), ((3,), (2, 3)), ((2, 3), (1,)),
              ((), (2, 3)), ((4, 1), ()), ((0, 3), (1, 3)), ((1, 1), (1, 1)), ((), ()),
              ((2, 1, 3, 1), (5, 1, 4))]
    for op, fn in [("add", torch.add), ("sub", torch.sub), ("mul", torch.mul),
                   ("div", torch.div)]:
        opname = f"aten::{op}.out"
        for sa, sb in shapes:
            a, b = rnd(*sa), rnd(*sb)
            if op == "div":
                b = b.abs() + 0.5
            args = [a, b]
            if op in ("add", "sub"):
                args.append(1)
            c.add(f"{op}_f32_{sname(a)}_{sname(b)}", opname, args + [Out(fn(a, b))])
        # dtypes and promotion
        combos = [(torch.int32, torch.int32), (torch.uint8, torch.int8), (torch.int64, F),
                  (torch.int16, torch.uint8), (D, F), (torch.bool, torch.int32)]
        if op in ("add", "mul"):
            combos.append((torch.bool, torch.bool))
        for da, db in combos:
            if op == "sub" and torch.bool in (da, db):
                continue
            a, b = rnd(2, 3, dtype=da), rnd(3, dtype=db)
            if op == "div" and not db.is_floating_point and db != torch.bool:
                b = torch.where(b == 0, torch.ones_like(b), b)
            if op == "div" and db == torch.bool:
                b = torch.ones_like(b)
            args = [a, b] + ([1] if op in ("add", "sub") else [])
            c.add(f"{op}_{dname(da)}_{dname(db)}", opname, args + [Out(fn(a, b))])
        # 0-dim tensors promote only across categories.
        a, b = rnd(2, 3, dtype=torch.int32), torch.tensor(3, dtype=torch.int64)
        c.add(f"{op}_int32_zerodim_int64", opname,
              [a, b] + ([1] if op in ("add", "sub") else []) + [Out(fn(a, b))])
        a, b = rnd(2, 3, dtype=F), torch.tensor(1.5, dtype=D)
        c.add(f"{op}_f32_zerodim_f64", opname,
              [a, b] + ([1] if op in ("add", "sub") else []) + [Out(fn(a, b))])
        # out of a wider dtype than the result
        a, b = rnd(2, 3), rnd(2, 3)
        if op == "div":
            b = b.abs() + 0.5
        c.add(f"{op}_f32_into_f64", opname,
              [a, b] + ([1] if op in ("add", "sub") else []) + [Out(fn(a, b).to(D))])
    # alpha
    a, b = rnd(3, 4), rnd(4)
    c.add("add_alpha_f32", "aten::add.out", [a, b, 2.5, Out(torch.add(a, b, alpha=2.5))])
    c.add("sub_alpha_f32", "aten::sub.out", [a, b, -0.5, Out(torch.sub(a, b, alpha=-0.5))])
    a, b = rnd(3, 4, dtype=torch.int64), rnd(4, dtype=torch.int64)
    c.add("add_alpha_int64", "aten::add.out", [a, b, 3, Out(torch.add(a, b, alpha=3))])

    # Scalar variants: (op, fn(tensor, scalar, alpha))
    scalar_ops = [
        ("add.Scalar_out", True, lambda t, s, al: torch.add(t, s, alpha=al)),
        ("sub.Scalar_out", True, lambda t, s, al: torch.sub(t, s, alpha=al)),
        ("rsub.Scalar_out", True, lambda t, s, al: torch.rsub(t, s, alpha=al)),
        ("mul.Scalar_out", False, lambda t, s, al: torch.mul(t, s)),
        ("div.Scalar_out", False, lambda t, s, al: torch.div(t, s)),
    ]
    for op, has_alpha, fn in scalar_ops:
        base = op.split(".")[0]
        for dt, s, al in [(F, 2.5, 1), (F, 3, 2), (D, -1.25, 1), (torch.int32, 3, 2),
                          (torch.int32, 2.5, 1), (torch.uint8, 2, 1), (torch.int64, 7, 1),
                          (torch.bool, 2, 1)]:
            if base in ("sub", "rsub") and dt == torch.bool:
                continue
            t = rnd(2, 3, dtype=dt)
            expected = fn(t, s, al)
            args = [t, s] + ([al] if has_alpha else []) + [Out(expected)]
            c.add(f"{base}_scalar_{dname(dt)}_{str(s).replace('.', 'p').replace('-', 'm')}",
                  f"aten::{op}", args)
        t = torch.randn(())
        c.add(f"{base}_scalar_zerodim", f"aten::{op}",
              [t, 1.5] + ([1] if has_alpha else []) + [Out(fn(t, 1.5, 1))])


# ---------------------------------------------------------------- activations / unary
def activation(c):
    for shape in [(2, 3, 4), (1,), (), (0, 2)]:
        x = rnd(*shape)
        c.add(f"relu_{sname(x)}", "aten::relu.out", [x, Out(torch.relu(x))])
        c.add(f"sigmoid_{sname(x)}", "aten::sigmoid.out", [x, Out(torch.sigmoid(x))])
    for dt in [torch.int32, torch.int64, torch.int8, D]:
        x = rnd(3, 4, dtype=dt)
        c.add(f"relu_{dname(dt)}", "aten::relu.out", [x, Out(torch.relu(x))])
    x = rnd(3, 4, dtype=torch.int32)
    c.add("sigmoid_int32", "aten::sigmoid.out", [x, Out(torch.sigmoid(x))])
    x = rnd(3, 4, dtype=D)
    c.add("sigmoid_f64", "aten::sigmoid.out", [x, Out(torch.sigmoid(x))])
    x = torch.tensor([-100.0, -20.0, 0.0, 20.0, 100.0, float("nan")])
    c.add("sigmoid_extremes", "aten::sigmoid.out", [x, Out(torch.sigmoid(x))])

    x = rnd(3, 5) * 3
    x[0, 0] = float("nan")
    for lo, hi in [(-1.0, 1.0), (0.0, 6.0), (None, 0.5), (-0.5, None), (2.0, 1.0), (0, 6)]:
        name = f"clamp_{lo}_{hi}".replace(".", "p").replace("-", "m")
        c.add(name, "aten::clamp.out", [x, lo, hi, Out(torch.clamp(x, lo, hi))])
    xi = rnd(3, 5, dtype=torch.int32)
    c.add("clamp_int32", "aten::clamp.out", [xi, -2, 3, Out(torch.clamp(xi, -2, 3))])
    c.add("clamp_int32_float_bounds", "aten::clamp.out",
          [xi, -1.5, 2.5, Out(torch.clamp(xi, -1.5, 2.5))])
    xu = rnd(3, 5, dtype=torch.uint8)
    c.add("clamp_uint8", "aten::clamp.out", [xu, 1, 4, Out(torch.clamp(xu, 1, 4))])
    for lo, hi in [(-1.0, 1.0), (0.0, 6.0), (0, 6)]:
        name = f"hardtanh_{lo}_{hi}".replace(".", "p").replace("-", "m")
        c.add(name, "aten::hardtanh.out",
              [x, lo, hi, Out(torch.nn.functional.hardtanh(x, lo, hi))])
    xd = rnd(2, 7, dtype=D) * 2
    c.add("hardtanh_f64", "aten::hardtanh.out",
          [xd, -1, 1, Out(torch.nn.functional.hardtanh(xd, -1.0, 1.0))])
    xl = rnd(2, 3, dtype=torch.int64)
    c.add("hardtanh_int64", "aten::hardtanh.out",
          [xl, -2, 2, Out(torch.nn.functional.hardtanh(xl, -2, 2))])

if __name__ == "__main__":
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    os.makedirs(out_dir, exist_ok=True)
    families = {"elementwise": elementwise, "activation": activation}
    only = sys.argv[1:]
    total = 0
    for name, fn in families.items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        cs = Cases()
        fn(cs)
        path = os.path.join(out_dir, name + ".bin")
        cs.write(path)
        total += os.path.getsize(path)
        print(f"{name}: {len(cs.cases)} cases, {os.path.getsize(path)} bytes")
    print(f"total {total} bytes")
