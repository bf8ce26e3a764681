"""Point-to-point synchronization, memory ordering and distributed locks.

``wait_until`` and friends block (without the GIL) until symmetric variables on this PE satisfy
``ivar <cmp> value``; ``test`` forms return at once. ``cmp`` is a ``CMP`` value or one of the
strings ``"=="``, ``"!="``, ``">"``, ``">="``, ``"<"``, ``"<="`` (or ``"eq"``, ``"ne"``...).
Multi-variable forms take int32/int64/uint32/uint64 arrays; ``status`` (optional) excludes the
entries where it is nonzero.
"""
import enum as _enum

import numpy as _np

from . import _core
from ._errors import ShmemValueError
from ._memory import free, zeros
from ._team import ctx_handle as _ctx


class CMP(_enum.IntEnum):
    """Comparison operators."""

    EQ = _core.CMP_EQ
    NE = _core.CMP_NE
    GT = _core.CMP_GT
    LE = _core.CMP_LE
    LT = _core.CMP_LT
    GE = _core.CMP_GE


CMP_EQ = CMP.EQ
CMP_NE = CMP.NE
CMP_GT = CMP.GT
CMP_LE = CMP.LE
CMP_LT = CMP.LT
CMP_GE = CMP.GE

_SYMBOLS = {"==": CMP.EQ, "!=": CMP.NE, ">": CMP.GT, "<=": CMP.LE, "<": CMP.LT, ">=": CMP.GE}


def _cmp(cmp) -> int:
    if isinstance(cmp, str):
        key = cmp.strip()
        if key in _SYMBOLS:
            return int(_SYMBOLS[key])
        try:
            return int(CMP[key.upper()])
        except KeyError:
            raise ShmemValueError(-1, f"cmp={cmp!r} is not a comparison") from None
    try:
        return int(CMP(cmp))
    except (ValueError, TypeError):
        raise ShmemValueError(-1, f"cmp={cmp!r} is not a CMP value") from None


def wait_until(ivar, cmp, value) -> None:
    """Wait until ``ivar`` (one element) satisfies ``ivar cmp value``."""
    _core.wait_or_test(False, ivar, _cmp(cmp), value)


def test(ivar, cmp, value) -> bool:
    """Return whether ``ivar`` (one element) satisfies ``ivar cmp value``."""
    return _core.wait_or_test(True, ivar, _cmp(cmp), value)


def wait_until_all(ivars, cmp, value, status=None) -> None:
    """Wait until every included element of ``ivars`` satisfies the comparison."""
    _core.multi(False, 0, False, ivars, _cmp(cmp), value, status)


def wait_until_any(ivars, cmp, value, status=None):
    """Wait until some included element satisfies it; return its index (None if all are excluded)."""
    return _core.multi(False, 1, False, ivars, _cmp(cmp), value, status)


def wait_until_some(ivars, cmp, value, status=None) -> list:
    """Wait until at least one included element satisfies it; return the indices that do."""
    return _core.multi(False, 2, False, ivars, _cmp(cmp), value, status)


def wait_until_all_vector(ivars, cmp, values, status=None) -> None:
    """``wait_until_all`` comparing ``ivars[i]`` with ``values[i]``."""
    _core.multi(False, 0, True, ivars, _cmp(cmp), values, status)


def wait_until_any_vector(ivars, cmp, values, status=None):
    """``wait_until_any`` comparing ``ivars[i]`` with ``values[i]``."""
    return _core.multi(False, 1, True, ivars, _cmp(cmp), values, status)


def wait_until_some_vector(ivars, cmp, values, status=None) -> list:
    """``wait_until_some`` comparing ``ivars[i]`` with ``values[i]``."""
    return _core.multi(False, 2, True, ivars, _cmp(cmp), values, status)


def test_all(ivars, cmp, value, status=None) -> bool:
    """Whether every included element satisfies the comparison."""
    return _core.multi(True, 0, False, ivars, _cmp(cmp), value, status)


def test_any(ivars, cmp, value, status=None):
    """The index of an included element that satisfies it, or None."""
    return _core.multi(True, 1, False, ivars, _cmp(cmp), value, status)


def test_some(ivars, cmp, value, status=None) -> list:
    """The indices of the included elements that satisfy it."""
    return _core.multi(True, 2, False, ivars, _cmp(cmp), value, status)


def test_all_vector(ivars, cmp, values, status=None) -> bool:
    """``test_all`` comparing ``ivars[i]`` with ``values[i]``."""
    return _core.multi(True, 0, True, ivars, _cmp(cmp), values, status)


def test_any_vector(ivars, cmp, values, status=None):
    """``test_any`` comparing ``ivars[i]`` with ``values[i]``."""
    return _core.multi(True, 1, True, ivars, _cmp(cmp), values, status)


def test_some_vector(ivars, cmp, values, status=None) -> list:
    """``test_some`` comparing ``ivars[i]`` with ``values[i]``."""
    return _core.multi(True, 2, True, ivars, _cmp(cmp), values, status)


def fence(ctx=None) -> None:
    """Order the delivery of earlier operations to each PE before later ones."""
    _core.fence(_ctx(ctx))


def quiet(ctx=None) -> None:
    """Complete every outstanding operation of this PE (on ``ctx``)."""
    _core.quiet(_ctx(ctx))


# ---- locks ----------------------------------------------------------------------------------------

def new_lock():
    """A new distributed lock (a symmetric int64, zero = free); collective."""
    return zeros(1, _np.int64)


def del_lock(lock) -> None:
    """Free a lock (collective)."""
    free(lock)


def set_lock(lock) -> None:
    """Acquire the lock, waiting (without the GIL) until it is free."""
    _core.set_lock(lock)


def test_lock(lock) -> bool:
    """Acquire the lock if it is free: False when acquired, True when it was already held."""
    return _core.test_lock(lock)


def clear_lock(lock) -> None:
    """Release the lock (after a ``quiet``)."""
    _core.clear_lock(lock)


class Lock:
    """A distributed lock object (collective to create and destroy); a context manager."""

    def __init__(self) -> None:
        self._lock = None
        self._lock = new_lock()

    def destroy(self) -> None:
        """Free the lock (collective)."""
        lock, self._lock = self._lock, None
        if lock is not None:
            del_lock(lock)

    def _handle(self):
        if self._lock is None:
            raise ShmemValueError(-1, "the lock was destroyed")
        return self._lock

    def acquire(self, blocking: bool = True) -> bool:
        """Take the lock; with ``blocking=False`` return False instead of waiting."""
        if blocking:
            set_lock(self._handle())
            return True
        return not test_lock(self._handle())

    def release(self) -> None:
        """Release the lock."""
        clear_lock(self._handle())

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
