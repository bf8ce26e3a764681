"""put/get (+ _nbi), iput/iget on every dtype, on slices and strided views, with contexts; and the
argument checks, which must fire before anything is transferred."""
import numpy as np
import pytest

import shmem

DTYPES = ["b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "f", "d", "g", "F", "D", "G", "?"]


def values(dt, base, n=5):
    return (np.arange(n) + base).astype(dt)


@pytest.mark.parametrize("dt", DTYPES)
def test_put_get_every_dtype(me, left, right, dt):
    dst = shmem.zeros(5, dt)
    shmem.put(dst, values(dt, 10 * me), right)
    shmem.barrier_all()
    got = np.zeros(5, dt)
    shmem.get(got, dst, right)  # right's copy holds what I put
    ok = np.array_equal(dst, values(dt, 10 * left)) and np.array_equal(got, values(dt, 10 * me))
    shmem.barrier_all()
    shmem.free(dst)
    assert ok


def test_nbi_forms(me, left, right):
    dst = shmem.zeros(1000, "f8")
    src = np.arange(1000.0) * (me + 1)
    shmem.put_nbi(dst, src, right)
    shmem.quiet()
    shmem.barrier_all()
    got = np.empty(1000)
    shmem.get_nbi(got, dst, left)
    shmem.quiet()
    ok = (np.array_equal(dst, np.arange(1000.0) * (left + 1))
          and np.array_equal(got, np.arange(1000.0) * ((left - 1) % shmem.n_pes() + 1)))
    shmem.barrier_all()
    shmem.free(dst)
    assert ok


def test_size_and_partial_transfers(me, right):
    dst = shmem.full(6, -1, dtype="i4")
    shmem.put(dst, np.array([1, 2, 3, 4], "i4"), right, size=2)  # size counts elements
    shmem.put(dst[4:], np.array([8, 9, 10], "i4"), right)        # min of both lengths: 2
    shmem.barrier_all()
    ok = dst.tolist() == [1, 2, -1, -1, 8, 9]
    shmem.barrier_all()
    shmem.free(dst)
    assert ok


def test_slices_2d_and_strided_views(me, left, right):
    grid = shmem.zeros((4, 6), "i8")
    row = np.arange(6, dtype="i8") + 100 * me
    shmem.put(grid[2], row, right)                       # a row of a 2-D array
    shmem.put(grid[0, ::2], np.array([7, 8, 9], "i8"), right)  # a strided view as the target
    shmem.barrier_all()
    col = np.zeros(4, "i8")
    shmem.get(col, grid[2], right, size=4)
    every_other = np.zeros(8, "i8")
    shmem.get(every_other[::2], grid[2, 1:5], left)      # a strided view as the local target
    ok = (grid[2].tolist() == (np.arange(6) + 100 * left).tolist()
          and grid[0].tolist() == [7, 0, 8, 0, 9, 0]
          and col.tolist() == (np.arange(4) + 100 * me).tolist()
          and every_other[::2].tolist() == (np.arange(1, 5) + 100 * ((left - 1) % shmem.n_pes())).tolist()
          and not every_other[1::2].any())
    shmem.barrier_all()
    shmem.free(grid)
    assert ok


def test_fortran_order_arrays_are_flat_memory(right, left):
    a = shmem.zeros((3, 2), "f8", order="F")
    src = np.asfortranarray(np.arange(6.0).reshape(3, 2))
    shmem.put(a, src, right)
    shmem.barrier_all()
    ok = np.array_equal(a, src)
    shmem.barrier_all()
    shmem.free(a)
    assert ok


@pytest.mark.parametrize("dt", ["i1", "i2", "f4", "f8", "c16", "G", "S3"])
def test_iput_iget(me, left, right, dt):
    dst = shmem.zeros(10, dt)
    src = np.array([bytes([65 + me + i] * 3) for i in range(5)], "S3") if dt == "S3" else values(dt, 10 * me)
    shmem.iput(dst, src, right, tst=2, sst=1)
    shmem.barrier_all()
    back = np.zeros(3, dt)
    shmem.iget(back, dst, right, tst=1, sst=4, size=3)  # my elements 0, 2, 4 from the right's copy
    expected_left = np.array([bytes([65 + left + i] * 3) for i in range(5)], "S3") if dt == "S3" else values(dt, 10 * left)
    ok = (np.array_equal(dst[::2], expected_left) and np.array_equal(dst[1::2], np.zeros(5, dt))
          and np.array_equal(back, src[::2]))
    shmem.barrier_all()
    shmem.free(dst)
    assert ok


def test_iput_on_strided_views(right, left):
    dst = shmem.zeros(12, "i4")
    shmem.iput(dst[::2], np.arange(6, dtype="i4")[::2], right, tst=2, sst=1)  # strides combine: 4 and 2
    shmem.barrier_all()
    ok = dst.tolist() == [0, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0]
    shmem.barrier_all()
    shmem.free(dst)
    assert ok


def test_put_with_context(right, left):
    dst = shmem.zeros(4, "u8")
    ctx = shmem.Ctx.create()
    shmem.put(dst, np.full(4, 5, "u8"), right, ctx=ctx)
    shmem.put_nbi(dst[:1], np.full(1, 6, "u8"), right, ctx=ctx)
    ctx.quiet()
    shmem.barrier_all()
    ok = dst.tolist() == [6, 5, 5, 5]
    ctx.destroy()
    with pytest.raises(ValueError, match="ctx is invalid"):
        shmem.put(dst, np.zeros(4, "u8"), right, ctx=ctx)
    with pytest.raises(TypeError, match="ctx"):
        shmem.put(dst, np.zeros(4, "u8"), right, ctx=3)
    shmem.barrier_all()
    shmem.free(dst)
    assert ok


def test_argument_errors_transfer_nothing(me, npes, right):
    dst = shmem.full(4, 3, dtype="i4")
    ro = dst.view()
    ro.flags.writeable = False
    grid = shmem.zeros((3, 4), "i4")
    cases = [
        (TypeError, "dtype mismatch: target is int32 but source is float64",
         lambda: shmem.put(dst, np.zeros(4), right)),
        (ValueError, "size=5 exceeds target", lambda: shmem.put(dst, np.zeros(8, "i4"), right, size=5)),
        (ValueError, "size=5 exceeds source", lambda: shmem.put(grid, np.zeros(2, "i4"), right, size=5)),
        (ValueError, "size=-1 is negative", lambda: shmem.put(dst, np.zeros(4, "i4"), right, size=-1)),
        (TypeError, "size must be an int", lambda: shmem.put(dst, np.zeros(4, "i4"), right, size="4")),
        (ValueError, "target is not symmetric", lambda: shmem.put(np.zeros(4, "i4"), dst, right)),
        (ValueError, "source is not symmetric", lambda: shmem.get(dst, np.zeros(4, "i4"), right)),
        (ValueError, "target is read-only", lambda: shmem.put(ro, np.zeros(4, "i4"), right)),
        (ValueError, f"pe={npes} is out of range", lambda: shmem.put(dst, np.zeros(4, "i4"), npes)),
        (ValueError, "pe=-1 is out of range", lambda: shmem.get(np.zeros(4, "i4"), dst, -1)),
        (ValueError, "target is not contiguous", lambda: shmem.put(grid[:, ::2], np.zeros(6, "i4"), right)),
        (ValueError, "source is not contiguous", lambda: shmem.put(dst, np.zeros(8, "i4")[::-2], right)),
        (TypeError, "target must be a NumPy array", lambda: shmem.put([0, 0], np.zeros(2, "i4"), right)),
        (TypeError, "source must be a NumPy array", lambda: shmem.put(dst, "abcd", right)),
        (TypeError, "integer", lambda: shmem.put(dst, np.zeros(4, "i4"), 1.0)),
        (ValueError, "tst=0 must be >= 1", lambda: shmem.iput(dst, np.zeros(4, "i4"), right, tst=0)),
        (ValueError, "size=3 exceeds target", lambda: shmem.iput(dst, np.zeros(4, "i4"), right, tst=2, size=3)),
        (TypeError, "non-native byte order", lambda: shmem.put(dst, np.zeros(4, ">i4"), right)),
    ]
    for exc, message, call in cases:
        with pytest.raises(exc, match=message):
            call()
    shmem.barrier_all()
    untouched = (dst == 3).all()
    shmem.barrier_all()
    shmem.free(dst)
    shmem.free(grid)
    assert untouched
