#!/usr/bin/env bash
# acl_launch.sh - start N processes of a program the way a user porting from Ascend SHMEM does:
# no launcher library, each process gets its own my_pe and n_pes on the command line.
#
#   acl_launch.sh [options] -- program args...
#     -n N                number of processes (default 2)
#     --certs             make a CA, a second CA and a certificate + key per PE in the run's
#                         directory with the openssl CLI (ca.pem, ca2.pem, peI.pem, peI.key, and
#                         pe1.enc.key: pe1.key encrypted with the password "secret")
#     --expect-fail ERE   the run must fail (some process exits non-zero) and the combined output
#                         must match ERE (grep -E); repeatable
#     --match ERE         the combined output must match ERE; repeatable
#     --no-match ERE      the combined output must not match ERE; repeatable
#     --timeout S         kill everything after S seconds (default 60)
#
# In the arguments {pe} and {npes} become each process's PE number and the job size, {dir} a
# fresh directory removed afterwards, and {port0}, {port1} two free TCP ports on 127.0.0.1.
# Output of every process is printed, prefixed with its PE, once all have ended.
set -u

npes=2
certs=0
timeout_s=60
expects=()
matches=()
no_matches=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) npes="$2"; shift 2 ;;
    --certs) certs=1; shift ;;
    --expect-fail) expects+=("$2"); shift 2 ;;
    --match) matches+=("$2"); shift 2 ;;
    --no-match) no_matches+=("$2"); shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "acl_launch.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "acl_launch.sh: no program" >&2; exit 2; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/acl_launch.XXXXXX") || exit 2
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}
port0=$(free_port)
port1=$(free_port)
while [ "$port1" = "$port0" ]; do port1=$(free_port); done

if [ "$certs" = 1 ]; then
  ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
  (
    cd "$dir" || exit 1
    set -e
    for ca in ca ca2; do
      openssl req -x509 $ec -keyout $ca.key -out $ca.pem -subj "/CN=acl-test-$ca" -days 1
    done
    for ((i = 0; i < npes; i++)); do
      openssl req $ec -keyout pe$i.key -out pe$i.csr -subj "/CN=pe$i"
      openssl x509 -req -in pe$i.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out pe$i.pem -days 1
    done
    openssl pkcs8 -topk8 -in pe1.key -out pe1.enc.key -passout pass:secret
  ) >"$dir/openssl.log" 2>&1 || {
    echo "acl_launch.sh: certificate generation failed:"
    cat "$dir/openssl.log"
    exit 1
  }
fi

for ((pe = 0; pe < npes; pe++)); do
  args=()
  for a in "$@"; do
    a=${a//\{pe\}/$pe}
    a=${a//\{npes\}/$npes}
    a=${a//\{dir\}/$dir}
    a=${a//\{port0\}/$port0}
    a=${a//\{port1\}/$port1}
    args+=("$a")
  done
  "${args[@]}" >"$dir/out.$pe" 2>&1 &
  pids+=($!)
done

# Wait for all, killing everything at the deadline.
. "$(dirname "$0")/../support/clock.sh"
deadline=$(($(mono_ms) + timeout_s * 1000))
status=0
timed_out=0
for ((pe = 0; pe < npes; pe++)); do
  while kill -0 "${pids[$pe]}" 2>/dev/null; do
    if [ "$(mono_ms)" -ge "$deadline" ]; then
      timed_out=1
      for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
      break
    fi
    sleep 0.05
  done
  wait "${pids[$pe]}"
  rc=$?
  [ $rc -ne 0 ] && status=1
  echo "[acl_launch] PE $pe exited with $rc"
done
pids=()
for ((pe = 0; pe < npes; pe++)); do sed "s/^/[PE $pe] /" "$dir/out.$pe"; done
cat "$dir"/out.* >"$dir/all"

if [ $timed_out = 1 ]; then
  echo "acl_launch.sh: FAILED: still running after ${timeout_s}s"
  exit 1
fi
for e in ${matches[@]+"${matches[@]}"}; do
  grep -qE -- "$e" "$dir/all" || { echo "acl_launch.sh: FAILED: the output does not match '$e'"; exit 1; }
done
for e in ${no_matches[@]+"${no_matches[@]}"}; do
  if grep -qE -- "$e" "$dir/all"; then
    echo "acl_launch.sh: FAILED: the output matches '$e'"
    exit 1
  fi
done
if [ ${#expects[@]} -eq 0 ]; then
  [ $status = 0 ] && echo "acl_launch.sh: all $npes PEs passed" || echo "acl_launch.sh: FAILED"
  exit $status
fi
if [ $status = 0 ]; then
  echo "acl_launch.sh: FAILED: every PE exited 0, but a failure was expected"
  exit 1
fi
for e in "${expects[@]}"; do
  if ! grep -qE -- "$e" "$dir/all"; then
    echo "acl_launch.sh: FAILED: the output does not match '$e'"
    exit 1
  fi
done
echo "acl_launch.sh: failed as expected"
exit 0
