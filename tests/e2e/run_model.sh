#!/usr/bin/env bash
# End-to-end check of one generated model: export with ptec, run on each reference input, compare.
# Usage: tests/e2e/run_model.sh PTEC MODEL_DIR NAME [TOL]
#   PTEC       path to the ptec binary
#   MODEL_DIR  output of tests/models/generate.py (holds NAME.onnx and NAME/test_data_set_K/)
#   NAME       model name, e.g. tiny_cnn
#   TOL        relative tolerance for compare.py (default 1e-3)
# Work files go to $PTEC_E2E_TMP/NAME (default MODEL_DIR/tmp/NAME), cleared first.
set -euo pipefail

if [[ $# -lt 3 || $# -gt 4 ]]; then
  echo "usage: $0 PTEC MODEL_DIR NAME [TOL]" >&2
  exit 2
fi
ptec=$1
model_dir=$2
name=$3
tol=${4:-1e-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3

onnx_file="$model_dir/$name.onnx"
data_dir="$model_dir/$name/test_data_set_0"
[[ -x "$ptec" ]] || { echo "run_model: ptec binary not found or not executable: $ptec" >&2; exit 2; }
[[ -f "$onnx_file" ]] || { echo "run_model: missing $onnx_file (run tests/models/generate.py $model_dir)" >&2; exit 2; }
[[ -f "$data_dir/input_0.pb" ]] || { echo "run_model: missing $data_dir/input_0.pb" >&2; exit 2; }

tmp="${PTEC_E2E_TMP:-$model_dir/tmp}/$name"
rm -rf "$tmp"
mkdir -p "$tmp/out"
pte="$tmp/$name.pte"

step() {  # step LABEL CMD...: runs CMD, shows its output, names the failing step
  local label=$1
  shift
  echo "+ $*"
  local t0 t1 rc=0
  t0=$(date +%s%N)
  "$@" || rc=$?
  t1=$(date +%s%N)
  if [[ $rc -ne 0 ]]; then
    echo "run_model: $name: $label FAILED (exit $rc)" >&2
    exit 1
  fi
  echo "  ($label: $(((t1 - t0) / 1000000)) ms)"
}

step export "$ptec" export "$onnx_file" -o "$pte"
[[ -s "$pte" ]] || { echo "run_model: $name: export exited 0 but wrote no $pte" >&2; exit 1; }
# Every reference set (models whose output sizes depend on the data have several).
sets=0
for set_dir in "$model_dir/$name"/test_data_set_*; do
  rm -rf "$tmp/out"
  mkdir -p "$tmp/out"
  step run "$ptec" run "$pte" --inputs "$set_dir" --outputs-dir "$tmp/out"
  step compare "$python" "$here/compare.py" "$set_dir" "$tmp/out" --tol "$tol"
  sets=$((sets + 1))
done
echo "run_model: $name: PASS ($(stat -c %s "$pte") bytes .pte, $sets reference set(s))"
