#!/usr/bin/env bash
# A rank that arrives after its launcher-less job has ended (docs/launchers.md, "A PE that comes
# late"). Ranks 0 and 1 of a 3-rank job start; rank 1 is misconfigured (it says the job has 4
# ranks), so the store fails the job and both end. Only after both have exited (the script waits
# on them) does rank 2 start, correctly configured:
#   late_rank.sh <pe_exit_acl> <pe_exit> MODE
#     uid             the unique ID (read from the file PE 0 wrote): PE 0 made its store with the
#                     ID, so refusals there mean it ended -> rank 2 ends at once, well before its
#                     60 s deadline, saying the job ended before it arrived
#     torchrun-agent  torchrun's agent store (tests/pe/fake_tcpstore.py stands in for it): the
#                     ranks that ended left the cause there -> rank 2 ends at once naming it
#     tcp             tcp://: refusals cannot tell a PE 0 not started yet from one that ended, so
#                     rank 2 waits out its deadline (2 s here) and then says both are possible
set -euo pipefail
acl=$1; pe_exit=$2; mode=$3
out=$(mktemp -d "$PWD/late_rank.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
clean=(env -u SHMEM_PE -u SHMEM_NPES -u SHMEM_STORE_ADDR -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT)
case "$mode" in
  uid | tcp)
    where=$out; [ "$mode" = tcp ] && where=tcp://127.0.0.1:$port
    run() { "${clean[@]}" SHMEM_JOB_SECRET=the-job-secret "$@"; }
    rank() { echo "$acl $1 $2 $mode $where exit0-all"; }  # rank R N: rank R of a job of N
    ;;
  torchrun-agent)
    coproc STORE { exec /usr/bin/python3 "$(dirname "$0")/fake_tcpstore.py"; }
    read -r -t 30 agent_port <&"${STORE[0]}"
    run() {
      "${clean[@]}" TORCHELASTIC_USE_AGENT_STORE=True TORCHELASTIC_RESTART_COUNT=0 MASTER_ADDR=127.0.0.1 \
        MASTER_PORT=$agent_port "$@"
    }
    rank() { echo "env RANK=$1 WORLD_SIZE=$2 $pe_exit exit0-all"; }
    ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
run SHMEM_BOOTSTRAP_TIMEOUT=60 timeout 30 $(rank 0 3) > "$out/rank0.txt" 2>&1 &
p0=$!
run SHMEM_BOOTSTRAP_TIMEOUT=60 timeout 30 $(rank 1 4) > "$out/rank1.txt" 2>&1 &
p1=$!
fail=0
rc=0; wait $p0 || rc=$?
((rc != 0 && rc != 124)) || { echo "FAIL: rank 0: status $rc"; fail=1; }
rc=0; wait $p1 || rc=$?
((rc != 0 && rc != 124)) || { echo "FAIL: rank 1: status $rc"; fail=1; }
grep -q "differs between ranks" "$out/rank0.txt" || { echo "FAIL: rank 0 does not name the cause"; fail=1; }
# The job has ended: nothing of it runs any more. Now the late rank.
if [ "$mode" = tcp ]; then
  late_timeout=2
  want="cannot reach the bootstrap store at 127.0.0.1:$port after 2 s .*Nobody listening there means that PE 0 has not started yet, or that it has ended and the job with it"
elif [ "$mode" = uid ]; then
  late_timeout=60
  want="nobody listens at the bootstrap store's address .* any more .*PE 0 started the store there when it made the unique ID, and has ended: the job ended \(or failed\) before PE 2 arrived"
else
  late_timeout=60
  want="the job ended before rank 2 arrived \(torchrun's agent store says so\): PE [01] .*differs between ranks"
fi
rc=0
run SHMEM_BOOTSTRAP_TIMEOUT=$late_timeout timeout 30 $(rank 2 3) > "$out/rank2.txt" 2>&1 || rc=$?
((rc != 0 && rc != 124)) || { echo "FAIL: late rank 2: status $rc (124: it waited out the 30 s guard)"; fail=1; }
grep -qE "$want" "$out/rank2.txt" || { echo "FAIL: late rank 2 does not say /$want/"; fail=1; }
for r in 0 1 2; do echo "---- rank $r"; cat "$out/rank$r.txt"; done
exit $fail
