"""Shared fixtures. Every PE runs the same pytest session, test by test in the same order, so
collective calls match up; each test frees what it allocates (checked after every test)."""
import os
import subprocess
import sys

import pytest

import shmem

LAUNCHER_VARS = ("SHMEM_PE", "SHMEM_NPES", "SHMEM_STORE_ADDR", "SHMEM_JOB_ID", "SHMEM_JOB_SECRET")


@pytest.fixture(scope="session")
def me():
    return shmem.my_pe()


@pytest.fixture(scope="session")
def npes():
    return shmem.n_pes()


@pytest.fixture(scope="session")
def right(me, npes):
    return (me + 1) % npes


@pytest.fixture(scope="session")
def left(me, npes):
    return (me - 1) % npes


@pytest.fixture(scope="session")
def same_host():
    """The world PE numbers of the PEs on this PE's host (SHMEM_TEAM_SHARED), in order."""
    shared = shmem.TEAM_SHARED
    return [shared.translate_pe(i) for i in range(shared.n_pes())]


@pytest.fixture(autouse=True)
def _lockstep_and_no_leaks():
    """PEs enter each test together, and a test leaves no symmetric allocation behind."""
    shmem.barrier_all()
    before = shmem._core.live_allocations()
    yield
    shmem.barrier_all()
    assert shmem._core.live_allocations() == before, "the test leaked symmetric memory"


def all_ok(flag: bool) -> bool:
    """True on every PE when ``flag`` is True on every PE (a collective AND)."""
    src = shmem.array([1 if flag else 0], dtype="i4")
    dst = shmem.zeros(1, dtype="i4")
    shmem.and_reduce(dst, src)
    out = bool(dst[0])
    shmem.free(src)
    shmem.free(dst)
    return out


def job_env(**extra):
    """The environment for a nested job: without this PE's launcher variables."""
    env = {k: v for k, v in os.environ.items() if k not in LAUNCHER_VARS}
    env.update(extra)
    return env


def run_job(args, timeout=60, **env):
    """Run ``python3 args...`` (e.g. ``-m shmem.run -n 2 script.py``); return the CompletedProcess."""
    return subprocess.run([sys.executable, *args], env=job_env(**env), capture_output=True, text=True,
                          timeout=timeout)


# Jobs started from a test only run in the launcher-less session (one PE), to keep the suite short.
only_singleton = pytest.mark.skipif("SHMEM_PE" in os.environ,
                                    reason="nested jobs run in the launcher-less session only")
