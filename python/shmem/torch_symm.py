"""Handles on symmetric tensors after PyTorch's ``torch.distributed._symmetric_memory``:

    import shmem.torch as st
    x = st.empty((n,), torch.float32)            # collective
    h = st.rendezvous(x)                          # collective: a handle on every PE's x
    peer = h.get_buffer((h.rank + 1) % h.world_size, (n,), torch.float32)   # loads/stores
    h.put_signal(peer_rank); h.wait_signal(src_rank, timeout_ms=1000)
    h.barrier()
    h.close()                                     # collective: frees the signal pad

The group is every PE (shmem's world team); ranks are PE numbers. ``get_buffer`` needs the peer's
memory mapped into this process (PEs on one host); elsewhere it raises, as PyTorch's does when
the peer is not reachable. The ops (``one_shot_all_reduce``, ``all_gather_into_tensor``,
``reduce_scatter_tensor``, ``all_to_all``) take symmetric tensors and use the library's
collectives, so they work across hosts too.
"""
import math as _math
import time as _time

import torch as _torch

from . import _coll, _core, _memory, _setup, _signal, _sync
from ._errors import ShmemError, ShmemValueError

CHANNELS = 16  # signal-pad channels per handle, each with one word per peer


def _base_of(t):
    """(the SymmetricMemory memoryview, byte offset of t in it) for a tensor of shmem.torch."""
    from . import torch as _st
    start = t.data_ptr()
    for mem in _st._live.values():
        if mem.nbytes and mem.obj.address <= start < mem.obj.address + mem.nbytes:
            return mem, start - mem.obj.address
    raise ShmemValueError(-1, "rendezvous: the tensor is not on symmetric memory (allocate it with "
                              "shmem.torch.empty or shmem.torch.zeros)")


class SymmetricMemoryHandle:
    """What ``rendezvous`` returns; see the module's description."""

    def __init__(self, tensor):
        self._mem, self._offset = _base_of(tensor)
        self.rank = _setup.my_pe()
        self.world_size = _setup.n_pes()
        self.buffer_size = self._mem.nbytes - self._offset
        self._pad = _memory.zeros((CHANNELS, self.world_size), dtype="u8")  # collective
        self.signal_pad_size = self._pad.nbytes

    def _peer(self, mem, rank, what):
        if not 0 <= rank < self.world_size:
            raise ShmemValueError(-1, f"{what}: rank={rank} is outside 0..{self.world_size - 1}")
        if rank == self.rank:
            return mem
        view = _core.ptr(mem, rank)
        if view is None:
            raise ShmemError(-100, f"{what}: PE {rank}'s memory is not mapped into this process (it runs on "
                                   "another host); use the ops or shmem.put/get instead")
        return view

    def get_buffer(self, rank, sizes, dtype, storage_offset=0):
        """A tensor of ``sizes`` and ``dtype`` over PE ``rank``'s copy of the buffer, starting
        ``storage_offset`` elements in (loads and stores, no copy)."""
        sizes = tuple(sizes) if isinstance(sizes, (tuple, list, _torch.Size)) else (sizes,)
        itemsize = _torch.empty((), dtype=dtype).element_size()
        start = self._offset + storage_offset * itemsize
        nbytes = _math.prod(sizes) * itemsize
        if storage_offset < 0 or start + nbytes > self._mem.nbytes:
            raise ShmemValueError(-1, f"get_buffer: {nbytes} bytes at element {storage_offset} exceed the buffer "
                                      f"({self.buffer_size} bytes)")
        view = self._peer(self._mem, rank, "get_buffer")
        if nbytes == 0:
            return _torch.empty(sizes, dtype=dtype)
        raw = _torch.frombuffer(view, dtype=_torch.uint8, count=nbytes, offset=start)
        return raw.view(dtype).view(sizes)

    def get_signal_pad(self, rank, sizes=None, dtype=_torch.uint64 if hasattr(_torch, "uint64") else _torch.int64,
                       storage_offset=0):
        """PE ``rank``'s signal pad (``CHANNELS`` x world_size 64-bit words) as a tensor."""
        view = self._peer(self._pad, rank, "get_signal_pad")
        pad = _torch.frombuffer(memoryview(view).cast("B"), dtype=_torch.uint8).view(dtype)
        pad = pad[storage_offset:]
        return pad if sizes is None else pad[:_math.prod(tuple(sizes))].view(tuple(sizes))

    def _word(self, channel, rank, what):
        if not 0 <= channel < CHANNELS:
            raise ShmemValueError(-1, f"{what}: channel={channel} is outside 0..{CHANNELS - 1}")
        if not 0 <= rank < self.world_size:
            raise ShmemValueError(-1, f"{what}: rank={rank} is outside 0..{self.world_size - 1}")
        return self._pad[channel, rank:rank + 1]

    def barrier(self, channel=0, timeout_ms=None):
        """Every PE's earlier stores and puts are visible once every PE has arrived."""
        self._word(channel, 0, "barrier")
        _coll.barrier_all()

    def put_signal(self, dst_rank, channel=0, timeout_ms=None):
        """Set this PE's word of ``channel`` in ``dst_rank``'s pad, after this PE's earlier puts
        and stores are complete."""
        word = self._word(channel, self.rank, "put_signal")
        self._word(channel, dst_rank, "put_signal")
        _sync.quiet()
        _signal.signal_set(word, 1, dst_rank)

    def wait_signal(self, src_rank, channel=0, timeout_ms=None):
        """Wait until ``src_rank`` has put its signal on ``channel`` here, then clear it.
        ``timeout_ms`` (None: forever) raises TimeoutError when it passes."""
        word = self._word(channel, src_rank, "wait_signal")
        if timeout_ms is None:
            _signal.signal_wait_until(word, _sync.CMP.GE, 1)
        else:
            deadline = _time.monotonic() + timeout_ms / 1000
            while not _sync.test(word, _sync.CMP.GE, 1):
                if _time.monotonic() > deadline:
                    raise TimeoutError(f"wait_signal: no signal from rank {src_rank} on channel {channel} within "
                                       f"{timeout_ms} ms")
                _time.sleep(0)
        word[0] = 0

    def close(self):
        """Free the signal pad (collective)."""
        if self._pad is not None:
            _memory.free(self._pad)
            self._pad = None


def rendezvous(tensor, group=None) -> SymmetricMemoryHandle:
    """A handle on every PE's copy of the symmetric ``tensor`` (collective over every PE)."""
    if group not in (None, "world", "0"):
        raise ShmemValueError(-1, "rendezvous: only the world group is supported (group=None)")
    return SymmetricMemoryHandle(tensor)


def _red(op):
    name = str(op).lower()
    if name not in ("sum", "prod", "max", "min", "and", "or", "xor"):
        raise ShmemValueError(-1, f"reduce_op={op!r} is not sum, prod, max, min, and, or or xor")
    return name


def one_shot_all_reduce(tensor, reduce_op="sum"):
    """A new (ordinary) tensor: ``reduce_op`` of the symmetric ``tensor`` over every PE."""
    from . import torch as _st
    out = _st.empty(tensor.shape, tensor.dtype)
    try:
        _coll.reduce(out, tensor, _red(reduce_op))
        return out.clone()
    finally:
        _st.free(out)


def all_gather_into_tensor(out, tensor):
    """``out`` (symmetric, world_size times ``tensor``) gets every PE's ``tensor`` in PE order."""
    _coll.fcollect(out, tensor)
    return out


def reduce_scatter_tensor(out, tensor, reduce_op="sum"):
    """``out`` gets this PE's block of ``reduce_op`` over every PE of the symmetric ``tensor``
    (world_size blocks of ``out``'s size)."""
    full = one_shot_all_reduce(tensor, reduce_op).reshape(_setup.n_pes(), -1)
    out.copy_(full[_setup.my_pe()].view(out.shape))
    return out


def all_to_all(out, tensor):
    """Block j of the symmetric ``tensor`` goes to PE j, landing in block ``my_pe`` of ``out``."""
    _coll.alltoall(out, tensor)
    return out
