"""Ascend SHMEM's Python names (Ascend SHMEM's ``import shmem``), mapped onto this library.

Raw memory here is integer addresses and byte counts, as in Ascend SHMEM: ``aclshmem_malloc``
returns an address, ``aclshmem_putmem(dst, src, nbytes, pe)`` copies bytes. Only the symmetric
side of a raw call can be checked; a wrong local address is the caller's bug, as in C.
Arrays are accepted wherever an address is (their data address is used).
"""
import dataclasses as _dc
import enum as _enum
import os as _os
import operator as _operator

import numpy as _np

from . import _core
from ._errors import ShmemError, ShmemValueError
from ._memory import alloc as _alloc, free as _free
from ._setup import finalize as _finalize, global_exit as _global_exit, init as _init
from ._sync import _cmp, quiet as _quiet
from ._coll import barrier_all as _barrier_all
from ._team import TEAM_WORLD, Team


class SignalOp(_enum.IntEnum):
    """Signal update of ``aclshmemx_putmem_signal``."""

    SIGNAL_SET = _core.SIGNAL_SET
    SIGNAL_ADD = _core.SIGNAL_ADD


class CmpOp(_enum.IntEnum):
    """Comparisons of ``aclshmem_signal_wait_until``."""

    CMP_EQ = _core.CMP_EQ
    CMP_NE = _core.CMP_NE
    CMP_GT = _core.CMP_GT
    CMP_GE = _core.CMP_GE
    CMP_LT = _core.CMP_LT
    CMP_LE = _core.CMP_LE


@_dc.dataclass
class TeamConfig:
    """Team configuration (``aclshmem_team_get_config``)."""

    num_contexts: int = 0


class InitStatus(_enum.IntEnum):
    """Values of ``init_status()`` (Ascend SHMEM's ``aclshmemx_init_status``)."""

    NOT_INITIALIZED = 0
    SHM_CREATED = 1
    IS_INITIALIZED = 2
    INVALID = 3


class OpEngineType(_enum.IntEnum):
    """Data engines (``OptionalAttr.data_op_engine_type``); every transfer here uses the MTE path."""

    MTE = 0x1
    SDMA = 0x2
    ROCE = 0x4
    UDMA = 0x8


@_dc.dataclass
class OptionalAttr:
    """Optional attributes of ``InitAttr`` (timeouts in seconds). ``shm_create_timeout`` and
    ``sockFd`` are accepted and unused, as in the C library."""

    version: int = (1 << 16) + 24
    data_op_engine_type: int = OpEngineType.MTE
    shm_init_timeout: int = 120
    shm_create_timeout: int = 120
    control_operation_timeout: int = 120
    sockFd: int = -1


@_dc.dataclass
class InitAttr:
    """Initialisation attributes of ``aclshmem_init``. With ``ip_port`` ("tcp://host:port") the
    job needs no launcher: every PE gives its ``my_rank`` and ``n_ranks`` and PE 0 hosts the store
    at that address (``aclshmemx_init_attr`` in DEFAULT mode). Without it, rank, size and store
    come from the launcher and ``local_mem_size`` sets SHMEM_SYMMETRIC_SIZE."""

    my_rank: int = -1
    n_ranks: int = -1
    ip_port: str = ""
    local_mem_size: int = 0
    option_attr: object = None


UniqueId = _core.UniqueId


def aclshmem_init(attr=None) -> int:
    """Initialise (collective). With ``attr.ip_port`` set: Ascend SHMEM's default mode
    (``aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_DEFAULT)``); otherwise through the launcher, and
    ``attr`` may set the heap size and must agree with the launcher."""
    if attr is not None and attr.ip_port:
        opt = attr.option_attr if attr.option_attr is not None else OptionalAttr()
        _core.acl_init_default(_operator.index(attr.my_rank), _operator.index(attr.n_ranks), str(attr.ip_port),
                               _operator.index(attr.local_mem_size or 0),
                               int(getattr(opt, "shm_init_timeout", 120)),
                               int(getattr(opt, "control_operation_timeout", 120)),
                               int(getattr(opt, "data_op_engine_type", OpEngineType.MTE)))
        return 0
    if attr is not None:
        for field, var in (("my_rank", "SHMEM_PE"), ("n_ranks", "SHMEM_NPES")):
            want, have = getattr(attr, field), _os.environ.get(var)
            if want is not None and want >= 0 and have is not None and int(have) != want:
                raise ShmemError(-100, f"InitAttr.{field}={want} but the launcher started this PE with {var}={have}")
        if attr.local_mem_size:
            _os.environ["SHMEM_SYMMETRIC_SIZE"] = str(int(attr.local_mem_size))
    _init()
    return 0


def aclshmem_get_unique_id() -> UniqueId:
    """On PE 0, before initialisation: start the job's store and return its ``UniqueId``.
    Hand ``bytes(uid)`` to every other PE by any means (``UniqueId.from_bytes`` on arrival)."""
    return _core.acl_get_unique_id()


def aclshmem_init_using_unique_id(mype: int, npes: int, mem_size: int, uid) -> int:
    """Initialise (collective over ``npes`` processes) with PE 0's unique ID (a ``UniqueId`` or
    its bytes); ``mem_size`` is the symmetric heap size per PE in bytes (0: SHMEM_SYMMETRIC_SIZE)."""
    if isinstance(uid, (bytes, bytearray, memoryview)):
        uid = UniqueId.from_bytes(bytes(uid))
    if not isinstance(uid, UniqueId):
        raise ShmemValueError(-1, f"uid must be a shmem.UniqueId or its bytes, not {type(uid).__name__}")
    _core.acl_init_uid(_operator.index(mype), _operator.index(npes), _operator.index(mem_size), uid)
    return 0


def aclshmemx_init_status() -> InitStatus:
    """``InitStatus.IS_INITIALIZED`` after initialisation, else ``InitStatus.NOT_INITIALIZED``."""
    return InitStatus(_core.acl_init_status())


init_status = aclshmemx_init_status


def aclshmem_finalize() -> int:
    """Finalize (collective)."""
    _finalize()
    return 0


aclshmem_finialize = aclshmem_finalize  # Ascend SHMEM's misspelt alias


def aclshmem_info_get_version():
    """``(major, minor)`` of the OpenSHMEM specification."""
    return tuple(_core.info_get_version())


def aclshmem_info_get_name() -> str:
    """The library's name."""
    return _core.info_get_name()


def aclshmem_global_exit(status: int = 0):
    """End every PE with ``status``."""
    _global_exit(status)


def pe_count(team=None) -> int:
    """Number of PEs (of ``team``)."""
    return _core.n_pes() if team is None else team.n_pes()


# ---- memory -----------------------------------------------------------------------------------------
_blocks = {}  # address -> memoryview of the allocation


def _keep(mem) -> int:
    addr = _core.owner(mem).address
    _blocks[addr] = mem
    return addr


def aclshmem_malloc(size: int) -> int:
    """Allocate ``size`` symmetric bytes (collective); return the address (0 for size 0)."""
    if _operator.index(size) == 0:
        return 0
    return _keep(_alloc(size, clear=False))


def aclshmem_calloc(nmemb: int, size: int) -> int:
    """Allocate ``nmemb * size`` zeroed symmetric bytes (collective)."""
    if _operator.index(nmemb) * _operator.index(size) == 0:
        return 0
    return _keep(_alloc(nmemb, size, clear=True))


def aclshmem_align(alignment: int, size: int) -> int:
    """Allocate ``size`` symmetric bytes aligned to ``alignment`` (collective)."""
    if _operator.index(size) == 0:
        return 0
    return _keep(_alloc(size, align=alignment, clear=False))


def aclshmem_free(ptr: int) -> None:
    """Free an address from ``aclshmem_malloc`` (collective); 0 is a no-op."""
    if ptr == 0:
        return
    mem = _blocks.pop(ptr, None)
    if mem is None:
        raise ShmemValueError(-1, f"ptr={ptr:#x} was not returned by aclshmem_malloc/calloc/align (or was freed)")
    _free(mem)


def _addr(x) -> int:
    if isinstance(x, _np.ndarray):
        return x.__array_interface__["data"][0]
    return _operator.index(x)


def aclshmem_ptr(ptr, pe: int) -> int:
    """Local address of symmetric ``ptr`` on PE ``pe`` (0 when not load/store reachable)."""
    return _core.ptr_addr(_addr(ptr), _operator.index(pe))


def aclshmem_putmem(dst, src, elem_size: int, pe: int) -> None:
    """Copy ``elem_size`` bytes from local ``src`` to symmetric ``dst`` on PE ``pe``."""
    _core.rma_addr(True, False, _addr(dst), _addr(src), _operator.index(elem_size), _operator.index(pe))


def aclshmem_getmem(dst, src, elem_size: int, pe: int) -> None:
    """Copy ``elem_size`` bytes from symmetric ``src`` on PE ``pe`` to local ``dst``."""
    _core.rma_addr(False, False, _addr(dst), _addr(src), _operator.index(elem_size), _operator.index(pe))


def aclshmem_putmem_nbi(dst, src, elem_size: int, pe: int) -> None:
    """Nonblocking ``aclshmem_putmem``."""
    _core.rma_addr(True, True, _addr(dst), _addr(src), _operator.index(elem_size), _operator.index(pe))


def aclshmem_getmem_nbi(dst, src, elem_size: int, pe: int) -> None:
    """Nonblocking ``aclshmem_getmem``."""
    _core.rma_addr(False, True, _addr(dst), _addr(src), _operator.index(elem_size), _operator.index(pe))


def aclshmemx_putmem_signal(dst, src, elem_size: int, sig_addr, signal: int, sig_op, pe: int) -> None:
    """Put ``elem_size`` bytes, then update the uint64 signal at ``sig_addr`` on PE ``pe``."""
    _core.putmem_signal_addr(False, _addr(dst), _addr(src), _operator.index(elem_size), _addr(sig_addr),
                             int(signal), int(sig_op), _operator.index(pe))


def aclshmemx_putmem_signal_nbi(dst, src, elem_size: int, sig_addr, signal: int, sig_op, pe: int) -> None:
    """Nonblocking ``aclshmemx_putmem_signal``."""
    _core.putmem_signal_addr(True, _addr(dst), _addr(src), _operator.index(elem_size), _addr(sig_addr),
                             int(signal), int(sig_op), _operator.index(pe))


def aclshmem_signal_wait_until(sig_addr, cmp, cmp_value: int) -> int:
    """Wait until the uint64 signal at ``sig_addr`` satisfies the comparison; return its value."""
    return _core.signal_wait_until_addr(_addr(sig_addr), _cmp(cmp), int(cmp_value))


def aclshmem_barrier_all() -> None:
    """``barrier_all``."""
    _barrier_all()


def aclshmem_quiet() -> None:
    """``quiet``."""
    _quiet()


# ---- teams --------------------------------------------------------------------------------------------
def team_my_pe(team) -> int:
    """This PE's number in ``team``."""
    return team.my_pe()


def team_n_pes(team) -> int:
    """Number of PEs in ``team``."""
    return team.n_pes()


def team_split_strided(parent, start: int, stride: int, size: int) -> Team:
    """``parent.split_strided(start, stride, size)``."""
    return (parent or TEAM_WORLD).split_strided(start, stride, size)


def team_split_2d(parent, x_range: int):
    """``parent.split_2d(x_range)`` -> ``(xteam, yteam)``."""
    return (parent or TEAM_WORLD).split_2d(x_range)


def team_translate_pe(src_team, src_pe: int, dest_team) -> int:
    """``src_pe`` of ``src_team`` in ``dest_team`` (-1 when it is not a member)."""
    try:
        return src_team.translate_pe(src_pe, dest_team)
    except ShmemError:
        return -1


def team_destroy(team) -> None:
    """Destroy ``team`` (collective over it)."""
    team.destroy()


def aclshmem_team_get_config(team) -> TeamConfig:
    """The team's configuration."""
    return TeamConfig(**team.get_config())
