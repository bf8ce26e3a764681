"""Ascend SHMEM's launcher-less initialisation: unique ID (aclshmem_get_unique_id +
aclshmem_init_using_unique_id) and default mode (InitAttr.ip_port = "tcp://host:port").
Two plain python3 processes are started by the test (no oshrun); they run in the launcher-less
session only (see conftest.only_singleton)."""
import os
import socket
import subprocess
import sys
import textwrap

import pytest

import shmem
from conftest import job_env, only_singleton

pytestmark = only_singleton

MEM = 64 << 20

# Each PE puts its number (+100) to the other PE, then barrier_all; argv: pe, mode, file-or-url.
PE_SCRIPT = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    import shmem

    pe, mode, where = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    assert shmem.init_status() == shmem.InitStatus.NOT_INITIALIZED
    if mode == "uid":
        if pe == 0:
            uid = shmem.aclshmem_get_unique_id()
            with open(where + ".tmp", "wb") as f:
                f.write(bytes(uid))
            os.rename(where + ".tmp", where)  # the reader sees the whole id or none
        else:
            deadline = time.monotonic() + 30  # hand-off of the id between processes
            while not os.path.exists(where):
                if time.monotonic() > deadline:
                    sys.exit("PE 1: no unique id from PE 0")
                time.sleep(0.01)
            with open(where, "rb") as f:
                uid = shmem.UniqueId.from_bytes(f.read())
        assert shmem.aclshmem_init_using_unique_id(pe, 2, %(mem)d, uid) == 0
    else:
        attr = shmem.InitAttr(my_rank=pe, n_ranks=2, ip_port=where, local_mem_size=%(mem)d)
        assert shmem.aclshmem_init(attr) == 0
    assert shmem.init_status() == shmem.InitStatus.IS_INITIALIZED
    assert shmem.aclshmemx_init_status() == 2
    assert (shmem.my_pe(), shmem.n_pes()) == (pe, 2)
    dst = shmem.zeros(4, dtype="i8")
    shmem.put(dst, np.full(4, pe + 100, dtype="i8"), 1 - pe)
    shmem.barrier_all()
    assert dst.tolist() == [101 - pe] * 4, dst.tolist()
    shmem.barrier_all()
    shmem.free(dst)
    assert shmem.aclshmem_finalize() == 0
    print(f"PE {pe} OK", flush=True)
""") % {"mem": MEM}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_pair(tmp_path, mode, where):
    path = tmp_path / "pe.py"
    path.write_text(PE_SCRIPT)
    env = job_env(SHMEM_JOB_SECRET="acl-init-test-secret")
    procs = [subprocess.Popen([sys.executable, str(path), str(pe), mode, where], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for pe in (0, 1)]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=90))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for pe, (p, (out, err)) in enumerate(zip(procs, outs)):
        assert p.returncode == 0, f"PE {pe} exited {p.returncode}\n{out}\n{err}"
        assert f"PE {pe} OK" in out


def test_init_using_unique_id(tmp_path):
    run_pair(tmp_path, "uid", str(tmp_path / "uid.bin"))


def test_init_default_mode_ip_port(tmp_path):
    run_pair(tmp_path, "default", f"tcp://127.0.0.1:{free_port()}")


def test_unique_id_bytes():
    uid = shmem.UniqueId()
    raw = bytes(uid)
    assert len(raw) == shmem.UniqueId.size and shmem.UniqueId.from_bytes(raw) == uid
    with pytest.raises(shmem.ShmemError) as e:
        shmem.UniqueId.from_bytes(raw[:-1])
    assert e.value.code == -1
    with pytest.raises(shmem.ShmemError) as e:  # this session is initialised already
        shmem.aclshmem_init_using_unique_id(0, 1, MEM, uid)
    assert e.value.code == -1 and "already initialised" in e.value.message
    assert shmem.init_status() == shmem.InitStatus.IS_INITIALIZED
