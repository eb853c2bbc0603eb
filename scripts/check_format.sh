#!/usr/bin/env bash
# Fails when a C++ file changed since the merge base (or, without git history, any C++ file) is not
# formatted by the repository's .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "format-check: clang-format is not installed (run scripts/setup.sh)" >&2
  exit 1
fi
base="${PTEC_FORMAT_BASE:-}"
if [[ -z "$base" ]] && git rev-parse --verify -q HEAD~20 >/dev/null; then base="HEAD~20"; fi
if [[ -n "$base" ]]; then
  mapfile -t files < <(git diff --name-only --diff-filter=ACMR "$base" -- '*.h' '*.cpp' '*.cc')
else
  mapfile -t files < <(git ls-files '*.h' '*.cpp' '*.cc')
fi
bad=()
for f in "${files[@]}"; do
  [[ -f "$f" ]] || continue
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "format-check: not formatted (run: clang-format -i ${bad[*]})" >&2
  exit 1
fi
echo "format-check: ${#files[@]} changed C++ files are formatted"
