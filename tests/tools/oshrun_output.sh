#!/bin/bash
# oshrun: start-up, per-PE environment, output forwarding (plain and --tag-output).
. "$(dirname "$0")/common.sh"

snapshot
run "$OSHRUN" -n 4 sh -c 'echo pe=$SHMEM_PE'
expect_rc 0 "-n 4 echo"
[ "$(wc -l <"$WORK/out")" = 4 ] || fail "-n 4 echo: expected 4 lines"
[ "$(sort -u "$WORK/out" | tr '\n' ' ')" = "pe=0 pe=1 pe=2 pe=3 " ] || fail "-n 4 echo: PEs not 0..3"
[ -s "$WORK/err" ] && fail "-n 4 echo: unexpected stderr"
check_no_leftovers "-n 4 echo"
pass "4 PEs, distinct SHMEM_PE"

# Every PE sees the same job; the secret is 32 random bytes in hex and differs per launch.
prog='echo "$SHMEM_PE $SHMEM_NPES $SHMEM_STORE_ADDR $SHMEM_JOB_ID $SHMEM_JOB_SECRET"'
run env SHMEM_PE=99 SHMEM_JOB_SECRET=stale "$OSHRUN" -n 3 sh -c "$prog"
expect_rc 0 "job env"
awk '{ print $2, $3, $4, $5 }' "$WORK/out" | sort -u >"$WORK/job1"
[ "$(wc -l <"$WORK/job1")" = 1 ] || fail "job env: PEs disagree on the job: $(cat "$WORK/job1")"
read -r npes addr id secret <"$WORK/job1"
[ "$npes" = 3 ] || fail "SHMEM_NPES=$npes"
[[ $addr =~ ^127\.0\.0\.1:[0-9]+$ ]] || fail "SHMEM_STORE_ADDR=$addr"
[ -n "$id" ] || fail "SHMEM_JOB_ID empty"
[[ $secret =~ ^[0-9a-f]{64}$ ]] || fail "SHMEM_JOB_SECRET is not 64 hex digits: $secret"
[ "$(awk '{ print $1 }' "$WORK/out" | sort | tr '\n' ' ')" = "0 1 2 " ] || fail "inherited SHMEM_PE not replaced"
run "$OSHRUN" -n 1 sh -c "$prog"
read -r _ _ _ id2 secret2 <"$WORK/out"
[ "$id2" != "$id" ] && [ "$secret2" != "$secret" ] || fail "job id/secret reused across launches"
pass "job environment"

# -np / --np / --np= spellings; a PE that never talks to the store and exits 0 is a success.
for spelling in "-np 2" "--np 2" "--np=2" "-n2"; do
  # shellcheck disable=SC2086
  run "$OSHRUN" $spelling true
  expect_rc 0 "oshrun $spelling true"
  [ -s "$WORK/err" ] && fail "oshrun $spelling true: unexpected stderr"
done
run "$SHX_BIN_DIR/shmemrun" -n 2 sh -c 'echo hi'
expect_rc 0 shmemrun
[ "$(grep -c '^hi$' "$WORK/out")" = 2 ] || fail "shmemrun output"
pass "-np, --np, shmemrun, PEs that never connect"

# --tag-output: every line prefixed, stdout to stdout and stderr to stderr; a last line
# without newline is flushed at exit and terminated.
run "$OSHRUN" --tag-output -n 2 sh -c 'echo "out a"; echo "err b" >&2; echo "out c"; printf "tail"'
expect_rc 0 "--tag-output"
for pe in 0 1; do
  [ "$(grep -c "^\[PE $pe\] " "$WORK/out")" = 3 ] || fail "--tag-output: PE $pe stdout lines"
  grep -qx "\[PE $pe\] out a" "$WORK/out" || fail "--tag-output: PE $pe 'out a'"
  grep -qx "\[PE $pe\] tail" "$WORK/out" || fail "--tag-output: PE $pe partial line"
  grep -qx "\[PE $pe\] err b" "$WORK/err" || fail "--tag-output: PE $pe stderr"
done
[ "$(wc -l <"$WORK/out")" = 6 ] || fail "--tag-output: stray stdout lines"
# Order within one PE's stream is kept.
[ "$(grep '^\[PE 1\]' "$WORK/out" | tr '\n' '|')" = "[PE 1] out a|[PE 1] out c|[PE 1] tail|" ] ||
  fail "--tag-output: PE 1 order"
pass "--tag-output"

# Without tags, lines of different PEs never mix, even when written in pieces.
run "$OSHRUN" -n 4 sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do printf "pe%s-" $SHMEM_PE; printf "line%s\n" $i; done'
expect_rc 0 "interleave"
[ "$(wc -l <"$WORK/out")" = 40 ] || fail "interleave: 40 lines expected"
grep -vqxE 'pe[0-3]-line([1-9]|10)' "$WORK/out" && fail "interleave: mixed lines"
pass "whole lines"

# A single PE's output passes through byte for byte (no newline added).
run "$OSHRUN" -n 1 printf 'no newline'
expect_rc 0 "-n 1 printf"
[ "$(cat "$WORK/out")" = "no newline" ] && [ "$(wc -c <"$WORK/out")" = 10 ] || fail "-n 1 printf"
# Long lines and large volumes arrive intact.
run "$OSHRUN" -n 2 sh -c 'head -c 300000 /dev/zero | tr "\0" x; echo'
expect_rc 0 "long lines"
[ "$(awk '{ print length($0) }' "$WORK/out" | sort -u)" = 300000 ] || fail "long lines were split or mixed"
pass "pass-through, long lines"

# Arguments reach the program unchanged; stdin goes to PE 0 only.
run "$OSHRUN" -n 1 -- printf '[%s]' 'a b' '' '-n' '$HOME'
[ "$(cat "$WORK/out")" = '[a b][][-n][$HOME]' ] || fail "argument passing: $(cat "$WORK/out")"
echo from-stdin | "$OSHRUN" -n 2 sh -c 'read -r l; echo "$SHMEM_PE:${l:-none}"' >"$WORK/out" 2>"$WORK/err"
[ "$(sort "$WORK/out" | tr '\n' ' ')" = "0:from-stdin 1:none " ] || fail "stdin: $(cat "$WORK/out")"
pass "arguments, stdin"

run "$OSHRUN" --help
expect_rc 0 "--help"
expect_out "usage: oshrun" "--help"
check_no_leftovers "output tests"
