"""Signals: put_signal (+ _nbi) with SET and ADD, signal_fetch, signal_wait_until, signal_add/set."""
import numpy as np
import pytest

import shmem


def test_put_signal_set_then_add(me, npes, left, right):
    sig = shmem.new_signal()
    dst = shmem.zeros(8, "f8")
    src = np.arange(8.0) + me
    fresh = sig.dtype == np.uint64 and sig.shape == (1,)  # (its value may already be 1)
    shmem.put_signal(dst, src, right, sig, 1, shmem.SIGNAL_SET)
    seen = shmem.signal_wait_until(sig, shmem.CMP.EQ, 1)
    data_first = np.array_equal(dst, np.arange(8.0) + left)  # the data lands before the signal
    shmem.barrier_all()
    shmem.put_signal_nbi(dst, src, 0, sig, 1, shmem.SIGNAL.ADD, size=2)
    shmem.quiet()
    if me == 0:
        shmem.signal_wait_until(sig, ">=", 1 + npes)
    shmem.barrier_all()
    final = shmem.signal_fetch(sig)
    shmem.barrier_all()
    shmem.del_signal(sig)
    shmem.free(dst)
    assert fresh and seen == 1 and data_first
    assert final == (1 + npes if me == 0 else 1)


def test_signal_add_and_set(me, right):
    sig = shmem.new_signal()
    shmem.signal_add(sig, 5, right)
    shmem.signal_add(sig, 2, right)
    shmem.barrier_all()
    added = int(sig[0])
    shmem.barrier_all()
    shmem.signal_set(sig, 42, right)
    got = shmem.signal_wait_until(sig, shmem.CMP_GE, 40)
    shmem.barrier_all()
    shmem.free(sig)
    assert added == 7 and got == 42


def test_signal_with_context(right):
    sig = shmem.new_signal()
    dst = shmem.zeros(3, "i4")
    with shmem.Ctx.create() as ctx:
        shmem.put_signal(dst, np.ones(3, "i4"), right, sig, 9, shmem.SIGNAL_SET, ctx=ctx)
        ctx.quiet()
    got = shmem.signal_wait_until(sig, "==", 9)
    ok = (dst == 1).all()
    shmem.barrier_all()
    shmem.free(sig)
    shmem.free(dst)
    assert got == 9 and ok


def test_signal_argument_errors(right):
    sig = shmem.new_signal()
    dst = shmem.zeros(4, "i8")
    wide = shmem.zeros(2, "u8")
    src = np.ones(2, "i8")
    cases = [
        (TypeError, "signal must be a uint64 array", lambda: shmem.put_signal(dst, src, right, dst[:1], 1, 0)),
        (ValueError, "signal must hold exactly one element", lambda: shmem.put_signal(dst, src, right, wide, 1, 0)),
        (ValueError, "signal is not symmetric",
         lambda: shmem.put_signal(dst, src, right, np.zeros(1, "u8"), 1, shmem.SIGNAL_SET)),
        (ValueError, "sigop=7 is neither", lambda: shmem.put_signal(dst, src, right, sig, 1, 7)),
        (TypeError, "value=-1 cannot be converted",
         lambda: shmem.put_signal(dst, src, right, sig, -1, shmem.SIGNAL_SET)),
        (ValueError, "target is not symmetric",
         lambda: shmem.put_signal(np.zeros(2, "i8"), src, right, sig, 1, shmem.SIGNAL_SET)),
        (ValueError, "target is not contiguous",
         lambda: shmem.put_signal(dst[::2], src, right, sig, 1, shmem.SIGNAL_SET)),
        (ValueError, "cmp='~' is not a comparison", lambda: shmem.signal_wait_until(sig, "~", 1)),
        (TypeError, "signal must be a uint64", lambda: shmem.signal_fetch(dst[:1])),
    ]
    for exc, message, call in cases:
        with pytest.raises(exc, match=message):
            call()
    shmem.barrier_all()
    ok = not dst.any() and sig[0] == 0
    shmem.barrier_all()
    for a in (sig, dst, wide):
        shmem.free(a)
    assert ok
