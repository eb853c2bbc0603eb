#!/usr/bin/python3
"""Generates the end-to-end test models: ONNX files with seeded random weights plus reference I/O.

Usage: /usr/bin/python3 tests/models/generate.py [OUT_DIR] [--only NAME ...] [--force] [--list]

For each model NAME this writes, under OUT_DIR (default build/models):
  NAME.onnx                              opset 13, torch.onnx.export(do_constant_folding=True)
  NAME/test_data_set_0/input_0.pb        onnx.TensorProto (ONNX backend-test layout)
  NAME/test_data_set_0/output_K.pb       reference outputs from PyTorch (eval mode, float32)
  NAME.stamp                             hash of this script; a model whose stamp matches is skipped

Models are exported with training=TrainingMode.PRESERVE on an eval-mode module, so BatchNormalization
stays a node in the ONNX graph (EVAL mode would let the exporter fold it into the convolutions) and
ptec's own BN folding is exercised. BN running statistics and affine parameters are random and
non-trivial. Needs Debian's /usr/bin/python3 (torch, torchvision, onnx, numpy). No network: all
weights come from torch.manual_seed + random init.
"""

import argparse
import hashlib
import os
import sys
import time
import warnings

import numpy as np
import onnx
from onnx import helper, numpy_helper
import torch
import torch.nn as nn
import torch.nn.functional as F

OPSET = 13
SEED = 20240601


def script_hash():
    with open(os.path.abspath(__file__), "rb") as f:
        h = hashlib.sha256(f.read())
    h.update(("torch=%s onnx=%s" % (torch.__version__, onnx.__version__)).encode())
    return h.hexdigest()


def randomize_batchnorm(model, gen):
    """Non-trivial BN statistics and affine parameters, so that folding BN really changes numbers."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) + 0.5)  # U(0.5, 1.5)
                if m.affine:
                    m.weight.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)  # U(0.75, 1.25)
                    m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


# ---------------------------------------------------------------------------------------------
# Model definitions: each returns (module, example_input).


class TinyCnn(nn.Module):
    """conv-bn-relu-maxpool-conv(groups)-hardswish-avgpool(ceil, no pad count)-flatten-linear-softmax."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, groups=4)
        self.act2 = nn.Hardswish()
        # 16x16 -> 9x9 with ceil_mode; the last window hangs over the padding.
        self.pool2 = nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
        self.fc = nn.Linear(16 * 9 * 9, 10)

    def forward(self, x):
        x = self.pool1(F.relu(self.bn1(self.conv1(x))))
        x = self.pool2(self.act2(self.conv2(x)))
        x = torch.flatten(x, 1)
        return F.softmax(self.fc(x), dim=1)


class MiniOps(nn.Module):
    """Covers Sub/Div broadcasting, Pad, Split, Sigmoid, HardSigmoid, Concat, Slice, Transpose,
    Reshape, MatMul, Clip, ReduceMean, Gemm(transB=1) and GlobalAveragePool. Dropout and Identity are
    inserted into the exported graph afterwards (see add_dropout_identity); both are no-ops at
    inference, so the PyTorch reference stays exact. Two outputs."""

    def __init__(self, gen):
        super().__init__()
        self.register_buffer("mean", torch.randn(1, 4, 1, 1, generator=gen) * 0.5)
        self.register_buffer("std", torch.rand(1, 4, 1, 1, generator=gen) + 0.5)
        self.w = nn.Parameter(torch.randn(20, 6, generator=gen) * 0.3)
        self.fc = nn.Linear(48, 10)
        self.gap = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):  # x: 1x4x8x8
        y = (x - self.mean) / self.std  # Sub, Div with [1,4,1,1] broadcasting
        p = F.pad(y, (1, 1, 2, 0))  # Pad -> 1x4x10x10
        a, b = torch.split(p, [1, 3], dim=1)  # Split
        c = torch.cat([torch.sigmoid(a), F.hardsigmoid(b * 2.0)], dim=1)  # Sigmoid, HardSigmoid, Concat
        d = c[:, :, 1:9, ::2]  # Slice -> 1x4x8x5
        e = d.permute(0, 2, 1, 3)  # Transpose -> 1x8x4x5
        f = e.reshape(1, 8, 20)  # Reshape
        g = torch.matmul(f, self.w)  # MatMul -> 1x8x6
        h = torch.clamp(g * 3.0, -1.5, 2.0)  # Clip
        r = h.mean(dim=2, keepdim=True)  # ReduceMean -> 1x8x1
        out0 = self.fc((h - r).reshape(1, 48))  # Sub broadcasting, Gemm(transB=1) -> 1x10
        out1 = torch.flatten(self.gap(y), 1)  # GlobalAveragePool -> 1x4
        return out0, out1


class LstmNet(nn.Module):
    """2-layer LSTM (8 features, hidden 16, batch_first) then Linear on the last step: two ONNX LSTM
    nodes whose zero initial states come from Expand chains, Squeeze/Transpose between layers."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x):  # x: 2x5x8
        y, _ = self.lstm(x)
        return self.fc(y[:, -1, :])


class BiGruNet(nn.Module):
    """Bidirectional GRU (6 features, hidden 12, batch_first; ONNX linear_before_reset=1) then Linear on
    the last step of both directions."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(6, 12, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(24, 3)

    def forward(self, x):  # x: 2x5x6
        y, _ = self.gru(x)
        return self.fc(y[:, -1, :])


def add_dropout_identity(model):
    """Inserts a Dropout after the MatMul and an Identity in front of the second graph output."""
    graph = model.graph

    def insert_after(tensor, op_type):
        # producer -> tensor  becomes  producer -> tensor_pre -> op_type -> tensor, so consumers
        # and graph outputs keep their names.
        pre = tensor + "_pre_" + op_type.lower()
        idx = next(k for k, n in enumerate(graph.node) if tensor in n.output)
        producer = graph.node[idx]
        producer.output[:] = [pre if o == tensor else o for o in producer.output]
        graph.node.insert(idx + 1, helper.make_node(op_type, [pre], [tensor], name=op_type + "_0"))

    matmul = [n for n in graph.node if n.op_type == "MatMul"]
    assert len(matmul) == 1, "mini_ops: expected one MatMul, got %d" % len(matmul)
    insert_after(matmul[0].output[0], "Dropout")
    insert_after(graph.output[1].name, "Identity")


def build_torchvision(name, gen):
    import torchvision.models as tvm

    ctor = {"resnet18": tvm.resnet18, "mobilenet_v2": tvm.mobilenet_v2,
            "squeezenet1_1": tvm.squeezenet1_1, "efficientnet_b0": tvm.efficientnet_b0}[name]
    model = ctor(weights=None)
    randomize_batchnorm(model, gen)
    return model, torch.randn(1, 3, 224, 224, generator=gen)


class PadPools(nn.Module):
    """Explicit pads that the pools and the convolution after them could take (PadFolding):
    avg_pool2d with padding (torch.onnx writes Pad + AveragePool), F.pad before a convolution
    and a -inf F.pad before a max pool; then a ceil-mode average pool that keeps its own padding."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):  # x: 2x3x9x10
        a = F.avg_pool2d(x, 3, stride=1, padding=1)
        b = self.conv(F.pad(a, (2, 2, 1, 1)))
        c = F.max_pool2d(F.pad(b, (1, 1, 1, 1), value=float("-inf")), 3, stride=2)
        return F.avg_pool2d(c, 2, stride=2, padding=1, ceil_mode=True, count_include_pad=False) * 4.0


class TinyVideo(nn.Module):
    """3-D convolutions (video models): a strided 3x3x3 with batch norm, a (2+1)-D block's
    spatial (1, 3, 3) one with batch norm and its temporal-only grouped (3, 1, 1) one with a frame
    of padding, beside a temporally strided 1x1x1 projection (a residual block's shortcut),
    global pooling and a classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv3d(3, 8, 3, stride=(1, 2, 2), padding=1)
        self.bn1 = nn.BatchNorm3d(8)
        self.spatial = nn.Conv3d(8, 8, (1, 3, 3), padding=(0, 1, 1), bias=False)
        self.bn2 = nn.BatchNorm3d(8)
        self.conv2 = nn.Conv3d(8, 12, (3, 1, 1), stride=(2, 1, 1), padding=(1, 0, 0), groups=4)
        self.proj = nn.Conv3d(8, 12, 1, stride=(2, 1, 1))
        self.fc = nn.Linear(12, 5)

    def forward(self, x):  # x: 2x3x5x12x10
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.spatial(x)))
        x = F.relu(self.conv2(x) + self.proj(x))
        return self.fc(x.mean(dim=(2, 3, 4))) * 4.0


class ConvFamily(nn.Module):
    """1-D convolutions (audio front ends) and transposed convolutions (decoders, generators):
    a strided grouped Conv1d, a ConvTranspose1d with output padding, and a 2-D decoder step
    (ConvTranspose2d 4x4 stride 2 with batch norm, then a grouped one with output padding)."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(6, 8, 5, stride=2, padding=2, groups=2)
        self.t1 = nn.ConvTranspose1d(8, 4, 4, stride=2, padding=1, output_padding=1)
        self.t2 = nn.ConvTranspose2d(4, 6, 4, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(6)
        self.t3 = nn.ConvTranspose2d(6, 4, 3, stride=(2, 1), padding=1, output_padding=(1, 0),
                                     groups=2)

    def forward(self, x):  # x: 2x6x16
        a = self.t1(F.relu(self.c1(x)))  # 2x4x17
        b = F.relu(self.bn(self.t2(a.unsqueeze(2))))  # 2x6x2x34
        return self.t3(b) * 8.0  # outputs of order 1 (the tolerance is absolute below 1)


def build_swin_mini(gen):
    """torchvision's Swin Transformer, small: 16x16 patches in 7x7 windows need padding (Mod of
    shape constants), shifted windows (Roll, masks), and Dropout(p=0) exported in training mode."""
    from torchvision.models.swin_transformer import SwinTransformer

    model = SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4],
                            window_size=[7, 7], num_classes=10)
    with torch.no_grad():  # logits of order 1 (the tolerance is absolute below 1)
        model.head.weight.mul_(50.0)
    return model, torch.randn(1, 3, 64, 64, generator=gen)


def randomized(model, gen):
    randomize_batchnorm(model, gen)
    return model


def build_tiny_cnn(gen):
    model = TinyCnn()
    randomize_batchnorm(model, gen)
    with torch.no_grad():  # spread the logits (std ~3) so the softmax output is sensitive to errors
        model.fc.weight.mul_(40.0)
    return model, torch.randn(1, 3, 32, 32, generator=gen)


def build_mini_ops(gen):
    return MiniOps(gen), torch.randn(1, 4, 8, 8, generator=gen)


def build_lstm2(gen):
    model = LstmNet()
    with torch.no_grad():  # outputs of order 1 (the tolerance is absolute below 1)
        model.fc.weight.mul_(8.0)
    return model, torch.randn(2, 5, 8, generator=gen)


def build_bigru(gen):
    model = BiGruNet()
    with torch.no_grad():
        model.fc.weight.mul_(8.0)
    return model, torch.randn(2, 5, 6, generator=gen)


class GnBlock(nn.Module):
    """A diffusion-style residual block: GroupNorm -> SiLU -> conv, twice, plus the input; torch
    1.13 exports GroupNorm as Reshape -> InstanceNormalization -> Reshape -> Mul -> Add."""

    def __init__(self):
        super().__init__()
        self.norm1 = nn.GroupNorm(4, 12)
        self.conv1 = nn.Conv2d(12, 12, 3, padding=1)
        self.norm2 = nn.GroupNorm(3, 12, eps=1e-3)
        self.conv2 = nn.Conv2d(12, 12, 3, padding=1)
        self.norm3 = nn.GroupNorm(6, 12, affine=False)

    def forward(self, x):
        h = self.conv1(F.silu(self.norm1(x)))
        h = self.conv2(F.silu(self.norm2(h)))
        return self.norm3(x + h)


def build_gn_block(gen):
    model = randomized(GnBlock(), gen)
    with torch.no_grad():
        for norm in (model.norm1, model.norm2):
            norm.weight.copy_(torch.rand(12, generator=gen) + 0.5)
            norm.bias.copy_(torch.randn(12, generator=gen) * 0.2)
    return model, torch.randn(2, 12, 9, 7, generator=gen)


MODELS = {
    "tiny_cnn": (build_tiny_cnn, None),
    "mini_ops": (build_mini_ops, add_dropout_identity),
    "squeezenet1_1": (lambda g: build_torchvision("squeezenet1_1", g), None),
    "mobilenet_v2": (lambda g: build_torchvision("mobilenet_v2", g), None),
    "resnet18": (lambda g: build_torchvision("resnet18", g), None),
    # SiLU (x * sigmoid(x)) and squeeze-and-excite gates, depthwise 5x5 convolutions.
    "efficientnet_b0": (lambda g: build_torchvision("efficientnet_b0", g), None),
    "pad_pools": (lambda g: (PadPools(), torch.randn(2, 3, 9, 10, generator=g)), None),
    "conv_family": (lambda g: (randomized(ConvFamily(), g), torch.randn(2, 6, 16, generator=g)),
                    None),
    "swin_mini": (build_swin_mini, None),
    "tiny_video": (lambda g: (randomized(TinyVideo(), g), torch.randn(2, 3, 5, 12, 10, generator=g)),
                   None),
    "gn_block": (build_gn_block, None),
    "lstm2": (build_lstm2, None),
    "bigru": (build_bigru, None),
}

# ---------------------------------------------------------------------------------------------


def save_tensor(array, path):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(array)).SerializeToString())


def generate(name, out_dir, stamp):
    build, post = MODELS[name]
    seed = SEED + sum(ord(c) for c in name)  # per-model seed: independent of which models run
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model, x = build(gen)
    model.eval()
    with torch.no_grad():
        ref = model(x)
    refs = list(ref) if isinstance(ref, (tuple, list)) else [ref]
    out_names = ["output"] if len(refs) == 1 else ["output_%d" % k for k in range(len(refs))]

    onnx_path = os.path.join(out_dir, name + ".onnx")
    tmp_path = onnx_path + ".tmp"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), tmp_path, opset_version=OPSET, do_constant_folding=True,
                          training=torch.onnx.TrainingMode.PRESERVE, input_names=["input"],
                          output_names=out_names)
    proto = onnx.load(tmp_path)
    if post is not None:
        post(proto)
    onnx.checker.check_model(proto)
    onnx.save(proto, tmp_path)

    data_dir = os.path.join(out_dir, name, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    for f in os.listdir(data_dir):
        os.remove(os.path.join(data_dir, f))
    save_tensor(x.numpy().astype(np.float32), os.path.join(data_dir, "input_0.pb"))
    for k, r in enumerate(refs):
        save_tensor(r.numpy().astype(np.float32), os.path.join(data_dir, "output_%d.pb" % k))
    os.replace(tmp_path, onnx_path)
    with open(os.path.join(out_dir, name + ".stamp"), "w") as f:
        f.write(stamp + "\n")

    ops = sorted({n.op_type for n in proto.graph.node})
    n_bn = sum(n.op_type == "BatchNormalization" for n in proto.graph.node)
    return "%d nodes, %d BatchNormalization, %.1f MB, input %s, outputs %s, |ref|max %.3g; ops: %s" % (
        len(proto.graph.node), n_bn, os.path.getsize(onnx_path) / 1e6, "x".join(map(str, x.shape)),
        ", ".join("x".join(map(str, r.shape)) for r in refs),
        max(float(r.abs().max()) for r in refs), " ".join(ops))


def up_to_date(name, out_dir, stamp):
    try:
        with open(os.path.join(out_dir, name + ".stamp")) as f:
            if f.read().strip() != stamp:
                return False
    except OSError:
        return False
    data_dir = os.path.join(out_dir, name, "test_data_set_0")
    return (os.path.isfile(os.path.join(out_dir, name + ".onnx"))
            and os.path.isfile(os.path.join(data_dir, "input_0.pb"))
            and os.path.isfile(os.path.join(data_dir, "output_0.pb")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", nargs="?", default="build/models")
    parser.add_argument("--only", nargs="+", choices=sorted(MODELS), help="generate only these")
    parser.add_argument("--force", action="store_true", help="regenerate even if up to date")
    parser.add_argument("--list", action="store_true", help="print the model names and exit")
    args = parser.parse_args()
    if args.list:
        print("\n".join(MODELS))
        return 0
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    os.makedirs(args.out_dir, exist_ok=True)
    stamp = script_hash()
    t_all = time.time()
    for name in args.only or MODELS:
        if not args.force and up_to_date(name, args.out_dir, stamp):
            print("%-14s up to date" % name)
            continue
        t0 = time.time()
        try:
            summary = generate(name, args.out_dir, stamp)
        except Exception as e:  # one clear line, then fail
            print("generate.py: %s: failed: %s: %s" % (name, type(e).__name__, e), file=sys.stderr)
            return 1
        print("%-14s %5.1fs  %s" % (name, time.time() - t0, summary))
        sys.stdout.flush()
    print("models in %s (%.1fs)" % (args.out_dir, time.time() - t_all))
    return 0


if __name__ == "__main__":
    sys.exit(main())
