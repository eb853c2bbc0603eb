#!/usr/bin/env bash
# Checks that `ptec export` runs the recipe's Edge transform passes: tiny_video's factored
# (1, 3, 3), (3, 1, 1) and strided 1x1x1 convolutions become 2-D ones in PtecCpuBackend with the
# default recipe (cpu_fp32), so the program keeps one `aten::convolution.out` (the 3x3x3 one),
# where the portable recipe keeps all four.
# Usage: tests/e2e/video_delegation.sh PTEC MODEL_DIR
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 PTEC MODEL_DIR" >&2
  exit 2
fi
ptec=$1
model_dir=$2
onnx_file="$model_dir/tiny_video.onnx"
[[ -f "$onnx_file" ]] || { echo "video_delegation: missing $onnx_file" >&2; exit 2; }
tmp="${PTEC_E2E_TMP:-$model_dir/tmp}/video_delegation"
rm -rf "$tmp"
mkdir -p "$tmp"

# The count of non-delegated convolutions `ptec info` lists for a program.
convolutions() {
  "$ptec" info "$1" | awk '$2 == "aten::convolution.out" { n += $1 } END { print n + 0 }'
}

"$ptec" export "$onnx_file" -o "$tmp/cpu.pte" >/dev/null
"$ptec" export "$onnx_file" -o "$tmp/portable.pte" --recipe portable >/dev/null
cpu=$(convolutions "$tmp/cpu.pte")
portable=$(convolutions "$tmp/portable.pte")
if [[ "$cpu" != 1 || "$portable" != 4 ]]; then
  echo "video_delegation: expected 1 convolution outside the backend with cpu_fp32 and 4 with" \
    "portable, got $cpu and $portable" >&2
  exit 1
fi
echo "video_delegation: ok (cpu_fp32 keeps $cpu of $portable convolutions outside the backend)"
