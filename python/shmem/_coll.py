"""Collectives over a team (default: every PE). All arrays must be symmetric and of one dtype;
``size`` counts elements. Every PE of the team must call the same collective in the same order.
"""
import operator as _operator

from . import _core
from ._amo import _StrEnum
from ._errors import ShmemError, ShmemOpError, ShmemValueError
from ._team import Team, team_handle as _team


def _need_collectives(what: str) -> None:
    if not _core.HAVE_COLLECTIVES:
        raise ShmemError(-100, f"{what} needs a shmem library with team collectives")


def barrier_all() -> None:
    """Complete this PE's outstanding operations, then wait until every PE arrives."""
    _core.barrier_all()


def sync_all() -> None:
    """Wait until every PE arrives (no completion of outstanding operations)."""
    _core.sync_all()


def sync(team=None) -> None:
    """Wait until every PE of ``team`` (default: all PEs) arrives."""
    if team is None:
        _core.sync_all()
    elif isinstance(team, Team):
        team.sync()
    else:
        _team(team)  # raises the type error


def broadcast(target, source, root: int, size=None, team=None) -> None:
    """Copy ``source`` of PE ``root`` (a team PE number) into ``target`` on every PE of the team."""
    _need_collectives("broadcast")
    _core.broadcast(_team(team), target, source, _operator.index(root), size)


def collect(target, source, size=None, team=None) -> None:
    """Concatenate ``size`` elements of ``source`` from every PE into ``target`` (sizes may differ)."""
    _need_collectives("collect")
    _core.collect(False, _team(team), target, source, size)


def fcollect(target, source, size=None, team=None) -> None:
    """Concatenate ``size`` elements (the same on every PE) of ``source`` into ``target``."""
    _need_collectives("fcollect")
    _core.collect(True, _team(team), target, source, size)


def alltoall(target, source, size=None, team=None) -> None:
    """Send block j (``size`` elements) of ``source`` to PE j; it lands in block i of its ``target``."""
    _need_collectives("alltoall")
    _core.alltoall(_team(team), target, source, size)


def alltoalls(target, source, tst: int = 1, sst: int = 1, size=None, team=None) -> None:
    """``alltoall`` with element strides ``tst`` (target) and ``sst`` (source)."""
    _need_collectives("alltoalls")
    _core.alltoalls(_team(team), target, source, _operator.index(tst), _operator.index(sst), size)


class OP(_StrEnum):
    """Reduction operations."""

    AND = "and"
    OR = "or"
    XOR = "xor"
    MAX = "max"
    MIN = "min"
    SUM = "sum"
    PROD = "prod"


OP_AND = OP.AND
OP_OR = OP.OR
OP_XOR = OP.XOR
OP_MAX = OP.MAX
OP_MIN = OP.MIN
OP_SUM = OP.SUM
OP_PROD = OP.PROD


def reduce(target, source, op=OP_SUM, size=None, team=None) -> None:
    """Combine ``source`` element-wise over the team with ``op``; every PE gets the result in ``target``."""
    _need_collectives("reduce")
    try:
        name = OP(str(op).lower()).value
    except ValueError:
        raise ShmemOpError(-1, f"op={op!r} is not a reduction (and, or, xor, max, min, sum, prod)") from None
    _core.reduce(name, _team(team), target, source, size)


def and_reduce(target, source, size=None, team=None) -> None:
    """Bitwise AND reduction."""
    reduce(target, source, OP_AND, size, team)


def or_reduce(target, source, size=None, team=None) -> None:
    """Bitwise OR reduction."""
    reduce(target, source, OP_OR, size, team)


def xor_reduce(target, source, size=None, team=None) -> None:
    """Bitwise XOR reduction."""
    reduce(target, source, OP_XOR, size, team)


def max_reduce(target, source, size=None, team=None) -> None:
    """Maximum reduction."""
    reduce(target, source, OP_MAX, size, team)


def min_reduce(target, source, size=None, team=None) -> None:
    """Minimum reduction."""
    reduce(target, source, OP_MIN, size, team)


def sum_reduce(target, source, size=None, team=None) -> None:
    """Sum reduction."""
    reduce(target, source, OP_SUM, size, team)


def prod_reduce(target, source, size=None, team=None) -> None:
    """Product reduction."""
    reduce(target, source, OP_PROD, size, team)
