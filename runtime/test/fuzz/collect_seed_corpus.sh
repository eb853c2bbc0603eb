#!/usr/bin/env bash
# Copies the shared fixtures (.pte/.ptd up to 256 KiB) into OUT_DIR as the fuzzer's seed corpus.
# Usage: collect_seed_corpus.sh OUT_DIR [FIXTURES_DIR]
set -euo pipefail
out="${1:?usage: collect_seed_corpus.sh OUT_DIR [FIXTURES_DIR]}"
here="$(cd "$(dirname "$0")" && pwd)"
fixtures="${2:-$here/../../../../shared/fixtures}"
mkdir -p "$out"
if [[ ! -d "$fixtures" ]]; then
  echo "collect_seed_corpus: no fixtures at $fixtures; starting from an empty corpus" >&2
  exit 0
fi
n=0
while IFS= read -r -d '' f; do
  cp "$f" "$out/$(basename "$(dirname "$f")")_$(basename "$f")"
  n=$((n + 1))
done < <(find "$fixtures" -type f \( -name '*.pte' -o -name '*.ptd' \) -size -256k -print0)
echo "collect_seed_corpus: $n seeds in $out"
