#!/usr/bin/env bash
# Copies the shared fixtures (.pte/.ptd up to 256 KiB), ptec-written programs (seeds/) and past
# crashers (regressions/) into OUT_DIR as the fuzzer's seed corpus.
# Usage: collect_seed_corpus.sh OUT_DIR [FIXTURES_DIR]
set -euo pipefail
out="${1:?usage: collect_seed_corpus.sh OUT_DIR [FIXTURES_DIR]}"
here="$(cd "$(dirname "$0")" && pwd)"
fixtures="${2:-$here/../../../../shared/fixtures}"
mkdir -p "$out"
n=0
if [[ ! -d "$fixtures" ]]; then
  echo "collect_seed_corpus: no fixtures at $fixtures; using only the regression inputs" >&2
else
  while IFS= read -r -d '' f; do
    cp "$f" "$out/$(basename "$(dirname "$f")")_$(basename "$f")"
    n=$((n + 1))
  done < <(find "$fixtures" -type f \( -name '*.pte' -o -name '*.ptd' \) -size -256k -print0)
fi
# Programs written by ptec's own exporter (regenerate with `ptec export` when the format changes).
for f in "$here"/seeds/*.pte; do
  [[ -f "$f" ]] || continue
  cp "$f" "$out/$(basename "$f")"
  n=$((n + 1))
done
# Inputs that once crashed the fuzzer stay in the corpus.
for f in "$here"/regressions/*; do
  [[ -f "$f" ]] || continue
  cp "$f" "$out/regression_$(basename "$f")"
  n=$((n + 1))
done
echo "collect_seed_corpus: $n seeds in $out"
