#!/bin/bash
# The quantization CLI: ptec recipes, ptec export --recipe cpu_int8_* --calibration DIR
# [--recipe-arg k=v], and the errors for bad kwargs, QAT and misplaced --calibration.
# Usage: cli_test.sh PTEC MODELS_DIR (quant/test/generate_models.py's output).
set -u
PTEC=$1
MODELS=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
check() {  # check NAME EXPECTED_RC PATTERN -- COMMAND...
  local name=$1 want_rc=$2 pattern=$3
  shift 4
  "$@" >"$TMP/out" 2>&1
  local rc=$?
  if [ "$rc" -ne "$want_rc" ] || ! grep -q -- "$pattern" "$TMP/out"; then
    echo "FAIL $name: rc $rc (want $want_rc), output:"
    cat "$TMP/out"
    fail=1
  else
    echo "ok   $name"
  fi
}

MODEL=$MODELS/mobilenet_v2_96.onnx
CAL=$MODELS/calibration

check "help lists recipes" 0 "recipes" -- "$PTEC" --help
check "recipes lists int8" 0 "cpu_int8_static_per_channel" -- "$PTEC" recipes
check "recipes lists group_size" 0 "group_size=<int>" -- "$PTEC" recipes
check "recipes lists the int8 target" 0 "x86_64-cpu-int8 = cpu_int8_static_per_channel + portable" -- "$PTEC" recipes
check "recipes json" 0 '"name": "cpu_int4_weight_per_group"' -- "$PTEC" recipes --json

check "static per-channel export" 0 "exported" -- \
  "$PTEC" export "$MODEL" -o "$TMP/s.pte" --recipe cpu_int8_static_per_channel --calibration "$CAL"
check "static per-channel runs" 0 "latency_ms" -- "$PTEC" run "$TMP/s.pte" --inputs "$CAL/set_0" --json
check "one set: a directory of inputs" 0 "exported" -- \
  "$PTEC" export "$MODEL" -o "$TMP/one.pte" --recipe cpu_int8_static_per_tensor --calibration "$CAL/set_1"
check "dynamic without calibration warns" 0 "no --calibration" -- \
  "$PTEC" export "$MODEL" -o "$TMP/d.pte" --recipe cpu_int8_dynamic_per_channel
check "json reports the quantize time" 0 '"quantize"' -- \
  "$PTEC" export "$MODEL" -o "$TMP/dj.pte" --recipe cpu_int8_dynamic_per_channel --json
check "int4 group_size" 0 "exported" -- \
  "$PTEC" export "$MODELS/mlp.onnx" -o "$TMP/w4.pte" --recipe cpu_int4_weight_per_group --recipe-arg group_size=64

check "group_size must be int" 1 "kwarg 'group_size' must be int, got 'abc'" -- \
  "$PTEC" export "$MODELS/mlp.onnx" -o "$TMP/x.pte" --recipe cpu_int4_weight_per_group --recipe-arg group_size=abc
check "group_size must be positive" 1 "must be a positive integer" -- \
  "$PTEC" export "$MODELS/mlp.onnx" -o "$TMP/x.pte" --recipe cpu_int4_weight_per_group --recipe-arg group_size=-4
check "unknown kwarg" 1 "unknown kwarg 'bogus'" -- \
  "$PTEC" export "$MODEL" -o "$TMP/x.pte" --recipe cpu_int8_static_per_channel --recipe-arg bogus=1
check "QAT" 1 "ONNX QDQ" -- "$PTEC" export "$MODEL" -o "$TMP/x.pte" --recipe cpu_int8_qat
check "unknown recipe lists recipes" 1 "cpu_int8_dynamic_per_channel" -- \
  "$PTEC" export "$MODEL" -o "$TMP/x.pte" --recipe nope
check "calibration needs a quantizing recipe" 1 "does not quantize" -- \
  "$PTEC" export "$MODEL" -o "$TMP/x.pte" --recipe cpu_fp32 --calibration "$CAL"
check "calibration dir must hold inputs" 1 "no input sets" -- \
  "$PTEC" export "$MODEL" -o "$TMP/x.pte" --recipe cpu_int8_static_per_channel --calibration "$TMP"
[ -e "$TMP/x.pte" ] && { echo "FAIL: a failed export left $TMP/x.pte"; fail=1; }
exit $fail
