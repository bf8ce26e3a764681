"""Setup, exit and query calls; error classes; Ascend SHMEM's set-up calls."""
import os

import numpy as np
import pytest

import shmem


def test_version_and_name():
    assert shmem.info_get_version() == (1, 6)
    assert (shmem.MAJOR_VERSION, shmem.MINOR_VERSION) == (1, 6)
    name = shmem.info_get_name()
    assert name == shmem.VENDOR_STRING
    assert 0 < len(name) <= shmem.MAX_NAME_LEN
    assert shmem.__version__ in name


def test_init_is_idempotent():
    shmem.init()
    shmem.init()
    assert shmem.initialized()


def test_init_thread_and_query():
    provided = shmem.init_thread(shmem.THREAD_SERIALIZED)
    assert isinstance(provided, shmem.THREAD)
    assert shmem.query_thread() == provided
    with pytest.raises(ValueError, match="requested"):
        shmem.init_thread(17)


def test_my_pe_n_pes(me, npes):
    assert me == int(os.environ.get("SHMEM_PE", 0))
    assert npes == int(os.environ.get("SHMEM_NPES", 1))
    assert 0 <= me < npes
    assert shmem.my_pe(shmem.TEAM_WORLD) == me
    assert shmem.n_pes(shmem.TEAM_WORLD) == npes
    assert shmem.pe_count() == npes


def test_pe_accessible(npes):
    assert all(shmem.pe_accessible(pe) for pe in range(npes))
    assert not shmem.pe_accessible(-1)
    assert not shmem.pe_accessible(npes)


def test_addr_accessible(npes):
    a = shmem.zeros(3)
    ok = all(shmem.addr_accessible(a, pe) for pe in range(npes))
    outside = shmem.addr_accessible(a, npes)
    local = shmem.addr_accessible(np.zeros(3), 0)
    shmem.free(a)
    assert ok and not outside and not local


def test_ptr_gives_load_store_access(me, npes, same_host):
    """ptr() gives a view of every PE on this host (all PEs when the job runs on one host) and
    None for a PE on another host; a store through a view lands in that PE's copy."""
    a = shmem.full(4, me, dtype="i4")
    views = [shmem.ptr(a, pe) for pe in range(npes)]
    reachable = [pe for pe in range(npes) if views[pe] is not None]
    seen = [int(views[pe][1]) for pe in reachable]
    k = same_host.index(me)
    host_right, host_left = same_host[(k + 1) % len(same_host)], same_host[k - 1]
    views[host_right][0] = 100 + me  # a store into the next copy on this host
    shmem.barrier_all()
    got = int(a[0])
    none_outside = shmem.ptr(a, npes) is None
    with pytest.raises(ValueError, match="shmem.ptr"):
        shmem.put(views[host_right], np.zeros(4, "i4"), host_right)
    with pytest.raises(ValueError, match="shmem.ptr"):
        shmem.free(views[host_right])
    assert shmem.ptr(np.zeros(4, "i4"), 0) is None  # not symmetric: None, as in shmem4py
    shmem.barrier_all()
    shmem.free(a)
    assert reachable == same_host
    assert seen == same_host
    assert got == 100 + host_left
    assert none_outside
    assert views[me].shape == (4,) and views[me].dtype == np.int32


def test_pcontrol():
    shmem.pcontrol()
    shmem.pcontrol(0)


def test_set_up_calls_refused_after_init():
    with pytest.raises(shmem.ShmemError, match="before the library is initialised"):
        shmem.set_conf_store_tls(False, "")
    with pytest.raises(shmem.ShmemError, match="before"):
        shmem.set_conf_store_tls_key("key.pem", "pw")


def test_set_log_level(monkeypatch):
    monkeypatch.setenv("SHMEM_LOG_LEVEL", "WARN")
    assert shmem.set_log_level(3) == 0
    assert os.environ["SHMEM_LOG_LEVEL"] == "ERROR"
    shmem.set_log_level("info")
    assert os.environ["SHMEM_LOG_LEVEL"] == "INFO"
    with pytest.raises(ValueError):
        shmem.set_log_level("loud")


def test_error_classes():
    assert issubclass(shmem.ShmemValueError, ValueError)
    assert issubclass(shmem.ShmemValueError, shmem.ShmemError)
    assert issubclass(shmem.ShmemTypeError, TypeError)
    assert issubclass(shmem.ShmemError, RuntimeError)
    e = shmem.ShmemError(-8, "no room")
    assert (e.code, e.message) == (-8, "no room")
    assert str(e) == "no room [code -8: OUT_OF_MEMORY]"
    assert shmem.code_name(-100) == "NOT_SUPPORTED"


def test_enums_match_the_c_constants():
    c = shmem._core
    assert [int(t) for t in shmem.THREAD] == [c.THREAD_SINGLE, c.THREAD_FUNNELED, c.THREAD_SERIALIZED,
                                              c.THREAD_MULTIPLE]
    assert (shmem.CMP.EQ, shmem.CMP.NE, shmem.CMP.GT, shmem.CMP.GE, shmem.CMP.LT, shmem.CMP.LE) == (
        c.CMP_EQ, c.CMP_NE, c.CMP_GT, c.CMP_GE, c.CMP_LT, c.CMP_LE)
    assert (shmem.SIGNAL.SET, shmem.SIGNAL.ADD) == (c.SIGNAL_SET, c.SIGNAL_ADD)
    assert shmem.CTX.PRIVATE | shmem.CTX.SERIALIZED | shmem.CTX.NOSTORE == (
        c.CTX_PRIVATE | c.CTX_SERIALIZED | c.CTX_NOSTORE)
    assert int(shmem.MALLOC.SIGNAL_REMOTE) == c.MALLOC_SIGNAL_REMOTE
    assert [str(op) for op in shmem.AMO] == ["set", "inc", "add", "and", "or", "xor"]
    assert [str(op) for op in shmem.OP] == ["and", "or", "xor", "max", "min", "sum", "prod"]
    assert shmem.THREAD_MULTIPLE is shmem.THREAD.MULTIPLE and shmem.AMO_ADD is shmem.AMO.ADD


def test_public_names():
    """shmem4py's module-level names are all here."""
    names = """info_get_version info_get_name init finalize global_exit init_thread query_thread THREAD
    my_pe n_pes pe_accessible addr_accessible ptr alloc free fromalloc new_array del_array array empty
    zeros ones full MALLOC Team TEAM_WORLD TEAM_SHARED TEAM_INVALID Ctx CTX CTX_DEFAULT CTX_INVALID put get
    iput iget put_nbi get_nbi atomic_op atomic_fetch_op atomic_fetch_op_nbi AMO atomic_set atomic_inc
    atomic_add atomic_and atomic_or atomic_xor atomic_fetch atomic_swap atomic_compare_swap atomic_fetch_inc
    atomic_fetch_add atomic_fetch_and atomic_fetch_or atomic_fetch_xor atomic_fetch_nbi atomic_swap_nbi
    atomic_compare_swap_nbi atomic_fetch_inc_nbi atomic_fetch_add_nbi atomic_fetch_and_nbi atomic_fetch_or_nbi
    atomic_fetch_xor_nbi new_signal del_signal signal_fetch put_signal put_signal_nbi SIGNAL barrier_all
    sync_all sync broadcast collect fcollect alltoall alltoalls reduce OP and_reduce or_reduce xor_reduce
    max_reduce min_reduce sum_reduce prod_reduce wait_until wait_until_all wait_until_any wait_until_some
    wait_until_all_vector wait_until_any_vector wait_until_some_vector test test_all test_any test_some
    test_all_vector test_any_vector test_some_vector signal_wait_until CMP fence quiet new_lock del_lock
    set_lock test_lock clear_lock Lock pcontrol""".split()
    missing = [n for n in names if not hasattr(shmem, n)]
    assert not missing
