"""Signals: a symmetric uint64 word that ``put_signal`` updates after delivering the data.

``new_signal()`` returns a one-element uint64 symmetric array (zero); ``sig[0]`` reads it.
"""
import enum as _enum
import operator as _operator

import numpy as _np

from . import _core
from ._memory import MALLOC, free, zeros
from ._sync import _cmp
from ._team import ctx_handle as _ctx


class SIGNAL(_enum.IntEnum):
    """How ``put_signal`` updates the signal: set it to the value, or add the value."""

    SET = _core.SIGNAL_SET
    ADD = _core.SIGNAL_ADD


SIGNAL_SET = SIGNAL.SET
SIGNAL_ADD = SIGNAL.ADD


def new_signal():
    """A new signal word, zero on every PE (collective)."""
    return zeros(1, _np.uint64, hints=MALLOC.SIGNAL_REMOTE)


def del_signal(signal) -> None:
    """Free a signal word (collective)."""
    free(signal)


def signal_fetch(signal) -> int:
    """Read this PE's signal word atomically."""
    return _core.signal_fetch(signal)


def put_signal(target, source, pe: int, signal, value: int, sigop, size=None, ctx=None) -> None:
    """Copy ``source`` into ``target`` on PE ``pe``, then update ``signal`` there with
    ``value`` (``sigop``: ``SIGNAL.SET`` or ``SIGNAL.ADD``), ordered after the data."""
    _core.put_signal(False, target, source, _operator.index(pe), signal, value, int(sigop), size, _ctx(ctx))


def put_signal_nbi(target, source, pe: int, signal, value: int, sigop, size=None, ctx=None) -> None:
    """Nonblocking ``put_signal``; ``quiet`` completes it."""
    _core.put_signal(True, target, source, _operator.index(pe), signal, value, int(sigop), size, _ctx(ctx))


def signal_add(signal, value: int, pe: int, ctx=None) -> None:
    """Atomically add ``value`` to ``signal`` on PE ``pe`` (OpenSHMEM 1.6 shmem_signal_add)."""
    _core.signal_op(True, signal, value, _operator.index(pe), _ctx(ctx))


def signal_set(signal, value: int, pe: int, ctx=None) -> None:
    """Atomically set ``signal`` on PE ``pe`` to ``value`` (OpenSHMEM 1.6 shmem_signal_set)."""
    _core.signal_op(False, signal, value, _operator.index(pe), _ctx(ctx))


def signal_wait_until(signal, cmp, value: int) -> int:
    """Wait until this PE's ``signal`` compares to ``value`` as ``cmp`` says; return its value."""
    return _core.signal_wait_until(signal, _cmp(cmp), value)
