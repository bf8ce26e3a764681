"""Ascend SHMEM's Python names: raw integer addresses and byte counts, team helpers."""
import os

import numpy as np
import pytest

import shmem
from conftest import all_ok


def test_raw_memory_and_rma(me, npes, left, right):
    p = shmem.aclshmem_malloc(64)
    z = shmem.aclshmem_calloc(8, 8)
    al = shmem.aclshmem_align(4096, 16)
    r = [p != 0 and al % 4096 == 0, shmem.aclshmem_malloc(0) == 0]
    local = np.arange(8, dtype="i8") + 10 * me
    shmem.aclshmem_putmem(p, local, 64, right)
    shmem.aclshmem_barrier_all()
    mine = np.zeros(8, "i8")
    shmem.aclshmem_getmem(mine, p, 64, me)
    r.append(mine.tolist() == (np.arange(8) + 10 * left).tolist())
    shmem.aclshmem_getmem_nbi(mine, z, 64, right)
    shmem.aclshmem_quiet()
    r.append(not mine.any())
    shmem.aclshmem_putmem_nbi(z, local.ctypes.data, 8, right)  # a raw local address works too
    shmem.aclshmem_quiet()
    shmem.aclshmem_barrier_all()
    r.append(shmem.aclshmem_ptr(p, me) == p and shmem.aclshmem_ptr(p, npes) == 0)
    view = np.frombuffer((np.ctypeslib.ctypes.c_int64 * 1).from_address(z), dtype="i8")
    r.append(int(view[0]) == 10 * left)
    shmem.aclshmem_barrier_all()
    for addr in (p, z, al):
        shmem.aclshmem_free(addr)
    shmem.aclshmem_free(0)
    assert all_ok(all(r)), r


def test_raw_put_signal(me, left, right):
    data = shmem.aclshmem_malloc(16)
    sig = shmem.aclshmem_calloc(1, 8)
    src = np.array([me, me], "i8")
    shmem.aclshmemx_putmem_signal(data, src, 16, sig, 1, shmem.SignalOp.SIGNAL_SET, right)
    got = shmem.aclshmem_signal_wait_until(sig, shmem.CmpOp.CMP_EQ, 1)
    out = np.zeros(2, "i8")
    shmem.aclshmem_getmem(out, data, 16, me)
    shmem.aclshmem_barrier_all()
    shmem.aclshmemx_putmem_signal_nbi(data, src, 16, sig, 2, shmem.SignalOp.SIGNAL_ADD, right)
    shmem.aclshmem_quiet()
    got2 = shmem.aclshmem_signal_wait_until(sig, shmem.CmpOp.CMP_GE, 3)
    shmem.aclshmem_barrier_all()
    shmem.aclshmem_free(data)
    shmem.aclshmem_free(sig)
    assert got == 1 and out.tolist() == [left, left] and got2 == 3


def test_raw_checks(npes):
    p = shmem.aclshmem_malloc(8)
    local = np.zeros(4, "i8")
    cases = [
        (ValueError, "was not returned by aclshmem_malloc", lambda: shmem.aclshmem_free(12345)),
        (ValueError, "dst extends 24 bytes past the end of its symmetric allocation",
         lambda: shmem.aclshmem_putmem(p, local, 32, 0)),
        (ValueError, "src is not the address", lambda: shmem.aclshmem_getmem(local, local, 8, 0)),
        (ValueError, f"pe={npes} is out of range", lambda: shmem.aclshmem_putmem(p, local, 8, npes)),
        (ValueError, "sig_addr is not", lambda: shmem.aclshmem_signal_wait_until(local, shmem.CmpOp.CMP_EQ, 0)),
    ]
    for exc, message, call in cases:
        with pytest.raises(exc, match=message):
            call()
    shmem.aclshmem_free(p)


def test_acl_setup_and_teams(me, npes):
    assert shmem.aclshmem_info_get_version() == (1, 6)
    assert shmem.aclshmem_info_get_name() == shmem.info_get_name()
    assert shmem.aclshmem_init() == 0  # already initialised: a no-op
    assert shmem.aclshmem_init(shmem.InitAttr(my_rank=me, n_ranks=npes)) == 0
    if "SHMEM_PE" in os.environ:
        with pytest.raises(shmem.ShmemError, match="InitAttr.my_rank"):
            shmem.aclshmem_init(shmem.InitAttr(my_rank=me + 1))
    assert shmem.my_pe() == me and shmem.pe_count() == npes
    assert shmem.team_my_pe(shmem.TEAM_WORLD) == me and shmem.team_n_pes(shmem.TEAM_WORLD) == npes
    assert isinstance(shmem.aclshmem_team_get_config(shmem.TEAM_WORLD), shmem.TeamConfig)
    team = shmem.team_split_strided(shmem.TEAM_WORLD, 0, 1, npes)
    x, y = shmem.team_split_2d(shmem.TEAM_WORLD, npes)
    ok = (shmem.team_translate_pe(team, me, shmem.TEAM_WORLD) == me and shmem.my_pe(team) == me
          and shmem.pe_count(x) == npes and shmem.pe_count(y) == 1
          and shmem.team_translate_pe(y, 5, shmem.TEAM_WORLD) == -1)
    for t in (team, x, y):
        shmem.team_destroy(t)
    assert ok
    assert int(shmem.SignalOp.SIGNAL_ADD) == int(shmem.SIGNAL.ADD)
    assert int(shmem.CmpOp.CMP_LE) == int(shmem.CMP.LE)
