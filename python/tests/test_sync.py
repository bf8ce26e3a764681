"""wait_until / test and their _all/_any/_some(_vector) forms, fence/quiet, locks; the GIL is
released while a call blocks."""
import threading
import time

import numpy as np
import pytest

import shmem

P2P_DTYPES = ["h", "H", "i4", "i8", "u4", "u8"]


@pytest.mark.parametrize("dt", P2P_DTYPES)
def test_wait_until_and_test(me, left, right, dt):
    ivar = shmem.zeros(1, dt)
    shmem.put(ivar, np.array([me + 1], dt), right)
    shmem.wait_until(ivar, shmem.CMP_EQ, left + 1)
    r = [shmem.test(ivar, "==", left + 1), shmem.test(ivar, "ge", left), not shmem.test(ivar, shmem.CMP.NE, left + 1),
         shmem.test(ivar, shmem.CMP.GT, left), shmem.test(ivar, "<=", left + 1), not shmem.test(ivar, "<", left + 1)]
    shmem.barrier_all()
    shmem.free(ivar)
    assert all(r), r


@pytest.mark.parametrize("dt", ["i4", "i8", "u4", "u8"])
def test_multi_variable_forms(me, npes, dt):
    ivars = shmem.zeros(npes, dt)
    for pe in range(npes):  # every PE sets its own slot on every PE
        shmem.atomic_set(ivars[me:me + 1], me + 1, pe)
    shmem.wait_until_all(ivars, shmem.CMP.GE, 1)
    shmem.barrier_all()
    want = list(range(1, npes + 1))
    everyone = list(range(npes))
    excluded = np.ones(npes, "i4")
    r = [
        ivars.tolist() == want,
        shmem.test_all(ivars, shmem.CMP.GT, 0),
        not shmem.test_all(ivars, shmem.CMP.GT, 1) or npes == 0,
        shmem.wait_until_any(ivars, shmem.CMP.GE, 1) in everyone,
        sorted(shmem.wait_until_some(ivars, shmem.CMP.GE, 1)) == everyone,
        shmem.test_any(ivars, shmem.CMP.EQ, npes) == npes - 1,
        shmem.test_any(ivars, shmem.CMP.EQ, 0) is None,
        sorted(shmem.test_some(ivars, shmem.CMP.LE, 2)) == everyone[:2],
        shmem.wait_until_any(ivars, shmem.CMP.EQ, 0, status=excluded) is None,  # all excluded: at once
        shmem.test_some(ivars, shmem.CMP.GE, 1, status=[1] + [0] * (npes - 1)) == everyone[1:],
        shmem.test_all(ivars, shmem.CMP.EQ, 1, status=[0] + [1] * (npes - 1)),
        # _vector: ivars[i] compared with values[i]
        shmem.test_all_vector(ivars, shmem.CMP.EQ, want),
        not shmem.test_all_vector(ivars, shmem.CMP.EQ, [v + 1 for v in want]),
        shmem.test_any_vector(ivars, shmem.CMP.GT, [v - (i == npes - 1) for i, v in enumerate(want)]) == npes - 1,
        sorted(shmem.test_some_vector(ivars, shmem.CMP.GE, want)) == everyone,
        shmem.test_any_vector(ivars, shmem.CMP.GT, want) is None,
    ]
    shmem.wait_until_all_vector(ivars, shmem.CMP.EQ, want)
    r.append(shmem.wait_until_any_vector(ivars, shmem.CMP.EQ, want) in everyone)
    r.append(sorted(shmem.wait_until_some_vector(ivars, shmem.CMP.GE, np.array(want))) == everyone)
    shmem.barrier_all()
    shmem.free(ivars)
    assert all(r), r


def test_wait_releases_the_gil():
    """A Python thread sets the variable while the main thread waits on it."""
    ivar = shmem.zeros(1, "i8")

    def later():
        time.sleep(0.05)
        ivar[0] = 1

    t = threading.Thread(target=later)
    t.start()
    shmem.wait_until(ivar, shmem.CMP.EQ, 1)
    t.join()
    shmem.free(ivar)


def test_fence_and_quiet(right, left):
    a = shmem.zeros(2, "i4")
    shmem.put(a[:1], np.array([1], "i4"), right)
    shmem.fence()
    shmem.put(a[1:], np.array([2], "i4"), right)
    shmem.quiet()
    with shmem.Ctx.create() as ctx:
        shmem.fence(ctx)
        shmem.quiet(ctx)
        ctx.fence()
        ctx.quiet()
    shmem.barrier_all()
    ok = a.tolist() == [1, 2]
    shmem.barrier_all()
    shmem.free(a)
    assert ok


def test_locks_give_mutual_exclusion(me, npes):
    lock = shmem.new_lock()
    counter = shmem.zeros(1, "i8")
    v = np.zeros(1, "i8")
    for _ in range(20):  # a non-atomic read-modify-write, safe only under the lock
        shmem.set_lock(lock)
        shmem.get(v, counter, 0)
        v += 1
        shmem.put(counter, v, 0)
        shmem.clear_lock(lock)
    shmem.barrier_all()
    total = shmem.atomic_fetch(counter, 0)
    shmem.barrier_all()
    got_free = got_held = None
    if me == 0:
        got_free = shmem.test_lock(lock)   # False: acquired
        got_held = shmem.test_lock(lock)   # True: already held
        shmem.clear_lock(lock)
    shmem.barrier_all()
    shmem.del_lock(lock)
    shmem.free(counter)
    assert total == 20 * npes
    assert me != 0 or (got_free is False and got_held is True)


def test_lock_object(me, npes):
    lock = shmem.Lock()
    counter = shmem.zeros(1, "i8")
    v = np.zeros(1, "i8")
    for _ in range(10):
        with lock:
            shmem.get(v, counter, 0)
            shmem.put(counter, v + 1, 0)
    while not lock.acquire(blocking=False):
        pass
    lock.release()
    assert lock.acquire() is True
    lock.release()
    shmem.barrier_all()
    total = shmem.atomic_fetch(counter, 0)
    shmem.barrier_all()
    lock.destroy()
    lock.destroy()  # a second destroy is a no-op
    shmem.free(counter)
    assert total == 10 * npes
    with pytest.raises(ValueError, match="destroyed"):
        lock.acquire()


def test_sync_argument_errors(npes):
    ivar = shmem.zeros(1, "i8")
    ivars = shmem.zeros(3, "i4")
    f = shmem.zeros(1, "f8")
    cases = [
        (ValueError, "cmp=9 is not a CMP value", lambda: shmem.test(ivar, 9, 0)),
        (ValueError, "cmp='almost' is not a comparison", lambda: shmem.wait_until(ivar, "almost", 0)),
        (ValueError, "ivar is not symmetric", lambda: shmem.wait_until(np.ones(1, "i8"), shmem.CMP.EQ, 1)),
        (ValueError, "ivar must hold exactly one element", lambda: shmem.test(ivars, shmem.CMP.EQ, 0)),
        (TypeError, "wait_until does not support dtype float64", lambda: shmem.wait_until(f, shmem.CMP.EQ, 0)),
        (TypeError, "test_all does not support dtype int16",
         lambda: shmem.test_all(ivars.view("i2"), shmem.CMP.EQ, 0)),
        (ValueError, "status has 2 entries but ivars has 3", lambda: shmem.test_all(ivars, shmem.CMP.EQ, 0, [0, 0])),
        (ValueError, "values has 1 entries but ivars has 3", lambda: shmem.test_any_vector(ivars, shmem.CMP.EQ, [0])),
        (TypeError, "lock must be an int64 array", lambda: shmem.set_lock(ivars[:1])),
        (ValueError, "lock is not symmetric", lambda: shmem.set_lock(np.zeros(1, "i8"))),
    ]
    for exc, message, call in cases:
        with pytest.raises(exc, match=message):
            call()
    for a in (ivar, ivars, f):
        shmem.free(a)
