"""Every atomic operation, fetching and not, blocking and _nbi, on every supported dtype."""
import numpy as np
import pytest

import shmem
from conftest import all_ok

INT_DTYPES = ["i4", "i8", "u4", "u8", "l", "q", "L", "Q"]


@pytest.mark.parametrize("dt", INT_DTYPES)
def test_arithmetic_on_pe0(me, npes, dt):
    x = shmem.zeros(1, dt)
    shmem.atomic_add(x, 2, 0)
    shmem.atomic_inc(x, 0)
    old1 = shmem.atomic_fetch_add(x, 1, 0)
    old2 = shmem.atomic_fetch_inc(x, 0)
    shmem.barrier_all()
    total = shmem.atomic_fetch(x, 0)
    shmem.barrier_all()
    shmem.free(x)
    assert total == 5 * npes
    assert 0 <= old1 < old2 < 5 * npes
    assert isinstance(total, int)


@pytest.mark.parametrize("dt", INT_DTYPES)
def test_set_swap_compare_swap_and_bitwise(me, left, right, dt):
    x = shmem.zeros(1, dt)
    r = []
    shmem.atomic_set(x, me, right)  # only I update my right neighbour's copy
    shmem.barrier_all()
    r.append(int(x[0]) == left)
    shmem.barrier_all()
    r.append(shmem.atomic_swap(x, 100 + me, right) == me)
    r.append(shmem.atomic_compare_swap(x, 100 + me, 7, right) == 100 + me)
    r.append(shmem.atomic_compare_swap(x, 999, 8, right) == 7)  # no match: unchanged
    shmem.atomic_set(x, 0b1111, right)
    shmem.atomic_and(x, 0b0110, right)
    shmem.atomic_or(x, 0b1000, right)
    shmem.atomic_xor(x, 0b0011, right)
    r.append(shmem.atomic_fetch_and(x, 0b0101, right) == 0b1101)
    r.append(shmem.atomic_fetch_or(x, 0b0010, right) == 0b0101)
    r.append(shmem.atomic_fetch_xor(x, 0b0001, right) == 0b0111)
    shmem.barrier_all()
    r.append(int(x[0]) == 0b0110)
    shmem.barrier_all()
    shmem.free(x)
    assert all(r), r


@pytest.mark.parametrize("dt", ["f4", "f8"])
def test_float_set_fetch_swap(me, left, right, dt):
    x = shmem.zeros(1, dt)
    shmem.atomic_set(x, me + 0.5, right)
    shmem.barrier_all()
    seen = shmem.atomic_fetch(x, me)
    shmem.barrier_all()
    prev = shmem.atomic_swap(x, 2.25, right)
    shmem.barrier_all()
    ok = seen == left + 0.5 and prev == me + 0.5 and x[0] == 2.25
    with pytest.raises(TypeError, match="atomic_add does not support dtype float"):
        shmem.atomic_add(x, 1.0, right)
    shmem.barrier_all()
    shmem.free(x)
    assert ok


@pytest.mark.parametrize("dt", ["i4", "u8"])
def test_nbi_fetching_forms(me, right, dt):
    x = shmem.zeros(1, dt)
    f = np.zeros(1, dt)
    r = []

    def fetched(call, *args):
        call(f, x, *args)
        shmem.quiet()
        return int(f[0])

    r.append(fetched(shmem.atomic_fetch_add_nbi, 5, right) == 0)
    r.append(fetched(shmem.atomic_fetch_inc_nbi, right) == 5)
    r.append(fetched(shmem.atomic_fetch_nbi, right) == 6)
    r.append(fetched(shmem.atomic_swap_nbi, 12, right) == 6)
    r.append(fetched(shmem.atomic_compare_swap_nbi, 12, 13, right) == 12)
    r.append(fetched(shmem.atomic_fetch_and_nbi, 0b0101, right) == 13)
    r.append(fetched(shmem.atomic_fetch_or_nbi, 0b1000, right) == 0b0101)
    r.append(fetched(shmem.atomic_fetch_xor_nbi, 0b1111, right) == 0b1101)
    r.append(fetched(shmem.atomic_fetch_nbi, right) == 0b0010)
    shmem.barrier_all()
    shmem.free(x)
    assert all(r), r


def test_atomic_op_and_fetch_op(me, right):
    x = shmem.zeros(1, "i8")
    f = np.zeros(1, "i8")
    r = []
    shmem.atomic_op(x, 10, shmem.AMO.SET, right)
    shmem.atomic_op(x, None, shmem.AMO_INC, right)
    shmem.atomic_op(x, 4, "add", right)
    shmem.atomic_op(x, 0b11110, shmem.AMO.AND, right)
    shmem.atomic_op(x, 1, "OR", right)
    shmem.atomic_op(x, 0b100, shmem.AMO.XOR, right)
    r.append(shmem.atomic_fetch(x, right) == 0b01011)
    r.append(shmem.atomic_fetch_op(x, 3, shmem.AMO.SET, right) == 0b01011)  # SET fetches: a swap
    r.append(shmem.atomic_fetch_op(x, 0, shmem.AMO.INC, right) == 3)
    r.append(shmem.atomic_fetch_op(x, 6, shmem.AMO.ADD, right) == 4)
    r.append(shmem.atomic_fetch_op(x, 0b0110, shmem.AMO.AND, right) == 10)
    r.append(shmem.atomic_fetch_op(x, 0b0001, shmem.AMO.OR, right) == 0b0010)
    r.append(shmem.atomic_fetch_op(x, 0b0011, shmem.AMO.XOR, right) == 0b0011)
    shmem.atomic_fetch_op_nbi(f, x, 40, shmem.AMO.ADD, right)
    shmem.quiet()
    r.append(int(f[0]) == 0)
    shmem.atomic_fetch_op_nbi(f, x, 0, shmem.AMO.INC, right)
    shmem.quiet()
    r.append(int(f[0]) == 40)
    with pytest.raises(ValueError, match="op='mul' is not an AMO"):
        shmem.atomic_op(x, 1, "mul", right)
    shmem.barrier_all()
    shmem.free(x)
    assert all(r), r


def test_fetch_inc_under_contention(me, npes):
    """Every PE takes 50 tickets from PE 0's counter: every ticket is handed out exactly once."""
    counter = shmem.zeros(1, "i8")
    mine = shmem.array([shmem.atomic_fetch_inc(counter, 0) for _ in range(50)], dtype="i8")
    every = shmem.zeros(50 * npes, "i8")
    shmem.fcollect(every, mine)
    ok = sorted(every.tolist()) == list(range(50 * npes))
    for a in (counter, mine, every):
        shmem.free(a)
    assert ok


def test_amo_argument_errors(npes, right):
    x = shmem.zeros(2, "i8")
    s = shmem.zeros(1, "i2")
    u = shmem.zeros(1, "u4")
    cases = [
        (ValueError, "target must hold exactly one element", lambda: shmem.atomic_add(x, 1, right)),
        (ValueError, "target is not symmetric", lambda: shmem.atomic_add(np.zeros(1, "i8"), 1, right)),
        (TypeError, "atomic_add does not support dtype int16", lambda: shmem.atomic_add(s, 1, right)),
        (TypeError, "value=1.5 cannot be converted", lambda: shmem.atomic_add(x[:1], 1.5, right)),
        (TypeError, "value=-1 cannot be converted", lambda: shmem.atomic_set(u, -1, right)),
        (TypeError, "cond=", lambda: shmem.atomic_compare_swap(x[:1], "a", 1, right)),
        (ValueError, f"pe={npes} is out of range", lambda: shmem.atomic_inc(x[:1], npes)),
        (TypeError, "dtype mismatch: fetch is int32", lambda: shmem.atomic_fetch_nbi(np.zeros(1, "i4"), x[:1], right)),
        (ValueError, "fetch must hold exactly one element",
         lambda: shmem.atomic_fetch_add_nbi(np.zeros(2, "i8"), x[:1], 1, right)),
        (ValueError, "source must hold exactly one element",
         lambda: shmem.atomic_fetch(x, right)),
    ]
    for exc, message, call in cases:
        with pytest.raises(exc, match=message):
            call()
    untouched = all_ok(not x.any() and not u.any())
    for a in (x, s, u):
        shmem.free(a)
    assert untouched
