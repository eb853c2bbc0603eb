#!/usr/bin/python3
"""Generates the dynamic-shape and transformer-family end-to-end models.

Usage: /usr/bin/python3 tests/models/generate_transformers.py OUT_DIR [--only NAME ...] [--force]

For each model NAME this writes, under OUT_DIR:
  NAME.onnx                        torch.onnx.export with dynamic_axes (symbolic ONNX dims)
  NAME/test_data_set_K/input_0.pb  inputs at several sizes inside the dynamic range (ONNX layout)
  NAME/test_data_set_K/output_0.pb PyTorch's outputs for them (eval mode, float32)
  NAME/bad_K/input_0.pb            inputs outside the range (ptec run must reject them)
  NAME.dynamic                     the --dynamic arguments ptec export takes, one per line
  NAME.stamp                       hash of this script; a model whose stamp matches is skipped

Models (seeded random weights, small so that the suite stays fast):
  dyn_seq_attn      a pre-norm attention block on x[1, seq, 16], seq in [2, 32]: position table
                    sliced to seq (Shape/Gather/Slice), two heads split and merged with Reshape
                    chains built from Shape (the seq symbol), batched MatMul, Softmax, LayerNorm
  resnet18_dynbatch torchvision ResNet-18 with a dynamic batch axis in [1, 4], run at 1 and 3
Needs Debian's /usr/bin/python3 (torch 1.13, torchvision, onnx, numpy); no network.
"""

import argparse
import hashlib
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn as nn

SEED = 20240607


def script_hash():
    with open(os.path.abspath(__file__), "rb") as f:
        h = hashlib.sha256(f.read())
    h.update(("torch=%s onnx=%s" % (torch.__version__, onnx.__version__)).encode())
    return h.hexdigest()


class DynSeqAttn(nn.Module):
    def __init__(self, d=16, heads=2, max_len=32):
        super().__init__()
        self.d, self.heads = d, heads
        self.pos = nn.Parameter(torch.randn(1, max_len, d) * 0.1)
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.proj = nn.Linear(d, d)
        self.ln = nn.LayerNorm(d)

    def forward(self, x):  # x: [1, seq, d]
        s = x.shape[1]
        h = x + self.pos[:, :s]
        hd = self.d // self.heads
        q = self.q(h).reshape(1, s, self.heads, hd).transpose(1, 2)
        k = self.k(h).reshape(1, s, self.heads, hd).transpose(1, 2)
        v = self.v(h).reshape(1, s, self.heads, hd).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-1, -2) / (hd ** 0.5), dim=-1)
        o = (att @ v).transpose(1, 2).reshape(1, s, self.d)
        return self.ln(self.proj(o) + h)


def build_dyn_seq_attn(gen):
    torch.manual_seed(SEED)
    model = DynSeqAttn().eval()
    example = torch.randn(1, 8, 16, generator=gen)
    good = [torch.randn(1, n, 16, generator=gen) for n in (5, 17, 32)]
    bad = [torch.randn(1, n, 16, generator=gen) for n in (1, 40)]
    dynamic = {"x": {1: "seq"}}
    return model, example, ["x"], dynamic, good, bad, ["x:1=seq:2..32"], 17


def build_resnet18_dynbatch(gen):
    import torchvision.models as tvm

    torch.manual_seed(SEED)
    model = tvm.resnet18(num_classes=10).eval()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
    example = torch.randn(1, 3, 64, 64, generator=gen)
    good = [torch.randn(n, 3, 64, 64, generator=gen) for n in (1, 3)]
    bad = [torch.randn(5, 3, 64, 64, generator=gen)]
    dynamic = {"input": {0: "batch"}}
    return model, example, ["input"], dynamic, good, bad, ["input:0=batch:1..4"], 13


MODELS = {
    "dyn_seq_attn": build_dyn_seq_attn,
    "resnet18_dynbatch": build_resnet18_dynbatch,
}


def save_tensor(array, path):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(array)).SerializeToString())


def generate(name, out_dir, stamp):
    gen = torch.Generator().manual_seed(SEED)
    model, example, input_names, dynamic, good, bad, dyn_args, opset = MODELS[name](gen)
    onnx_path = os.path.join(out_dir, name + ".onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), onnx_path, opset_version=opset,
                          input_names=input_names, output_names=["y"],
                          dynamic_axes=dict(dynamic, y={}), do_constant_folding=True)
    onnx.checker.check_model(onnx.load(onnx_path))
    with torch.no_grad():
        for i, x in enumerate(good):
            d = os.path.join(out_dir, name, "test_data_set_%d" % i)
            os.makedirs(d, exist_ok=True)
            save_tensor(x.numpy(), os.path.join(d, "input_0.pb"))
            save_tensor(model(x).numpy(), os.path.join(d, "output_0.pb"))
        for i, x in enumerate(bad):
            d = os.path.join(out_dir, name, "bad_%d" % i)
            os.makedirs(d, exist_ok=True)
            save_tensor(x.numpy(), os.path.join(d, "input_0.pb"))
    with open(os.path.join(out_dir, name + ".dynamic"), "w") as f:
        f.write("\n".join(dyn_args) + "\n")
    with open(os.path.join(out_dir, name + ".stamp"), "w") as f:
        f.write(stamp)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out_dir")
    p.add_argument("--only", nargs="*")
    p.add_argument("--force", action="store_true")
    a = p.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    stamp = script_hash()
    for name in a.only or MODELS:
        stamp_path = os.path.join(a.out_dir, name + ".stamp")
        if not a.force and os.path.exists(stamp_path) and open(stamp_path).read() == stamp:
            continue
        generate(name, a.out_dir, stamp)
        print("generated", name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
