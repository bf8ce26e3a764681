#!/usr/bin/env bash
# scale.sh - the scale benchmark (issue 30): what a job costs as it grows, this library side by
# side with Open MPI's OSHMEM in one run, with growth models fitted and extrapolated to 8192 PEs.
#
#   bench/scale.sh [BUILD_DIR]          (root: the jobs run on namespace hosts, tests/hosts)
#
# Points, smallest first: N PEs on one host (SCALE_PES, default 2 4 8 ... 256) and H namespace
# hosts x SCALE_PPH PEs (SCALE_HOSTS, default 2 4 8 16 32; SCALE_PPH 2). Every point runs ours
# and then OSHMEM (Debian's, /usr/bin/oshrun = mpirun), each job inside host h1 (one-host points
# too: its loopback then carries nothing but our store's traffic) under bench/scale/launch_probe,
# which times the job and samples the launcher. Per job (bench/scale.c prints the per-PE side):
#   init       ms from each PE's first constructor to shmem_init's return (spawn excluded);
#              median and slowest over PEs; job = the launcher's whole wall time
#   pss fds threads   per PE right after init (medians over PEs)
#   launcher   peak open descriptors and peak RSS (VmHWM) of oshrun / mpirun, sampled every 10 ms
#   store      bytes through our store: the launcher's INFO line "store: C connections (peak P
#              open), I bytes in, O bytes out" (SHMEM_LOG_LEVEL=INFO) when the library prints
#              it; else, on one host, the TCP payload on h1's loopback (bytes - 66 per frame:
#              Ethernet, IP, TCP with timestamps; TLS records included), else n/a. OSHMEM has no
#              store (PMIx over Unix sockets and shared memory): n/a. The launcher's rchar +
#              wchar (read/write calls, from its zombie, so without a race) is shown as "lio" for
#              both; our store uses send/recv, which those counters do not see.
#   barrier alltoall  median of shmem_barrier_all / 8-byte shmem_alltoall64, in us
# A job that does not finish within SCALE_JOB_TIMEOUT s (default 240) is ended and reported as
# "did not finish within X s" (or "did not start", when no PE got through shmem_init); once
# SCALE_TOTAL_S (default 5400) have passed, the remaining points are skipped, so a run always ends.
#
# Environment: SCALE_PES, SCALE_HOSTS (either set empty: none of those points), SCALE_PPH, SCALE_JOB_TIMEOUT, SCALE_TOTAL_S,
#   SCALE_BUDGET_MS (timed calls per collective per job, default 1000), SCALE_LIBS ("ours osh"),
#   SHMEM_SYMMETRIC_SIZE (8M), OSHMEM_OSHCC (/usr/bin/oshcc), OSHMEM_OSHRUN (/usr/bin/oshrun),
#   RAW_DIR (keeps every job's output and the results file there).
# Prints one table (medians; ratio = ours / OSHMEM, below 1 = ours smaller or faster) and the
# fits of bench/scale/fit.py (init, store bytes, launcher fds against N and hosts).
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/common.sh
source "$script_dir/common.sh"
bench_find_build scale.sh "${1:-build}"
read -ra pes_list <<<"${SCALE_PES-2 4 8 16 32 64 128 256}"
read -ra hosts_list <<<"${SCALE_HOSTS-2 4 8 16 32}"
read -ra libs <<<"${SCALE_LIBS:-ours osh}"
pph=${SCALE_PPH:-2}
job_timeout=${SCALE_JOB_TIMEOUT:-240}
total_s=${SCALE_TOTAL_S:-5400}
budget_ms=${SCALE_BUDGET_MS:-1000}
osh_cc=${OSHMEM_OSHCC:-/usr/bin/oshcc}
osh_run=${OSHMEM_OSHRUN:-/usr/bin/oshrun}
cflags=(-O2)
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-8M}

bench_tmpdir scale
echo "== building bench/scale.c (ours, OSHMEM) and bench/scale/launch_probe.c"
"$our_cc" "${cflags[@]}" -std=c11 "$root/bench/scale.c" -o "$tmp/scale.ours"
cc -O2 -std=c11 -Wall "$root/bench/scale/launch_probe.c" -o "$tmp/launch_probe"
bench_osh_build "$root/bench/scale.c" "$tmp/scale.osh"
if ((!have_osh)); then
  read -ra libs <<<"${libs[*]/osh/}"
fi

max_hosts=1
for h in "${hosts_list[@]}"; do ((h > max_hosts)) && max_hosts=$h; done
# shellcheck source=tests/hosts/harness.sh
source "$root/tests/hosts/harness.sh"
# The harness's addresses (10.213.7.11..) and agent (h1..h99) take more than its tests' 16 hosts.
HARNESS_MAX_HOSTS=64
# shellcheck disable=SC2317  # called by harness.sh's trap
_harness_exit() {
  set +e
  harness_down
  rm -rf -- "$tmp"
}
harness_up "$max_hosts"
AG=$HARNESS_AGENT
NS1=$(harness_ns h1)
results=$tmp/results.txt
: >"$results"

lo_counters() { ip netns exec "$NS1" cat /sys/class/net/lo/statistics/tx_bytes /sys/class/net/lo/statistics/tx_packets | paste -sd' '; }

shm_names() { find /dev/shm -maxdepth 1 -name 'vader_segment.h[0-9]*' -printf '%f\n' | sort; }

# run_job LIB HOSTS NPES TAG: one job; appends "TAG LIB metric value" lines to $results.
run_job() {
  local lib=$1 hosts=$2 n=$3 tag=$4
  local out=$tmp/$lib.$tag
  local vars="SHMEM_SYMMETRIC_SIZE=$SHMEM_SYMMETRIC_SIZE SCALE_BUDGET_MS=$budget_ms" cmd tls=tcp
  local hostlist="" i
  if ((hosts > 0)); then
    for ((i = 1; i <= hosts; i++)); do hostlist+="h$i:$pph,"; done
    hostlist=${hostlist%,}
  else
    tls=all # one host: UCX may use shared memory (the agent pins tcp for the multi-host jobs)
  fi
  case $lib in
    ours)
      vars+=" SHMEM_LOG_LEVEL=INFO"
      if ((hosts > 0)); then cmd="$our_run --rsh $AG --hosts $hostlist $tmp/scale.ours"; else cmd="$our_run -n $n $tmp/scale.ours"; fi
      ;;
    osh)
      cmd="$osh_run --allow-run-as-root --oversubscribe --mca osc ^rdma -x SHMEM_SYMMETRIC_SIZE -x SCALE_BUDGET_MS -np $n"
      if ((hosts > 0)); then
        cmd+=" --host $hostlist --mca plm_rsh_agent $AG --mca spml ucx --mca btl self,tcp -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=hnet0"
      fi
      cmd+=" $tmp/scale.osh"
      ;;
  esac
  local lo0 lo1 rc=0
  lo0=$(lo_counters)
  shm_names >"$out.shm0"
  SHX_HARNESS_UCX_TLS=$tls "$tmp/launch_probe" "$job_timeout" oshrun "$out.probe" \
    "$AG" h1 "ulimit -Sn \$(ulimit -Hn); exec env $vars $cmd" >"$out.out" 2>"$out.err" </dev/null || rc=$?
  lo1=$(lo_counters)
  # Whatever a failed job left in the hosts goes before the next one.
  local left
  left=$(harness_pids | tr '\n' ' ')
  if [[ -n ${left// /} ]]; then
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null || true
    echo "   ($lib: killed $(wc -w <<<"$left") processes the job left in the hosts)"
  fi
  # A killed OSHMEM job leaves its PEs' shared-memory segments (vader_segment.hI.*): remove the
  # ones that appeared during this job and that no process maps any more.
  local f gone=0
  while read -r f; do
    if ! grep -qsF "/dev/shm/$f" /proc/[0-9]*/maps; then
      rm -f -- "/dev/shm/$f"
      gone=$((gone + 1))
    fi
  done < <(shm_names | comm -13 "$out.shm0" -)
  ((gone == 0)) || echo "   ($lib: removed $gone shared-memory segments the job left in /dev/shm)"
  awk -v tag="$tag" -v lib="$lib" -v rc="$rc" -v to="$job_timeout" -v lo0="$lo0" -v lo1="$lo1" -v one=$((hosts == 0)) -v n="$n" '
    FILENAME ~ /probe$/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); p[kv[1]] = kv[2] }; next }
    FILENAME ~ /out$/ && /^scale_up,/ { up++; next }
    FILENAME ~ /out$/ && /^scale,/ { split($0, f, ","); k++; init[k] = f[4]; pss[k] = f[5]; fds[k] = f[6]; thr[k] = f[7]; bar[k] = f[8]; a2a[k] = f[9]; next }
    FILENAME ~ /err$/ && match($0, /store: [0-9]+ connections \(peak [0-9]+ open\), [0-9]+ bytes in, [0-9]+ bytes out/) {
      s = substr($0, RSTART, RLENGTH); gsub(/[^0-9]+/, " ", s); split(s, v, " "); sconn = v[1]; speak = v[2]; sbytes = v[3] + v[4]
    }
    function med(a, n,   i, j, x, b) {
      for (i = 1; i <= n; i++) b[i] = a[i] + 0
      for (i = 2; i <= n; i++) { x = b[i]; for (j = i - 1; j >= 1 && b[j] > x; j--) b[j + 1] = b[j]; b[j + 1] = x }
      return (n % 2) ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2
    }
    function mx(a, n,   i, m) { m = a[1] + 0; for (i = 2; i <= n; i++) if (a[i] + 0 > m) m = a[i] + 0; return m }
    function put(m, v) { printf "%s %s %s %s\n", tag, lib, m, v }
    END {
      if (p["timed_out"] == 1) {
        if (up + 0 < n) put("status", "did-not-start-within-" to "-s-(" up + 0 "-of-" n "-PEs-initialised)")
        else put("status", "did-not-finish-within-" to "-s-(all-initialised)")
        exit
      }
      if (rc != 0 || k == 0) { put("status", "failed-status-" p["status"]); exit }
      put("status", "ok"); put("pes", k)
      put("init_ms", med(init, k)); put("init_max_ms", mx(init, k)); put("job_ms", p["wall_ms"])
      put("pss_kb", med(pss, k)); put("fds", med(fds, k)); put("threads", med(thr, k))
      put("launcher_fds", p["fds_peak"]); put("launcher_rss_kb", p["hwm_kb"]); put("lio_bytes", p["rchar"] + p["wchar"])
      if (sbytes != "") { put("store_bytes", sbytes); put("store_conns", sconn); put("store_peak_open", speak) }
      else if (lib == "ours" && one) { split(lo0, a, " "); split(lo1, b, " "); put("store_bytes_lo", (b[1] - a[1]) - 66 * (b[2] - a[2])) }
      put("barrier_us", med(bar, k)); put("alltoall_us", med(a2a, k))
    }' "$out.probe" "$out.out" "$out.err" >>"$results"
  local st
  st=$(awk -v t="$tag" -v l="$lib" '$1 == t && $2 == l && $3 == "status" { print $4 }' "$results")
  if [[ $st != ok ]]; then
    echo "   $lib: ${st//-/ }"
    tail -5 "$out.err" | sed 's/^/   | /'
  fi
}

# The points, by number of PEs, one-host first at equal size.
points=()
for n in "${pes_list[@]}"; do points+=("$n 0 $n"); done
for h in "${hosts_list[@]}"; do points+=("$((h * pph)) $h $((h * pph))"); done
mapfile -t points < <(printf '%s\n' "${points[@]}" | sort -n -k1,1 -k2,2)

echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; hosts up: $max_hosts"
start=$SECONDS
for p in "${points[@]}"; do
  read -r n h _ <<<"$p"
  if ((h > 0)); then tag="${h}x$pph"; else tag="1x$n"; fi
  if ((SECONDS - start > total_s)); then
    for lib in "${libs[@]}"; do echo "$tag $lib status not-run-(SCALE_TOTAL_S=${total_s}-s-spent)" >>"$results"; done
    continue
  fi
  echo "== $tag ($n PEs) at $((SECONDS - start)) s, load $(cut -d' ' -f1 /proc/loadavg)"
  for lib in "${libs[@]}"; do run_job "$lib" "$h" "$n" "$tag"; done
done
echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg); $((SECONDS - start)) s"
if [[ -n ${RAW_DIR:-} ]]; then
  mkdir -p "$RAW_DIR"
  cp "$tmp"/results.txt "$tmp"/*.probe "$tmp"/*.out "$tmp"/*.err "$RAW_DIR"/ 2>/dev/null || true
fi
echo
python3 "$root/bench/scale/fit.py" "$results" "$pph"
