#!/usr/bin/env bash
# docs/config.md and the README's variable table are generated from the config table; fail
# when either has drifted (fix: scripts/gen-docs.sh).
set -euo pipefail
info="$SHX_BIN_DIR/shmem-info"
src="$SHX_SOURCE_DIR"
mkdir -p "${SHX_TEST_TMP:-/tmp}"  # a fresh build tree has none until another tools test made it
tmp=$(mktemp -d "${SHX_TEST_TMP:-/tmp}/docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$info" --markdown > "$tmp/config.md"
if ! diff -u "$src/docs/config.md" "$tmp/config.md"; then
  echo "FAIL: docs/config.md is stale; run scripts/gen-docs.sh"; exit 1
fi
grep '^|' "$tmp/config.md" > "$tmp/table"
sed -n '/<!-- config-table:begin -->/,/<!-- config-table:end -->/p' "$src/README.md" | grep '^|' > "$tmp/readme_table"
if ! diff -u "$tmp/readme_table" "$tmp/table"; then
  echo "FAIL: the README's variable table is stale; run scripts/gen-docs.sh"; exit 1
fi
echo "docs in sync: $(grep -c '^| `SHMEM_' "$tmp/table") variables"
