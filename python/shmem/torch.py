"""Symmetric torch tensors: ``shmem.torch.empty(shape, dtype)`` and ``zeros`` return CPU
tensors whose memory is on the symmetric heap, usable in every ``shmem`` call (which take
tensors through DLPack, without a copy) and by PyTorch as any other tensor.

    import torch, shmem, shmem.torch
    x = shmem.torch.zeros((4, 1024), torch.bfloat16)     # collective
    shmem.sum_reduce(x, x)                                 # in place, over every PE
    shmem.torch.free(x)                                    # collective

Allocation and ``free`` are collective, as for the NumPy allocators; the memory is released
only by ``free`` (never by the garbage collector), and a tensor must not be used after it.

Importing this module also registers the torch.distributed backend ``"shmem"`` (when the
extension ``shmem._c10d`` was built, against Debian's libtorch-dev):

    import shmem.torch
    dist.init_process_group("shmem")      # allreduce, broadcast, allgather, ... on CPU tensors
"""
import math as _math
import os as _os

import torch as _torch
import torch.distributed as _dist

from . import _core, _memory, torch_bootstrap as _bootstrap
from ._errors import ShmemError, ShmemTypeError, ShmemValueError

_live = {}  # data_ptr -> the memoryview shmem.alloc returned (what shmem.free takes)


def _dtype(dtype):
    if isinstance(dtype, _torch.dtype):
        return dtype
    raise ShmemTypeError(-1, f"dtype must be a torch.dtype (got {dtype!r})")


def _key(t):
    return t.data_ptr() if t.numel() else ("empty", id(t))


def empty(shape, dtype=_torch.float32, *, align=None, clear=False) -> _torch.Tensor:
    """A symmetric CPU tensor of ``shape`` and ``dtype`` (collective); contents undefined unless
    ``clear``."""
    dtype = _dtype(dtype)
    shape = _memory._shape(shape)
    itemsize = _torch.empty((), dtype=dtype).element_size()
    mem = _memory.alloc(_math.prod(shape), itemsize, align, None, clear)
    if mem.nbytes == 0:
        t = _torch.empty(shape, dtype=dtype)  # no bytes to share (the allocation is still collective)
    else:
        t = _torch.frombuffer(mem, dtype=_torch.uint8).view(dtype).view(shape)
    _live[_key(t)] = mem
    return t


def zeros(shape, dtype=_torch.float32, *, align=None) -> _torch.Tensor:
    """A zero-filled symmetric CPU tensor (collective)."""
    return empty(shape, dtype, align=align, clear=True)


def is_symmetric(t) -> bool:
    """True when ``t`` (or the view) lies in a tensor from ``empty``/``zeros`` not yet freed."""
    if not isinstance(t, _torch.Tensor) or t.device.type != "cpu":
        return False
    start, end = t.data_ptr(), t.data_ptr() + t.numel() * t.element_size()
    for mem in _live.values():
        base = mem.obj.address if mem.nbytes else -1
        if base <= start and end <= base + mem.nbytes:
            return True
    return False


def free(t) -> None:
    """Free a tensor from ``empty``/``zeros`` (collective)."""
    if not isinstance(t, _torch.Tensor):
        raise ShmemTypeError(-1, f"t must be a tensor from shmem.torch.empty/zeros (got {type(t).__name__})")
    mem = _live.pop(_key(t), None)
    if mem is None:
        raise ShmemValueError(-1, "t is not a tensor from shmem.torch.empty/zeros (or is a view that does not "
                                  "start one), or it was freed already")
    _memory.free(mem)


# ---- the torch.distributed backend "shmem" -----------------------------------------------------------
try:
    from . import _c10d
    BACKEND_ERROR = None
except ImportError as _e:  # built without libtorch-dev, or a torch the extension was not built for
    _c10d = None
    BACKEND_ERROR = str(_e)

HAVE_BACKEND = _c10d is not None


def _check_members(store, ranks, rank, group_id, timeout):
    """Every member of ``new_group(ranks)`` must have been given the same ranks (torch matches
    the calls by their number: the n-th new_group of each process). Members that differ would
    otherwise make different groups whose first collective waits until SHMEM_WAIT_TIMEOUT (a
    group of some ranks talks only to the members it knows; one of every rank runs on the
    world team, whose collectives the others' default group may meet). Each member publishes its
    list in the group's store (prefixed by the group's name); the lowest rank of a list reads
    the others' lists and publishes a verdict, which the others read with the lowest rank's list:
    2(n-1) reads of the store in all, and a difference raises on every member at once. A rank
    left out in its own call but listed by another never publishes: the lowest rank raises after
    the group's timeout and its verdict tells the others why."""
    mine = ",".join(map(str, ranks))
    me, lead = ranks[rank], min(ranks)
    call = f"backend 'shmem': new_group #{group_id}"
    store.set(f"shmem/members/{me}", mine)

    def read(r, key, what, wait=timeout):
        try:
            store.wait([key], wait)
        except RuntimeError:
            raise ShmemError(-6, f"{call} of ranks [{mine}] on rank {me}: rank {r} did not {what} within {timeout} "
                                 f"(its call number {group_id} was given other ranks, without itself, or it never "
                                 "came)") from None
        return store.get(key).decode()

    def differ(r, theirs):
        return (f"{call}: rank {me} was given ranks [{mine}], rank {r} ranks [{theirs}]; every rank must pass "
                "the same ranks to its call of the same number (torch numbers new_group calls in order)")

    verdict_key = f"shmem/members/verdict/{lead}"
    if me == lead:
        verdict = ""
        try:
            for r in ranks:
                theirs = mine if r == me else read(r, f"shmem/members/{r}", "create it")
                if theirs != mine and not verdict:
                    verdict = differ(r, theirs)
        except ShmemError as e:
            store.set(verdict_key, e.message)
            raise
        store.set(verdict_key, verdict or "ok")
        if verdict:
            raise ShmemValueError(-1, verdict)
        return
    theirs = read(lead, f"shmem/members/{lead}", "create it")
    if theirs != mine:
        raise ShmemValueError(-1, differ(lead, theirs))
    # The lowest rank may wait up to the timeout for the last member itself: its verdict, which
    # then names that member, comes later than this rank's own timeout would.
    verdict = read(lead, verdict_key, "compare the members' ranks", 2 * timeout)
    if verdict != "ok":
        raise (ShmemError(-6, verdict) if " did not create it " in verdict else ShmemValueError(-1, verdict))


def _create_process_group(opts, pg_options=None):
    """torch.distributed's creator for backend "shmem" (its extended form: the options carry the
    group's world ranks and name). A group of every rank (``init_process_group("shmem")``, or
    ``new_group`` of all ranks) initialises shmem if needed -- through the launcher's variables
    under oshrun or mpirun, otherwise through the process group's own store -- and runs on the
    library's world-team collectives; ``new_group(ranks)`` of some ranks, created on its members
    only, sends messages between them (sub_group.hpp)."""
    store, rank, world_size = opts.store, opts.group_rank, opts.group_size
    ranks = list(opts.global_ranks_in_group)
    try:
        group_id = int(opts.group_id) if ranks else 0  # torch numbers groups in creation order
    except ValueError:
        raise ShmemValueError(-1, f"backend 'shmem': the group name {opts.group_id!r} is not torch's number of "
                                  "the group: do not name groups (group_name is deprecated)") from None
    if ranks:
        _check_members(store, ranks, rank, group_id, opts.timeout)
    if ranks and _core.initialized() and ranks != list(range(_core.n_pes())):
        return _c10d.ProcessGroupShmemSub(rank, world_size, ranks, group_id)
    if not _core.initialized():
        if _core.finalized():
            raise ShmemError(-5, "init_process_group('shmem') after shmem.finalize(): the library supports one "
                                 "init/finalize cycle per process")
        if ranks and ranks != list(range(len(ranks))):
            raise ShmemValueError(-1, "backend 'shmem': new_group(ranks) of some ranks needs shmem initialised "
                                      "first (init_process_group('shmem'), or any shmem call)")
        if _os.environ.get("SHMEM_NPES") or _os.environ.get("OMPI_COMM_WORLD_SIZE"):
            _core.init()
        else:
            _bootstrap.join(store, rank, world_size, "the process group's store")
    if (_core.my_pe(), _core.n_pes()) != (rank, world_size):
        raise ShmemValueError(-1, f"backend 'shmem': rank {rank} of {world_size} is not shmem's PE {_core.my_pe()} "
                                  f"of {_core.n_pes()}: a group of every PE must number them as shmem does")
    return _c10d.ProcessGroupShmem(rank, world_size, group_id)


if HAVE_BACKEND and not hasattr(_dist.Backend, "SHMEM"):
    _dist.Backend.register_backend("shmem", _create_process_group, extended_api=True)

# ---- handles after torch.distributed._symmetric_memory (torch_symm.py) -----------------------------
from .torch_symm import (  # noqa: E402
    CHANNELS, SymmetricMemoryHandle, rendezvous, one_shot_all_reduce, all_gather_into_tensor,
    reduce_scatter_tensor, all_to_all,
)




def _store_host(local: bool) -> str:
    """Where PE 0's TCPStore listens for the others: loopback when they are all on this host;
    else SHMEM_BOOTSTRAP_ADDR, or the address of oshrun's store when it is this host's (PE 0 on
    the launching host, as shmem.run --hosts places it when that host comes first)."""
    import socket
    if local:
        return "127.0.0.1"
    host = _os.environ.get("SHMEM_BOOTSTRAP_ADDR") or _os.environ.get("SHMEM_STORE_ADDR", "").rpartition(":")[0]
    try:
        with socket.socket() as s:
            s.bind((host, 0))  # succeeds only for an address of this host
    except OSError:
        raise ShmemError(-6, f"tcp_store: PE 0 does not know an address of its host that the other hosts reach "
                             f"(tried {host!r}); set SHMEM_BOOTSTRAP_ADDR to one") from None
    return host


def tcp_store(timeout_s: float = 120.0):
    """A torch.distributed TCPStore shared by every PE, for ``init_process_group(store=...)``
    where no launcher provides one (oshrun, shmem.run): PE 0 hosts it on a port its kernel
    picks, and the address travels to the others through shmem (collective)."""
    import datetime
    from ._coll import broadcast
    from ._team import TEAM_SHARED
    npes = _core.n_pes()
    timeout = datetime.timedelta(seconds=timeout_s)
    src, dst = _memory.zeros(72, dtype="u1"), _memory.zeros(72, dtype="u1")  # port (8 bytes), host
    failure = None
    try:
        if _core.my_pe() == 0:
            try:
                host = _store_host(TEAM_SHARED.n_pes() == npes)
                store = _dist.TCPStore(host, 0, npes, True, timeout, wait_for_workers=False)
                src[:8] = list(store.port.to_bytes(8, "little"))
                src[8:8 + len(host.encode())] = list(host.encode())
            except Exception as e:  # port 0 tells the others to fail too
                failure = e
        broadcast(dst, src, 0)
        port = int.from_bytes(bytes(dst[:8]), "little")
        if failure is not None:
            raise failure
        if port == 0:
            raise ShmemError(-6, "tcp_store: PE 0 could not start the store (see its error)")
        if _core.my_pe() != 0:
            host = bytes(dst[8:]).rstrip(b"\0").decode()
            store = _dist.TCPStore(host, port, npes, False, timeout)
    finally:
        _memory.free(src)
        _memory.free(dst)
    return store
