#!/usr/bin/env bash
# Peak memory of `ptec export` on a model whose weights (>= 1 GiB) live in an ONNX external-data
# file. The importer maps the data file and slices it (no heap copy of the weights) and the .pte
# writer streams constants from those slices; hashing and writing release the mapped pages they
# have read, so the peak RSS stays far below the weight size. Target: peak RSS < 1.3x the weights.
#
# Usage: bench/export_memory.sh [PTEC] [WORK_DIR] [GIB]
#   PTEC      ptec binary (default build/release/bin/ptec)
#   WORK_DIR  scratch directory (default bench/results/export_memory; needs ~2x GIB of disk)
#   GIB       weight size in GiB (default 1)
# Not part of `make test`. Needs /usr/bin/python3 with onnx and numpy (no torch) and /usr/bin/time.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ptec=${1:-$root/build/release/bin/ptec}
work=${2:-$root/bench/results/export_memory}
gib=${3:-1}
[[ -x "$ptec" ]] || { echo "export_memory: no ptec binary at $ptec" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "export_memory: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
mkdir -p "$work"

# The model: x[1, 4096] through N MatMuls with [4096, 4096] float32 weights (64 MiB each), every
# weight stored in one external data file written by numpy.
/usr/bin/python3 - "$work" "$gib" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import helper, TensorProto

work, gib = sys.argv[1], float(sys.argv[2])
d = 4096
n = max(1, int(round(gib * (1 << 30) / (d * d * 4))))
data_name = "weights.bin"
rng = np.random.default_rng(0)
inits, nodes = [], []
with open(os.path.join(work, data_name), "wb") as f:
    offset = 0
    for i in range(n):
        w = (rng.standard_normal((d, d), dtype=np.float32) * (1.0 / d)).astype(np.float32)
        f.write(w.tobytes())
        t = TensorProto(name="w%d" % i, data_type=TensorProto.FLOAT, dims=[d, d])
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", data_name), ("offset", str(offset)), ("length", str(w.nbytes))):
            e = t.external_data.add()
            e.key, e.value = k, v
        offset += w.nbytes
        inits.append(t)
        nodes.append(helper.make_node("MatMul", ["h%d" % i if i else "x", "w%d" % i],
                                      ["h%d" % (i + 1) if i + 1 < n else "y"]))
graph = helper.make_graph(nodes, "big_mlp",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, d])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, d])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
with open(os.path.join(work, "big_mlp.onnx"), "wb") as f:
    f.write(model.SerializeToString())
print("weights: %d x [%d, %d] float32 = %d bytes" % (n, d, d, n * d * d * 4))
PY

weights=$(stat -c %s "$work/weights.bin")
sync
/usr/bin/time -v "$ptec" export "$work/big_mlp.onnx" -o "$work/big_mlp.pte" 2>"$work/time.txt"
peak_kib=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$work/time.txt")
elapsed=$(awk -F'): ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
peak=$((peak_kib * 1024))
ratio=$(awk -v p="$peak" -v w="$weights" 'BEGIN {printf "%.3f", p / w}')
echo "export_memory: weights $weights bytes, .pte $(stat -c %s "$work/big_mlp.pte") bytes"
echo "export_memory: peak RSS $peak bytes = ${ratio}x the weights (target < 1.3), wall $elapsed"
rm -f "$work/big_mlp.pte" "$work/weights.bin"
awk -v r="$ratio" 'BEGIN {exit !(r < 1.3)}' || { echo "export_memory: over the 1.3x target" >&2; exit 1; }
