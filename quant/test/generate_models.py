#!/usr/bin/python3
"""Models for the quantization accuracy tests: ONNX files with seeded random weights.

Usage: /usr/bin/python3 quant/test/generate_models.py OUT_DIR [--only NAME ...]

Writes OUT_DIR/NAME.onnx (opset 13, eval mode: batch norms folded by the exporter) for
  resnet18_64      torchvision ResNet-18, 1x3x64x64 (the default test: fast on portable kernels)
  mobilenet_v2_96  torchvision MobileNet-V2, 1x3x96x96
  resnet18         torchvision ResNet-18, 1x3x224x224 (nightly)
  mobilenet_v2     torchvision MobileNet-V2, 1x3x224x224 (nightly)
  mlp              3-layer MLP 256-512-512-128 with GELU, input 8x256 (int4 weight-only test)
  encoder          nn.TransformerEncoder, 2 layers, d=128, 4 heads, seq 32 (int4 weight-only)
and OUT_DIR/calibration/set_K/input_0.pb (K = 0..3, onnx.TensorProto, the layout ptec export
--calibration reads) for mobilenet_v2_96. Random weights come from torch.manual_seed (no
network); BN statistics are randomized so that folding them matters. A model whose file exists
is kept (delete it to regenerate). Needs Debian's /usr/bin/python3 with torch, torchvision, onnx.
"""

import argparse
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn as nn

SEED = 20261130


def randomize_batchnorm(model, gen):
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
                m.weight.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


def torchvision_model(name, size):
    import torchvision.models as tvm

    def build(gen):
        model = {"resnet18": tvm.resnet18, "mobilenet_v2": tvm.mobilenet_v2}[name](weights=None)
        randomize_batchnorm(model, gen)
        return model, torch.randn(1, 3, size, size, generator=gen)

    return build


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(256, 512), nn.GELU(), nn.Linear(512, 512), nn.GELU(),
                                 nn.Linear(512, 128))

    def forward(self, x):
        return self.net(x)


def build_mlp(gen):
    return Mlp(), torch.randn(8, 256, generator=gen)


def build_encoder(gen):
    layer = nn.TransformerEncoderLayer(128, 4, 256, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    return model, torch.randn(1, 32, 128, generator=gen)


MODELS = {
    "resnet18_64": torchvision_model("resnet18", 64),
    "mobilenet_v2_96": torchvision_model("mobilenet_v2", 96),
    "resnet18": torchvision_model("resnet18", 224),
    "mobilenet_v2": torchvision_model("mobilenet_v2", 224),
    "mlp": build_mlp,
    "encoder": build_encoder,
}


def generate(name, out_dir):
    path = os.path.join(out_dir, name + ".onnx")
    if os.path.exists(path):
        return
    gen = torch.Generator().manual_seed(SEED + sum(ord(c) for c in name))
    torch.manual_seed(SEED + len(name))
    model, example = MODELS[name](gen)
    model.eval()
    tmp = path + ".tmp"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, tmp, opset_version=13, do_constant_folding=True,
                          input_names=["x"], output_names=["y"])
    onnx.checker.check_model(tmp)
    os.replace(tmp, path)
    print("wrote", path)


def write_calibration(out_dir):
    base = os.path.join(out_dir, "calibration")
    rng = np.random.default_rng(SEED)
    for k in range(4):
        d = os.path.join(base, "set_%d" % k)
        os.makedirs(d, exist_ok=True)
        x = rng.standard_normal((1, 3, 96, 96)).astype(np.float32)
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, "x").SerializeToString())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--only", nargs="+", choices=sorted(MODELS))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name in args.only or MODELS:
        generate(name, args.out_dir)
    write_calibration(args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
