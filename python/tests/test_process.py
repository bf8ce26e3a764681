"""Whole jobs started from a test: the launcher module, exit paths (global_exit, an uncaught
exception, finalize), TLS set-up calls, lazy initialisation. They run in the launcher-less
session only (see conftest.only_singleton)."""
import os
import re
import textwrap
import time

import pytest

import shmem
import shmem.run
from conftest import only_singleton, run_job

pytestmark = only_singleton


def script(tmp_path, body, name="job.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def test_find_oshrun(monkeypatch):
    monkeypatch.delenv("SHMEM_PY_OSHRUN", raising=False)
    found = shmem.run.find_oshrun()
    assert found and os.access(found, os.X_OK) and os.path.basename(found) == "oshrun"


def test_split_args():
    assert shmem.run.split_args(["-n", "4", "x.py", "-n", "2"]) == (["-n", "4"], ["x.py", "-n", "2"])
    assert shmem.run.split_args(["-np", "2", "--tag-output", "-m", "pytest"]) == (
        ["-np", "2", "--tag-output"], ["-m", "pytest"])
    assert shmem.run.split_args(["-n2", "--", "-c", "pass"]) == (["-n2"], ["-c", "pass"])


def test_split_args_host_options():
    """oshrun's options with a value (--hosts, -H, --hostfile, --rsh, -x) take the next word;
    the first other word starts the Python command line, also when it is an option of Python."""
    assert shmem.run.split_args(["--hosts", "a:2,b", "--rsh", "ssh -q", "-x", "A=1", "-H", "c", "s.py", "-x"]) == (
        ["--hosts", "a:2,b", "--rsh", "ssh -q", "-x", "A=1", "-H", "c"], ["s.py", "-x"])
    assert shmem.run.split_args(["--hostfile", "f", "--hosts=a", "-np=2", "--tag-output", "-u", "s.py"]) == (
        ["--hostfile", "f", "--hosts=a", "-np=2", "--tag-output"], ["-u", "s.py"])
    for opt in ("--hosts", "--hostfile", "--rsh", "-x", "-n"):
        with pytest.raises(shmem.run.UsageError, match=f"option {opt} needs a value"):
            shmem.run.split_args(["-n", "2", opt])


def test_launcher_host_list_errors(tmp_path):
    """oshrun checks the host list before anything starts and names the bad entry (status 2)."""
    hostfile = tmp_path / "hosts"
    hostfile.write_text("# a comment\nlocalhost:2\nnode2:x\n")
    cases = [  # a few; tests/tools/oshrun_hosts.sh has the rest of the syntax
        (["--hosts", "a:0"], "--hosts entry 'a:0': invalid slot count '0'"),
        (["--hostfile", str(hostfile)], f"--hostfile {hostfile}:3: invalid slot count 'x'"),
        (["-n", "3", "--hosts", "localhost:2"], "-n 3 needs 3 slots but --hosts gives only 2"),
        (["--hosts", "localhost", "-x", "1A=2"], "invalid -x '1A=2'"),
    ]
    for opts, message in cases:
        out = run_job(["-m", "shmem.run", *opts, "-c", "print('started')"])
        assert out.returncode == 2 and message in out.stderr and "started" not in out.stdout, (opts, out.stderr)
    out = run_job(["-m", "shmem.run", "-n", "2", "--hosts"])
    assert out.returncode == 2 and "shmem.run: option --hosts needs a value" in out.stderr, out.stderr


def test_launcher_on_other_hosts_through_an_agent(tmp_path):
    """PEs on 'other hosts' are started by one agent per host (--rsh, or SHMEM_RSH), called as ssh is;
    this fake one logs the host and runs the command line here. They get this environment
    (PYTHONPATH included) and -x settings, and run the same interpreter and script."""
    log = tmp_path / "agent.log"
    agent = tmp_path / "agent"
    agent.write_text(f'#!/bin/sh\necho "$1" >>"{log}"\nshift\nsh -c "$*"\n')
    agent.chmod(0o755)
    path = script(tmp_path, """
        import os, sys
        import numpy as np
        import shmem
        me, npes = shmem.my_pe(), shmem.n_pes()
        box = shmem.zeros(1, "i8")
        shmem.put(box, np.array([me + 1]), (me + 1) % npes)
        shmem.barrier_all()
        print(f"PE {me} of {npes} got {box[0]} x={os.environ.get('PY_X')} args={sys.argv[1:]}")
    """)
    out = run_job(["-m", "shmem.run", "--hosts", "localhost,remote1:2", "--rsh", str(agent), "-x", "PY_X=1",
                   path, "arg"], SHMEM_BOOTSTRAP_ADDR="127.0.0.1")
    assert out.returncode == 0, out.stderr
    for pe in range(3):
        assert f"PE {pe} of 3 got {(pe - 1) % 3 + 1} x=1 args=['arg']" in out.stdout, out.stdout
    assert log.read_text().split() == ["remote1"]  # one agent per host, for both of its PEs
    hostfile = tmp_path / "hosts"
    hostfile.write_text("# the hosts\nlocalhost\n\nremote2  # via SHMEM_RSH\n")
    out = run_job(["-m", "shmem.run", "--hostfile", str(hostfile), path], SHMEM_BOOTSTRAP_ADDR="127.0.0.1",
                  SHMEM_RSH=str(agent))
    assert out.returncode == 0, out.stderr
    assert "PE 1 of 2 got 1 x=None args=[]" in out.stdout, out.stdout
    assert log.read_text().split() == ["remote1", "remote2"]


def test_launcher_runs_a_script(tmp_path):
    path = script(tmp_path, """
        import sys, shmem
        print(f"PE {shmem.my_pe()} of {shmem.n_pes()} args={sys.argv[1:]}")
    """)
    out = run_job(["-m", "shmem.run", "-n", "2", path, "a", "b"])
    assert out.returncode == 0, out.stderr
    assert "PE 0 of 2 args=['a', 'b']" in out.stdout and "PE 1 of 2 args=['a', 'b']" in out.stdout
    out = run_job(["-m", "shmem", "-n", "3", "-c", "import shmem; print('n', shmem.n_pes())"])
    assert out.returncode == 0 and out.stdout.count("n 3") == 3, out.stderr


def test_launcher_usage_errors():
    out = run_job(["-m", "shmem.run", "-n", "2"])
    assert out.returncode == 2 and "no program" in out.stderr
    assert run_job(["-m", "shmem.run", "--help"]).returncode == 0


def test_global_exit_ends_every_pe(tmp_path):
    path = script(tmp_path, """
        import shmem
        if shmem.my_pe() == 1:
            shmem.global_exit(7)
        shmem.barrier_all()  # PE 0 would wait here forever
    """)
    start = time.monotonic()
    out = run_job(["-m", "shmem.run", "-n", "2", path])
    assert out.returncode == 7, out.stderr
    assert time.monotonic() - start < 20


def test_uncaught_exception_ends_the_job(tmp_path):
    path = script(tmp_path, """
        import shmem
        if shmem.my_pe() == 1:
            raise RuntimeError("boom on PE 1")
        shmem.barrier_all()
    """)
    start = time.monotonic()
    out = run_job(["-m", "shmem.run", "-n", "2", path])
    assert out.returncode == 1, out.stderr
    assert "boom on PE 1" in out.stderr
    assert "oshrun: PE 1 exited with status 1 before shmem_finalize" in out.stderr, out.stderr
    assert time.monotonic() - start < 20


def test_deadlock_ends_the_job(tmp_path):
    """PEs that wait for each other forever (PE 1 waits for a flag that PE 0 sets only after a
    barrier PE 1 never reaches) end the job with a message naming where each one waits
    (core/deadlock.hpp), a few SHMEM_COLL_CHECK_AFTER periods later."""
    path = script(tmp_path, """
        import numpy as np
        import shmem
        flag = shmem.zeros(1, dtype=np.int64)
        if shmem.my_pe() == 0:
            shmem.barrier_all()
            shmem.atomic_set(flag, 1, pe=1)
        else:
            shmem.wait_until(flag, "==", 1)
        print("NOT STOPPED", flush=True)
    """)
    start = time.monotonic()
    out = run_job(["-m", "shmem.run", "-n", "2", path], SHMEM_COLL_CHECK_AFTER="1")
    assert out.returncode != 0, out.stderr
    assert "deadlock: every PE is waiting and none of them can wake another" in out.stderr, out.stderr
    assert re.search(r"PE 0 is in shmem_barrier_all\(\); PE 1 is in shmem_(long|int64)_wait_until on symmetric heap "
                     r"\+0x[0-9a-f]+ for == 1, seeing 0", out.stderr), out.stderr
    assert "NOT STOPPED" not in out.stdout
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("ending, status, says", [
    ("sys.exit(3)", 3, "PE 1 exited with status 3 before shmem_finalize"),
    ("exit(4)", 4, "PE 1 exited with status 4 before shmem_finalize"),
    ("sys.exit('bad input')", 1, "PE 1 exited with status 1 before shmem_finalize"),
    ("os.kill(os.getpid(), signal.SIGTERM)", 128 + 15, "PE 1 (pid "),
    ("raise KeyboardInterrupt", 128 + 2, "killed by signal 2"),
    ("raise SystemExit(5)", 5, "PE 1 exited with status 5 before shmem_finalize"),
    ("raise ValueError('bad value')", 1, "PE 1 exited with status 1 before shmem_finalize"),
])
def test_one_pe_ending_ends_the_job(tmp_path, ending, status, says):
    """sys.exit(n), exit(n), a signal or an interrupt on one PE while the other waits in a
    barrier end the whole job with that PE named, as a C program's exit(n) does (before,
    sys.exit(n) finalized at exit and waited forever for the PE in the barrier)."""
    path = script(tmp_path, f"""
        import os, signal, sys
        import shmem
        print("PE", shmem.my_pe(), "before")
        shmem.barrier_all()
        if shmem.my_pe() == 1:
            {ending}
        shmem.barrier_all()
        print("PE", shmem.my_pe(), "after")
    """)
    start = time.monotonic()
    out = run_job(["-m", "shmem.run", "-n", "2", path])
    assert out.returncode == status, out.stderr
    assert says in out.stderr, out.stderr
    assert time.monotonic() - start < 20  # a hang guard; the job ends ~1 s after the PE (docs/python.md)
    # Each PE's line printed before the end reaches the output (line-buffered stdout).
    assert "PE 0 before" in out.stdout and "PE 1 before" in out.stdout, out.stdout
    assert "after" not in out.stdout, out.stdout


def test_forked_child_acts_for_nobody(tmp_path):
    """A child that a PE forks with os.fork (a DataLoader worker, a multiprocessing pool) and that
    exits through sys.exit, with any status, neither finalizes nor ends the job; the PE goes on."""
    path = script(tmp_path, """
        import os
        import sys
        import shmem
        me = shmem.my_pe()
        pid = os.fork()
        if pid == 0:
            sys.exit(3 if me == 1 else 0)  # runs the atexit handlers, the package's included
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == (3 if me == 1 else 0), status
        shmem.barrier_all()
        print("PE", me, "done")
    """)
    out = run_job(["-m", "shmem.run", "-n", "2", path])
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("done") == 2, out.stdout


def test_dataloader_workers_in_a_pe(tmp_path):
    """PyTorch's DataLoader forks its workers (num_workers > 0) from an initialised PE: they run,
    and the PE goes on (they used to share the interpreter's globals with it, and both aborted)."""
    pytest.importorskip("torch")
    path = script(tmp_path, """
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        import shmem
        me = shmem.my_pe()  # initialises the library before the workers fork
        loader = DataLoader(TensorDataset(torch.arange(16.0)), batch_size=4, num_workers=2)
        total = sum(batch[0].sum().item() for batch in loader)
        assert total == 120.0, total
        shmem.barrier_all()
        print("PE", me, "done")
    """)
    out = run_job(["-m", "shmem.run", "-n", "2", path], timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("done") == 2, out.stdout


def test_caught_sys_exit_still_finalizes(tmp_path):
    """A sys.exit(2) that the program catches does not keep the PE from finalizing normally."""
    path = script(tmp_path, """
        import sys
        import shmem
        try:
            sys.exit(2)
        except SystemExit:
            pass
        shmem.barrier_all()
        print("PE", shmem.my_pe(), "done")
    """)
    out = run_job(["-m", "shmem.run", "-n", "2", path])
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("done") == 2, out.stdout


def test_finalize_then_calls_raise(tmp_path):
    path = script(tmp_path, """
        import numpy as np, shmem
        a = shmem.zeros(2)
        shmem.finalize()
        shmem.finalize()  # a second finalize is a no-op
        for call in (shmem.my_pe, shmem.init, lambda: shmem.put(a, np.zeros(2), 0)):
            try:
                call()
            except shmem.ShmemError as e:
                print("refused:", e.code, type(e).__name__)
        print("done")
    """)
    out = run_job(["-m", "shmem.run", "-n", "2", path])
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("refused: -5 ShmemError") == 6  # 3 calls on 2 PEs
    assert out.stdout.count("done") == 2


def test_lazy_initialisation(tmp_path):
    path = script(tmp_path, """
        import shmem
        assert not shmem.initialized()     # importing does not start the library
        shmem.set_conf_store_tls(True, "")
        shmem.set_log_level("error")
        print("pe", shmem.my_pe())         # the first call does
        assert shmem.initialized()
    """)
    out = run_job(["-m", "shmem.run", "-n", "2", path])
    assert out.returncode == 0, out.stderr
    assert "pe 0" in out.stdout and "pe 1" in out.stdout
    idle = run_job(["-c", "import shmem"])  # never initialised: exits cleanly
    assert idle.returncode == 0, idle.stderr


def test_tls_off_job(tmp_path):
    path = script(tmp_path, """
        import os, shmem
        shmem.set_conf_store_tls(False, "")
        assert os.environ["SHMEM_BOOTSTRAP_TLS"] == "0"
        shmem.barrier_all()
        print("ok", shmem.my_pe())
    """)
    out = run_job(["-m", "shmem.run", "-n", "2", path], SHMEM_BOOTSTRAP_TLS="0")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("ok") == 2


def test_tls_key_setting(tmp_path):
    path = script(tmp_path, """
        import os, shmem
        shmem.set_conf_store_tls(True, "tlsCaFile: /ca.pem;")
        shmem.set_conf_store_tls_key("/key.pem", "secret", lambda pw: pw.upper())
        print(os.environ["SHMEM_BOOTSTRAP_TLS_INFO"])
    """)
    out = run_job([path])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "tlsCaFile: /ca.pem; tlsPk: /key.pem; tlsPkPwd: SECRET;"
