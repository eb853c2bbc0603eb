#!/usr/bin/env bash
# `make demo`: export the bundled example CNN with ptec, inspect it, run it, show the top-5 classes
# and the latency, and check the result against PyTorch's reference output.
# Usage: bash examples/demo.sh PTEC        (make demo passes build/release/bin/ptec)
# Output goes to $DEMO_OUT (default build/demo, relative to the repository root).
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 PTEC" >&2
  exit 2
fi
ptec=$1
if [[ ! -x "$ptec" ]]; then
  echo "demo: ptec binary not found at '$ptec' (build it first: make build)" >&2
  exit 1
fi
ptec=$(cd "$(dirname "$ptec")" && pwd)/$(basename "$ptec")
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=/usr/bin/python3
if ! "$python" -c "import numpy, onnx" 2>/dev/null; then
  echo "demo: $python with numpy and onnx is needed for the top-5 and compare steps" >&2
  echo "      (Debian: apt-get install python3-numpy python3-onnx)" >&2
  exit 1
fi

models=examples/models
out=${DEMO_OUT:-build/demo}
pte=$out/example_cnn.pte
rm -rf "$out"
mkdir -p "$out/out"

echo "== ptec demo"
echo "Model : $models/example_cnn.onnx ($(stat -c %s "$models/example_cnn.onnx") bytes): MobileNetV2 (width 0.5,"
echo "        100 classes) with seeded RANDOM weights - see $models/README.md"
echo "Input : $models/example_input/input_0.pb (a synthetic 224x224 gradient image, ImageNet-normalized)"
echo

echo "== 1/4 Export ONNX -> ExecuTorch program"
echo "\$ ptec export $models/example_cnn.onnx -o $pte"
t0=$(date +%s%N)
"$ptec" export "$models/example_cnn.onnx" -o "$pte"
t1=$(date +%s%N)
echo "wrote $pte ($(stat -c %s "$pte") bytes) in $(((t1 - t0) / 1000000)) ms"
echo

echo "== 2/4 Inspect the program"
echo "\$ ptec info $pte"
"$ptec" info "$pte"
echo

echo "== 3/4 Run it (10 timed iterations)"
echo "\$ ptec run $pte --inputs $models/example_input --iterations 10 --json --outputs-dir $out/out"
"$ptec" run "$pte" --inputs "$models/example_input" --iterations 10 --json --outputs-dir "$out/out" \
  >"$out/run.json"
cat "$out/run.json"
echo

"$python" - "$out/run.json" "$out/out/output_0.pb" <<'PY'
import json
import re
import statistics
import sys

import numpy as np
import onnx
from onnx import numpy_helper

run_json, output_pb = sys.argv[1], sys.argv[2]

t = onnx.TensorProto()
with open(output_pb, "rb") as f:
    t.ParseFromString(f.read())
logits = numpy_helper.to_array(t).astype(np.float64).reshape(-1)
p = np.exp(logits - logits.max())
p /= p.sum()
print("Top-5 classes (indices into the 100-class head; the weights are random, so there are no")
print("real labels and the ranking only shows that ptec computes what PyTorch computes):")
for rank, k in enumerate(np.argsort(-logits)[:5], 1):
    print("  %d. class %3d   probability %.4f   logit %+.4f" % (rank, k, p[k], logits[k]))

# Median latency from `ptec run --json`: a number under a key that says median/p50, or else the
# median of a list of per-iteration times. The unit comes from the key name (default ms).
def unit_scale(path):
    for key in reversed(path):  # "median_us", or "latency_us": {"median": ...}
        k = key.lower()
        for suffix, scale in (("ns", 1e-6), ("us", 1e-3), ("ms", 1.0), ("_s", 1e3), ("sec", 1e3),
                              ("seconds", 1e3)):
            if k.endswith(suffix):
                return scale
    return 1.0

def walk(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, path + (str(k),))
    elif isinstance(obj, list) and obj and all(isinstance(v, (int, float)) for v in obj):
        yield path, obj
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from walk(v, path + (str(i),))
    else:
        yield path, obj

try:
    with open(run_json) as f:
        data = json.load(f)
except ValueError as e:
    print("Median latency: (ptec run --json did not print valid JSON: %s)" % e)
    sys.exit(0)
found = None
items = list(walk(data))
for path, v in items:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and path and re.search(r"median|p50", path[-1], re.I):
        found = (v * unit_scale(path), ".".join(path))
        break
if found is None:
    for path, v in items:
        keys = ".".join(path)
        if isinstance(v, list) and len(v) > 1 and re.search(r"lat|time|dur|iter", keys, re.I):
            found = (statistics.median(v) * unit_scale(path), "median of " + keys)
            break
if found:
    print("Median latency: %.3f ms (%s)" % found)
else:
    print("Median latency: not found in the JSON (keys: %s)" % ", ".join(".".join(p) for p, _ in items))
PY
echo

echo "== 4/4 Check against PyTorch's reference output"
echo "\$ compare.py $models/example_reference $out/out"
"$python" tests/e2e/compare.py "$models/example_reference" "$out/out"
echo
echo "demo: done (program: $pte)"
