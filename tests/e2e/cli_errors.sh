#!/usr/bin/env bash
# Checks that `ptec export` fails cleanly on bad input files:
#   (a) a valid ONNX model with an operator ptec does not support (NonMaxSuppression),
#   (b) a truncated ONNX file (the first half of tiny_cnn.onnx),
#   (c) a file that is not ONNX at all (plain text).
# For each: exit status non-zero (and not a signal), exactly ONE line of output that names the
# input file (and, for (a), the operator), no file at the -o path, and no temporary files left in
# the output directory.
# Usage: tests/e2e/cli_errors.sh PTEC MODEL_DIR     (MODEL_DIR from tests/models/generate.py)
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 PTEC MODEL_DIR" >&2
  exit 2
fi
ptec=$1
model_dir=$2
[[ -x "$ptec" ]] || { echo "cli_errors: ptec binary not found or not executable: $ptec" >&2; exit 2; }
[[ -f "$model_dir/tiny_cnn.onnx" ]] || {
  echo "cli_errors: missing $model_dir/tiny_cnn.onnx (run tests/models/generate.py $model_dir)" >&2
  exit 2
}

work="${PTEC_E2E_TMP:-$model_dir/tmp}/cli_errors"
rm -rf "$work"
mkdir -p "$work/in"

# (a) Valid ONNX (passes onnx.checker) with an operator ptec has no kernel for.
/usr/bin/python3 - "$work/in/unsupported_op.onnx" <<'PY'
import sys
import onnx
from onnx import TensorProto, helper

m = helper.make_tensor_value_info("m", TensorProto.FLOAT, [3, 2, 2])
det = helper.make_tensor_value_info("det", TensorProto.FLOAT, [3])
nodes = [
    helper.make_node("Relu", ["m"], ["m_relu"]),
    helper.make_node("Det", ["m_relu"], ["det"]),
]
graph = helper.make_graph(nodes, "unsupported_op", [m], [det])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1])
PY

# (b) First half of a real model.
size=$(stat -c %s "$model_dir/tiny_cnn.onnx")
head -c $((size / 2)) "$model_dir/tiny_cnn.onnx" >"$work/in/truncated.onnx"

# (c) Not ONNX.
printf 'this is a plain text file, not an ONNX model\n' >"$work/in/not_a_model.onnx"

failures=0
check() {  # check CASE INPUT_FILE EXTRA_WORD_OR_EMPTY
  local case=$1 input=$2 word=$3
  local outdir="$work/out_$case"
  mkdir -p "$outdir"
  local rc=0
  "$ptec" export "$input" -o "$outdir/model.pte" >"$work/$case.log" 2>&1 || rc=$?
  local problems=()
  if [[ $rc -eq 0 ]]; then
    problems+=("exit status 0")
  elif [[ $rc -ge 128 ]]; then
    problems+=("killed by signal $((rc - 128)) (exit $rc)")
  fi
  local lines
  lines=$(grep -c . "$work/$case.log" || true)
  if [[ $lines -ne 1 ]]; then
    problems+=("$lines non-empty lines of output, expected 1")
  fi
  if ! grep -qF "$(basename "$input")" "$work/$case.log"; then
    problems+=("message does not name the file $(basename "$input")")
  fi
  if [[ -n "$word" ]] && ! grep -qF "$word" "$work/$case.log"; then
    problems+=("message does not mention $word")
  fi
  if [[ -e "$outdir/model.pte" ]]; then
    problems+=("output file $outdir/model.pte exists")
  fi
  local left
  left=$(find "$outdir" -mindepth 1 ! -path "$outdir/model.pte" -printf "%f " 2>/dev/null)
  if [[ -n "$left" ]]; then
    problems+=("files left in the output directory: $left")
  fi
  if [[ ${#problems[@]} -eq 0 ]]; then
    echo "ok    ($case) $(basename "$input"): exit $rc: $(grep . "$work/$case.log")"
  else
    failures=$((failures + 1))
    echo "FAIL  ($case) $(basename "$input"): exit $rc"
    local p
    for p in "${problems[@]}"; do echo "        - $p"; done
    echo "        output was:"
    sed 's/^/        | /' "$work/$case.log" | head -20
  fi
}

check a "$work/in/unsupported_op.onnx" Det
check b "$work/in/truncated.onnx" ""
check c "$work/in/not_a_model.onnx" ""

if [[ $failures -ne 0 ]]; then
  echo "cli_errors: $failures of 3 error cases misbehaved" >&2
  exit 1
fi
echo "cli_errors: all 3 error cases behave"
