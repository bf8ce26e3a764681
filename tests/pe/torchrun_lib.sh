# Sourced by the torchrun_*.sh tests: starts N ranks of a program with torchrun-style variables
# (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT; no oshrun, rank 0 hosts the store).
#   torchrun_start N SECONDS PROG ARGS...  -> rank r's output in $out/rank$r.txt, its pid in pids[r]
# $out is in the build tree (nothing in /tmp) and is removed, with any rank left, on exit.
out=$(mktemp -d "$PWD/torchrun.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$out"' EXIT
pids=()
torchrun_start() {
  local n=$1 limit=$2 r port
  shift 2
  # A free loopback port (the kernel picks it; the tiny window before rank 0 binds is harmless).
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  for ((r = 0; r < n; r++)); do
    # timeout: a rank left hanging shows up as status 124 instead of blocking the test.
    env -u SHMEM_PE -u SHMEM_NPES -u SHMEM_STORE_ADDR RANK=$r WORLD_SIZE=$n MASTER_ADDR=127.0.0.1 \
      MASTER_PORT=$port timeout "$limit" "$@" > "$out/rank$r.txt" 2>&1 &
    pids+=($!)
  done
}
