#!/bin/bash
# Man pages: built from docs/man/*.md (scripts/md2man.py), rendered by `man -l` without a
# warning, naming every option of the tool's --help, and installed to share/man/man1.
. "$(dirname "$0")/common.sh"
: "${SHX_BUILD_DIR:?}" "${SHX_SOURCE_DIR:?}"
command -v man >/dev/null || { echo "SKIP: no man (apt-get install man-db)"; exit 77; }
MAN=$SHX_BUILD_DIR/share/man/man1
export MANWIDTH=100 MAN_DISABLE_SECCOMP=1

# render <page file> <what>: the text in $WORK/out, groff's warnings fail the test.
render() {
  run man --warnings -l "$1"
  expect_rc 0 "man -l $2"
  [ -s "$WORK/err" ] && fail "man -l $2 warns: $(head -5 "$WORK/err")"
  for s in NAME SYNOPSIS DESCRIPTION OPTIONS "SEE ALSO"; do
    grep -q "^$s" "$WORK/out" || fail "$2: no $s section"
  done
}
# options <file>: the option words of a --help text ("  -n N, -np N, --np N   ..." lines).
options() { grep -oE '^ +(-[-a-zA-Z:]+)' "$1" | tr -d ' ' | sort -u; }

for page in oshrun oshcc shmem-info; do
  [ -f "$MAN/$page.1" ] || fail "$MAN/$page.1 not built"
  python3 "$SHX_SOURCE_DIR/scripts/md2man.py" "$SHX_SOURCE_DIR/docs/man/$page.1.md" "$WORK/$page.1" x ||
    fail "md2man.py $page"
  render "$MAN/$page.1" "$page.1"
  grep -qE "^ +$page - " "$WORK/out" || fail "$page.1: no NAME line"
  cp "$WORK/out" "$WORK/$page.txt"
done
pass "three pages built and rendered without warnings"

"$SHX_BIN_DIR/oshrun" --help >"$WORK/help" 2>&1
"$SHX_BIN_DIR/shmem-info" --help >>"$WORK/help.info" 2>&1
sed -n 1,20p "$SHX_BIN_DIR/oshcc" | grep -oE -- '--showme(:[a-z]+)?' | sed 's/^/  /' >"$WORK/help.oshcc"
for pair in oshrun:help shmem-info:help.info oshcc:help.oshcc; do
  page=${pair%%:*}
  n=0
  for opt in $(options "$WORK/${pair#*:}"); do
    grep -qe "$opt" "$WORK/$page.txt" || fail "$page.1 does not describe $opt (from its --help)"
    n=$((n + 1))
  done
  ((n > 0)) || fail "no options found in $page's help"
done
grep -q -- "--check" "$WORK/shmem-info.txt" || fail "shmem-info.1 lacks --check"
pass "each page describes every option of the tool's help"

run cmake --install "$SHX_BUILD_DIR" --prefix "$WORK/p" --component runtime
expect_rc 0 "install runtime"
run cmake --install "$SHX_BUILD_DIR" --prefix "$WORK/p" --component devel
expect_rc 0 "install devel"
for page in oshrun shmem-info oshcc oshc++; do
  [ -f "$WORK/p/share/man/man1/$page.1" ] || fail "share/man/man1/$page.1 not installed"
done
run env MANPATH="$WORK/p/share/man" man -P cat oshc++
expect_rc 0 "man oshc++ from the install"
expect_out "OSHCC\(1\)" "oshc++(1) shows oshcc(1)"
pass "installed to share/man/man1 (oshc++ is oshcc)"
