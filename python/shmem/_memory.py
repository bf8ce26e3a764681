"""Symmetric memory: NumPy arrays that live on the symmetric heap.

Allocation and ``free`` are collective (every PE calls them in the same order with the same
sizes). The arrays are ordinary NumPy arrays over the heap memory: no copy, and the memory is
released only by ``free`` / ``del_array`` (never by the garbage collector). Calls refuse arrays
whose memory was freed, and a second ``free`` raises instead of corrupting the heap.
"""
import enum as _enum
import math as _math
import operator as _operator

import numpy as _np

from . import _core
from ._errors import ShmemTypeError, ShmemValueError


class MALLOC(_enum.IntFlag):
    """Allocation hints (``hints=`` of the allocators)."""

    ATOMICS_REMOTE = _core.MALLOC_ATOMICS_REMOTE
    SIGNAL_REMOTE = _core.MALLOC_SIGNAL_REMOTE


MALLOC_ATOMICS_REMOTE = MALLOC.ATOMICS_REMOTE
MALLOC_SIGNAL_REMOTE = MALLOC.SIGNAL_REMOTE

SymmetricMemory = _core.SymmetricMemory


def _count(value, name: str) -> int:
    try:
        n = _operator.index(value)
    except TypeError:
        raise ShmemTypeError(-1, f"{name} must be an int (got {type(value).__name__})") from None
    if n < 0:
        raise ShmemValueError(-1, f"{name}={n} is negative")
    return n


def _shape(shape):
    if isinstance(shape, (tuple, list)):
        return tuple(_count(s, "shape") for s in shape)
    return (_count(shape, "shape"),)


def alloc(count: int, size: int = 1, align=None, hints=None, clear: bool = True) -> memoryview:
    """Allocate ``count * size`` bytes of symmetric memory (collective).

    Args:
        count: number of elements.
        size: bytes per element.
        align: alignment in bytes (a power of two), or None for the default (64).
        hints: ``MALLOC`` flags, or None.
        clear: zero the memory on every PE before returning.
    """
    nbytes = _count(count, "count") * _count(size, "size")
    mem = _core.alloc(nbytes, 0 if align is None else _count(align, "align"),
                      0 if hints is None else int(hints), bool(clear))
    return memoryview(mem)


def free(mem) -> None:
    """Free symmetric memory (collective): a memoryview from ``alloc`` or an array from the allocators."""
    _core.free(mem)


def fromalloc(mem, shape=None, dtype=None, order="C") -> _np.ndarray:
    """View memory from ``alloc`` as an array of ``shape`` and ``dtype`` (no copy)."""
    dtype = _np.dtype(dtype)
    nbytes = memoryview(mem).nbytes
    if shape is None:
        shape = (nbytes // dtype.itemsize,)
    shape = _shape(shape)
    count = _math.prod(shape)
    if count * dtype.itemsize > nbytes:
        raise ShmemValueError(-1, f"shape {shape} of {dtype} needs {count * dtype.itemsize} bytes; "
                                  f"mem has {nbytes}")
    flat = _np.frombuffer(mem, dtype, count=count)
    return flat.reshape(shape, order=order)


def new_array(shape, dtype=float, order="C", *, align=None, hints=None, clear=True) -> _np.ndarray:
    """A new symmetric array (collective); zeroed unless ``clear=False``."""
    dtype = _np.dtype(dtype)
    shape = _shape(shape)
    mem = alloc(_math.prod(shape), dtype.itemsize, align, hints, clear)
    return fromalloc(mem, shape, dtype, order)


def del_array(a) -> None:
    """Free a symmetric array (collective)."""
    if not isinstance(a, _np.ndarray):
        raise ShmemTypeError(-1, f"a must be a NumPy array (got {type(a).__name__})")
    free(a)


def _sync_all() -> None:
    _core.sync_all()


def array(obj, dtype=None, *, order="K", align=None, hints=None) -> _np.ndarray:
    """A new symmetric array holding a copy of ``obj`` (collective)."""
    tmp = _np.asarray(obj, dtype=dtype, order=order)
    layout = "F" if tmp.flags.f_contiguous and not tmp.flags.c_contiguous else "C"
    a = new_array(tmp.shape, tmp.dtype, layout, align=align, hints=hints, clear=False)
    _np.copyto(a, tmp, casting="no")
    _sync_all()
    return a


def empty(shape, dtype=float, order="C", *, align=None, hints=None) -> _np.ndarray:
    """A new symmetric array with undefined contents (collective)."""
    return new_array(shape, dtype, order, align=align, hints=hints, clear=False)


def zeros(shape, dtype=float, order="C", *, align=None, hints=None) -> _np.ndarray:
    """A new zero-filled symmetric array (collective)."""
    return new_array(shape, dtype, order, align=align, hints=hints, clear=True)


def ones(shape, dtype=float, order="C", *, align=None, hints=None) -> _np.ndarray:
    """A new symmetric array filled with ones (collective)."""
    a = new_array(shape, dtype, order, align=align, hints=hints, clear=False)
    _np.copyto(a, 1, casting="unsafe")
    _sync_all()
    return a


def full(shape, fill_value, dtype=None, order="C", *, align=None, hints=None) -> _np.ndarray:
    """A new symmetric array filled with ``fill_value`` (collective)."""
    if dtype is None:
        dtype = _np.array(fill_value).dtype
    a = new_array(shape, dtype, order, align=align, hints=hints, clear=False)
    _np.copyto(a, fill_value, casting="unsafe")
    _sync_all()
    return a


def is_symmetric(a) -> bool:
    """True when ``a`` lives in live (not freed) symmetric memory allocated by this package."""
    return _core.is_symmetric(a)
