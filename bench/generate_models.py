#!/usr/bin/python3
"""Benchmark models: real architectures at their usual sizes, seeded random weights, opset 13.

Usage: /usr/bin/python3 bench/generate_models.py [OUT_DIR] [--only NAME ...]

Writes OUT_DIR/NAME.onnx, OUT_DIR/NAME/test_data_set_0/{input_K,output_K}.pb (PyTorch's
outputs as the reference), OUT_DIR/NAME/inputs.json (the inputs as raw files) and
OUT_DIR/NAME/info.json (GFLOP of one run: 2 x multiply-adds of convolutions, linear layers and
attention) for: resnet18, mobilenet_v2, squeezenet1_1, efficientnet_b0 (1x3x224x224),
vit_tiny (ViT-Ti/16: d=192, 12 layers, 3 heads, 224x224), transformer_encoder (nn.TransformerEncoder,
4 layers, d=256, 4 heads, seq 128) and bert_tiny (2 layers, d=128, 2 heads, seq 128, int64 ids and
an attention mask). With --only, also the wider set of EXTRA_MODELS (torchvision classifiers,
segmentation and video models, a DCGAN generator, an LSTM, a Tiny-YOLO-like detector). Needs
Debian's /usr/bin/python3 (torch, torchvision, onnx). Existing files are kept (delete OUT_DIR to
regenerate).
"""

import argparse
import json
import os
import warnings

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn as nn
import torchvision

SEED = 1234


class VitTiny(nn.Module):
    def __init__(self, img=224, patch=16, d=192, depth=12, heads=3, classes=1000):
        super().__init__()
        self.patch = nn.Conv2d(3, d, patch, patch)
        n = (img // patch) ** 2
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


class Encoder(nn.Module):
    def __init__(self, d=256, heads=4, layers=4):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


class BertTiny(nn.Module):
    def __init__(self, vocab=30522, d=128, heads=2, layers=2, max_len=512):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        self.norm = nn.LayerNorm(d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu",
                                           batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.pool = nn.Linear(d, d)

    def forward(self, ids, mask):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.norm(self.tok(ids) + self.pos(pos))
        x = self.enc(x, src_key_padding_mask=mask == 0)
        return torch.tanh(self.pool(x[:, 0]))


def reinitialized(model):
    reinitialize(model)
    return model


def image():
    return (torch.randn(1, 3, 224, 224),)


MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(), image),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), image),
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(), image),
    "efficientnet_b0": (lambda: torchvision.models.efficientnet_b0(), image),
    "vit_tiny": (lambda: reinitialized(VitTiny()), image),
    "transformer_encoder": (lambda: reinitialized(Encoder()), lambda: (torch.randn(1, 128, 256),)),
    "bert_tiny": (lambda: reinitialized(BertTiny()), lambda: (torch.randint(0, 30522, (1, 128)),
                                     torch.cat([torch.ones(1, 100, dtype=torch.int64),
                                                torch.zeros(1, 28, dtype=torch.int64)], 1))),
}


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return a dict: keep its "out"."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class Dcgan(nn.Module):
    """DCGAN's generator (transposed 4x4 convolutions, batch norm, ReLU): 64 -> 3x64x64."""

    def __init__(self, nz=64, ngf=32):
        super().__init__()
        layers, channels = [], [nz, ngf * 8, ngf * 4, ngf * 2, ngf]
        for i in range(4):
            layers += [nn.ConvTranspose2d(channels[i], channels[i + 1], 4, 1 if i == 0 else 2,
                                          0 if i == 0 else 1, bias=False),
                       nn.BatchNorm2d(channels[i + 1]), nn.ReLU()]
        self.net = nn.Sequential(*layers, nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False),
                                 nn.Tanh())

    def forward(self, z):
        return self.net(z)


class Lstm(nn.Module):
    """A 2-layer LSTM (80 features -> 256, batch-first) and a per-step classifier: speech-like."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(80, 256, 2, batch_first=True)
        self.fc = nn.Linear(256, 30)

    def forward(self, x):
        return self.fc(self.lstm(x)[0])


class TinyYolo(nn.Module):
    """A Tiny-YOLO-like detector body: conv + batch norm + LeakyReLU(0.1) and max pools."""

    def __init__(self):
        super().__init__()
        layers, channels = [], [3, 16, 32, 64, 128, 256]

        def block(i, o, k=3):
            return [nn.Conv2d(i, o, k, 1, k // 2, bias=False), nn.BatchNorm2d(o), nn.LeakyReLU(0.1)]

        for i in range(5):
            layers += block(channels[i], channels[i + 1]) + [nn.MaxPool2d(2, 2)]
        layers += block(256, 512) + block(512, 256, 1) + block(256, 512)
        self.body = nn.Sequential(*layers)
        self.head = nn.Conv2d(512, 255, 1)

    def forward(self, x):
        return self.head(self.body(x))


def segmentation(ctor):
    return lambda: SegmentationOut(ctor(weights=None, weights_backbone=None))


def tv(ctor, **kwargs):
    return lambda: ctor(weights=None, **kwargs)


# Models outside the benchmark set, for a wider comparison (bench/compare.sh --models ...):
# generated only when named.
EXTRA_MODELS = {
    "googlenet": (tv(torchvision.models.googlenet, aux_logits=False, init_weights=True), image),
    "inception_v3": (tv(torchvision.models.inception_v3, aux_logits=False, init_weights=True),
                     lambda: (torch.randn(1, 3, 299, 299),)),
    "densenet121": (tv(torchvision.models.densenet121), image),
    "resnext50": (tv(torchvision.models.resnext50_32x4d), image),
    "mobilenet_v3_large": (tv(torchvision.models.mobilenet_v3_large), image),
    "mobilenet_v3_small": (tv(torchvision.models.mobilenet_v3_small), image),
    "mnasnet1_0": (tv(torchvision.models.mnasnet1_0), image),
    "shufflenet_v2": (tv(torchvision.models.shufflenet_v2_x1_0), image),
    "regnet_y_400mf": (tv(torchvision.models.regnet_y_400mf), image),
    "efficientnet_v2_s": (tv(torchvision.models.efficientnet_v2_s), image),
    "convnext_tiny": (tv(torchvision.models.convnext_tiny), image),
    "swin_t": (tv(torchvision.models.swin_t), image),
    "deeplabv3_mobilenet_v3": (
        segmentation(torchvision.models.segmentation.deeplabv3_mobilenet_v3_large), image),
    "lraspp_mobilenet_v3": (
        segmentation(torchvision.models.segmentation.lraspp_mobilenet_v3_large), image),
    "r3d_18": (tv(torchvision.models.video.r3d_18), lambda: (torch.randn(1, 3, 8, 112, 112),)),
    "mc3_18": (tv(torchvision.models.video.mc3_18), lambda: (torch.randn(1, 3, 8, 112, 112),)),
    "r2plus1d_18": (tv(torchvision.models.video.r2plus1d_18),
                    lambda: (torch.randn(1, 3, 8, 112, 112),)),
    "dcgan": (lambda: Dcgan(), lambda: (torch.randn(1, 64, 1, 1),)),
    "lstm": (lambda: Lstm(), lambda: (torch.randn(1, 100, 80),)),
    "tiny_yolo": (lambda: TinyYolo(), lambda: (torch.randn(1, 3, 416, 416),)),
}


def reinitialize(model):
    """nn.TransformerEncoder deep-copies one layer, so every layer would hold the same weights
    (and the ONNX exporter would store them once): give each parameter its own values."""
    for p in model.parameters():
        with torch.no_grad():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
            else:
                p.normal_(0, 0.02)


def randomize_batchnorm(model):
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            with torch.no_grad():
                m.running_mean.normal_(0, 0.1)
                m.running_var.uniform_(0.5, 1.5)


def count_gflop(model, inputs):
    """2 x multiply-adds of the convolutions, linear layers and attention products (element-wise
    work is not counted), measured with forward hooks on one run."""
    macs = [0]

    def conv_hook(m, inp, out):
        macs[0] += out.numel() * (m.in_channels // m.groups) * int(np.prod(m.kernel_size))

    def transposed_hook(m, inp, out):  # every input element meets every tap of its group's outputs
        macs[0] += inp[0].numel() * (m.out_channels // m.groups) * int(np.prod(m.kernel_size))

    def lstm_hook(m, inp, out):  # four gates: x W^T and h R^T per layer and step
        steps = inp[0].shape[0] * inp[0].shape[1]
        size = m.input_size
        for _ in range(m.num_layers):
            macs[0] += steps * 4 * m.hidden_size * (size + m.hidden_size)
            size = m.hidden_size

    def linear_hook(m, inp, out):
        macs[0] += out.numel() * m.in_features

    def attention_hook(m, inp, out):
        q = inp[0]  # batch_first: [batch, seq, d]
        macs[0] += 2 * q.shape[0] * q.shape[1] * q.shape[1] * m.embed_dim
        # the in/out projections run as functional calls inside MultiheadAttention
        macs[0] += q.shape[0] * q.shape[1] * m.embed_dim * 4 * m.embed_dim

    hooks = []
    for m in model.modules():
        if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
            hooks.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, (nn.ConvTranspose1d, nn.ConvTranspose2d)):
            hooks.append(m.register_forward_hook(transposed_hook))
        elif isinstance(m, nn.LSTM):
            hooks.append(m.register_forward_hook(lstm_hook))
        elif isinstance(m, nn.Linear) and not isinstance(m, nn.modules.linear.NonDynamicallyQuantizableLinear):
            hooks.append(m.register_forward_hook(linear_hook))
        elif isinstance(m, nn.MultiheadAttention):
            hooks.append(m.register_forward_hook(attention_hook))
    model(*inputs)  # with autograd on, so nn.TransformerEncoderLayer skips its fused fast path
    for h in hooks:
        h.remove()
    return 2.0 * macs[0] / 1e9


def generate(name, out_dir):
    path = os.path.join(out_dir, name + ".onnx")
    data = os.path.join(out_dir, name, "test_data_set_0")
    if os.path.exists(path) and os.path.exists(os.path.join(out_dir, name, "info.json")):
        return
    torch.manual_seed(SEED)
    build, make_inputs = MODELS[name] if name in MODELS else EXTRA_MODELS[name]
    model = build().eval()
    randomize_batchnorm(model)
    inputs = make_inputs()
    with torch.no_grad():
        outputs = model(*inputs)
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)
    names = ["input_%d" % i for i in range(len(inputs))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, path + ".tmp", opset_version=13, input_names=names,
                          do_constant_folding=True)
    os.replace(path + ".tmp", path)
    os.makedirs(data, exist_ok=True)
    for i, t in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(t.numpy()), os.path.join(data, "input_%d.pb" % i))
    for i, t in enumerate(outputs):
        onnx.save_tensor(numpy_helper.from_array(t.numpy()), os.path.join(data, "output_%d.pb" % i))
    # The same inputs as raw little-endian files plus a manifest, for bench/ort_time.mjs.
    manifest = []
    for i, t in enumerate(inputs):
        raw = os.path.join(out_dir, name, "input_%d.bin" % i)
        t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tofile(raw)
        manifest.append({"name": names[i], "dtype": str(t.numpy().dtype), "shape": list(t.shape),
                         "file": os.path.abspath(raw)})
    with open(os.path.join(out_dir, name, "inputs.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(out_dir, name, "info.json"), "w") as f:
        json.dump({"gflop": count_gflop(model, inputs)}, f)
    print("bench model %s: %s" % (name, path))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out_dir", nargs="?", default="build/bench-models")
    p.add_argument("--only", nargs="*", choices=sorted(list(MODELS) + list(EXTRA_MODELS)),
                   help="these models (default: the benchmark set; %s on request)" %
                   ", ".join(EXTRA_MODELS))
    args = p.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    for name in args.only or MODELS:
        generate(name, args.out_dir)


if __name__ == "__main__":
    main()
