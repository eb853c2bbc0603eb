#!/usr/bin/env bash
# Precompiled CPU engines against the cpu_fp32 recipe (DESIGN.md §7; issue "Precompiled engines",
# speed acceptance): for each model, the engine's build time (`ptec compile`, autotuned), its
# load time at run time (`ptec run --json` load_ms: program and method load, where the engine
# recreates its kernels), and the latency of `ptec run` on the engine program and on the
# cpu_fp32 export, alternating rounds (and which of the two runs first). Prints the ratio of the
# best medians and the median of the rounds' ratios (separate processes on this VM differ by up
# to 15% run to run; the median of many rounds resists that best).
#
#   bench/engine_bench.sh [--models "resnet18 mobilenet_v2"] [--threads N] [--rounds 3]
#                         [--iterations 10] [--build DIR]
#
# Prints one line per model and a JSON object per model to build/bench/engine_bench.jsonl.
# Numbers from a loaded machine are only indicative.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
models="resnet18 mobilenet_v2"
threads=0
rounds=3
iterations=10
build=$root/build/release
while [[ $# -gt 0 ]]; do
  case "$1" in
    --models) models=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "engine_bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
ptec=$build/bin/ptec
out=$root/build/bench/engine
mkdir -p "$out"
if [[ ! -x $ptec ]]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target ptec >/dev/null
fi
/usr/bin/python3 "$root/bench/generate_models.py" "$root/build/bench-models" >/dev/null
: > "$root/build/bench/engine_bench.jsonl"

json() { /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
now_ms() { date +%s%3N; }

for m in $models; do
  onnx=$root/build/bench-models/$m.onnx
  [[ -f $onnx ]] || { echo "engine_bench.sh: $onnx missing" >&2; exit 1; }
  # Build: the autotuned engine (timed), then its .pte; the cpu_fp32 export.
  t0=$(now_ms)
  compile_json=$("$ptec" compile "$onnx" -o "$out/$m.ptep" --threads "$threads" --json)
  t1=$(now_ms)
  build_ms=$(echo "$compile_json" | json 'd["build_ms"]')
  "$ptec" export "$out/$m.ptep" -o "$out/$m.engine.pte" >/dev/null
  "$ptec" export "$onnx" -o "$out/$m.cpu_fp32.pte" --recipe cpu_fp32 >/dev/null
  run() { "$ptec" run "$1" --iterations "$iterations" --threads "$threads" --json; }
  engine_best=""; cpu_best=""; load_best=""; ratios=""
  for ((r = 0; r < rounds; ++r)); do
    # The order alternates too: the second process of a pair is not always the same one.
    if ((r % 2 == 0)); then
      e=$(run "$out/$m.engine.pte"); c=$(run "$out/$m.cpu_fp32.pte")
    else
      c=$(run "$out/$m.cpu_fp32.pte"); e=$(run "$out/$m.engine.pte")
    fi
    em=$(echo "$e" | json 'd["latency_ms"]["median"]'); cm=$(echo "$c" | json 'd["latency_ms"]["median"]')
    el=$(echo "$e" | json 'd["load_ms"]')
    engine_best=$(/usr/bin/python3 -c "print(min(x for x in [$em, ${engine_best:-1e30}]))")
    cpu_best=$(/usr/bin/python3 -c "print(min(x for x in [$cm, ${cpu_best:-1e30}]))")
    load_best=$(/usr/bin/python3 -c "print(min(x for x in [$el, ${load_best:-1e30}]))")
    ratios="$ratios $(/usr/bin/python3 -c "print($em / $cm)")"
  done
  ratio=$(/usr/bin/python3 -c "print(round($engine_best / $cpu_best, 3))")
  # Each round's engine/cpu_fp32 ratio; their median resists a round that ran slow as a whole.
  median_ratio=$(/usr/bin/python3 -c "import statistics, sys; print(round(statistics.median(float(x) for x in sys.argv[1:]), 3))" $ratios)
  load_frac=$(/usr/bin/python3 -c "print(round($load_best / $build_ms, 3))")
  printf '%-14s engine %8.2f ms  cpu_fp32 %8.2f ms  (engine/cpu %s, median of rounds %s)  build %8.0f ms (compile %d ms wall)  load %7.1f ms (%s of build)\n' \
    "$m" "$engine_best" "$cpu_best" "$ratio" "$median_ratio" "$build_ms" "$((t1 - t0))" "$load_best" "$load_frac"
  echo "{\"model\": \"$m\", \"engine_ms\": $engine_best, \"cpu_fp32_ms\": $cpu_best, \"ratio\": $ratio, \"median_round_ratio\": $median_ratio, \"build_ms\": $build_ms, \"load_ms\": $load_best, \"load_over_build\": $load_frac}" \
    >> "$root/build/bench/engine_bench.jsonl"
done
