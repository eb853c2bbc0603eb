#!/usr/bin/env bash
# One ONNX QDQ model of tests/qdq/make_qdq_models.py through ptec against ONNX Runtime.
#
#   tests/qdq/run_qdq.sh PTEC WORK_DIR NAME
#
# Generates the model, exports it with `ptec export` (default recipe cpu_fp32: the CPU backend
# runs the QDQ patterns as int8 kernels), checks that no quantize / dequantize / rounding op is
# left outside the delegates (`ptec info`), runs it and compares the output with ONNX Runtime's:
# every element within one quantization step of the output (its scale). Where ONNX Runtime's own
# fused int8 kernels and its unoptimized run (every Q / DQ and float op as written: the format's
# reference semantics) differ by more than that (a one-step rounding difference inside, e.g. the
# attention of a transformer, grows through softmax and residuals), ptec must be within one step
# of the unoptimized run and no farther from the optimized run than the two ORT runs are from
# each other (plus one step). ONNX Runtime runs live
# through onnxruntime-node when node and the package are found ($ORT_NODE_MODULE, or
# build/ort/node_modules/onnxruntime-node as bench/compare.sh installs it); otherwise the
# committed references tests/qdq/reference/NAME{,.unoptimized}.npy (ORT's outputs, written by
# tests/qdq/update_references.sh) are used. With neither, the test is skipped (exit 77).
set -euo pipefail
if [[ $# -ne 3 ]]; then
  echo "usage: $0 PTEC WORK_DIR NAME" >&2
  exit 2
fi
ptec=$1
work=$2/$3
name=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
python=/usr/bin/python3
rm -rf "$work"
mkdir -p "$work/out"
"$python" "$here/make_qdq_models.py" "$2" "$name"

ort_module=${ORT_NODE_MODULE:-$root/build/ort/node_modules/onnxruntime-node}
reference="$work/ort.npy"
unoptimized="$work/ort.unoptimized.npy"
if command -v node >/dev/null && [[ -d $ort_module ]]; then
  echo "reference: ONNX Runtime (onnxruntime-node at $ort_module)"
  for level in all disabled; do
    out=$([[ $level == all ]] && echo "$reference" || echo "$unoptimized")
    ORT_NODE_MODULE=$ort_module node "$here/ort_reference.mjs" "$work" "$work/ort.json" "$level"
    "$python" -c 'import json, sys, numpy as np
out = list(json.load(open(sys.argv[1])).values())[0]
np.save(sys.argv[2], np.array(out["data"], dtype=np.float32).reshape(out["dims"]))' "$work/ort.json" "$out"
  done
elif [[ -f $here/reference/$name.npy && -f $here/reference/$name.unoptimized.npy ]]; then
  echo "reference: committed ONNX Runtime outputs tests/qdq/reference/$name{,.unoptimized}.npy (node or onnxruntime-node not found)"
  reference=$here/reference/$name.npy
  unoptimized=$here/reference/$name.unoptimized.npy
else
  echo "SKIP: neither node with onnxruntime-node nor tests/qdq/reference/$name.npy is available"
  exit 77
fi

"$ptec" export "$work/model.onnx" -o "$work/model.pte"
"$ptec" info "$work/model.pte" >"$work/info.txt"
if grep -E "quantized_decomposed|aten::round|aten::_to_copy|aten::convolution|aten::mm|aten::addmm" "$work/info.txt"; then
  echo "FAIL: quantized ops left outside the CPU backend's delegates (ptec info above)"
  exit 1
fi
"$ptec" run "$work/model.pte" --inputs "$work/test_data_set_0" --outputs-dir "$work/out" >/dev/null
"$python" - "$reference" "$unoptimized" "$work/out" "$work/info.json" <<'PY'
import json, os, sys
import numpy as np
import onnx
from onnx import numpy_helper
ref, unopt = np.load(sys.argv[1]).astype(np.float64), np.load(sys.argv[2]).astype(np.float64)
t = onnx.TensorProto()
t.ParseFromString(open(os.path.join(sys.argv[3], "output_0.pb"), "rb").read())
got = numpy_helper.to_array(t).astype(np.float64)
step = json.load(open(sys.argv[4]))["output_step"]
if got.shape != ref.shape:
    sys.exit("FAIL: output shape %s, ONNX Runtime %s" % (got.shape, ref.shape))
tol = step * (1 + 1e-3)
d_opt, d_unopt, d_ort = np.abs(got - ref), np.abs(got - unopt), np.abs(ref - unopt)
print("ptec vs ONNX Runtime: max %.3f steps, %d of %d elements differ (step %.6g)"
      % (d_opt.max() / step, int((d_opt > 1e-7).sum()), d_opt.size, step))
print("ptec vs ONNX Runtime unoptimized: max %.3f steps; the two ORT runs differ by up to %.3f steps"
      % (d_unopt.max() / step, d_ort.max() / step))
if d_opt.max() <= tol:
    sys.exit(0)
if d_unopt.max() <= tol and np.all(d_opt <= d_ort + tol):
    print("ok: within one step of ORT's unoptimized run, and no farther from its fused kernels than ORT's two runs are from each other (+1 step)")
    sys.exit(0)
sys.exit("FAIL: more than one quantization step from ONNX Runtime")
PY
