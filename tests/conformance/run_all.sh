#!/usr/bin/env bash
# Full ONNX conformance run: every libonnx-testdata folder, one forked child per test, and
# tests/conformance/RESULTS.md rewritten with the pass counts (about 25 s on 2 cores; make test
# runs the same tests as conformance.no_crash, without rewriting RESULTS.md).
#
#   tests/conformance/run_all.sh [BUILD_DIR]      (default build/dev; builds conformance_runner)
#
# Per-test lines go to BUILD_DIR/conformance.log; only non-passing tests are printed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/dev}
jobs=${JOBS:-$(nproc)}
cmake --build "$build" --target conformance_runner >/dev/null
exec "$build/bin/conformance_runner" --jobs "$jobs" --timeout 10 --quiet \
  --results "$root/tests/conformance/RESULTS.md" --log "$build/conformance.log"
