#!/usr/bin/env bash
# ptec against ONNX Runtime on the benchmark models, in one run (DESIGN.md §11, README "Speed").
#
#   bench/compare.sh [--models "resnet18 mobilenet_v2 ..."] [--threads "1 2"] [--rounds 5]
#                    [--iterations 10] [--recipe cpu_fp32]
#
# --models takes the benchmark set's names and those of bench/generate_models.py's EXTRA_MODELS
# (a wider set of real architectures, generated on request).
#
# For each model: generates it (bench/generate_models.py), exports it with `ptec export` (wall
# time and peak RSS via /usr/bin/time), checks ptec's output against PyTorch's reference
# (tests/e2e/compare.py: max abs error <= 1e-3 x max(1, max |ref|)), then alternates ROUNDS
# rounds of ITERATIONS runs of ptec (`ptec run --iterations`) and of ONNX Runtime
# (bench/ort_time.mjs, onnxruntime-node, spinning off), per thread count. Prints per model and
# thread count: min and median latency of each, the ratio ptec/ORT of the medians, and ptec's
# GFLOP/s at its median latency as a fraction of this core's measured peak (bench/peak_flops;
# of_peak), and at its min latency (at_min: the figure a quiet machine approaches, the one quoted
# for ONNX Runtime's "min 41 ms = 90% of peak"). Needs node/npm for onnxruntime-node (installed
# under build/ort on first use).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
models="resnet18 mobilenet_v2 squeezenet1_1 efficientnet_b0 vit_tiny transformer_encoder bert_tiny"
threads="1 2"
rounds=5
iterations=10
recipe=cpu_fp32
while [[ $# -gt 0 ]]; do
  case "$1" in
    --models) models=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    --recipe) recipe=$2; shift 2 ;;
    *) echo "compare.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

build=$root/build/release
ptec=$build/bin/ptec
out=$root/build/bench
mkdir -p "$out"
cmake --preset release >/dev/null
cmake --build --preset release --target ptec peak_flops >/dev/null
# shellcheck disable=SC2086  # one argument per model name
/usr/bin/python3 "$root/bench/generate_models.py" "$root/build/bench-models" --only $models >/dev/null

ort_dir=$root/build/ort
if [[ ! -d $ort_dir/node_modules/onnxruntime-node ]]; then
  mkdir -p "$ort_dir"
  (cd "$ort_dir" && ONNXRUNTIME_NODE_INSTALL=skip npm install --silent onnxruntime-node >/dev/null)
fi
export ORT_NODE_MODULE=$ort_dir/node_modules/onnxruntime-node

peak=$("$build/bin/peak_flops" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["best"])')
echo "one-core fp32 peak (bench/peak_flops): $peak GFLOP/s"
printf "\n%-20s %3s %9s %9s %9s %9s %7s %8s %8s %7s %8s\n" model thr ptec_min ptec_med ort_min ort_med ratio GFLOP/s of_peak at_min export_s
for model in $models; do
  onnx=$root/build/bench-models/$model.onnx
  data=$root/build/bench-models/$model
  pte=$out/$model.pte
  # Export: wall time and peak RSS.
  /usr/bin/time -f "%e %M" -o "$out/$model.time" "$ptec" export "$onnx" -o "$pte" --recipe "$recipe" >/dev/null
  read -r export_s rss_kb <"$out/$model.time"
  # Accuracy against PyTorch's reference.
  rm -rf "$out/$model.out" && mkdir -p "$out/$model.out"
  "$ptec" run "$pte" --inputs "$data/test_data_set_0" --outputs-dir "$out/$model.out" >/dev/null
  /usr/bin/python3 "$root/tests/e2e/compare.py" "$data/test_data_set_0" "$out/$model.out" >"$out/$model.accuracy" \
    || { echo "$model: outputs differ from the reference:"; cat "$out/$model.accuracy"; exit 1; }
  gflop=$(/usr/bin/python3 -c "import json; print(json.load(open('$data/info.json'))['gflop'])")
  for t in $threads; do
    : >"$out/$model.$t.ptec"
    : >"$out/$model.$t.ort"
    for ((r = 0; r < rounds; ++r)); do
      "$ptec" run "$pte" --inputs "$data/test_data_set_0" --iterations "$iterations" --threads "$t" --json \
        >>"$out/$model.$t.ptec"
      node "$root/bench/ort_time.mjs" "$onnx" "$data/inputs.json" "$iterations" "$t" >>"$out/$model.$t.ort"
    done
    /usr/bin/python3 - "$out/$model.$t.ptec" "$out/$model.$t.ort" "$model" "$t" "$gflop" "$peak" "$export_s" "$rss_kb" <<'PY'
import json, statistics, sys
ptec_file, ort_file, model, threads, gflop, peak, export_s, rss_kb = sys.argv[1:]
def objects(path):
    text, dec, out, i = open(path).read(), json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        obj, i = dec.raw_decode(text, i)
        out.append(obj)
    return out
p = objects(ptec_file)
o = [x for obj in objects(ort_file) for x in obj["latencies_ms"]]
p_min = min(x["latency_ms"]["min"] for x in p)
p_med = statistics.median(x["latency_ms"]["median"] for x in p)
o_min, o_med = min(o), statistics.median(o)
gflops = float(gflop) / (p_med / 1e3)
core_peak = float(peak) * int(threads)
print("%-20s %3s %9.2f %9.2f %9.2f %9.2f %7.2f %8.1f %7.0f%% %6.0f%% %8.2f  (export peak RSS %.0f MB)" % (
    model, threads, p_min, p_med, o_min, o_med, p_med / o_med, gflops, 100 * gflops / core_peak,
    100 * float(gflop) / (p_min / 1e3) / core_peak, float(export_s), int(rss_kb) / 1024))
PY
  done
done
