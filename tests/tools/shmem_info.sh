#!/bin/bash
# shmem-info: every table variable, JSON and Markdown forms, invalid values.
. "$(dirname "$0")/common.sh"
: "${SHX_SOURCE_DIR:?}"
INFO=$SHX_BIN_DIR/shmem-info
TABLE=$SHX_SOURCE_DIR/src/base/config_table.def
sed -n 's/^SHMEM_CONFIG_\(VAR\|ENUM\)(\([A-Z_0-9]*\),.*/\2/p' "$TABLE" >"$WORK/names"
[ -s "$WORK/names" ] || fail "no variables found in $TABLE"

# Run with a clean environment for the table's variables.
unset $(cat "$WORK/names")
run "$INFO"
expect_rc 0 "shmem-info"
expect_out "^shmem [0-9]+\.[0-9]+\.[0-9]+" "version line"
expect_out "OpenSHMEM specification 1\.6" "spec version"
while read -r name; do
  grep -qx "$name" "$WORK/out" || fail "shmem-info does not list $name"
done <"$WORK/names"
pass "text lists all $(wc -l <"$WORK/names") variables"

SHMEM_SYMMETRIC_SIZE=64M SHMEM_JOB_SECRET=topsecret run "$INFO" --json
expect_rc 0 "--json"
python3 - "$WORK/out" "$WORK/names" <<'PY' || fail "--json content"
import json, sys
data = json.load(open(sys.argv[1]))
names = [l.strip() for l in open(sys.argv[2]) if l.strip()]
assert isinstance(data, list), "not an array"
assert [d["name"] for d in data] == names, "names differ from the table"
for d in data:
    for k in ("kind", "default", "value", "description", "set", "error"):
        assert k in d, (d["name"], k)
v = {d["name"]: d for d in data}
assert v["SHMEM_SYMMETRIC_SIZE"]["value"] == "64M" and v["SHMEM_SYMMETRIC_SIZE"]["set"]
assert v["SHMEM_DEBUG"]["value"] == v["SHMEM_DEBUG"]["default"] and not v["SHMEM_DEBUG"]["set"]
assert "topsecret" not in json.dumps(data), "the job secret is shown"
PY
grep -q topsecret "$WORK/out" && fail "--json shows the secret"
pass "--json"

run "$INFO" --markdown
expect_rc 0 "--markdown"
while read -r name; do
  grep -q "^| \`$name\` |" "$WORK/out" || fail "--markdown lacks $name"
done <"$WORK/names"
pass "--markdown"

SHMEM_SYMMETRIC_SIZE=12xb run "$INFO"
expect_rc 1 "invalid SHMEM_SYMMETRIC_SIZE"
expect_err "SHMEM_SYMMETRIC_SIZE='12xb' is invalid" "invalid SHMEM_SYMMETRIC_SIZE"
expect_out "12xb" "invalid SHMEM_SYMMETRIC_SIZE shown"
SHMEM_DEBUG=maybe run "$INFO" --json
expect_rc 1 "invalid SHMEM_DEBUG"
python3 -c 'import json,sys; d={v["name"]: v for v in json.load(open(sys.argv[1]))}; assert d["SHMEM_DEBUG"]["error"]' "$WORK/out" ||
  fail "--json: error not reported for SHMEM_DEBUG"
SHMEM_TRANSPORT=tcp run "$INFO"
expect_rc 1 "invalid SHMEM_TRANSPORT"
expect_out "SHMEM_TRANSPORT='tcp' is invalid: expected auto, ucx or none" "enum error lists the values"
expect_out "kind: +one of auto, ucx, none" "enum kind lists the values"
run "$INFO" --bogus
expect_rc 2 "bad usage"
pass "invalid values exit 1"
