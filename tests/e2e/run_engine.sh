#!/usr/bin/env bash
# End-to-end check of an engine-bearing program: ptec compile (CPU engines, no autotuning so the
# test stays short) -> ptec export of the .ptep -> ptec run on every reference input set ->
# compare. With NAME.dynamic beside the model, its dims are compiled as engine profiles, every
# test_data_set_* (several sizes) must match and every bad_* input must be refused. Arguments
# after TOL go to ptec compile (e.g. --points h=32,96 for sizes that are not default points).
# Usage: tests/e2e/run_engine.sh PTEC MODEL_DIR NAME [TOL [COMPILE_ARG ...]]
# Work files go to $PTEC_E2E_TMP/engine_NAME (default MODEL_DIR/tmp/engine_NAME), cleared first.
set -euo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: $0 PTEC MODEL_DIR NAME [TOL [COMPILE_ARG ...]]" >&2
  exit 2
fi
ptec=$1
model_dir=$2
name=$3
tol=${4:-1e-3}
extra_args=("${@:5}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3

onnx_file="$model_dir/$name.onnx"
[[ -x "$ptec" ]] || { echo "run_engine: ptec binary not found or not executable: $ptec" >&2; exit 2; }
[[ -f "$onnx_file" ]] || { echo "run_engine: missing $onnx_file (generate the models first)" >&2; exit 2; }

tmp="${PTEC_E2E_TMP:-$model_dir/tmp}/engine_$name"
rm -rf "$tmp"
mkdir -p "$tmp"
archive="$tmp/$name.ptep"
pte="$tmp/$name.pte"

fail() {
  echo "run_engine: $name: $*" >&2
  exit 1
}

dyn_args=()
if [[ -f "$model_dir/$name.dynamic" ]]; then
  while read -r spec; do
    [[ -n "$spec" ]] && dyn_args+=(--dynamic "$spec")
  done <"$model_dir/$name.dynamic"
fi

echo "+ $ptec compile $onnx_file -o $archive --no-autotune ${dyn_args[*]} ${extra_args[*]}"
"$ptec" compile "$onnx_file" -o "$archive" --no-autotune "${dyn_args[@]}" "${extra_args[@]}" ||
  fail "compile FAILED"
echo "+ $ptec export $archive -o $pte --etrecord $tmp/$name.etrecord"
"$ptec" export "$archive" -o "$pte" --etrecord "$tmp/$name.etrecord" || fail "export FAILED"
[[ -s "$pte" && -s "$tmp/$name.etrecord" ]] || fail "export exited 0 but wrote no .pte or .etrecord"

"$ptec" info "$pte" >"$tmp/info.txt" || fail "info FAILED"
cat "$tmp/info.txt"
grep -q "delegate PtecEngineBackend" "$tmp/info.txt" || fail "the .pte has no PtecEngineBackend delegate"

count=0
for data_dir in "$model_dir/$name"/test_data_set_*; do
  out="$tmp/out_$(basename "$data_dir")"
  mkdir -p "$out"
  echo "+ $ptec run $pte --inputs $data_dir --outputs-dir $out"
  "$ptec" run "$pte" --inputs "$data_dir" --outputs-dir "$out" || fail "run on $data_dir FAILED"
  "$python" "$here/compare.py" "$data_dir" "$out" --tol "$tol" || fail "compare on $data_dir FAILED"
  count=$((count + 1))
done
[[ $count -ge 1 ]] || fail "no test_data_set_* in $model_dir/$name"
if [[ ${#dyn_args[@]} -gt 0 ]]; then
  [[ $count -ge 2 ]] || fail "a dynamic model needs at least 2 test data sets, found $count"
  for bad_dir in "$model_dir/$name"/bad_*; do
    [[ -d "$bad_dir" ]] || continue
    if "$ptec" run "$pte" --inputs "$bad_dir" >"$tmp/bad.out" 2>&1; then
      fail "run accepted the out-of-range input $bad_dir"
    fi
    cat "$tmp/bad.out"
    grep -qE "outside the range|is not a multiple of" "$tmp/bad.out" ||
      fail "the error for $bad_dir does not name the range or the multiple"
  done
fi
echo "run_engine: $name: PASS ($count input set(s), $(stat -c %s "$archive")-byte .ptep -> $(stat -c %s "$pte")-byte .pte)"
