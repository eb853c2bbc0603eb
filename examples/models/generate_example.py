#!/usr/bin/python3
"""Generates the bundled example model for `make demo` (run once; the outputs are committed).

Usage (from the repository root):
    /usr/bin/python3 examples/models/generate_example.py [OUT_DIR]     (default examples/models)

Writes OUT_DIR/example_cnn.onnx, OUT_DIR/example_input/input_0.pb and
OUT_DIR/example_reference/output_0.pb. The model is torchvision's MobileNetV2 architecture with
width_mult=0.5 and a 100-class head (so the ONNX file stays under 5 MB), random weights from
torch.manual_seed (no download: there are no trained weights, so the classes mean nothing), and
non-trivial BatchNorm statistics. It is exported with opset 13 and training=PRESERVE, so the
BatchNormalization nodes stay in the ONNX graph and ptec folds them itself. The input is a
deterministic synthetic 224x224 RGB "image" (smooth colour gradients and rings), normalized with the
ImageNet mean and std. The reference output is PyTorch's (eval mode, float32 logits).
"""

import os
import sys
import warnings

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torchvision

SEED = 1234
NUM_CLASSES = 100


def synthetic_image(size=224):
    """Smooth RGB pattern in [0, 1], shape 3 x size x size."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float64) / (size - 1)
    r = x
    g = 0.5 + 0.5 * np.cos(2 * np.pi * y)
    rad = np.sqrt((x - 0.6) ** 2 + (y - 0.4) ** 2)
    b = 0.5 + 0.5 * np.sin(6 * np.pi * rad)
    return np.stack([r, g, b])


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    model = torchvision.models.mobilenet_v2(weights=None, width_mult=0.5, num_classes=NUM_CLASSES)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) + 0.5)  # U(0.5, 1.5)
                m.weight.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(n, generator=gen) * 0.1)
        classifier = model.classifier[-1]
        classifier.weight.normal_(0.0, 0.5, generator=gen)  # spread the logits a little
        classifier.bias.zero_()
    model.eval()

    mean = np.array([0.485, 0.456, 0.406]).reshape(3, 1, 1)
    std = np.array([0.229, 0.224, 0.225]).reshape(3, 1, 1)
    x = ((synthetic_image() - mean) / std).astype(np.float32)[None]
    xt = torch.from_numpy(x)
    with torch.no_grad():
        ref = model(xt).numpy().astype(np.float32)

    onnx_path = os.path.join(out_dir, "example_cnn.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (xt,), onnx_path, opset_version=13, do_constant_folding=True,
                          training=torch.onnx.TrainingMode.PRESERVE, input_names=["image"],
                          output_names=["logits"])
    onnx.checker.check_model(onnx.load(onnx_path))
    for sub, name, arr in [("example_input", "input_0.pb", x), ("example_reference", "output_0.pb", ref)]:
        os.makedirs(os.path.join(out_dir, sub), exist_ok=True)
        with open(os.path.join(out_dir, sub, name), "wb") as f:
            f.write(numpy_helper.from_array(arr).SerializeToString())
    top = np.argsort(-ref[0])[:5]
    print("example_cnn.onnx: %.2f MB, input %s, output %s, top-5 classes %s" % (
        os.path.getsize(onnx_path) / 1e6, x.shape, ref.shape, top.tolist()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
