#!/usr/bin/env bash
# Regenerates docs/config.md and the variable table in README.md from the one config table
# (src/base/config_table.def, printed by shmem-info). tests/tools/docs_sync.sh checks both.
#   scripts/gen-docs.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
INFO=${1:-build}/bin/shmem-info
"$INFO" --markdown > docs/config.md
python3 - "$INFO" <<'PY'
import subprocess, sys, re
md = subprocess.run([sys.argv[1], "--markdown"], check=True, capture_output=True, text=True).stdout
table = "\n".join(l for l in md.splitlines() if l.startswith("|"))
readme = open("README.md").read()
begin, end = "<!-- config-table:begin -->", "<!-- config-table:end -->"
new = re.sub(re.escape(begin) + ".*?" + re.escape(end), begin + "\n" + table + "\n" + end, readme, flags=re.S)
open("README.md", "w").write(new)
PY
