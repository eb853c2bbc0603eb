#!/usr/bin/env bash
# End-to-end check of the engine recipe through `ptec export --recipe`: `ptec recipes` lists
# engine_cpu_fp32 with its kwargs; `ptec export NAME.onnx --recipe engine_cpu_fp32` (ExportSession:
# ENGINE_COMPILE -> TO_EDGE_TRANSFORM_AND_LOWER -> TO_EXECUTORCH) writes a .pte with a
# PtecEngineBackend delegate; `ptec run` on every reference input set matches the references. With
# NAME.dynamic beside the model its dims are exported dynamic (engine profiles) and every
# test_data_set_* (several sizes) must match. Bad kwargs are refused naming the kwarg.
# Usage: tests/e2e/run_engine_recipe.sh PTEC MODEL_DIR NAME [TOL] [RECIPE_ARG...]
# Work files go to $PTEC_E2E_TMP/engine_recipe_NAME (default MODEL_DIR/tmp/...), cleared first.
set -euo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: $0 PTEC MODEL_DIR NAME [TOL] [RECIPE_ARG...]" >&2
  exit 2
fi
ptec=$1
model_dir=$2
name=$3
tol=${4:-1e-3}
shift $(($# < 4 ? $# : 4))
recipe_args=()
for a in "$@"; do recipe_args+=(--recipe-arg "$a"); done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3

onnx_file="$model_dir/$name.onnx"
[[ -x "$ptec" ]] || { echo "run_engine_recipe: ptec binary not found or not executable: $ptec" >&2; exit 2; }
[[ -f "$onnx_file" ]] || { echo "run_engine_recipe: missing $onnx_file (generate the models first)" >&2; exit 2; }

tmp="${PTEC_E2E_TMP:-$model_dir/tmp}/engine_recipe_$name"
rm -rf "$tmp"
mkdir -p "$tmp"
pte="$tmp/$name.pte"

fail() {
  echo "run_engine_recipe: $name: $*" >&2
  exit 1
}

# The registry as the CLI sees it: the engine provider is there, with typed kwargs.
"$ptec" recipes >"$tmp/recipes.txt" || fail "ptec recipes FAILED"
grep -q "^backend engine" "$tmp/recipes.txt" || fail "ptec recipes lists no backend engine"
for kwarg in "autotune=<bool>" "threads=<int>" "autotune_iterations=<int>"; do
  grep -q -- "--recipe-arg $kwarg" "$tmp/recipes.txt" || fail "ptec recipes does not list $kwarg"
done
grep -q "x86_64-cpu-engine = engine_cpu_fp32" "$tmp/recipes.txt" || fail "no target x86_64-cpu-engine"

# Bad kwargs fail before anything is written, naming the kwarg.
if "$ptec" export "$onnx_file" -o "$pte" --recipe engine_cpu_fp32 --recipe-arg autotune=maybe \
  >"$tmp/bad.out" 2>&1; then
  fail "export accepted autotune=maybe"
fi
grep -q "kwarg 'autotune' must be bool" "$tmp/bad.out" || { cat "$tmp/bad.out"; fail "the error does not name kwarg autotune"; }
[[ ! -e "$pte" ]] || fail "a refused export wrote $pte"

dyn_args=()
if [[ -f "$model_dir/$name.dynamic" ]]; then
  while read -r spec; do
    [[ -n "$spec" ]] && dyn_args+=(--dynamic "$spec")
  done <"$model_dir/$name.dynamic"
fi

echo "+ $ptec export $onnx_file -o $pte --recipe engine_cpu_fp32 ${recipe_args[*]} ${dyn_args[*]} --json"
"$ptec" export "$onnx_file" -o "$pte" --recipe engine_cpu_fp32 "${recipe_args[@]}" "${dyn_args[@]}" \
  --json >"$tmp/export.json" || fail "export FAILED"
cat "$tmp/export.json"
[[ -s "$pte" ]] || fail "export exited 0 but wrote no .pte"
grep -q '"ENGINE_COMPILE"' "$tmp/export.json" || fail "the pipeline has no ENGINE_COMPILE"

"$ptec" info "$pte" >"$tmp/info.txt" || fail "info FAILED"
grep -q "delegate PtecEngineBackend" "$tmp/info.txt" || { cat "$tmp/info.txt"; fail "the .pte has no PtecEngineBackend delegate"; }

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
if [[ ${#dyn_args[@]} -gt 0 && $count -lt 2 ]]; then
  fail "a dynamic model needs at least 2 test data sets, found $count"
fi
echo "run_engine_recipe: $name: PASS ($count input set(s), $(stat -c %s "$pte")-byte .pte)"
