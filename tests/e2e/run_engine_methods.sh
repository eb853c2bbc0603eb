#!/usr/bin/env bash
# A two-method engine-bearing program: the GPT-style prefill and decode graphs are each
# compiled (ptec compile, no autotuning), packaged together by one
# `ptec export --method prefill=... --method decode=...`, and each method is run on its
# reference inputs and compared. Each method must have its own PtecEngineBackend delegates, and
# no engine blob may be shared between the two methods (their payloads differ).
# Usage: tests/e2e/run_engine_methods.sh PTEC MODEL_DIR [TOL]   (MODEL_DIR holds gpt_prefill.onnx,
# gpt_decode.onnx and their test_data_set_0)
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 PTEC MODEL_DIR [TOL]" >&2
  exit 2
fi
ptec=$1
model_dir=$2
tol=${3:-1e-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3

tmp="${PTEC_E2E_TMP:-$model_dir/tmp}/engine_gpt_methods"
rm -rf "$tmp"
mkdir -p "$tmp"
pte="$tmp/gpt.pte"

fail() {
  echo "run_engine_methods: $*" >&2
  exit 1
}

for m in prefill decode; do
  [[ -f "$model_dir/gpt_$m.onnx" ]] || { echo "run_engine_methods: missing $model_dir/gpt_$m.onnx" >&2; exit 2; }
  echo "+ $ptec compile $model_dir/gpt_$m.onnx -o $tmp/$m.ptep --no-autotune"
  "$ptec" compile "$model_dir/gpt_$m.onnx" -o "$tmp/$m.ptep" --no-autotune || fail "compile $m FAILED"
done
echo "+ $ptec export --method prefill=$tmp/prefill.ptep --method decode=$tmp/decode.ptep -o $pte"
"$ptec" export --method "prefill=$tmp/prefill.ptep" --method "decode=$tmp/decode.ptep" -o "$pte" ||
  fail "export FAILED"

"$ptec" info "$pte" --json >"$tmp/info.json" || fail "info FAILED"
"$python" - "$tmp/info.json" <<'PY' || fail "the methods' engine delegates are not their own"
import json, sys
info = json.load(open(sys.argv[1]))
blobs = {}
for m in info["methods"]:
    if m["name"] not in ("prefill", "decode"):
        continue
    engine = [d for d in m.get("delegates", []) if d["backend_id"] == "PtecEngineBackend"]
    if not engine:
        sys.exit(f"method {m['name']} has no PtecEngineBackend delegate")
    blobs[m["name"]] = {(d["location"], d["index"]) for d in engine}
    print(f"{m['name']}: {len(engine)} engine delegate(s), blobs {sorted(i for _, i in blobs[m['name']])}")
if set(blobs) != {"prefill", "decode"}:
    sys.exit(f"methods found: {sorted(blobs)}")
shared = blobs["prefill"] & blobs["decode"]
if shared:
    sys.exit(f"prefill and decode share engine blobs {sorted(shared)}")
PY

for m in prefill decode; do
  data_dir="$model_dir/gpt_$m/test_data_set_0"
  out="$tmp/out_$m"
  mkdir -p "$out"
  echo "+ $ptec run $pte --method $m --inputs $data_dir --outputs-dir $out"
  "$ptec" run "$pte" --method "$m" --inputs "$data_dir" --outputs-dir "$out" || fail "run $m FAILED"
  "$python" "$here/compare.py" "$data_dir" "$out" --tol "$tol" || fail "compare $m FAILED"
done
echo "run_engine_methods: PASS (prefill and decode, $(stat -c %s "$pte")-byte .pte)"
