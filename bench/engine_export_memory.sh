#!/usr/bin/env bash
# Peak memory of packaging a large engine: `ptec compile` builds an engine-bearing program archive
# (.ptep) from an MLP whose weights (>= 512 MiB by default) end up in the engine, then
# `ptec export model.ptep -o model.pte` is measured. The archive is memory-mapped and the engine
# blob goes into the .pte as the delegate's payload without a copy; the writer drops the mapped
# pages it has written, so the export should add little beyond the process's own baseline.
# Target (issue): the export adds at most 10% of the engine size to peak RSS.
#
# Usage: bench/engine_export_memory.sh [PTEC] [WORK_DIR] [MIB]
#   PTEC      ptec binary (default build/release/bin/ptec)
#   WORK_DIR  scratch directory (default bench/results/engine_export_memory; needs ~3x MIB of disk)
#   MIB       weight size in MiB (default 512)
# Not part of `make test`. Needs /usr/bin/python3 with onnx and numpy and /usr/bin/time.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ptec=${1:-$root/build/release/bin/ptec}
work=${2:-$root/bench/results/engine_export_memory}
mib=${3:-512}
[[ -x "$ptec" ]] || { echo "engine_export_memory: no ptec binary at $ptec" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "engine_export_memory: /usr/bin/time is missing" >&2; exit 2; }
mkdir -p "$work"

# An MLP x[1, 4096] -> MatMul [4096, 4096] x N (64 MiB of weights each), and a one-layer
# [1, 64] model of the same structure as the baseline.
/usr/bin/python3 - "$work" "$mib" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper

work, mib = sys.argv[1], float(sys.argv[2])

def mlp(name, d, n):
    rng = np.random.default_rng(0)
    inits, nodes = [], []
    for i in range(n):
        w = (rng.standard_normal((d, d), dtype=np.float32) * (1.0 / d)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, "w%d" % i))
        nodes.append(helper.make_node("MatMul", ["h%d" % i if i else "x", "w%d" % i],
                                      ["h%d" % (i + 1) if i + 1 < n else "y"]))
    graph = helper.make_graph(nodes, name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, d])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, d])],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path = os.path.join(work, name + ".onnx")
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=name + ".weights", size_threshold=0)
    return n * d * d * 4

d = 4096
n = max(1, int(round(mib * (1 << 20) / (d * d * 4))))
print("weights: %d x [%d, %d] float32 = %d bytes" % (n, d, d, mlp("big_mlp", d, n)))
mlp("small_mlp", 64, 1)
PY

peak_kib() {  # peak RSS in KiB of the command
  /usr/bin/time -f %M -o "$work/time.txt" "$@" >/dev/null
  cat "$work/time.txt"
}

for m in small_mlp big_mlp; do
  "$ptec" compile "$work/$m.onnx" -o "$work/$m.ptep" --no-autotune >/dev/null
done
engine=$(stat -c %s "$work/big_mlp.ptep")
base=$(peak_kib "$ptec" export "$work/small_mlp.ptep" -o "$work/small_mlp.pte")
peak=$(peak_kib "$ptec" export "$work/big_mlp.ptep" -o "$work/big_mlp.pte")
pte=$(stat -c %s "$work/big_mlp.pte")
/usr/bin/python3 - "$engine" "$base" "$peak" "$pte" <<'PY'
import json, sys
engine, base, peak, pte = (int(v) for v in sys.argv[1:])
added = (peak - base) * 1024
print(json.dumps({"engine_program_bytes": engine, "pte_bytes": pte,
                  "baseline_peak_rss_bytes": base * 1024, "peak_rss_bytes": peak * 1024,
                  "added_bytes": added, "added_fraction_of_engine": round(added / engine, 4)}))
PY
