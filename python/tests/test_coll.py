"""Collectives: barrier/sync, broadcast, collect, fcollect, alltoall(s), every reduction."""
import numpy as np
import pytest

import shmem
from conftest import all_ok


def test_barrier_and_sync(me):
    shmem.barrier_all()
    shmem.sync_all()
    shmem.sync()
    shmem.sync(shmem.TEAM_WORLD)
    shmem.TEAM_SHARED.sync()


@pytest.mark.parametrize("dt", ["i1", "i8", "f4", "c16", "G"])
def test_broadcast(me, npes, dt):
    root = npes - 1
    src = shmem.array((np.arange(5) + me).astype(dt))
    dst = shmem.zeros(5, dt)
    shmem.broadcast(dst, src, root)
    whole = np.array_equal(dst, (np.arange(5) + root).astype(dt))
    part = shmem.zeros(5, dt)
    shmem.broadcast(part, src, 0, size=2)
    ok = whole and np.array_equal(part[:2], np.arange(2).astype(dt)) and not part[2:].any()
    for a in (src, dst, part):
        shmem.free(a)
    assert all_ok(ok)


def test_collect_with_varying_sizes(me, npes):
    src = shmem.full(npes, me, dtype="i4")
    total = npes * (npes + 1) // 2
    dst = shmem.full(total + 1, -1, dtype="i4")
    shmem.collect(dst, src, size=me + 1)
    want = [pe for pe in range(npes) for _ in range(pe + 1)] + [-1]
    ok = dst.tolist() == want
    shmem.free(src)
    shmem.free(dst)
    assert all_ok(ok)


def test_fcollect(me, npes):
    src = shmem.array([me, 10 * me, 100 * me], dtype="f8")
    dst = shmem.zeros((npes, 3))
    shmem.fcollect(dst, src)
    ok = dst.tolist() == [[pe, 10 * pe, 100 * pe] for pe in range(npes)]
    shmem.free(src)
    shmem.free(dst)
    assert all_ok(ok)


def test_alltoall(me, npes):
    src = shmem.array([[100 * me + j] * 2 for j in range(npes)], dtype="i8")  # block j goes to PE j
    dst = shmem.zeros((npes, 2), "i8")
    shmem.alltoall(dst, src)
    ok = dst.tolist() == [[100 * i + me] * 2 for i in range(npes)]
    shmem.alltoall(dst, src, size=1)  # blocks of one element of the flat arrays
    ok = ok and dst.reshape(-1)[:npes].tolist() == [100 * i + me // 2 for i in range(npes)]
    shmem.free(src)
    shmem.free(dst)
    assert all_ok(ok)


@pytest.mark.parametrize("dt", ["i2", "f8", "c16", "G"])
def test_alltoalls(me, npes, dt):
    src = shmem.array((np.arange(npes) + 10 * me).astype(dt))   # element j for PE j
    dst = shmem.zeros(2 * npes, dt)
    shmem.alltoalls(dst, src, tst=2, sst=1)
    ok = (np.array_equal(dst[::2], (10 * np.arange(npes) + me).astype(dt))
          and np.array_equal(dst[1::2], np.zeros(npes, dt)))
    shmem.free(src)
    shmem.free(dst)
    assert all_ok(ok)


REDUCTIONS = {
    "sum": (lambda vals: sum(vals), ["i1", "u2", "i4", "i8", "u8", "f4", "f8", "g", "c8", "c16"]),
    "prod": (lambda vals: np.prod(vals), ["i8", "f8", "c16"]),
    "max": (max, ["i1", "u1", "i2", "i4", "u8", "f4", "f8", "g"]),
    "min": (min, ["i1", "i8", "u4", "f8"]),
    "and": (lambda vals: np.bitwise_and.reduce(vals), ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"]),
    "or": (lambda vals: np.bitwise_or.reduce(vals), ["i4", "u8"]),
    "xor": (lambda vals: np.bitwise_xor.reduce(vals), ["i8", "u2"]),
}
CASES = [(op, dt) for op, (_, dts) in REDUCTIONS.items() for dt in dts]


@pytest.mark.parametrize("op,dt", CASES)
def test_reductions(me, npes, op, dt):
    contribution = lambda pe: np.array([pe + 1, 3 * pe + 2, 7]).astype(dt)  # noqa: E731
    src = shmem.array(contribution(me))
    dst = shmem.zeros(3, dt)
    shmem.reduce(dst, src, op)
    combine = REDUCTIONS[op][0]
    want = np.array([combine([contribution(pe)[i] for pe in range(npes)]) for i in range(3)]).astype(dt)
    ok = np.allclose(dst, want) if dst.dtype.kind in "fc" else np.array_equal(dst, want)
    named = shmem.zeros(3, dt)
    getattr(shmem, f"{op}_reduce")(named, src)
    ok = ok and np.array_equal(named, dst)
    shmem.free(src)
    shmem.free(dst)
    shmem.free(named)
    assert all_ok(bool(ok))


def test_reduce_in_place_and_size(me, npes):
    a = shmem.full(4, me + 1, dtype="i8")
    shmem.sum_reduce(a, a, size=2)
    ok = a.tolist() == [npes * (npes + 1) // 2] * 2 + [me + 1] * 2
    shmem.reduce(a, a, shmem.OP.MAX)
    ok = ok and a[2] == npes
    shmem.free(a)
    assert all_ok(ok)


def test_collective_argument_errors(npes):
    a = shmem.zeros(4, "i4")
    b = shmem.zeros(4, "i4")
    f = shmem.zeros(4, "f8")
    small = shmem.zeros(2, "i4")
    odd = shmem.zeros(2 * npes + 1, "i4")
    cases = [
        (ValueError, "source is not symmetric", lambda: shmem.broadcast(a, np.zeros(4, "i4"), 0)),
        (ValueError, "target is not symmetric", lambda: shmem.sum_reduce(np.zeros(4, "i4"), a)),
        (TypeError, "dtype mismatch: target is int32 but source is float64", lambda: shmem.fcollect(a, f)),
        (ValueError, f"root={npes} is out of range", lambda: shmem.broadcast(a, b, npes)),
        (ValueError, "broadcast needs 5 elements of target", lambda: shmem.broadcast(a, b, 0, size=5)),
        (ValueError, f"fcollect needs {4 * npes} elements of target", lambda: shmem.fcollect(small, b)),
        (ValueError, "collect needs 4 elements of target", lambda: shmem.collect(small, b)),
        (ValueError, f"alltoall needs {5 * npes} elements", lambda: shmem.alltoall(a, b, size=5)),
        (ValueError, "tst=0 must be >= 1", lambda: shmem.alltoalls(a, b, tst=0)),
        (TypeError, "and_reduce does not support dtype float64", lambda: shmem.and_reduce(f, f)),
        (ValueError, "op='mul' is not a reduction", lambda: shmem.reduce(a, b, "mul")),
        (ValueError, "team is invalid", lambda: shmem.sum_reduce(a, b, team=shmem.TEAM_INVALID)),
    ]
    if npes > 1:
        cases.append((ValueError, "not a multiple of the team", lambda: shmem.alltoall(odd, odd)))
    for exc, message, call in cases:
        with pytest.raises(exc, match=message):
            call()
    for x in (a, b, f, small, odd):
        shmem.free(x)
