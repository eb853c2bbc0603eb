#!/usr/bin/env bash
# End-to-end check of a model with dynamic dims: export ONCE with the --dynamic arguments in
# MODEL_DIR/NAME.dynamic, check that `ptec info` shows the ranges, run every test_data_set_K (each at
# another size inside the range) and compare with PyTorch, and check that every bad_K input (a size
# outside the range, or not a multiple that the dim declares) is rejected with an error naming the
# input, the axis, the value and the range or the multiple.
# Usage: tests/e2e/run_dynamic.sh PTEC MODEL_DIR NAME [TOL]
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
[[ -f "$onnx_file" && -f "$model_dir/$name.dynamic" ]] || {
  echo "run_dynamic: missing $onnx_file or $name.dynamic (run tests/models/generate_transformers.py)" >&2
  exit 2
}
tmp="${PTEC_E2E_TMP:-$model_dir/tmp}/$name"
rm -rf "$tmp"
mkdir -p "$tmp"
pte="$tmp/$name.pte"

fail() {
  echo "run_dynamic: $name: $*" >&2
  exit 1
}

dyn_args=()
while read -r spec; do
  [[ -n "$spec" ]] && dyn_args+=(--dynamic "$spec")
done <"$model_dir/$name.dynamic"

echo "+ $ptec export $onnx_file -o $pte ${dyn_args[*]} --etrecord $tmp/$name.etrecord"
"$ptec" export "$onnx_file" -o "$pte" "${dyn_args[@]}" --etrecord "$tmp/$name.etrecord" \
  2>"$tmp/export.err" || {
  cat "$tmp/export.err" >&2
  fail "export FAILED"
}
cat "$tmp/export.err"
grep -q "dynamic: input" "$tmp/export.err" || fail "export did not report the dynamic dims"

"$ptec" info "$pte" >"$tmp/info.txt" || fail "info FAILED"
grep -q "(dynamic, upper bounds)" "$tmp/info.txt" || fail "info does not show a dynamic input"
grep -q "dynamic axis" "$tmp/info.txt" || fail "info does not show the dynamic ranges"

count=0
for data_dir in "$model_dir/$name"/test_data_set_*; do
  out="$tmp/out_$(basename "$data_dir")"
  mkdir -p "$out"
  echo "+ ptec run $pte --inputs $data_dir"
  "$ptec" run "$pte" --inputs "$data_dir" --outputs-dir "$out" || fail "run on $data_dir FAILED"
  "$python" "$here/compare.py" "$data_dir" "$out" --tol "$tol" || fail "compare on $data_dir FAILED"
  count=$((count + 1))
done
[[ $count -ge 2 ]] || fail "expected at least 2 test data sets, found $count"

# A profiled run holds the asked method's blocks only (not those of the record of dynamic dims
# that run reads), so the Inspector joins it with the export's ETRecord, logged outputs and all.
data_dir="$model_dir/$name/test_data_set_0"
"$ptec" run "$pte" --inputs "$data_dir" --etdump "$tmp/run.etdp" --debug-buffer "$tmp/run.bin" \
  >/dev/null || fail "profiled run FAILED"
"$ptec" inspect --etrecord "$tmp/$name.etrecord" --etdump "$tmp/run.etdp" \
  --debug-buffer "$tmp/run.bin" --numeric-gap --program "$pte" --inputs "$data_dir" \
  >"$tmp/inspect.txt" 2>&1 || {
  cat "$tmp/inspect.txt" >&2
  fail "inspect of the profiled run FAILED"
}

for bad_dir in "$model_dir/$name"/bad_*; do
  [[ -d "$bad_dir" ]] || continue
  if "$ptec" run "$pte" --inputs "$bad_dir" >"$tmp/bad.out" 2>&1; then
    fail "run accepted the out-of-range input $bad_dir"
  fi
  cat "$tmp/bad.out"
  grep -qE "outside the range|is not a multiple of" "$tmp/bad.out" ||
    fail "the error for $bad_dir does not name the range or the multiple"
  grep -q "axis" "$tmp/bad.out" || fail "the error for $bad_dir does not name the axis"
done
echo "run_dynamic: $name: PASS ($count sizes from one $(stat -c %s "$pte")-byte .pte)"
