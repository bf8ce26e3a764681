"""Initialisation under torchrun (and any torch.distributed-style launch: RANK, WORLD_SIZE,
MASTER_ADDR, MASTER_PORT): the PEs meet through the store torch itself uses there, never on a
port of their own.

torchrun's agent already listens on MASTER_PORT (its own TCPStore), and a script's
``dist.init_process_group`` makes rank 0 listen there when the agent does not. So instead of
the C library's torchrun mode (rank 0 hosts the bootstrap store at MASTER_ADDR:MASTER_PORT),
every rank joins torch's store through ``torch.distributed.rendezvous("env://")`` -- exactly
what ``init_process_group`` does, so either may come first -- and rank 0 publishes there the
unique ID of a bootstrap store it starts on a port the kernel picks, with a fresh random
secret (the library's unique-ID mode). Used when torch is importable; otherwise the C library's
own mode applies.
"""
import datetime as _datetime
import os as _os

from . import _core
from ._errors import ShmemError

_BOOTSTRAP_CODE = -6  # the library's "bootstrap error"
_stores = []  # torch's store stays open: on rank 0 (no agent store) it is the server others use


def _int(name: str, default: int = -1) -> int:
    try:
        return int(_os.environ.get(name, ""))
    except ValueError:
        return default


def torch_launch() -> bool:
    """True when this process was started torch.distributed-style and the C library would use
    that mode (oshrun's and mpirun's variables take precedence, as in docs/launchers.md)."""
    env = _os.environ
    if _int("SHMEM_NPES", 0) > 0 or (env.get("OMPI_COMM_WORLD_SIZE") and env.get("OMPI_COMM_WORLD_RANK")):
        return False
    if not all(env.get(v) for v in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")):
        return False  # the library names what is missing
    world, rank = _int("WORLD_SIZE"), _int("RANK")
    return world > 1 and 0 <= rank < world  # a bad value: the library's message


def _timeout() -> float:
    try:
        return float(_os.environ.get("SHMEM_BOOTSTRAP_TIMEOUT", "") or 120)
    except ValueError:
        return 120.0  # the library rejects the value at init with its own message


def meet() -> bool:
    """Initialise through torch's store when launched torch.distributed-style and torch is
    importable; return whether it did (False: the caller initialises as usual)."""
    if not torch_launch():
        return False
    try:
        import torch.distributed as dist
    except ImportError:
        return False
    if not dist.is_available():
        return False
    rank, world = _int("RANK"), _int("WORLD_SIZE")
    where = f"torch's store at {_os.environ['MASTER_ADDR']}:{_os.environ['MASTER_PORT']}"
    try:
        store, _, _ = next(dist.rendezvous("env://", timeout=_datetime.timedelta(seconds=_timeout())))
    except Exception as e:  # torch's errors are RuntimeError/ValueError/TimeoutError
        raise ShmemError(_BOOTSTRAP_CODE, f"init under torchrun: cannot join {where} "
                                          f"(RANK={rank}, WORLD_SIZE={world}): {e}") from None
    join(store, rank, world, where)
    return True


def join(store, rank: int, world: int, where: str = "torch's store") -> None:
    """Initialise as PE ``rank`` of ``world`` (collective), meeting through the torch.distributed
    ``store``: rank 0 starts the job's bootstrap store on a port the kernel picks, with a fresh
    random secret, and publishes its unique ID there; the others read it."""
    import torch.distributed as dist
    store = dist.PrefixStore("shmem", store)
    _stores.append(store)  # kept open: on rank 0 (no agent store) it may be the server others use
    if rank == 0:
        try:
            uid = _unique_id()
        except ShmemError as e:
            store.set("uid", b"!" + e.message.encode())  # the others fail at once, with the reason
            raise
        store.set("uid", bytes(uid))
    else:
        try:
            data = store.get("uid")
        except Exception as e:
            raise ShmemError(_BOOTSTRAP_CODE, f"init under torch.distributed: rank 0 did not publish the bootstrap "
                                              f"store in {where} within SHMEM_BOOTSTRAP_TIMEOUT={_timeout():g} s: "
                                              f"{e}") from None
        if data.startswith(b"!"):
            raise ShmemError(_BOOTSTRAP_CODE, "init under torch.distributed: rank 0 could not start the bootstrap "
                                              "store: " + data[1:].decode(errors="replace"))
        uid = _core.UniqueId.from_bytes(data)
    _core.acl_init_uid(rank, world, 0, uid)


def _unique_id():
    """Rank 0's bootstrap store, on a port the kernel picks. When every rank runs on this host
    (LOCAL_WORLD_SIZE == WORLD_SIZE) it listens on loopback only, unless SHMEM_BOOTSTRAP_ADDR or
    _IFACE say otherwise; else on the address the library picks for jobs across hosts."""
    env = _os.environ
    local = _int("LOCAL_WORLD_SIZE") == _int("WORLD_SIZE")
    pin = local and not env.get("SHMEM_BOOTSTRAP_ADDR") and not env.get("SHMEM_BOOTSTRAP_IFACE")
    if pin:
        env["SHMEM_BOOTSTRAP_ADDR"] = "127.0.0.1"
    try:
        return _core.acl_get_unique_id()
    finally:
        if pin:
            del env["SHMEM_BOOTSTRAP_ADDR"]
