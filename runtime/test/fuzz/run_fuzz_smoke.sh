#!/usr/bin/env bash
# A short, deterministic fuzzing run for CI: fresh corpus from the fixtures, RUNS iterations.
# Usage: run_fuzz_smoke.sh FUZZER WORK_DIR [RUNS]
set -euo pipefail
fuzzer="${1:?usage: run_fuzz_smoke.sh FUZZER WORK_DIR [RUNS]}"
work="${2:?usage: run_fuzz_smoke.sh FUZZER WORK_DIR [RUNS]}"
runs="${3:-3000}"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$work/seeds" "$work/corpus"
mkdir -p "$work/corpus"
bash "$here/collect_seed_corpus.sh" "$work/seeds"
exec "$fuzzer" -runs="$runs" -seed=1 -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
  -artifact_prefix="$work/" "$work/corpus" "$work/seeds"
