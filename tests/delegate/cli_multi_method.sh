#!/usr/bin/env bash
# The CLI's export API path: a prefill/decode pair exported into one .pte with a constant method,
# run method by method against NumPy references; the shared weights are stored once; the same
# program with --external-data (.pte without tensor payload + .ptd) gives the same outputs;
# a missing or mismatched .ptd fails naming the key.
# Usage: cli_multi_method.sh PTEC WORK_DIR
set -euo pipefail
ptec=$1
work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
rm -rf "$work"
mkdir -p "$work"
"$python" "$here/make_lm_models.py" "$work/models"
m=$work/models
compare() {  # compare REF_DIR OUT_DIR
  "$python" "$here/../e2e/compare.py" "$1" "$2" --tol 1e-4
}

set -x
"$ptec" export --method prefill=$m/prefill.onnx --method decode=$m/decode.onnx \
  --constant max_seq_len=128 --constant name=tiny -o "$work/lm.pte"
"$ptec" export $m/prefill.onnx -o "$work/prefill.pte"
"$ptec" export $m/decode.onnx -o "$work/decode.pte"
"$ptec" info "$work/lm.pte" --json > "$work/info.json"
"$ptec" run "$work/lm.pte" --method prefill --inputs $m/prefill --outputs-dir "$work/out_prefill"
compare $m/prefill/ref "$work/out_prefill"
"$ptec" run "$work/lm.pte" --method decode --inputs $m/decode --outputs-dir "$work/out_decode"
compare $m/decode/ref "$work/out_decode"
"$ptec" run "$work/lm.pte" --method max_seq_len --json > "$work/max_seq_len.json"

# External data: no tensor payload in the .pte, a .ptd beside it (found by default).
mkdir -p "$work/ext"
"$ptec" export --method prefill=$m/prefill.onnx --method decode=$m/decode.onnx \
  --external-data -o "$work/ext/lm.pte"
"$ptec" run "$work/ext/lm.pte" --method decode --inputs $m/decode --outputs-dir "$work/out_ext"
compare $m/decode/ref "$work/out_ext"
"$ptec" run "$work/ext/lm.pte" --data "$work/ext/lm.ptd" --method prefill --inputs $m/prefill \
  --outputs-dir "$work/out_ext_prefill"
compare $m/prefill/ref "$work/out_ext_prefill"
mv "$work/ext/lm.ptd" "$work/ext/moved.ptd"
if "$ptec" run "$work/ext/lm.pte" --method decode --inputs $m/decode > "$work/missing.txt" 2>&1; then
  echo "FAIL: running without the .ptd must fail"; exit 1
fi
"$ptec" export $m/decode.onnx --external-data -o "$work/ext/other.pte"
if "$ptec" run "$work/ext/lm.pte" --data "$work/ext/other.ptd" --method prefill \
  --inputs $m/prefill > "$work/mismatch.txt" 2>&1; then
  echo "FAIL: a .ptd without the program's keys must fail"; exit 1
fi
set +x

"$python" - "$work" <<'PY'
import json, os, sys
w = sys.argv[1]
size = lambda p: os.path.getsize(os.path.join(w, p))
weights = (32 * 16 + 4 * 16 * 16 + 16 * 32) * 4
lm, pre, dec = size("lm.pte"), size("prefill.pte"), size("decode.pte")
print(f"[sizes] lm.pte={lm} prefill.pte={pre} decode.pte={dec} weights={weights}")
assert lm < pre + dec - weights * 0.9, "shared weights must be stored once"
info = json.load(open(os.path.join(w, "info.json")))
names = [m["name"] for m in info["methods"]]
assert names == ["decode", "prefill", "max_seq_len", "name"], names
out = json.load(open(os.path.join(w, "max_seq_len.json")))
assert out["outputs"][0]["value"] == 128, out
ext, ptd = size("ext/lm.pte"), size("ext/moved.ptd")
print(f"[sizes] external: lm.pte={ext} lm.ptd={ptd}")
assert ext <= lm - weights, "the .pte with external data holds no weights"
assert ptd > weights, ptd
missing = open(os.path.join(w, "missing.txt")).read()
assert "tok_embeddings.weight" in missing or "attn." in missing or "output.weight" in missing, missing
mismatch = open(os.path.join(w, "mismatch.txt")).read()
assert "'" in mismatch and ("mask" in mismatch or "weight" in mismatch or "attn" in mismatch), mismatch
print("ok")
PY
