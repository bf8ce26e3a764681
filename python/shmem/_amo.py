"""Atomic memory operations on a one-element symmetric array ``target`` on PE ``pe``.

Supported dtypes: int32, int64, uint32, uint64 (and float32/float64 for set, fetch and swap).
Fetching forms return the prior value; their ``_nbi`` forms write it into the local one-element
array ``fetch`` once ``quiet`` returns.
"""
import enum as _enum
import operator as _operator

from . import _core
from ._errors import ShmemOpError
from ._team import ctx_handle as _ctx

try:
    _StrEnum = _enum.StrEnum
except AttributeError:  # Python < 3.11
    class _StrEnum(str, _enum.Enum):
        __str__ = str.__str__


class AMO(_StrEnum):
    """Atomic operations for ``atomic_op`` / ``atomic_fetch_op``."""

    SET = "set"
    INC = "inc"
    ADD = "add"
    AND = "and"
    OR = "or"
    XOR = "xor"


AMO_SET = AMO.SET
AMO_INC = AMO.INC
AMO_ADD = AMO.ADD
AMO_AND = AMO.AND
AMO_OR = AMO.OR
AMO_XOR = AMO.XOR


def _op(op) -> str:
    try:
        return AMO(str(op).lower()).value
    except ValueError:
        raise ShmemOpError(-1, f"op={op!r} is not an AMO (set, inc, add, and, or, xor)") from None


def _amo(name, target, value, pe, ctx, cond=None):
    return _core.amo(name, target, value, cond, _operator.index(pe), _ctx(ctx))


def _amo_nbi(name, fetch, target, value, pe, ctx, cond=None):
    _core.amo_nbi(name, fetch, target, value, cond, _operator.index(pe), _ctx(ctx))


def atomic_set(target, value, pe: int, ctx=None) -> None:
    """Atomically write ``value`` into ``target`` on PE ``pe``."""
    _amo("set", target, value, pe, ctx)


def atomic_inc(target, pe: int, ctx=None) -> None:
    """Atomically add one to ``target`` on PE ``pe``."""
    _amo("inc", target, None, pe, ctx)


def atomic_add(target, value, pe: int, ctx=None) -> None:
    """Atomically add ``value`` to ``target`` on PE ``pe``."""
    _amo("add", target, value, pe, ctx)


def atomic_and(target, value, pe: int, ctx=None) -> None:
    """Atomic bitwise AND of ``target`` on PE ``pe`` with ``value``."""
    _amo("and", target, value, pe, ctx)


def atomic_or(target, value, pe: int, ctx=None) -> None:
    """Atomic bitwise OR of ``target`` on PE ``pe`` with ``value``."""
    _amo("or", target, value, pe, ctx)


def atomic_xor(target, value, pe: int, ctx=None) -> None:
    """Atomic bitwise XOR of ``target`` on PE ``pe`` with ``value``."""
    _amo("xor", target, value, pe, ctx)


def atomic_fetch(source, pe: int, ctx=None):
    """Atomically read ``source`` on PE ``pe``."""
    return _amo("fetch", source, None, pe, ctx)


def atomic_swap(target, value, pe: int, ctx=None):
    """Atomically write ``value`` into ``target`` on PE ``pe``; return the prior value."""
    return _amo("swap", target, value, pe, ctx)


def atomic_compare_swap(target, cond, value, pe: int, ctx=None):
    """Write ``value`` into ``target`` on PE ``pe`` if it equals ``cond``; return the prior value."""
    return _amo("compare_swap", target, value, pe, ctx, cond)


def atomic_fetch_inc(target, pe: int, ctx=None):
    """Atomically add one to ``target`` on PE ``pe``; return the prior value."""
    return _amo("fetch_inc", target, None, pe, ctx)


def atomic_fetch_add(target, value, pe: int, ctx=None):
    """Atomically add ``value`` to ``target`` on PE ``pe``; return the prior value."""
    return _amo("fetch_add", target, value, pe, ctx)


def atomic_fetch_and(target, value, pe: int, ctx=None):
    """Atomic bitwise AND on PE ``pe``; return the prior value."""
    return _amo("fetch_and", target, value, pe, ctx)


def atomic_fetch_or(target, value, pe: int, ctx=None):
    """Atomic bitwise OR on PE ``pe``; return the prior value."""
    return _amo("fetch_or", target, value, pe, ctx)


def atomic_fetch_xor(target, value, pe: int, ctx=None):
    """Atomic bitwise XOR on PE ``pe``; return the prior value."""
    return _amo("fetch_xor", target, value, pe, ctx)


def atomic_fetch_nbi(fetch, source, pe: int, ctx=None) -> None:
    """Nonblocking ``atomic_fetch`` into ``fetch``."""
    _amo_nbi("fetch", fetch, source, None, pe, ctx)


def atomic_swap_nbi(fetch, target, value, pe: int, ctx=None) -> None:
    """Nonblocking ``atomic_swap``; the prior value goes to ``fetch``."""
    _amo_nbi("swap", fetch, target, value, pe, ctx)


def atomic_compare_swap_nbi(fetch, target, cond, value, pe: int, ctx=None) -> None:
    """Nonblocking ``atomic_compare_swap``; the prior value goes to ``fetch``."""
    _amo_nbi("compare_swap", fetch, target, value, pe, ctx, cond)


def atomic_fetch_inc_nbi(fetch, target, pe: int, ctx=None) -> None:
    """Nonblocking ``atomic_fetch_inc``; the prior value goes to ``fetch``."""
    _amo_nbi("fetch_inc", fetch, target, None, pe, ctx)


def atomic_fetch_add_nbi(fetch, target, value, pe: int, ctx=None) -> None:
    """Nonblocking ``atomic_fetch_add``; the prior value goes to ``fetch``."""
    _amo_nbi("fetch_add", fetch, target, value, pe, ctx)


def atomic_fetch_and_nbi(fetch, target, value, pe: int, ctx=None) -> None:
    """Nonblocking ``atomic_fetch_and``; the prior value goes to ``fetch``."""
    _amo_nbi("fetch_and", fetch, target, value, pe, ctx)


def atomic_fetch_or_nbi(fetch, target, value, pe: int, ctx=None) -> None:
    """Nonblocking ``atomic_fetch_or``; the prior value goes to ``fetch``."""
    _amo_nbi("fetch_or", fetch, target, value, pe, ctx)


def atomic_fetch_xor_nbi(fetch, target, value, pe: int, ctx=None) -> None:
    """Nonblocking ``atomic_fetch_xor``; the prior value goes to ``fetch``."""
    _amo_nbi("fetch_xor", fetch, target, value, pe, ctx)


def atomic_op(target, value, op, pe: int, ctx=None) -> None:
    """Apply the non-fetching operation ``op`` (an ``AMO``) to ``target`` on PE ``pe``."""
    name = _op(op)
    _amo(name, target, None if name == "inc" else value, pe, ctx)


def _fetch_name(op) -> str:
    name = _op(op)
    return {"set": "swap", "inc": "fetch_inc"}.get(name, f"fetch_{name}")


def atomic_fetch_op(target, value, op, pe: int, ctx=None):
    """Apply ``op`` to ``target`` on PE ``pe``; return the prior value (SET is a swap)."""
    name = _fetch_name(op)
    return _amo(name, target, None if name == "fetch_inc" else value, pe, ctx)


def atomic_fetch_op_nbi(fetch, target, value, op, pe: int, ctx=None) -> None:
    """Nonblocking ``atomic_fetch_op``; the prior value goes to ``fetch``."""
    name = _fetch_name(op)
    _amo_nbi(name, fetch, target, None if name == "fetch_inc" else value, pe, ctx)
