"""Remote memory access: put and get between a local array and a symmetric array on a PE.

``size`` counts elements (default: as many as both arrays hold). Both arrays must have the
same dtype. Contiguous arrays of any shape are treated as flat memory; 1-D views with a
stride (``a[::2]``) are moved with the strided routines.
"""
import operator as _operator

from . import _core
from ._team import ctx_handle as _ctx


def put(target, source, pe: int, size=None, ctx=None) -> None:
    """Copy ``source`` (local) into ``target`` (symmetric) on PE ``pe``."""
    _core.rma(True, False, target, source, _operator.index(pe), size, _ctx(ctx))


def get(target, source, pe: int, size=None, ctx=None) -> None:
    """Copy ``source`` (symmetric) on PE ``pe`` into ``target`` (local)."""
    _core.rma(False, False, target, source, _operator.index(pe), size, _ctx(ctx))


def put_nbi(target, source, pe: int, size=None, ctx=None) -> None:
    """Start copying ``source`` into ``target`` on PE ``pe``; ``quiet`` completes it."""
    _core.rma(True, True, target, source, _operator.index(pe), size, _ctx(ctx))


def get_nbi(target, source, pe: int, size=None, ctx=None) -> None:
    """Start copying ``source`` on PE ``pe`` into ``target``; ``quiet`` completes it."""
    _core.rma(False, True, target, source, _operator.index(pe), size, _ctx(ctx))


def iput(target, source, pe: int, tst: int = 1, sst: int = 1, size=None, ctx=None) -> None:
    """Strided put: ``target[i*tst] = source[i*sst]`` on PE ``pe`` for ``size`` elements."""
    _core.irma(True, target, source, _operator.index(pe), _operator.index(tst), _operator.index(sst),
               size, _ctx(ctx))


def iget(target, source, pe: int, tst: int = 1, sst: int = 1, size=None, ctx=None) -> None:
    """Strided get: ``target[i*tst] = source[i*sst]`` (of PE ``pe``) for ``size`` elements."""
    _core.irma(False, target, source, _operator.index(pe), _operator.index(tst), _operator.index(sst),
               size, _ctx(ctx))
