#!/usr/bin/env bash
# Fails when C/C++ lines changed since BASE are not in the style of .clang-format. Only the
# changed lines are checked (clang-format-diff), so nobody reformats whole files.
#   scripts/check-format.sh [BASE]   BASE defaults to FORMAT_BASE, else HEAD~1 (the last commit);
#                                    uncommitted changes count too.
# Fix what it reports with: git diff -U0 BASE | clang-format-diff -p1 -i
set -euo pipefail
cd "$(dirname "$0")/.."
tool=$(command -v clang-format-diff || command -v clang-format-diff-14 || true)
if [ -z "$tool" ]; then
  echo "check-format: clang-format-diff not found (Debian: apt-get install clang-format)" >&2
  exit 1
fi
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "check-format: not a git checkout; skipped"
  exit 0
fi
base=${1:-${FORMAT_BASE:-HEAD~1}}
if ! git rev-parse --verify -q "$base^{commit}" >/dev/null; then
  echo "check-format: no commit '$base' here (a shallow clone?); skipped"
  exit 0
fi
# Generated files keep their generator's layout.
out=$(git diff -U0 --no-color "$base" -- '*.c' '*.h' '*.cpp' '*.hpp' ':!include/shmem/pshmem_decls.h' |
      "$tool" -p1)
if [ -n "$out" ]; then
  echo "$out"
  echo "check-format: lines changed since $base are not formatted as .clang-format says (the diff above)" >&2
  exit 1
fi
echo "check-format: the C/C++ lines changed since $base are formatted"
