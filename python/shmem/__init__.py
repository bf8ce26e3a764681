"""OpenSHMEM for Python: symmetric NumPy arrays and one-sided communication between PEs.

The names, argument order and behaviour follow shmem4py (``from shmem4py import shmem`` becomes
``import shmem``); Ascend SHMEM's Python names are here too. Start PEs with
``python3 -m shmem.run -n 4 script.py``. See docs/python.md.

    import shmem
    me, npes = shmem.my_pe(), shmem.n_pes()
    dst = shmem.zeros(4, dtype="i8")              # symmetric: every PE has one
    shmem.put(dst, shmem.array([me] * 4, dtype="i8"), (me + 1) % npes)
    shmem.barrier_all()
"""
try:
    import numpy as _numpy  # noqa: F401 (the bindings need it; say which interpreter has it)
    from . import _core
except ImportError as _e:
    from ._build import PYTHON as _built_for, PYTHON_VERSION as _built_version
    import os as _os
    import sys as _sys
    _same = (_os.path.realpath(_sys.executable) == _os.path.realpath(_built_for)
             and _sys.prefix == _sys.base_prefix)  # a venv of the same python is another interpreter
    if _same and "numpy" in str(_e):
        _hint = "install numpy for it (Debian: apt-get install python3-numpy)"
    else:
        _hint = (f"this shmem was built for {_built_for} (Python {_built_version}, which has numpy); run "
                 f"`{_built_for} script.py` or `{_built_for} -m shmem.run -n N script.py` instead")
    raise ImportError(f"shmem cannot be imported by {_sys.executable}: {_e}; {_hint}") from None
from ._errors import ShmemError, ShmemTypeError, ShmemValueError, ShmemKeyError, ShmemOpError, code_name
from ._rc import rc
from ._setup import (
    MAJOR_VERSION, MINOR_VERSION, VENDOR_STRING, MAX_NAME_LEN,
    THREAD, THREAD_SINGLE, THREAD_FUNNELED, THREAD_SERIALIZED, THREAD_MULTIPLE,
    info_get_version, info_get_name, init, init_thread, query_thread, initialized, finalize,
    global_exit, my_pe, n_pes, pe_accessible, addr_accessible, ptr, pcontrol,
    set_conf_store_tls, set_conf_store_tls_key, set_log_level,
)
from ._memory import (
    MALLOC, MALLOC_ATOMICS_REMOTE, MALLOC_SIGNAL_REMOTE, SymmetricMemory,
    alloc, free, fromalloc, new_array, del_array, array, empty, zeros, ones, full, is_symmetric,
)
from ._team import (
    CTX, CTX_PRIVATE, CTX_SERIALIZED, CTX_NOSTORE, Ctx, CTX_DEFAULT, CTX_INVALID,
    Team, TEAM_WORLD, TEAM_SHARED, TEAM_INVALID,
)
from ._rma import put, get, put_nbi, get_nbi, iput, iget
from ._amo import (
    AMO, AMO_SET, AMO_INC, AMO_ADD, AMO_AND, AMO_OR, AMO_XOR,
    atomic_set, atomic_inc, atomic_add, atomic_and, atomic_or, atomic_xor,
    atomic_fetch, atomic_swap, atomic_compare_swap, atomic_fetch_inc, atomic_fetch_add,
    atomic_fetch_and, atomic_fetch_or, atomic_fetch_xor,
    atomic_fetch_nbi, atomic_swap_nbi, atomic_compare_swap_nbi, atomic_fetch_inc_nbi,
    atomic_fetch_add_nbi, atomic_fetch_and_nbi, atomic_fetch_or_nbi, atomic_fetch_xor_nbi,
    atomic_op, atomic_fetch_op, atomic_fetch_op_nbi,
)
from ._sync import (
    CMP, CMP_EQ, CMP_NE, CMP_GT, CMP_LE, CMP_LT, CMP_GE,
    wait_until, wait_until_all, wait_until_any, wait_until_some,
    wait_until_all_vector, wait_until_any_vector, wait_until_some_vector,
    test, test_all, test_any, test_some, test_all_vector, test_any_vector, test_some_vector,
    fence, quiet, new_lock, del_lock, set_lock, test_lock, clear_lock, Lock,
)
from ._signal import (
    SIGNAL, SIGNAL_SET, SIGNAL_ADD, new_signal, del_signal, signal_fetch,
    put_signal, put_signal_nbi, signal_add, signal_set, signal_wait_until,
)
from ._coll import (
    OP, OP_AND, OP_OR, OP_XOR, OP_MAX, OP_MIN, OP_SUM, OP_PROD,
    barrier_all, sync_all, sync, broadcast, collect, fcollect, alltoall, alltoalls,
    reduce, and_reduce, or_reduce, xor_reduce, max_reduce, min_reduce, sum_reduce, prod_reduce,
)
from ._acl import (
    SignalOp, CmpOp, TeamConfig, InitAttr, OptionalAttr, OpEngineType, InitStatus, UniqueId,
    aclshmem_get_unique_id, aclshmem_init_using_unique_id, aclshmemx_init_status, init_status,
    aclshmem_init, aclshmem_finalize, aclshmem_finialize, aclshmem_info_get_version,
    aclshmem_info_get_name, aclshmem_global_exit, pe_count,
    aclshmem_malloc, aclshmem_calloc, aclshmem_align, aclshmem_free, aclshmem_ptr,
    aclshmem_putmem, aclshmem_getmem, aclshmem_putmem_nbi, aclshmem_getmem_nbi,
    aclshmemx_putmem_signal, aclshmemx_putmem_signal_nbi, aclshmem_signal_wait_until,
    aclshmem_barrier_all, aclshmem_quiet,
    team_my_pe, team_n_pes, team_split_strided, team_split_2d, team_translate_pe, team_destroy,
    aclshmem_team_get_config,
)

__version__ = VENDOR_STRING.split()[-1]

__all__ = [name for name in dir() if not name.startswith("_")]
