"""Exports small PyTorch models to ONNX for the importer's tests (run at build time by Debian's
/usr/bin/python3 with python3-torch; writes into the build directory, never the source tree).

Usage: gen_models.py OUT_DIR. Always writes OUT_DIR/stamp; the models only when torch exists.
"""
import os
import sys


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    try:
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
    except ImportError:
        open(os.path.join(out_dir, "stamp"), "w").write("no torch\n")
        return
    torch.manual_seed(0)

    class Cnn(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
            self.bn = nn.BatchNorm2d(8)
            self.pool = nn.MaxPool2d(2, ceil_mode=True)
            self.dw = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
            self.fc = nn.Linear(8, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.bn(self.conv(x))))
            x = F.hardswish(self.dw(x)) * F.hardsigmoid(x[:, :, ::2, ::2])
            x = F.relu6(x)
            x = F.adaptive_avg_pool2d(x, 1)
            x = x.view(x.size(0), -1)  # Shape → Gather → Unsqueeze → Concat → Reshape
            return F.log_softmax(self.fc(x), dim=1)

    class Attention(nn.Module):
        def __init__(self, dim=16, heads=2):
            super().__init__()
            self.heads = heads
            self.norm = nn.LayerNorm(dim)
            self.qkv = nn.Linear(dim, 3 * dim)
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):
            b, t, c = x.shape
            h = self.norm(x)
            q, k, v = self.qkv(h).split(c, dim=-1)
            q = q.reshape(b, t, self.heads, c // self.heads).transpose(1, 2)
            k = k.reshape(b, t, self.heads, c // self.heads).transpose(1, 2)
            v = v.reshape(b, t, self.heads, c // self.heads).transpose(1, 2)
            a = torch.softmax(q @ k.transpose(-2, -1) / (c // self.heads) ** 0.5, dim=-1)
            y = (a @ v).transpose(1, 2).reshape(b, t, c)
            return x + F.gelu(self.proj(y))

    models = {
        "cnn.onnx": (Cnn().eval(), torch.randn(2, 3, 16, 16), 13, {"x": {0: "batch"}}),
        "attention.onnx": (Attention().eval(), torch.randn(2, 5, 16), 17, None),
    }
    for name, (model, example, opset, dynamic) in models.items():
        torch.onnx.export(model, (example,), os.path.join(out_dir, name), opset_version=opset,
                          input_names=["x"], output_names=["y"], dynamic_axes=dynamic)
    open(os.path.join(out_dir, "stamp"), "w").write("ok\n")


if __name__ == "__main__":
    main(sys.argv[1])
