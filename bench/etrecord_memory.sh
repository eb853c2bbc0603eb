#!/usr/bin/env bash
# What recording an ETRecord costs in memory: `ptec export` of a model with large weights, with and
# without --etrecord, and the extra peak RSS of the record as a percentage of the weights. The
# record's programs are structure snapshots that share every payload with the exported programs,
# and the saved file refers to payloads by name, size and hash, so the extra should be small.
# Target: extra peak RSS < 5% of the weights.
#
# Usage: bench/etrecord_memory.sh [PTEC] [WORK_DIR] [MIB] [RUNS]
#   PTEC      ptec binary (default build/release/bin/ptec)
#   WORK_DIR  scratch directory (default bench/results/etrecord_memory; needs ~3x MIB of disk)
#   MIB       weight size in MiB (default 128; at least 100)
#   RUNS      exports of each kind, alternating; the median peak of each is compared (default 3)
# Not part of `make test`. Needs /usr/bin/python3 with onnx and numpy and /usr/bin/time.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ptec=${1:-$root/build/release/bin/ptec}
work=${2:-$root/bench/results/etrecord_memory}
mib=${3:-128}
runs=${4:-3}
[[ -x "$ptec" ]] || { echo "etrecord_memory: no ptec binary at $ptec" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "etrecord_memory: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
mkdir -p "$work"

# The model: x[1, 2048] through MatMul + Add (bias) + Relu layers with [2048, 2048] float32
# weights (16 MiB each) in one external data file, plus a Sin per layer that the CPU backend
# does not run (so the record maps delegated and undelegated nodes).
/usr/bin/python3 - "$work" "$mib" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import helper, TensorProto

work, mib = sys.argv[1], float(sys.argv[2])
d = 2048
n = max(1, int(round(mib * (1 << 20) / (d * d * 4))))
data_name = "weights.bin"
rng = np.random.default_rng(0)
inits, nodes = [], []

def external(name, array, f, offset):
    t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=list(array.shape))
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", data_name), ("offset", str(offset)), ("length", str(array.nbytes))):
        e = t.external_data.add()
        e.key, e.value = k, v
    f.write(array.tobytes())
    return t, offset + array.nbytes

with open(os.path.join(work, data_name), "wb") as f:
    offset = 0
    h = "x"
    for i in range(n):
        w = (rng.standard_normal((d, d), dtype=np.float32) * (1.0 / d)).astype(np.float32)
        b = (rng.standard_normal((d,), dtype=np.float32) * 0.01).astype(np.float32)
        t, offset = external("w%d" % i, w, f, offset)
        inits.append(t)
        t, offset = external("b%d" % i, b, f, offset)
        inits.append(t)
        out = "y" if i + 1 == n else "h%d" % (i + 1)
        nodes += [
            helper.make_node("MatMul", [h, "w%d" % i], ["m%d" % i], name="/layer%d/MatMul" % i),
            helper.make_node("Add", ["m%d" % i, "b%d" % i], ["a%d" % i], name="/layer%d/Add" % i),
            helper.make_node("Relu", ["a%d" % i], ["r%d" % i], name="/layer%d/Relu" % i),
            helper.make_node("Sin", ["r%d" % i], [out], name="/layer%d/Sin" % i),
        ]
        h = out
graph = helper.make_graph(nodes, "big_mlp",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, d])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, d])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
with open(os.path.join(work, "big_mlp.onnx"), "wb") as f:
    f.write(model.SerializeToString())
print("etrecord_memory: %d layers of [%d, %d] float32 weights" % (n, d, d))
PY

weights=$(stat -c %s "$work/weights.bin")
sync

# Peak RSS (bytes) of one export; "$@" are extra export arguments.
peak_of() {
  /usr/bin/time -v "$ptec" export "$work/big_mlp.onnx" -o "$work/big_mlp.pte" "$@" \
    >/dev/null 2>"$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
  local kib
  kib=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$work/time.txt")
  echo $((kib * 1024))
}
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

plain=()
with=()
for ((i = 0; i < runs; ++i)); do
  plain+=("$(peak_of)")
  with+=("$(peak_of --etrecord "$work/big_mlp.etrecord")")
done
p=$(median "${plain[@]}")
w=$(median "${with[@]}")
record=$(stat -c %s "$work/big_mlp.etrecord")
pct=$(awk -v a="$w" -v b="$p" -v x="$weights" 'BEGIN {printf "%.2f", 100 * (a - b) / x}')
echo "etrecord_memory: weights $weights bytes, ETRecord file $record bytes"
echo "etrecord_memory: peak RSS without --etrecord $p bytes (runs: ${plain[*]})"
echo "etrecord_memory: peak RSS with    --etrecord $w bytes (runs: ${with[*]})"
echo "etrecord_memory: extra peak RSS $((w - p)) bytes = ${pct}% of the weights (target < 5%)"
rm -f "$work/big_mlp.pte" "$work/big_mlp.etrecord" "$work/weights.bin" "$work/big_mlp.onnx"
awk -v r="$pct" 'BEGIN {exit !(r < 5)}' || { echo "etrecord_memory: over the 5% target" >&2; exit 1; }
