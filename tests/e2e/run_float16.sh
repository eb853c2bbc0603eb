#!/usr/bin/env bash
# A generated model rewritten as float16 (tests/models/to_float16.py: weights, activations and,
# unless MODE is keep_io, inputs and outputs), exported, run and compared with the PyTorch fp32
# reference cast to the outputs' type, within 1e-2 x max(1, |ref|) (float16 keeps 11 significant
# bits; ptec computes in float32). Usage: tests/e2e/run_float16.sh PTEC MODEL_DIR NAME all|keep_io
set -euo pipefail
if [[ $# -ne 4 ]]; then
  echo "usage: $0 PTEC MODEL_DIR NAME all|keep_io" >&2
  exit 2
fi
ptec=$1
model_dir=$2
name=$3
mode=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir="$model_dir/float16_$mode"
extra=()
[[ $mode == keep_io ]] && extra=(--keep-io-float32)
/usr/bin/python3 "$here/../models/to_float16.py" "$model_dir" "$name" "$dir" "${extra[@]}"
PTEC_E2E_TMP="$dir/tmp" bash "$here/run_model.sh" "$ptec" "$dir" "$name" 1e-2
