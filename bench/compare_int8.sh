#!/usr/bin/env bash
# int8 against fp32: ptec's int8 path (the CPU backend's int8 kernels on a static per-channel QDQ
# ResNet-18, bench/make_qdq_resnet.py) against ptec fp32 (cpu_fp32 on the fp32 ResNet-18) and
# ONNX Runtime on both models, alternating rounds, one thread by default.
#
#   bench/compare_int8.sh [--build DIR] [--threads "1"] [--rounds 5] [--iterations 10]
#
# DIR (default build/release) must hold bin/ptec (built first when DIR is build/release).
# Prints per runtime and model: min and median latency, and the int8 speed-up over fp32 for ptec
# and for ORT; also the int8 model's accuracy against the fp32 model's output (SQNR in dB, and
# whether the top-1 class agrees). Needs node/npm for onnxruntime-node (build/ort, as compare.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/release
threads="1"
rounds=5
iterations=10
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    *) echo "compare_int8.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
ptec=$build/bin/ptec
if [[ $build == "$root/build/release" ]]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target ptec >/dev/null
fi
models=$root/build/bench-models
out=$root/build/bench-int8
mkdir -p "$out"
[[ -f $models/resnet18.onnx ]] || /usr/bin/python3 "$root/bench/generate_models.py" "$models" --only resnet18 >/dev/null
[[ -f $models/resnet18_qdq.onnx ]] || /usr/bin/python3 "$root/bench/make_qdq_resnet.py" "$models"

ort_dir=$root/build/ort
if [[ ! -d $ort_dir/node_modules/onnxruntime-node ]]; then
  mkdir -p "$ort_dir"
  (cd "$ort_dir" && ONNXRUNTIME_NODE_INSTALL=skip npm install --silent onnxruntime-node >/dev/null)
fi
export ORT_NODE_MODULE=$ort_dir/node_modules/onnxruntime-node

data=$models/resnet18
"$ptec" export "$models/resnet18.onnx" -o "$out/fp32.pte" --recipe cpu_fp32 >/dev/null
"$ptec" export "$models/resnet18_qdq.onnx" -o "$out/int8.pte" --recipe cpu_fp32 >/dev/null
for m in fp32 int8; do
  rm -rf "$out/$m.out" && mkdir -p "$out/$m.out"
  "$ptec" run "$out/$m.pte" --inputs "$data/test_data_set_0" --outputs-dir "$out/$m.out" >/dev/null
done
/usr/bin/python3 - "$out/fp32.out/output_0.pb" "$out/int8.out/output_0.pb" <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
def load(p):
    t = onnx.TensorProto()
    t.ParseFromString(open(p, "rb").read())
    return numpy_helper.to_array(t).astype(np.float64)
ref, q = load(sys.argv[1]), load(sys.argv[2])
sqnr = 10 * np.log10((ref ** 2).sum() / max(((ref - q) ** 2).sum(), 1e-30))
print("int8 accuracy vs fp32: SQNR %.1f dB, top-1 %s" % (sqnr, "agrees" if ref.argmax() == q.argmax() else "differs"))
PY

for t in $threads; do
  for f in ptec_fp32 ptec_int8 ort_fp32 ort_int8; do : >"$out/$f.$t"; done
  for ((r = 0; r < rounds; ++r)); do
    "$ptec" run "$out/fp32.pte" --inputs "$data/test_data_set_0" --iterations "$iterations" --threads "$t" --json >>"$out/ptec_fp32.$t"
    "$ptec" run "$out/int8.pte" --inputs "$data/test_data_set_0" --iterations "$iterations" --threads "$t" --json >>"$out/ptec_int8.$t"
    node "$root/bench/ort_time.mjs" "$models/resnet18.onnx" "$data/inputs.json" "$iterations" "$t" >>"$out/ort_fp32.$t"
    node "$root/bench/ort_time.mjs" "$models/resnet18_qdq.onnx" "$data/inputs.json" "$iterations" "$t" >>"$out/ort_int8.$t"
  done
  /usr/bin/python3 - "$out" "$t" <<'PY'
import json, statistics, sys
out, t = sys.argv[1:]
def objects(path):
    text, dec, res, i = open(path).read(), json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        obj, i = dec.raw_decode(text, i)
        res.append(obj)
    return res
stats = {}
for name in ("ptec_fp32", "ptec_int8"):
    p = objects("%s/%s.%s" % (out, name, t))
    stats[name] = (min(x["latency_ms"]["min"] for x in p), statistics.median(x["latency_ms"]["median"] for x in p))
for name in ("ort_fp32", "ort_int8"):
    o = [x for obj in objects("%s/%s.%s" % (out, name, t)) for x in obj["latencies_ms"]]
    stats[name] = (min(o), statistics.median(o))
print("\nResNet-18, %s thread(s)      min ms  median ms" % t)
for name, (lo, med) in stats.items():
    print("  %-24s %8.2f %9.2f" % (name, lo, med))
print("  ptec int8 speed-up over ptec fp32 (medians): %.2fx" % (stats["ptec_fp32"][1] / stats["ptec_int8"][1]))
print("  ORT  int8 speed-up over ORT  fp32 (medians): %.2fx" % (stats["ort_fp32"][1] / stats["ort_int8"][1]))
print("  ptec int8 / ORT int8 (medians): %.2f" % (stats["ptec_int8"][1] / stats["ort_int8"][1]))
PY
done
