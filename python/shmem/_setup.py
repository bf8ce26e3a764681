"""Library setup, exit and query: init on first use, finalize at exit, PE and version queries.

``import shmem`` does not start the library: the first call that needs it does (as if
``init()`` had been called), so the set-up calls below (``set_conf_store_tls`` ...) can come
first. At interpreter exit the library is finalized by its own exit handler, which sees the
process's exit status: a PE that ends otherwise than with status 0 — an uncaught exception,
``sys.exit(n)`` or ``raise SystemExit(n)`` with n != 0, a signal — does not finalize (that would
wait forever for PEs that are in a barrier) but tells the job that it left, and oshrun (or the
job watcher) ends every PE and names this one, as for a C program that calls ``exit(n)``.
"""
import atexit as _atexit
import enum as _enum
import operator as _operator
import os as _os
import sys as _sys

import numpy as _np

from . import _core
from ._errors import ShmemError

MAJOR_VERSION: int = _core.MAJOR_VERSION
MINOR_VERSION: int = _core.MINOR_VERSION
VENDOR_STRING: str = _core.VENDOR_STRING
MAX_NAME_LEN: int = _core.MAX_NAME_LEN


class THREAD(_enum.IntEnum):
    """Thread support levels."""

    SINGLE = _core.THREAD_SINGLE
    FUNNELED = _core.THREAD_FUNNELED
    SERIALIZED = _core.THREAD_SERIALIZED
    MULTIPLE = _core.THREAD_MULTIPLE


THREAD_SINGLE = THREAD.SINGLE
THREAD_FUNNELED = THREAD.FUNNELED
THREAD_SERIALIZED = THREAD.SERIALIZED
THREAD_MULTIPLE = THREAD.MULTIPLE


def info_get_version():
    """Return ``(major, minor)``: the OpenSHMEM specification version implemented."""
    return tuple(_core.info_get_version())


def info_get_name() -> str:
    """Return the vendor name string of the library."""
    return _core.info_get_name()


def init() -> None:
    """Initialise the library (collective). Optional: the first call that needs it does it."""
    _core.init()


def init_thread(requested: THREAD = THREAD_MULTIPLE) -> THREAD:
    """Initialise with a thread level (collective); return the level provided."""
    return THREAD(_core.init_thread(int(requested)))


def query_thread() -> THREAD:
    """Return the thread level provided by the library."""
    return THREAD(_core.query_thread())


def initialized() -> bool:
    """True between initialisation (explicit or on first use) and ``finalize``."""
    return _core.initialized()


def finalize() -> None:
    """Release the library (collective). Symmetric arrays must not be used afterwards."""
    _core.finalize()


def global_exit(status: int = 0):
    """End every PE of the job with exit status ``status``."""
    _flush()
    _core.global_exit(int(status))
    raise SystemExit(status)  # not reached


def my_pe(team=None) -> int:
    """Return the number of the calling PE (in ``team`` when given: Ascend SHMEM's ``my_pe(team)``)."""
    if team is not None:
        return team.my_pe()
    return _core.my_pe()


def n_pes(team=None) -> int:
    """Return the number of PEs (of ``team`` when given)."""
    if team is not None:
        return team.n_pes()
    return _core.n_pes()


def pe_accessible(pe: int) -> bool:
    """Return whether PE ``pe`` can be reached from this PE."""
    return _core.pe_accessible(_operator.index(pe))


def addr_accessible(addr, pe: int) -> bool:
    """Return whether the array ``addr`` is symmetric and reachable on PE ``pe``."""
    return _core.addr_accessible(addr, _operator.index(pe))


def ptr(target, pe: int):
    """Return an array over PE ``pe``'s copy of the symmetric array ``target``, read and
    written with loads and stores, or None when that PE's memory cannot be mapped (or
    ``target`` is not symmetric, as in shmem4py)."""
    mem = _core.ptr(target, _operator.index(pe))
    if mem is None:
        return None
    view = _np.ndarray(target.shape, target.dtype, buffer=mem, strides=target.strides)
    view.flags.writeable = target.flags.writeable
    return view


def pcontrol(level: int = 1) -> None:
    """Set the profiling level (accepted; this library has no profiling hooks)."""
    _core.pcontrol(int(level))


# ---- set-up calls of Ascend SHMEM's Python API -----------------------------------------------
# They write the environment variables the C library reads at initialisation, so they must come
# before the first call that initialises it.

def _before_init(func: str) -> None:
    if _core.initialized() or _core.finalized():
        raise ShmemError(-1, f"{func} must be called before the library is initialised "
                             "(before init() or the first shmem call)")


def set_conf_store_tls(enable: bool, info: str = "") -> int:
    """Turn TLS on the bootstrap store on or off and give its settings (Ascend SHMEM's
    ``tls_info`` string). Maps to SHMEM_BOOTSTRAP_TLS / SHMEM_BOOTSTRAP_TLS_INFO, which must
    agree with the launcher's: ``SHMEM_BOOTSTRAP_TLS=0 python3 -m shmem.run ...``."""
    _before_init("set_conf_store_tls")
    _os.environ["SHMEM_BOOTSTRAP_TLS"] = "1" if enable else "0"
    _os.environ["SHMEM_BOOTSTRAP_TLS_INFO"] = info or ""
    return 0


def set_conf_store_tls_key(pk: str, pk_pw: str = "", decrypt=None) -> int:
    """Give the private key (file) and its password for the store's TLS certificates; the
    password is passed through ``decrypt`` first when given. Appended to
    SHMEM_BOOTSTRAP_TLS_INFO as ``tlsPk`` / ``tlsPkPwd``."""
    _before_init("set_conf_store_tls_key")
    password = decrypt(pk_pw) if decrypt is not None else pk_pw
    if isinstance(password, bytes):
        password = password.decode()
    parts = [_os.environ.get("SHMEM_BOOTSTRAP_TLS_INFO", "").strip().rstrip(";")]
    parts.append(f"tlsPk: {pk}")
    if password:
        parts.append(f"tlsPkPwd: {password}")
    _os.environ["SHMEM_BOOTSTRAP_TLS_INFO"] = "; ".join(p for p in parts if p) + ";"
    return 0


_LOG_LEVELS = {0: "DEBUG", 1: "INFO", 2: "WARN", 3: "ERROR", 4: "FATAL"}


def set_log_level(level) -> int:
    """Set the library's log level (0 debug, 1 info, 2 warn, 3 error, 4 fatal, or a name);
    SHMEM_LOG_LEVEL, read at initialisation."""
    name = _LOG_LEVELS.get(level, level) if isinstance(level, int) else str(level).upper()
    if name not in _LOG_LEVELS.values() and name not in ("TRACE", "OFF"):
        raise ValueError(f"level={level!r} is not a log level")
    _os.environ["SHMEM_LOG_LEVEL"] = name
    return 0


# ---- exit ---------------------------------------------------------------------------------------
# The exit status is not visible to atexit handlers (sys.exit(n), raise SystemExit(n), an uncaught
# exception, a signal), so the package hands the finalize to the C library's exit handler
# (shmemx_finalize_at_exit), which runs after the interpreter and sees the status: 0 finalizes
# (collective, as shmem.finalize()), anything else ends the job at once and oshrun names this PE.


def _flush() -> None:
    for stream in (_sys.stdout, _sys.stderr):
        try:
            stream.flush()
        except Exception:  # pragma: no cover - a closed stream
            pass


def _at_exit() -> None:
    if not _core.initialized():
        return
    _flush()
    from ._rc import _finalize_at_exit  # shmem.rc.finalize False: the program finalises itself
    if _finalize_at_exit():
        _core.finalize_at_exit()


def _line_buffer_output() -> None:
    """Under oshrun, a PE's stdout on a pipe is written line by line (a terminal already is), so a
    PE that is killed or crashes loses no whole line (the C library does the same for C's stdout)."""
    if "SHMEM_PE" not in _os.environ:
        return
    try:
        if not _sys.stdout.isatty():
            _sys.stdout.reconfigure(line_buffering=True)
    except (AttributeError, ValueError, OSError):  # replaced or closed stdout
        pass


_line_buffer_output()
_atexit.register(_at_exit)
