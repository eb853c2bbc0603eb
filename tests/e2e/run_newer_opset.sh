#!/usr/bin/env bash
# A generated model rewritten at a newer opset (tests/models/upgrade_opset.py), then exported,
# run and compared like the original (run_model.sh, same reference outputs).
# Usage: tests/e2e/run_newer_opset.sh PTEC MODEL_DIR NAME OPSET
set -euo pipefail
if [[ $# -ne 4 ]]; then
  echo "usage: $0 PTEC MODEL_DIR NAME OPSET" >&2
  exit 2
fi
ptec=$1
model_dir=$2
name=$3
opset=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir="$model_dir/opset$opset"
mkdir -p "$dir"
/usr/bin/python3 "$here/../models/upgrade_opset.py" "$model_dir/$name.onnx" "$dir/$name.onnx" "$opset"
ln -sfn "$(cd "$model_dir/$name" && pwd)" "$dir/$name"
PTEC_E2E_TMP="$dir/tmp" bash "$here/run_model.sh" "$ptec" "$dir" "$name"
