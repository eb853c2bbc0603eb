#!/usr/bin/env bash
# End-to-end check of symbolic dims fixed at export: for every test_data_set_K of a model with
# symbolic dims (MODEL_DIR/NAME.dynamic names them, INPUT:AXIS=SYMBOL:MIN..MAX), export a static
# program with `--dim SYMBOL=SIZE` (the set's sizes), run it on the set and compare with
# PyTorch; then the first set again with `--input-shape INPUT=D0xD1x...` for every input. Also
# checks that the export reports each specialization, that a program exported without them (the
# default size 1) refuses another size with an error naming the shapes, and that `--dim` with a
# name the model does not have fails naming it.
# Usage: tests/e2e/run_specialized.sh PTEC MODEL_DIR NAME [TOL]
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
  echo "run_specialized: missing $onnx_file or $name.dynamic (run tests/models/generate_transformers.py)" >&2
  exit 2
}
tmp="${PTEC_E2E_TMP:-$model_dir/tmp}/specialized_$name"
rm -rf "$tmp"
mkdir -p "$tmp"

fail() {
  echo "run_specialized: $name: $*" >&2
  exit 1
}

# The export arguments that fix a data set's sizes: "dim" gives --dim SYMBOL=SIZE per symbol of
# the .dynamic file, "shape" --input-shape INPUT=D0xD1x... per input (one argument per line).
args_for() {
  "$python" - "$onnx_file" "$model_dir/$name.dynamic" "$1" "$2" <<'PY'
import os, re, sys
import onnx
from onnx import numpy_helper

model_file, dynamic_file, data_dir, kind = sys.argv[1:5]
graph = onnx.load(model_file, load_external_data=False).graph
inits = {i.name for i in graph.initializer}
names = [i.name for i in graph.input if i.name not in inits]
shapes = {}
for k, n in enumerate(names):
    t = onnx.TensorProto()
    with open(os.path.join(data_dir, "input_%d.pb" % k), "rb") as f:
        t.ParseFromString(f.read())
    shapes[n] = list(t.dims)
if kind == "shape":
    for n in names:
        print("--input-shape")
        print("%s=%s" % (n, "x".join(map(str, shapes[n]))))
else:
    sizes = {}
    for line in open(dynamic_file):
        m = re.fullmatch(r"(.+):(\d+)=(\w+):\d+\.\.\d+", line.strip())
        if m:
            sizes[m.group(3)] = shapes[m.group(1)][int(m.group(2))]
    for sym, size in sizes.items():
        print("--dim")
        print("%s=%d" % (sym, size))
PY
}

# Exports with the arguments of `kind` for `data_dir`, runs on it and compares.
check_set() {
  local data_dir=$1 kind=$2 label
  label="$(basename "$data_dir")_$kind"
  local pte="$tmp/$label.pte" out="$tmp/out_$label"
  mapfile -t extra < <(args_for "$data_dir" "$kind")
  echo "+ $ptec export $onnx_file -o $pte ${extra[*]}"
  "$ptec" export "$onnx_file" -o "$pte" "${extra[@]}" 2>"$tmp/$label.err" || {
    cat "$tmp/$label.err" >&2
    fail "export with ${extra[*]} FAILED"
  }
  cat "$tmp/$label.err"
  local from=symbol_values
  [[ $kind == shape ]] && from=input_shapes
  grep -q "specialized: input .* ($from)" "$tmp/$label.err" ||
    fail "the export did not report the dims it fixed from $from"
  if grep -q "default for a symbolic dim" "$tmp/$label.err"; then
    fail "a symbolic dim kept the default size despite ${extra[*]}"
  fi
  mkdir -p "$out"
  "$ptec" run "$pte" --inputs "$data_dir" --outputs-dir "$out" || fail "run on $data_dir FAILED"
  "$python" "$here/compare.py" "$data_dir" "$out" --tol "$tol" || fail "compare on $data_dir FAILED"
}

count=0
for data_dir in "$model_dir/$name"/test_data_set_*; do
  check_set "$data_dir" dim
  count=$((count + 1))
done
[[ $count -ge 2 ]] || fail "expected at least 2 test data sets, found $count"
first="$model_dir/$name/test_data_set_0"
check_set "$first" shape

# Without --dim: every symbolic dim is 1, the export says so and how to choose, and a set of
# another size is refused by the run.
"$ptec" export "$onnx_file" -o "$tmp/default.pte" 2>"$tmp/default.err" || fail "default export FAILED"
grep -q "(default for a symbolic dim)" "$tmp/default.err" || fail "no report of the default size"
grep -q -- "--dim SYMBOL=VALUE" "$tmp/default.err" || fail "the report does not say how to choose"
refused=0
for data_dir in "$model_dir/$name"/test_data_set_*; do
  if ! "$ptec" run "$tmp/default.pte" --inputs "$data_dir" >"$tmp/default.out" 2>&1; then
    grep -q "expects" "$tmp/default.out" || fail "the size error does not name the expected shape"
    grep -q -- "--dim SYMBOL=VALUE" "$tmp/default.out" || fail "the size error does not say how to re-export"
    refused=1
  fi
done
[[ $refused == 1 ]] || fail "the program fixed at size 1 accepted every data set"

if "$ptec" export "$onnx_file" -o "$tmp/bad.pte" --dim no_such_dim=3 2>"$tmp/bad.err"; then
  fail "--dim with an unknown name was accepted"
fi
grep -q "'no_such_dim'" "$tmp/bad.err" || fail "the --dim error does not name the dim"
[[ ! -e "$tmp/bad.pte" ]] || fail "a failed export left $tmp/bad.pte"
echo "run_specialized: $name: PASS ($count sets with --dim, one with --input-shape)"
