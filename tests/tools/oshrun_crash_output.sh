#!/bin/bash
# oshrun: every line a PE printed before it died, or before oshrun ended it, reaches oshrun's
# output, with stdout a pipe (the library line-buffers the PEs' stdout) and a terminal (oshrun
# gives the PEs one). PE_OUTPUT (tests/tools/pe_output.c) prints two lines on every PE; then the
# last PE crashes, aborts, is killed, calls shmem_global_exit or fails in the library, while
# the other waits in a barrier until oshrun ends it. Nothing in the program flushes by hand.
. "$(dirname "$0")/common.sh"
: "${PE_OUTPUT:?set by CTest}" "${PTY_RUN:?set by CTest}"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# check_lines CASE TTY: both PEs' two lines are in $WORK/out, and each PE saw stdout as a
# terminal (TTY=1) or not (0).
check_lines() {
  local pe
  for pe in 0 1; do
    grep -qx "PE $pe line 1 tty=$2" "$WORK/out" || fail "$1: PE $pe's first line (tty=$2) is missing"
    grep -qx "PE $pe line 2" "$WORK/out" || fail "$1: PE $pe's second line is missing"
  done
}

declare -A status=([segv]=139 [abort]=134 [kill]=137 [global-exit]=5 [fatal]=1)
declare -A says=([segv]='PE 1 .*signal 11' [abort]='PE 1 .*signal 6' [kill]='PE 1 .*signal 9'
                 [global-exit]='' [fatal]='shmem_long_p: pe=9 is out of range')
for mode in segv abort kill global-exit fatal; do
  snapshot
  run "$OSHRUN" -n 2 "$PE_OUTPUT" "$mode"
  expect_rc "${status[$mode]}" "pipe, $mode"
  check_lines "pipe, $mode" 0
  [ -z "${says[$mode]}" ] || expect_err "${says[$mode]}" "pipe, $mode"
  check_no_leftovers "pipe, $mode"

  # On a terminal: oshrun's stdout and stderr are one, so the report is in the same stream.
  run "$PY" "$PTY_RUN" "$OSHRUN" -n 2 "$PE_OUTPUT" "$mode"
  expect_rc "${status[$mode]}" "terminal, $mode"
  check_lines "terminal, $mode" 1
  [ -z "${says[$mode]}" ] || expect_out "${says[$mode]}" "terminal, $mode"
  check_no_leftovers "terminal, $mode"
  pass "$mode: every line of both PEs, on a pipe and on a terminal"
done

# A PE's stdout redirected to a file keeps the C library's full buffering (only pipes, sockets
# and terminals are line-buffered), and the PEs' output on a terminal is passed on unchanged
# ("\n" stays "\n", nothing echoed).
run "$PY" "$PTY_RUN" "$OSHRUN" -n 2 sh -c 'printf "a\tb\n"; test -t 1 && echo tty-out; test -t 2 || echo err-not-tty'
expect_rc 0 "terminal, sh"
[ "$(grep -c "^a	b$" "$WORK/out")" = 2 ] || fail "terminal, sh: tab line"
[ "$(grep -c "^tty-out$" "$WORK/out")" = 2 ] || fail "terminal, sh: stdout is not a terminal"
[ "$(grep -c "^err-not-tty$" "$WORK/out")" = 2 ] || fail "terminal, sh: stderr should stay a pipe"
pass "terminal: stdout a terminal, bytes unchanged, stderr a pipe"
