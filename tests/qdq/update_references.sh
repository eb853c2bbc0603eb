#!/usr/bin/env bash
# Rewrites tests/qdq/reference/NAME.npy and NAME.unoptimized.npy: ONNX Runtime's output (with
# all graph optimizations, and with none) for every model of
# tests/qdq/make_qdq_models.py (needs node and onnxruntime-node, e.g. build/ort as
# bench/compare.sh installs it). The files let tests/qdq/run_qdq.sh check ptec where node is
# missing.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ORT_NODE_MODULE=${ORT_NODE_MODULE:-$root/build/ort/node_modules/onnxruntime-node}
mkdir -p "$here/reference"
/usr/bin/python3 "$here/make_qdq_models.py" "$work"
for d in "$work"/*/; do
  name=$(basename "$d")
  for level in all disabled; do
    suffix=$([[ $level == all ]] && echo "" || echo ".unoptimized")
    node "$here/ort_reference.mjs" "$d" "$d/ort.json" "$level"
    /usr/bin/python3 -c 'import json, sys, numpy as np
out = list(json.load(open(sys.argv[1])).values())[0]
np.save(sys.argv[2], np.array(out["data"], dtype=np.float32).reshape(out["dims"]))' "$d/ort.json" "$here/reference/$name$suffix.npy"
    echo "wrote tests/qdq/reference/$name$suffix.npy"
  done
done
