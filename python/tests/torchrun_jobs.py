"""Jobs under the real torchrun (Debian's python3-torch 1.13: `python3 -m torch.distributed.run`),
started the way docs/python.md tells a user to: on Python 3.11 that launcher needs
`--redirects 1 --tee 1` (its default "0" hits Std.from_str's bug, see docs/python.md), and
`--log_dir` keeps its per-rank logs out of /tmp. Not collected with the rest of the suite
(the file name does not start with test_): CTest runs it on its own (python_torchrun)."""
import os
import signal
import socket
import subprocess
import sys
import textwrap

import pytest

from conftest import job_env

pytest.importorskip("torch.distributed", reason="Debian's python3-torch is not installed")

# The workaround a Debian 12 user needs for torch 1.13's launcher on Python 3.11.
WORKAROUND = ["--redirects", "1", "--tee", "1"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun(tmp_path, body, nproc, *opts, timeout=240, script=True, **env):
    """Run `body` under torchrun with `nproc` workers; return (status, {rank: stdout lines}, stderr).
    script=False: no Python script, `opts` end with the program to start."""
    job = []
    if script:
        job = [str(tmp_path / "job.py")]
        (tmp_path / "job.py").write_text(textwrap.dedent(body))
    logs = tmp_path / "logs"
    cmd = [sys.executable, "-m", "torch.distributed.run", *WORKAROUND, "--log_dir", str(logs),
           f"--nproc_per_node={nproc}", *opts, *job]
    # A session of its own: on a timeout the agent and its workers all go (the workers would
    # outlive a killed agent).
    proc = subprocess.Popen(cmd, env=job_env(OMP_NUM_THREADS="1", **env), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(f"torchrun still running after {timeout} s (hang guard):\n{stdout}{stderr}")
    out = subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)
    lines = {}
    for line in out.stdout.splitlines():  # --tee 1 prefixes each worker's line with [default<rank>]:
        if line.startswith("[default") and "]:" in line:
            head, text = line.split("]:", 1)
            lines.setdefault(int(head[len("[default"):]), []).append(text)
    return out.returncode, lines, out.stdout + out.stderr


# Every rank: shmem's sum over PEs, gloo's all_reduce (when the script uses it), the PE numbering.
JOB = """
    import os, sys
    import torch, torch.distributed as dist
    import shmem
    order = sys.argv[1] if len(sys.argv) > 1 else "{order}"
    if order == "gloo-first":
        dist.init_process_group("gloo")
    me, npes = shmem.my_pe(), shmem.n_pes()
    if order == "gloo-after":
        dist.init_process_group("gloo")
    src, dst = shmem.full(1, me + 1, dtype="i8"), shmem.zeros(1, dtype="i8")
    shmem.sum_reduce(dst, src)
    gloo = -1
    if order != "shmem-only":
        t = torch.tensor([me + 1]); dist.all_reduce(t); gloo = int(t)
        dist.barrier()
    print(f"RESULT rank={{os.environ['RANK']}} pe={{me}} npes={{npes}} shmem={{int(dst[0])}} gloo={{gloo}}", flush=True)
    shmem.free(src); shmem.free(dst)
"""


def check(status, lines, text, nproc, gloo):
    assert status == 0, text
    want_sum = nproc * (nproc + 1) // 2
    for r in range(nproc):
        results = [l for l in lines.get(r, []) if l.startswith("RESULT")]
        assert results == [f"RESULT rank={r} pe={r} npes={nproc} shmem={want_sum} gloo={want_sum if gloo else -1}"], text
    assert "Address already in use" not in text and "cannot listen" not in text, text


@pytest.mark.parametrize("nproc,order", [(2, "shmem-only"), (2, "gloo-after"), (4, "gloo-first")])
def test_torchrun_defaults(tmp_path, nproc, order):
    """Static rendezvous, torchrun's agent holds MASTER_PORT: shmem meets through that store,
    before or after gloo does. (--master_port: a free port, so that parallel test runs on this
    machine cannot collide on torchrun's default 29500; nothing else differs from the defaults.)"""
    status, lines, text = torchrun(tmp_path, JOB.format(order=order), nproc, f"--master_port={free_port()}",
                                   SHMEM_LOG_LEVEL="INFO")
    check(status, lines, text, nproc, order != "shmem-only")
    assert "bootstrap: uniqueid" in text, text  # rank 0's store on a port of its own


@pytest.mark.parametrize("nproc,order", [(2, "gloo-first"), (4, "gloo-after")])
def test_torchrun_standalone(tmp_path, nproc, order):
    """--standalone: c10d rendezvous, no agent store; rank 0 of the workers hosts torch's store
    at MASTER_PORT (multi-tenant), whichever of shmem and gloo comes first."""
    status, lines, text = torchrun(tmp_path, JOB.format(order=order), nproc, "--standalone")
    check(status, lines, text, nproc, True)


def test_torchrun_failure_on_rank_1(tmp_path):
    """A rank that dies after initialisation ends the job (the library's job watcher tells the
    others; torchrun's agent reports it): nothing waits forever."""
    body = """
        import os, shmem
        if shmem.my_pe() == 1:
            os._exit(3)
        shmem.barrier_all()  # PE 0 would wait here forever
    """
    status, lines, text = torchrun(tmp_path, body, 2, f"--master_port={free_port()}", timeout=120)
    assert status != 0, text
    assert "the job failed (PE 1 lost: connection closed before shmem_finalize)" in text, text
    assert "exitcode  : 3" in text, text  # torchrun's report of rank 1


def test_mismatched_new_group(tmp_path):
    """new_group(ranks) given different ranks on different members raises at once, naming both
    ranks and their lists (without the check: rank 0's all_reduce on a group of every rank waits
    for rank 1, whose group of itself alone returns at once, until SHMEM_WAIT_TIMEOUT)."""
    body = """
        import torch, torch.distributed as dist, shmem.torch
        dist.init_process_group("shmem")
        me = dist.get_rank()
        g = dist.new_group([0, 1] if me == 0 else [1], backend="shmem")
        t = torch.ones(4)
        dist.all_reduce(t, group=g)
        print("NOT STOPPED", flush=True)
    """
    status, lines, text = torchrun(tmp_path, body, 2, f"--master_port={free_port()}", timeout=120,
                                   SHMEM_WAIT_TIMEOUT="60")
    assert status != 0, text
    assert ("new_group #1: rank 0 was given ranks [0,1], rank 1 ranks [1]; every rank must pass the same "
            "ranks") in text, text
    assert "NOT STOPPED" not in "".join(lines.get(0, [])), text


def test_mismatched_new_group_every_member_raises(tmp_path):
    """Three ranks, rank 1 given other ranks than ranks 0 and 2: every member raises at once --
    rank 2, whose list matches rank 0's, through rank 0's verdict (the lowest rank compares the
    lists; the others read its list and its verdict) -- long before SHMEM_WAIT_TIMEOUT or the
    group's timeout."""
    body = """
        import datetime, time, torch, torch.distributed as dist, shmem.torch
        from shmem import ShmemValueError
        dist.init_process_group("shmem")
        me = dist.get_rank()
        start = time.monotonic()
        try:
            dist.new_group([0, 1] if me == 1 else [0, 1, 2], backend="shmem",
                           timeout=datetime.timedelta(seconds=100))
        except ShmemValueError as e:
            print(f"RAISED after {time.monotonic() - start:.1f} s: {e.message}", flush=True)
            raise SystemExit(3)
        print("NOT STOPPED", flush=True)
    """
    status, lines, text = torchrun(tmp_path, body, 3, f"--master_port={free_port()}", timeout=150,
                                   SHMEM_WAIT_TIMEOUT="100")
    assert status != 0, text
    for r in range(3):
        said = [x for x in lines.get(r, []) if x.startswith("RAISED after ")]
        assert len(said) == 1, text
        assert "rank 1 ranks [0,1]" in said[0] or "rank 1 was given ranks [0,1]" in said[0], text
        assert float(said[0].split()[2]) < 60, text  # at once, not at the 100 s timeout

def test_new_group_member_absent_from_its_own_call(tmp_path):
    """Rank 2 leaves itself out of a new_group that ranks 0 and 1 list it in: after the group's
    timeout the lowest rank raises naming rank 2, and rank 1 raises with the same cause (rank 0's
    verdict), not with a bare timeout of its own. Rank 2 is then ended by the job's end."""
    body = """
        import datetime, torch, torch.distributed as dist, shmem.torch
        from shmem import ShmemError
        dist.init_process_group("shmem")
        me = dist.get_rank()
        try:
            # Rank 2 waits longer in torch's own barrier after new_group (its group of others
            # only returns at once): it must not end the job before ranks 0 and 1 have raised.
            dist.new_group([0, 1] if me == 2 else [0, 1, 2], backend="shmem",
                           timeout=datetime.timedelta(seconds=60 if me == 2 else 5))
        except ShmemError as e:
            print(f"RAISED {e.message}", flush=True)
            raise SystemExit(3)
        except RuntimeError as e:  # rank 2: torch's own barrier after new_group, at its timeout
            print(f"TORCH {e}", flush=True)
            raise SystemExit(3)
        print("NOT STOPPED", flush=True)
    """
    status, lines, text = torchrun(tmp_path, body, 3, f"--master_port={free_port()}", timeout=150)
    assert status != 0, text
    for r in (0, 1):
        said = [x for x in lines.get(r, []) if x.startswith("RAISED ")]
        assert len(said) == 1 and "rank 2 did not create it within 0:00:05" in said[0], text
    assert "NOT STOPPED" not in text, text


@pytest.mark.parametrize("nproc", [2, 4])
def test_backend_against_gloo(tmp_path, nproc):
    """dist.init_process_group("shmem"): every collective of the backend (all_reduce with every
    op and dtype, broadcast, reduce, all_gather(_base), gather, scatter, reduce_scatter(_base),
    all_to_all(_single), send/recv, barrier, futures; isend/irecv of any size both ways, AVG;
    new_group of every rank and of some ranks) against gloo's results on the same inputs;
    torch_backend_check.py asserts each and prints ALL OK."""
    pytest.importorskip("shmem._c10d", reason="the backend extension was not built (libtorch-dev missing)")
    check_script = os.path.join(os.path.dirname(__file__), "torch_backend_check.py")
    with open(check_script) as f:
        body = f.read()
    status, lines, text = torchrun(tmp_path, body, nproc, f"--master_port={free_port()}", timeout=400)
    assert status == 0, text
    for r in range(nproc):
        assert lines.get(r, [])[-1:] == ["ALL OK"], text


@pytest.mark.parametrize("nproc", [2, 4])
@pytest.mark.parametrize("example", ["torch_ddp", "torch_moe", "torch_tensor_parallel"])
def test_examples(tmp_path, example, nproc):
    """The PyTorch examples (examples/python/torch_*.py) under torchrun, as their docstrings
    say to start them: each checks itself against one process and prints VERIFIED on rank 0."""
    pytest.importorskip("shmem._c10d", reason="the backend extension was not built (libtorch-dev missing)")
    script = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", f"{example}.py")
    with open(script) as f:
        body = f.read()
    status, lines, text = torchrun(tmp_path, body, nproc, f"--master_port={free_port()}")
    assert status == 0, text
    assert any(l.endswith(": VERIFIED") and f"on {nproc} PEs" in l for l in lines.get(0, [])), text


C_JOB = r"""
#include <shmem.h>
#include <stdio.h>
int main(void) {
  static long src, dst;
  shmem_init();
  src = shmem_my_pe() + 1;
  shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
  printf("RESULT pe=%d npes=%d sum=%ld\n", shmem_my_pe(), shmem_n_pes(), dst);
  fflush(stdout);
  shmem_finalize();
  return 0;
}
"""


@pytest.mark.parametrize("nproc", [2, 4])
def test_c_program(tmp_path, nproc):
    """A C program under torchrun (--no_python): torchrun's agent holds MASTER_PORT, so rank 0
    starts the bootstrap store on a port of its own and publishes its unique ID in the agent's
    TCPStore (src/bootstrap/torch_store.hpp); nobody tries to listen on MASTER_PORT."""
    oshcc = os.path.join(os.path.dirname(os.environ["SHMEM_PY_OSHRUN"]), "oshcc")
    (tmp_path / "job.c").write_text(C_JOB)
    subprocess.run([oshcc, "-o", str(tmp_path / "job"), str(tmp_path / "job.c")], check=True)
    status, lines, text = torchrun(tmp_path, "", nproc, f"--master_port={free_port()}", "--no_python",
                                   str(tmp_path / "job"), script=False, SHMEM_LOG_LEVEL="INFO")
    assert status == 0, text
    want = nproc * (nproc + 1) // 2
    for r in range(nproc):
        assert [l for l in lines.get(r, []) if l.startswith("RESULT")] == [f"RESULT pe={r} npes={nproc} sum={want}"], text
    assert "Address already in use" not in text and "cannot listen" not in text, text
    assert "SHMEM_JOB_SECRET" not in text, text  # rank 0 made a random secret
    assert f"bootstrap: torchrun (agent store), PE 0 of {nproc}" in text, text
