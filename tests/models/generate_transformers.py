#!/usr/bin/python3
"""Generates the dynamic-shape and transformer-family end-to-end models.

Usage: /usr/bin/python3 tests/models/generate_transformers.py OUT_DIR [--only NAME ...] [--force]

For each model NAME this writes, under OUT_DIR:
  NAME.onnx                        torch.onnx.export with dynamic_axes (symbolic ONNX dims)
  NAME/test_data_set_K/input_0.pb  inputs at several sizes inside the dynamic range (ONNX layout)
  NAME/test_data_set_K/output_0.pb PyTorch's outputs for them (eval mode, float32)
  NAME/bad_K/input_0.pb            inputs outside the range, or not of a declared multiple (ptec
                                  run must reject them)
  NAME.dynamic                     the --dynamic arguments ptec export takes, one per line
  NAME.stamp                       hash of this script; a model whose stamp matches is skipped

Models (seeded random weights, small so that the suite stays fast):
  dyn_seq_attn      a pre-norm attention block on x[1, seq, 16], seq in [2, 32]: position table
                    sliced to seq (Shape/Gather/Slice), two heads split and merged with Reshape
                    chains built from Shape (the seq symbol), batched MatMul, Softmax, LayerNorm
  resnet18_dynbatch torchvision ResNet-18 with a dynamic batch axis in [1, 4], run at 1 and 3
  transformer_encoder  nn.TransformerEncoder (2 layers, d 32, 4 heads, batch_first, eval,
                    enable_nested_tensor=False so torch 1.13 exports plain ops), seq in [1, 64]
  enc_dec           nn.Transformer encoder-decoder with a causal target mask: src[1, s, 32] and
                    tgt[1, t, 32], two symbols, s and t in [1, 32], at three (s, t) pairs
  vit               ViT-style classifier on 16x16 images (static shapes; test_data_set_0 only)
  gpt_prefill       GPT-style decoder prefill: ids[1, 8] -> logits + KV caches [2, 1, 2, 8, 16]
  gpt_decode        the same weights, one token + the caches -> logits + caches of 9 positions
                    (two ONNX files, each its own static .pte; test_data_set_0 only)
  llama_dyn         LLaMA-style decoder (RMSNorm, rotary, GQA, SwiGLU) on ids[1, seq], seq in
                    [1, 48]: position ids from arange(seq), causal mask from full((seq, seq))
  detect_post       detection post-processing: score mask (NonZero), NMS, kept boxes, RoiAlign; static
                    input, data-dependent output sizes (two reference sets)
  ssdlite           torchvision's SSDlite320 detector, post-processing included (If on a run-time
                    condition, per-class top-k of data-dependent counts); three reference sets
  fasterrcnn        torchvision's Faster R-CNN (MobileNetV3-320 FPN), RPN, MultiScaleRoIAlign and
                    box head included; two reference sets
  bert_like         int64 token ids (Gather embeddings) + position table, a [1, seq] 0/1 attention
                    mask input sharing the seq symbol, 2 encoder layers, GELU, classifier on token 0
  bert_batch        bert_like with batch and seq both dynamic (ids and mask [batch, seq], batch in
                    [1, 4]), another padding length per row
  encoder_batch     transformer_encoder with batch and seq both dynamic, batch in [1, 4]
  vit_batch         vit with a dynamic batch in [1, 4], run at 1 and 3
  resnet18_dynhw    ResNet-18 with dynamic height and width in [32, 128], at 64x64, 96x80, 33x127
  lraspp_dynhw      torchvision's LR-ASPP MobileNetV3 segmenter, height and width in [64, 256]
  espcn_dynhw       ESPCN-style super-resolution by 3 (PixelShuffle as DepthToSpace, the nearest-
                    upsampled input added), height and width in [16, 64], at 24x24 and 17x40
  unet_dynhw        a 3-level U-Net (max pooling and a strided convolution down; a transposed
                    convolution, nearest and bilinear upsampling up; skip connections
                    concatenated), height and width multiples of 8 in [32, 256]
  yolo_dynhw        a YOLOv8-style detector (C2f blocks, SPPF, an FPN/PAN neck of upsampled and
                    concatenated maps, a DFL head whose anchor grid is built from the feature
                    maps' shapes: float Range, ConstantOfShape of h*w), height and width
                    multiples of 32 in [64, 640], at 128x96 and 64x160
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
import torchvision

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


def build_transformer_encoder(gen):
    torch.manual_seed(SEED)
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0,
                                       batch_first=True)
    # enable_nested_tensor=False and eval(): torch 1.13 exports plain ops, not its fast path.
    model = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
    example = torch.randn(1, 10, 32, generator=gen)
    good = [torch.randn(1, n, 32, generator=gen) for n in (4, 10, 24)]
    bad = [torch.randn(1, 80, 32, generator=gen)]
    return model, example, ["x"], {"x": {1: "seq"}}, good, bad, ["x:1=seq:1..64"], 17


class BertLike(nn.Module):
    """Token + position embeddings (Gather on int64 ids), LayerNorm, two encoder layers with an
    additive attention mask built from a [1, seq] 0/1 mask input, and a pooled classifier."""

    def __init__(self, vocab=100, d=32, heads=4, max_len=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, max_len, d) * 0.1)
        self.ln = nn.LayerNorm(d)
        self.heads = heads
        self.layers = nn.ModuleList()
        for _ in range(2):
            self.layers.append(nn.ModuleDict({
                "qkv": nn.Linear(d, 3 * d), "out": nn.Linear(d, d), "ln1": nn.LayerNorm(d),
                "ff1": nn.Linear(d, 2 * d), "ff2": nn.Linear(2 * d, d), "ln2": nn.LayerNorm(d)}))
        self.cls = nn.Linear(d, 3)

    def forward(self, ids, mask):  # ids, mask: [batch, seq] int64
        b, s = ids.shape
        d = self.pos.shape[2]
        hd = d // self.heads
        h = self.ln(self.tok(ids) + self.pos[:, :s])
        bias = (1.0 - mask[:, None, None, :].float()) * -10000.0
        for l in self.layers:
            q, k, v = l["qkv"](h).split(d, dim=-1)
            q = q.reshape(b, s, self.heads, hd).transpose(1, 2)
            k = k.reshape(b, s, self.heads, hd).transpose(1, 2)
            v = v.reshape(b, s, self.heads, hd).transpose(1, 2)
            att = torch.softmax(q @ k.transpose(-1, -2) / (hd ** 0.5) + bias, dim=-1)
            o = (att @ v).transpose(1, 2).reshape(b, s, d)
            h = l["ln1"](h + l["out"](o))
            h = l["ln2"](h + l["ff2"](torch.nn.functional.gelu(l["ff1"](h))))
        return self.cls(h[:, 0])


def build_bert_like(gen):
    torch.manual_seed(SEED)
    model = BertLike().eval()

    def inputs(n):
        ids = torch.randint(0, 100, (1, n), generator=gen)
        mask = torch.ones(1, n, dtype=torch.int64)
        mask[0, n - n // 4:] = 0  # padding at the end
        return ids, mask

    good = [inputs(n) for n in (5, 16, 40)]
    bad = [inputs(70)]
    dynamic = {"ids": {1: "seq"}, "mask": {1: "seq"}}
    return (model, inputs(8), ["ids", "mask"], dynamic, good, bad,
            ["ids:1=seq:2..64", "mask:1=seq:2..64"], 17)


def build_bert_batch(gen):
    """bert_like with a dynamic batch as well: ids and mask [batch, seq] share both symbols, and
    the views, attention and mask broadcast carry batch * seq and batch * heads."""
    torch.manual_seed(SEED)
    model = BertLike().eval()

    def inputs(b, n):
        ids = torch.randint(0, 100, (b, n), generator=gen)
        mask = torch.ones(b, n, dtype=torch.int64)
        for i in range(b):
            mask[i, n - (n * (i + 1)) // 5:] = 0  # another padding length per row
        return ids, mask

    good = [inputs(b, n) for b, n in ((2, 5), (1, 16), (3, 40))]
    bad = [inputs(5, 8)]
    dynamic = {"ids": {0: "batch", 1: "seq"}, "mask": {0: "batch", 1: "seq"}}
    return (model, inputs(2, 8), ["ids", "mask"], dynamic, good, bad,
            ["ids:0=batch:1..4", "ids:1=seq:2..64", "mask:0=batch:1..4", "mask:1=seq:2..64"], 17)


def build_encoder_batch(gen):
    """transformer_encoder with dynamic batch and seq: nn.MultiheadAttention flattens
    [seq, batch, d] to [seq * batch, d] and splits heads into [batch * heads, seq, hd]."""
    model, _, names, _, _, _, _, opset = build_transformer_encoder(gen)
    example = torch.randn(2, 10, 32, generator=gen)
    good = [torch.randn(b, n, 32, generator=gen) for b, n in ((2, 4), (1, 10), (3, 24))]
    bad = [torch.randn(6, 10, 32, generator=gen)]
    return (model, example, names, {"x": {0: "batch", 1: "seq"}}, good, bad,
            ["x:0=batch:1..4", "x:1=seq:1..64"], opset)


class EncDec(nn.Module):
    """nn.Transformer (2 encoder and 2 decoder layers, d 32, 4 heads, batch_first) with a causal
    target mask built from the target's length: two dynamic axes of their own, src's s and tgt's
    t, meeting in the cross-attention."""

    def __init__(self):
        super().__init__()
        self.t = nn.Transformer(d_model=32, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                                dim_feedforward=64, dropout=0.0, batch_first=True)

    def forward(self, src, tgt):  # src: [1, s, 32], tgt: [1, t, 32]
        n = tgt.shape[1]
        mask = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
        return self.t(src, tgt, tgt_mask=mask)


def build_enc_dec(gen):
    torch.manual_seed(SEED)
    model = EncDec().eval()

    def inputs(s, t):
        return torch.randn(1, s, 32, generator=gen), torch.randn(1, t, 32, generator=gen)

    good = [inputs(s, t) for s, t in ((12, 7), (20, 3), (5, 16))]
    bad = [inputs(40, 3)]
    dynamic = {"src": {1: "s"}, "tgt": {1: "t"}}
    return (model, inputs(12, 7), ["src", "tgt"], dynamic, good, bad,
            ["src:1=s:1..32", "tgt:1=t:1..32"], 14)


class TinyVit(nn.Module):
    """ViT-style classifier: 4x4 patch embedding (Conv), class token, position embeddings, a
    2-layer nn.TransformerEncoder (GELU, norm_first), LayerNorm and a linear head on the class
    token."""

    def __init__(self, img=16, patch=4, d=32, heads=4, classes=10):
        super().__init__()
        n = (img // patch) ** 2
        self.embed = nn.Conv2d(3, d, patch, stride=patch)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.1)
        self.pos = nn.Parameter(torch.randn(1, n + 1, d) * 0.1)
        layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        p = self.embed(x).flatten(2).transpose(1, 2)
        h = torch.cat([self.cls.expand(x.shape[0], -1, -1), p], dim=1) + self.pos
        return self.head(self.norm(self.encoder(h))[:, 0])


def build_vit(gen):
    torch.manual_seed(SEED)
    x = torch.randn(1, 3, 16, 16, generator=gen)
    return TinyVit().eval(), (x,), ["x"], {}, [(x,)], [], [], 17


def build_vit_batch(gen):
    torch.manual_seed(SEED)
    good = [torch.randn(b, 3, 16, 16, generator=gen) for b in (1, 3)]
    bad = [torch.randn(5, 3, 16, 16, generator=gen)]
    return (TinyVit().eval(), good[1], ["x"], {"x": {0: "batch"}}, good, bad,
            ["x:0=batch:1..4"], 17)


class TinyGpt(nn.Module):
    """A GPT-style decoder: token + position embeddings, causal self-attention with a KV cache,
    GELU MLP, LM head. prefill(ids[1, T]) -> (logits, k_cache, v_cache) with caches
    [layers, 1, heads, T, head_dim]; decode(id[1, 1], k_cache, v_cache) appends one position."""

    def __init__(self, vocab=50, d=32, heads=2, layers=2, max_len=16):
        super().__init__()
        self.d, self.heads, self.hd = d, heads, d // heads
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, max_len, d) * 0.1)
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict({
                "ln1": nn.LayerNorm(d), "qkv": nn.Linear(d, 3 * d), "out": nn.Linear(d, d),
                "ln2": nn.LayerNorm(d), "ff1": nn.Linear(d, 4 * d), "ff2": nn.Linear(4 * d, d)}))
        self.lnf = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.register_buffer("causal", torch.tril(torch.ones(max_len, max_len, dtype=torch.bool)))

    def run(self, ids, start, k_cache=None, v_cache=None):
        t = ids.shape[1]
        h = self.tok(ids) + self.pos[:, start:start + t]
        ks, vs = [], []
        for i, b in enumerate(self.blocks):
            q, k, v = b["qkv"](b["ln1"](h)).split(self.d, dim=-1)
            q = q.reshape(1, t, self.heads, self.hd).transpose(1, 2)
            k = k.reshape(1, t, self.heads, self.hd).transpose(1, 2)
            v = v.reshape(1, t, self.heads, self.hd).transpose(1, 2)
            if k_cache is not None:
                k = torch.cat([k_cache[i], k], dim=2)
                v = torch.cat([v_cache[i], v], dim=2)
            ks.append(k)
            vs.append(v)
            n = k.shape[2]
            att = q @ k.transpose(-1, -2) / (self.hd ** 0.5)
            att = att.masked_fill(~self.causal[start:start + t, :n], -1e9)
            o = (torch.softmax(att, dim=-1) @ v).transpose(1, 2).reshape(1, t, self.d)
            h = h + b["out"](o)
            h = h + b["ff2"](torch.nn.functional.gelu(b["ff1"](b["ln2"](h))))
        return self.head(self.lnf(h)), torch.stack(ks), torch.stack(vs)


class GptPrefill(nn.Module):
    def __init__(self, gpt):
        super().__init__()
        self.gpt = gpt

    def forward(self, ids):
        return self.gpt.run(ids, 0)


class GptDecode(nn.Module):
    def __init__(self, gpt, past):
        super().__init__()
        self.gpt, self.past = gpt, past

    def forward(self, ids, k_cache, v_cache):
        return self.gpt.run(ids, self.past, k_cache, v_cache)


def tiny_gpt():
    torch.manual_seed(SEED)
    return TinyGpt().eval()


def build_gpt_prefill(gen):
    ids = torch.randint(0, 50, (1, 8), generator=gen)
    return (GptPrefill(tiny_gpt()).eval(), (ids,), ["ids"], {}, [(ids,)], [], [], 17,
            ["logits", "k_cache", "v_cache"])


def build_gpt_decode(gen):
    gpt = tiny_gpt()
    prompt = torch.randint(0, 50, (1, 8), generator=gen)
    with torch.no_grad():
        _, k, v = gpt.run(prompt, 0)
    nxt = torch.randint(0, 50, (1, 1), generator=gen)
    return (GptDecode(gpt, 8).eval(), (nxt, k, v), ["ids", "k_cache", "v_cache"], {},
            [(nxt, k, v)], [], [], 17, ["logits", "k_cache_out", "v_cache_out"])


class TinyLlama(nn.Module):
    """A LLaMA-style decoder over ids[1, seq]: RMSNorm, rotary embeddings indexed by
    torch.arange(seq) (Range on the seq symbol), a causal mask from torch.full((seq, seq)).triu
    (ConstantOfShape of [seq, seq]), grouped-query attention whose K/V heads are repeated with
    expand + reshape (torch's Expand export: Equal / Where on the target shape), SwiGLU MLP."""

    def __init__(self, vocab=64, d=32, heads=4, kv_heads=2, layers=2, max_len=64):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.tok = nn.Embedding(vocab, d)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        ang = torch.outer(torch.arange(max_len).float(), inv)
        self.register_buffer("cos", torch.cat([ang.cos(), ang.cos()], dim=-1))
        self.register_buffer("sin", torch.cat([ang.sin(), ang.sin()], dim=-1))
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict({
                "q": nn.Linear(d, d, bias=False), "k": nn.Linear(d, kv_heads * self.hd, bias=False),
                "v": nn.Linear(d, kv_heads * self.hd, bias=False),
                "o": nn.Linear(d, d, bias=False), "gate": nn.Linear(d, 2 * d, bias=False),
                "up": nn.Linear(d, 2 * d, bias=False), "down": nn.Linear(2 * d, d, bias=False)}))
        self.norm_w = nn.Parameter(torch.rand(2 * layers + 1, d) * 0.5 + 0.75)
        self.head = nn.Linear(d, vocab, bias=False)

    def rms(self, x, i):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.norm_w[i]

    @staticmethod
    def rotate(x):
        h = x.shape[-1] // 2
        return torch.cat((-x[..., h:], x[..., :h]), dim=-1)

    def forward(self, ids):
        s = ids.shape[1]
        pos = torch.arange(s)
        cos, sin = self.cos[pos], self.sin[pos]
        mask = torch.full((s, s), float("-inf")).triu(1)
        h = self.tok(ids)
        rep = self.heads // self.kv_heads
        for i, b in enumerate(self.blocks):
            x = self.rms(h, 2 * i)
            q = b["q"](x).view(1, s, self.heads, self.hd).transpose(1, 2)
            k = b["k"](x).view(1, s, self.kv_heads, self.hd).transpose(1, 2)
            v = b["v"](x).view(1, s, self.kv_heads, self.hd).transpose(1, 2)
            q = q * cos + self.rotate(q) * sin
            k = k * cos + self.rotate(k) * sin
            k = k[:, :, None].expand(1, self.kv_heads, rep, s, self.hd).reshape(1, -1, s, self.hd)
            v = v[:, :, None].expand(1, self.kv_heads, rep, s, self.hd).reshape(1, -1, s, self.hd)
            att = torch.softmax(q @ k.transpose(2, 3) / (self.hd ** 0.5) + mask, dim=-1)
            h = h + b["o"]((att @ v).transpose(1, 2).reshape(1, s, -1))
            x = self.rms(h, 2 * i + 1)
            h = h + b["down"](torch.nn.functional.silu(b["gate"](x)) * b["up"](x))
        return self.head(self.rms(h, -1))


def build_llama_dyn(gen):
    torch.manual_seed(SEED)
    model = TinyLlama().eval()
    good = [torch.randint(0, 64, (1, n), generator=gen) for n in (1, 7, 48)]
    bad = [torch.randint(0, 64, (1, 60), generator=gen)]
    return (model, good[1], ["ids"], {"ids": {1: "seq"}}, good, bad, ["ids:1=seq:1..48"], 17,
            ["logits"])


def random_batchnorm(model, gen):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)


def build_resnet18_dynhw(gen):
    """ResNet-18 with dynamic image height and width: each convolution's and pooling's output
    size is a window count of the input's (h and w in [32, 128])."""
    import torchvision.models as tvm

    torch.manual_seed(SEED)
    model = tvm.resnet18(num_classes=10).eval()
    random_batchnorm(model, gen)
    good = [torch.randn(1, 3, h, w, generator=gen) for h, w in ((64, 64), (96, 80), (33, 127))]
    bad = [torch.randn(1, 3, 24, 64, generator=gen)]
    return (model, good[0], ["input"], {"input": {2: "h", 3: "w"}}, good, bad,
            ["input:2=h:32..128", "input:3=w:32..128"], 13)


class SegmentationOut(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def build_lraspp_dynhw(gen):
    """torchvision's LR-ASPP MobileNetV3 (4 classes) with dynamic height and width: strided and
    dilated convolutions, squeeze-and-excite, and bilinear Resizes to a feature map's and the
    image's size (sizes from Shape)."""
    from torchvision.models.segmentation import lraspp_mobilenet_v3_large

    torch.manual_seed(SEED)
    model = SegmentationOut(lraspp_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                      num_classes=4)).eval()
    random_batchnorm(model, gen)
    good = [torch.randn(1, 3, h, w, generator=gen) for h, w in ((96, 96), (128, 72))]
    bad = [torch.randn(1, 3, 96, 300, generator=gen)]
    return (model, good[0], ["image"], {"image": {2: "h", 3: "w"}}, good, bad,
            ["image:2=h:64..256", "image:3=w:64..256"], 13)


class Espcn(nn.Module):
    """ESPCN-style super-resolution by 3: three convolutions, a pixel shuffle (DepthToSpace) and
    the nearest-upsampled input added back."""

    def __init__(self, r=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.Tanh(),
                                  nn.Conv2d(32, 16, 3, padding=1), nn.Tanh(),
                                  nn.Conv2d(16, r * r, 3, padding=1))
        self.shuffle = nn.PixelShuffle(r)
        self.r = r

    def forward(self, x):
        up = nn.functional.interpolate(x, scale_factor=self.r, mode="nearest")
        return self.shuffle(self.body(x)) + up


def build_espcn_dynhw(gen):
    torch.manual_seed(SEED)
    good = [torch.rand(1, 1, h, w, generator=gen) for h, w in ((24, 24), (17, 40))]
    bad = [torch.rand(1, 1, 8, 24, generator=gen)]
    return (Espcn().eval(), good[0], ["lr"], {"lr": {2: "h", 3: "w"}}, good, bad,
            ["lr:2=h:16..64", "lr:3=w:16..64"], 13)


class UNet(nn.Module):
    """A 3-level U-Net: each decoder level upsamples (transposed convolution, nearest, bilinear)
    and concatenates the encoder's map of that level (one pads it to that map's size first, by
    sizes taken from Shape). The sizes agree only for sides that are
    multiples of 8, which the export declares."""

    def __init__(self):
        super().__init__()

        def block(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout),
                                 nn.ReLU())

        self.e1, self.e2, self.e3 = block(3, 8), block(8, 16), block(16, 24)
        self.down = nn.Conv2d(24, 32, 3, stride=2, padding=1)
        self.up3 = nn.ConvTranspose2d(32, 24, 2, stride=2)
        self.d3, self.d2, self.d1 = block(48, 24), block(40, 16), block(24, 8)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        s1 = self.e1(x)
        s2 = self.e2(nn.functional.max_pool2d(s1, 2))
        s3 = self.e3(nn.functional.max_pool2d(s2, 2))
        y = self.d3(torch.cat([self.up3(self.down(s3)), s3], 1))
        # Padded to the skip connection's size as many U-Nets write it (0 for the declared sizes).
        up = nn.functional.interpolate(y, scale_factor=2.0)
        dy, dx = s2.size(2) - up.size(2), s2.size(3) - up.size(3)
        up = nn.functional.pad(up, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
        y = self.d2(torch.cat([up, s2], 1))
        y = nn.functional.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=False)
        return self.head(self.d1(torch.cat([y, s1], 1)))


def build_unet_dynhw(gen):
    torch.manual_seed(SEED)
    model = UNet().eval()
    random_batchnorm(model, gen)
    good = [torch.randn(1, 3, h, w, generator=gen) for h, w in ((64, 64), (96, 40), (32, 256))]
    bad = [torch.randn(1, 3, 68, 64, generator=gen), torch.randn(1, 3, 64, 264, generator=gen)]
    return (model, good[0], ["image"], {"image": {2: "h", 3: "w"}}, good, bad,
            ["image:2=h:32..256:8", "image:3=w:32..256:8"], 13)


def yolo_conv(ci, co, k=1, s=1):
    return nn.Sequential(nn.Conv2d(ci, co, k, s, k // 2, bias=False), nn.BatchNorm2d(co),
                         nn.SiLU())


class C2f(nn.Module):
    def __init__(self, ci, co):
        super().__init__()
        self.c = co // 2
        self.cv1, self.m, self.cv2 = (yolo_conv(ci, co), yolo_conv(self.c, self.c, 3),
                                      yolo_conv(3 * self.c, co))

    def forward(self, x):
        y = list(self.cv1(x).split((self.c, self.c), 1))
        y.append(self.m(y[-1]))
        return self.cv2(torch.cat(y, 1))


class SPPF(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.cv1, self.cv2, self.m = yolo_conv(c, c // 2), yolo_conv(c * 2, c), nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat([x, y1, y2, self.m(y2)], 1))


class Yolo(nn.Module):
    """YOLOv8's layout at a small width: backbone to strides 8/16/32, FPN + PAN neck, and the
    exported DFL head, whose anchors come from the feature maps' shapes as Ultralytics builds
    them for a dynamic export."""

    def __init__(self, nc=4, reg=4):
        super().__init__()
        self.b1 = nn.Sequential(yolo_conv(3, 8, 3, 2), yolo_conv(8, 16, 3, 2), C2f(16, 16))
        self.b2 = nn.Sequential(yolo_conv(16, 32, 3, 2), C2f(32, 32))
        self.b3 = nn.Sequential(yolo_conv(32, 48, 3, 2), C2f(48, 48))
        self.b4 = nn.Sequential(yolo_conv(48, 64, 3, 2), C2f(64, 64), SPPF(64))
        self.n1, self.n2 = C2f(64 + 48, 48), C2f(48 + 32, 32)
        self.d1, self.n3 = yolo_conv(32, 32, 3, 2), C2f(32 + 48, 48)
        self.d2, self.n4 = yolo_conv(48, 48, 3, 2), C2f(48 + 64, 64)
        self.nc, self.reg, self.no = nc, reg, nc + 4 * reg
        self.heads = nn.ModuleList([nn.Conv2d(c, self.no, 1) for c in (32, 48, 64)])
        self.dfl = nn.Conv2d(reg, 1, 1, bias=False)
        with torch.no_grad():
            self.dfl.weight.copy_(torch.arange(reg, dtype=torch.float32).view(1, reg, 1, 1))

    @staticmethod
    def anchors(feats, strides):
        points, stride_of = [], []
        for f, stride in zip(feats, strides):
            _, _, h, w = f.shape
            sx = torch.arange(end=w, dtype=torch.float32) + 0.5
            sy = torch.arange(end=h, dtype=torch.float32) + 0.5
            sy, sx = torch.meshgrid(sy, sx, indexing="ij")
            points.append(torch.stack((sx, sy), -1).view(-1, 2))
            stride_of.append(torch.full((h * w, 1), stride, dtype=torch.float32))
        return torch.cat(points).transpose(0, 1), torch.cat(stride_of).transpose(0, 1)

    def forward(self, x):
        p3 = self.b2(self.b1(x))
        p4 = self.b3(p3)
        p5 = self.b4(p4)
        t4 = self.n1(torch.cat([nn.functional.interpolate(p5, scale_factor=2.0), p4], 1))
        t3 = self.n2(torch.cat([nn.functional.interpolate(t4, scale_factor=2.0), p3], 1))
        o4 = self.n3(torch.cat([self.d1(t3), t4], 1))
        o5 = self.n4(torch.cat([self.d2(o4), p5], 1))
        feats = [head(f) for head, f in zip(self.heads, (t3, o4, o5))]
        b = x.shape[0]
        out = torch.cat([f.view(b, self.no, -1) for f in feats], 2)
        anchors, strides = self.anchors(feats, (8, 16, 32))
        box, cls = out.split((4 * self.reg, self.nc), 1)
        a = box.shape[2]
        dist = self.dfl(box.view(b, 4, self.reg, a).transpose(2, 1).softmax(1)).view(b, 4, a)
        lt, rb = dist.chunk(2, 1)
        x1y1, x2y2 = anchors.unsqueeze(0) - lt, anchors.unsqueeze(0) + rb
        boxes = torch.cat(((x1y1 + x2y2) / 2, x2y2 - x1y1), 1) * strides
        return torch.cat((boxes, cls.sigmoid()), 1)


def build_yolo_dynhw(gen):
    torch.manual_seed(SEED)
    model = Yolo().eval()
    random_batchnorm(model, gen)
    good = [torch.randn(1, 3, h, w, generator=gen) for h, w in ((128, 96), (64, 160))]
    bad = [torch.randn(1, 3, 100, 96, generator=gen)]
    return (model, good[0], ["images"], {"images": {2: "h", 3: "w"}}, good, bad,
            ["images:2=h:64..640:32", "images:3=w:64..640:32"], 13)


class DetectPost(nn.Module):
    """Detection post-processing on a tiny conv head: 64 anchors on an 8x8 grid get boxes (anchor
    + predicted offsets) and sigmoid scores; boxes[scores > 0.3] (NonZero + GatherND), then
    torchvision.ops.nms at IoU 0.5 (NonMaxSuppression), the kept boxes and scores, and
    torchvision.ops.roi_align of the input under them (RoiAlign). Every count after the mask
    depends on the data."""

    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(3, 5, 3, stride=2, padding=1)
        ys, xs = torch.meshgrid(torch.arange(8.0), torch.arange(8.0), indexing="ij")
        centers = torch.stack([xs.flatten(), ys.flatten()], 1) * 2 + 1
        self.register_buffer("anchors", torch.cat([centers - 2, centers + 2], 1))

    def forward(self, img):
        out = self.head(img).flatten(2)[0].t()  # [64, 5]
        boxes = self.anchors + out[:, :4]
        scores = torch.sigmoid(out[:, 4])
        keep = scores > 0.3
        boxes, scores = boxes[keep], scores[keep]
        kept = torchvision.ops.nms(boxes, scores, 0.5)
        boxes, scores = boxes[kept], scores[kept]
        # Second stage: each kept box's features, 2x2 bins of the 16x16 input at half scale.
        pooled = torchvision.ops.roi_align(img, [boxes], 2, spatial_scale=0.5, sampling_ratio=2)
        return boxes, scores, pooled


def build_detect_post(gen):
    torch.manual_seed(SEED)
    model = DetectPost().eval()
    good = [torch.randn(1, 3, 16, 16, generator=gen) * s for s in (1.0, 3.0)]
    return model, good[0], ["img"], {}, good, [], [], 13, ["boxes", "scores", "pooled"]


def randomize_detector(det):
    """Variance-preserving random convs and linears, random biases and BatchNorm statistics:
    torchvision's own init gives vanishing features and near-uniform scores, whose ties make the
    kept boxes depend on rounding."""
    with torch.no_grad():
        for m in det.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                if m.bias is not None:
                    nn.init.normal_(m.bias, 0.0, 0.5)
            elif isinstance(m, nn.BatchNorm2d):
                m.running_mean.normal_(0.0, 0.1)
                m.running_var.uniform_(0.5, 2.0)


class Detector(nn.Module):
    """A torchvision detector on one image, returning (boxes, scores, labels)."""

    def __init__(self, det):
        super().__init__()
        self.det = det

    def forward(self, img):
        out = self.det([img])[0]
        return out["boxes"], out["scores"], out["labels"]


def build_ssdlite(gen):
    """ssdlite320_mobilenet_v3_large (5 classes): per-class score masks (NonZero), top-k of
    min(candidates, 300) per class, the classes' candidates concatenated, batched NMS behind
    `if boxes.numel() == 0` (an If on a run-time condition), keep[:detections_per_img]."""
    torch.manual_seed(SEED)
    det = torchvision.models.detection.ssdlite320_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=5, score_thresh=0.5,
        detections_per_img=50)
    randomize_detector(det)
    model = Detector(det).eval()
    # Two random images (50 detections each, the limit) and a gray one (22 pass the 0.5 score
    # threshold).
    good = [torch.rand(3, 320, 320, generator=gen) for _ in range(2)]
    good.append(torch.full((3, 320, 320), 0.5))
    return model, good[0], ["image"], {}, good, [], [], 13, ["boxes", "scores", "labels"]


def build_fasterrcnn(gen):
    """fasterrcnn_mobilenet_v3_large_320_fpn (5 classes): the RPN's per-level top-k and NMS,
    MultiScaleRoIAlign (levels picked per box, merged with ScatterElements), the box head and
    per-class decoding (reshapes through multiples of the box count), score mask and batched NMS.
    Box deltas are kept small and class logits a few units: large random deltas give degenerate
    boxes whose corners amplify rounding, and saturated scores (exactly 1.0) tie."""
    torch.manual_seed(SEED)
    det = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None, num_classes=5, box_score_thresh=0.3)
    randomize_detector(det)
    with torch.no_grad():
        for lin in (det.roi_heads.box_predictor.bbox_pred, det.rpn.head.bbox_pred):
            lin.weight.mul_(0.05)
            lin.bias.zero_()
        det.roi_heads.box_predictor.cls_score.weight.mul_(0.1)
        det.rpn.head.cls_logits.weight.mul_(0.1)
    model = Detector(det).eval()
    good = [torch.rand(3, 320, 320, generator=gen), torch.full((3, 320, 320), 0.5)]
    return model, good[0], ["image"], {}, good, [], [], 13, ["boxes", "scores", "labels"]


MODELS = {
    "dyn_seq_attn": build_dyn_seq_attn,
    "resnet18_dynbatch": build_resnet18_dynbatch,
    "transformer_encoder": build_transformer_encoder,
    "bert_like": build_bert_like,
    "bert_batch": build_bert_batch,
    "encoder_batch": build_encoder_batch,
    "vit_batch": build_vit_batch,
    "resnet18_dynhw": build_resnet18_dynhw,
    "lraspp_dynhw": build_lraspp_dynhw,
    "espcn_dynhw": build_espcn_dynhw,
    "unet_dynhw": build_unet_dynhw,
    "yolo_dynhw": build_yolo_dynhw,
    "enc_dec": build_enc_dec,
    "vit": build_vit,
    "gpt_prefill": build_gpt_prefill,
    "gpt_decode": build_gpt_decode,
    "llama_dyn": build_llama_dyn,
    "detect_post": build_detect_post,
    "ssdlite": build_ssdlite,
    "fasterrcnn": build_fasterrcnn,
}


def save_tensor(array, path):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(array)).SerializeToString())


def generate(name, out_dir, stamp):
    gen = torch.Generator().manual_seed(SEED)
    spec = MODELS[name](gen)
    model, example, input_names, dynamic, good, bad, dyn_args, opset = spec[:8]
    output_names = spec[8] if len(spec) > 8 else ["y"]
    onnx_path = os.path.join(out_dir, name + ".onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example if isinstance(example, tuple) else (example,), onnx_path, opset_version=opset,
                          input_names=input_names, output_names=output_names,
                          dynamic_axes=dynamic or None, do_constant_folding=True)
    onnx.checker.check_model(onnx.load(onnx_path))
    with torch.no_grad():
        for i, x in enumerate(good):
            xs = x if isinstance(x, tuple) else (x,)
            d = os.path.join(out_dir, name, "test_data_set_%d" % i)
            os.makedirs(d, exist_ok=True)
            for k, t in enumerate(xs):
                save_tensor(t.numpy(), os.path.join(d, "input_%d.pb" % k))
            ys = model(*xs)
            for k, y in enumerate(ys if isinstance(ys, tuple) else (ys,)):
                save_tensor(y.numpy(), os.path.join(d, "output_%d.pb" % k))
        for i, x in enumerate(bad):
            xs = x if isinstance(x, tuple) else (x,)
            d = os.path.join(out_dir, name, "bad_%d" % i)
            os.makedirs(d, exist_ok=True)
            for k, t in enumerate(xs):
                save_tensor(t.numpy(), os.path.join(d, "input_%d.pb" % k))
    if dyn_args:
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
