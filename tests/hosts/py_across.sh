#!/bin/bash
# The Python module across namespace hosts, started the way docs/python.md says:
# `python3 -m shmem.run --hosts ... --rsh AGENT` (and --hostfile with SHMEM_RSH), from h1.
#   1. 2 hosts x 2 PEs: every PE runs where the slot rule puts it, reports its host's PEs over
#      shared memory and the other host's over UCX (tcp/hnet0), gets -x's value, and reduces
#      over TEAM_SHARED (a team within its host);
#   2. the pytest suite of python/tests on 2 hosts x 2 PEs (--hosts, --rsh), on 2 hosts x 1 PE
#      (--hostfile, SHMEM_RSH) and on 3 hosts x 1-2-1 PEs: every PE passes the same tests, and
#      the only skipped ones are those that start nested jobs (they run in the launcher-less
#      session only);
#   3. the examples of examples/python on 2 hosts x 2 PEs print VERIFIED;
#   4. an uncaught exception on a PE of h2 ends the job (exit status 1), naming it;
#   5. sys.exit(3), raise SystemExit(4) and SIGTERM on a PE of h2 end the job, naming it.
# CTest sets SHX_PYTHON (the interpreter the bindings are built for), SHX_PY_DIR
# (build/python, the package), SHX_PY_TESTS (python/tests), SHX_PY_EXAMPLES.
# About 10 s on an idle 2-core machine, 25 s on a loaded one.
export HARNESS_JOB_TIMEOUT=${HARNESS_JOB_TIMEOUT:-120}
. "$(dirname "$0")/../tools/common.sh"
. "$(dirname "$0")/harness.sh"
: "${SHX_PYTHON:?set by CTest}" "${SHX_PY_DIR:?set by CTest}" "${SHX_PY_TESTS:?set by CTest}"
: "${SHX_PY_EXAMPLES:?set by CTest}"

snapshot
harness_up 3
mkdir -p "$WORK/pytest-tmp"

# py_job [VAR=VALUE...] -- SHMEM.RUN-ARGS...: `python3 -m shmem.run ARGS` started on h1 (one
# command line for the agent's shell: quote arguments with blanks in single quotes); status in
# $RC, output in $WORK/out and $WORK/err.
py_job() {
  local envs=""
  while [ "$1" != -- ]; do envs+=" '$1'"; shift; done
  shift
  run harness_exec h1 "cd '$WORK' && exec env PYTHONPATH='$SHX_PY_DIR' PYTHONDONTWRITEBYTECODE=1 \
    SHMEM_WAIT_TIMEOUT=60 PYTEST_DEBUG_TEMPROOT='$WORK/pytest-tmp'$envs '$SHX_PYTHON' -m shmem.run $*"
  [ "$RC" != 124 ] || fail "shmem.run $*: still running after $HARNESS_JOB_TIMEOUT s (hang guard)"
}

# --- 1. placement, transport, -x ----------------------------------------------------------------
# A collective on a team within one host (TEAM_SHARED) works in a job across hosts.
cat >"$WORK/where.py" <<'EOF'
import os, socket, shmem
me, shared = shmem.my_pe(), shmem.TEAM_SHARED
src, dst = shmem.full(1, me, dtype="i8"), shmem.zeros(1, dtype="i8")
shmem.sum_reduce(dst, src, team=shared)
print(f"PE {me} of {shmem.n_pes()} on {socket.gethostname()}: {shared.n_pes()} on this host, "
      f"their sum {dst[0]}, x={os.environ.get('PY_ACROSS_X')}", flush=True)
shmem.free(src)
shmem.free(dst)
EOF
py_job SHMEM_LOG_LEVEL=INFO -- --tag-output --rsh "$HARNESS_AGENT" --hosts h1:2,h2:2 -x PY_ACROSS_X=set where.py
expect_rc 0 "where.py on h1:2,h2:2"
for r in 0 1 2 3; do
  h=$((r / 2))  # h1 holds PEs 0,1 (sum 1), h2 PEs 2,3 (sum 5)
  expect_out "^\[PE $r\] PE $r of 4 on h$((h + 1)): 2 on this host, their sum $((4 * h + 1)), x=set$" "where.py, PE $r"
done
for h in 1 2; do
  want="PE [0-9]+ on host 'h$h': 2 node-local PEs over shared memory, 2 remote over ucx [0-9.]+: tcp/hnet0"
  n=$(grep -cE "$want" "$WORK/err" || true)
  [ "$n" = 2 ] || fail "where.py: expected 2 PEs on h$h to report /$want/, saw $n"
done
pass "shmem.run --hosts h1:2,h2:2 --rsh: PEs 0,1 on h1 and 2,3 on h2, UCX over tcp/hnet0 between the hosts, -x on every PE, sum_reduce on TEAM_SHARED"

# --- 2. the pytest suite ------------------------------------------------------------------------
# --capture=sys: a message the library writes before it ends the process reaches stderr.
pytest_args="-m pytest -q -rs -p no:cacheprovider --capture=sys -x '$SHX_PY_TESTS'"

# check_suite NPES LAYOUT: every PE's pytest passed the same, non-zero number of tests, and
# skipped only the nested-job tests.
check_suite() {
  local npes=$1 what="pytest on $2" r n first=""
  for ((r = 0; r < npes; r++)); do
    n=$(sed -nE "s/^\[PE $r\] ([0-9]+) passed(, [0-9]+ skipped)? in .*/\1/p" "$WORK/out")
    if [ -z "$n" ] || [ "$n" -le 0 ]; then
      fail "$what: PE $r has no summary line '[PE $r] N passed, ...' (or a failure)"
    fi
    [ -z "$first" ] || [ "$n" = "$first" ] || fail "$what: PE $r passed $n tests, PE 0 $first"
    first=$n
  done
  grep -E '^\[PE [0-9]+\] SKIPPED' "$WORK/out" | grep -v 'nested jobs run in the launcher-less session only' |
    grep . && fail "$what: tests skipped for another reason than nested jobs"
  grep -qE '^\[PE [0-9]+\] .*[0-9]+ (failed|error)' "$WORK/out" && fail "$what: failures reported"
  PASSED=$first
}

t0=$(now_ms)
py_job -- --tag-output --rsh "$HARNESS_AGENT" --hosts h1:2,h2:2 "$pytest_args"
expect_rc 0 "pytest on h1:2,h2:2"
check_suite 4 h1:2,h2:2
pass "pytest on 2 hosts x 2 PEs (--hosts, --rsh): $PASSED tests passed on every PE ($(( $(now_ms) - t0 )) ms)"

printf '# two hosts, one PE each\nh1\n\nh2:1  # the second\n' >"$WORK/hosts"
t0=$(now_ms)
py_job SHMEM_RSH="$HARNESS_AGENT" -- --tag-output --hostfile "'$WORK/hosts'" "$pytest_args"
expect_rc 0 "pytest on --hostfile h1,h2:1"
check_suite 2 "h1,h2:1 (hostfile)"
pass "pytest on 2 hosts x 1 PE (--hostfile, SHMEM_RSH): $PASSED tests passed on every PE ($(( $(now_ms) - t0 )) ms)"

t0=$(now_ms)
py_job -- --tag-output --rsh "$HARNESS_AGENT" --hosts h1,h2:2,h3 "$pytest_args"
expect_rc 0 "pytest on h1,h2:2,h3"
check_suite 4 h1,h2:2,h3
pass "pytest on 3 hosts x 1-2-1 PEs: $PASSED tests passed on every PE ($(( $(now_ms) - t0 )) ms)"

# --- 3. the examples ----------------------------------------------------------------------------
for ex in "$SHX_PY_EXAMPLES"/*.py; do
  py_job -- --rsh "$HARNESS_AGENT" --hosts h1:2,h2:2 "'$ex'"
  expect_rc 0 "$(basename "$ex") on h1:2,h2:2"
  expect_out "VERIFIED" "$(basename "$ex") on h1:2,h2:2"
  pass "$(basename "$ex") on 2 hosts x 2 PEs: VERIFIED"
done

# --- 4. an uncaught exception on the other host ends the job -----------------------------------
cat >"$WORK/boom.py" <<'EOF'
import shmem
if shmem.my_pe() == 3:
    raise RuntimeError("boom on PE 3")
shmem.barrier_all()  # the others would wait here forever
EOF
t0=$(now_ms)
py_job -- --rsh "$HARNESS_AGENT" --hosts h1:2,h2:2 boom.py
[ "$RC" = 1 ] || fail "boom.py: exit status $RC, expected 1 (the uncaught exception's status)"
expect_err "RuntimeError: boom on PE 3" "boom.py"
pass "an uncaught exception on h2 ends the job with status 1 ($(( $(now_ms) - t0 )) ms)"

# --- 5. sys.exit(n), raise SystemExit(n), a signal on the other host end the job -----------------
# PE 3 (on h2) ends while the others wait in barrier_all: the job ends with its status and names
# it, as a C program's exit(n) does (issue 32, item 4).
for ending in "sys.exit(3):3:exited with status 3" "raise SystemExit(4):4:exited with status 4" \
              "os.kill(os.getpid(), signal.SIGTERM):143:killed by signal 15"; do
  code=${ending%%:*} rest=${ending#*:}
  want_rc=${rest%%:*} says=${rest#*:}
  printf 'import os, signal, sys\nimport shmem\nshmem.barrier_all()\nif shmem.my_pe() == 3:\n    %s\nshmem.barrier_all()\n' \
    "$code" >"$WORK/ends.py"
  t0=$(now_ms)
  py_job -- --rsh "$HARNESS_AGENT" --hosts h1:2,h2:2 ends.py
  [ "$RC" = "$want_rc" ] || fail "ends.py ($code): exit status $RC, expected $want_rc"
  expect_err "PE 3 .*$says|PE 3 $says" "ends.py ($code)"
  pass "$code on PE 3 (h2) ends the job with status $want_rc, PE 3 named ($(( $(now_ms) - t0 )) ms)"
done

[ -z "$(harness_pids)" ] || fail "processes left in the hosts: $(harness_pids)"
check_no_leftovers "py_across"
