#!/usr/bin/env bash
# torch_vs_gloo_hosts.sh - bench/torch_vs_gloo.py across two hosts made of network namespaces
# (tests/hosts/harness.sh): the real torchrun on each, --nnodes 2 x --nproc_per_node 2, static
# rendezvous on h1, as tests/hosts/torchrun_across.sh starts it; prints rank 0's table. Needs
# root (namespaces); removes the namespaces and its files on exit. SHX_PY_DIR: the directory
# holding the shmem package (build/python).
#
#   bench/torch_vs_gloo_hosts.sh [BUILD_DIR] [torch_vs_gloo.py options: --max 64M --rounds 5 ...]
set -u
src=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd -- "${1:-$src/build}" && pwd)
opts="${*:2}"  # (no shift: common.sh re-executes this script with its arguments)
export SHX_BIN_DIR=$build/bin SHX_BUILD_DIR=$build SHX_SOURCE_DIR=$src SHX_TEST_TMP=$build/tests/hosts/tmp
export HARNESS_JOB_TIMEOUT=${HARNESS_JOB_TIMEOUT:-1800}
. "$src/tests/tools/common.sh"
. "$src/tests/hosts/harness.sh"
python=${SHX_PYTHON:-/usr/bin/python3}

harness_up 2
H1=$(harness_addr h1)
port=$((29500 + RANDOM % 1000))
pids=()
for h in 1 2; do
  harness_exec "h$h" "cd '$WORK' && exec env PYTHONPATH='${SHX_PY_DIR:-$build/python}' PYTHONDONTWRITEBYTECODE=1 \
    OMP_NUM_THREADS=1 GLOO_SOCKET_IFNAME=hnet0 '$python' -m torch.distributed.run --redirects 1 --tee 1 \
    --log_dir '$WORK/logs$h' --nnodes 2 --node_rank $((h - 1)) --master_addr $H1 --master_port $port \
    --nproc_per_node 2 '$src/bench/torch_vs_gloo.py' $opts" >"$WORK/out$h" 2>"$WORK/err$h" &
  pids+=($!)
done
wait "${pids[0]}"; rc1=$?
wait "${pids[1]}"; rc2=$?
[ "$rc1" = 0 ] && [ "$rc2" = 0 ] || { cat "$WORK"/err1 "$WORK"/err2 >&2; fail "agents exited $rc1 (h1), $rc2 (h2)"; }
sed -n 's/^\[default0\]://p' "$WORK/out1" | grep -E '^(\||[0-9]+ ranks)'
