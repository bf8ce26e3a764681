"""Symmetric allocation: the allocators, no-copy views, collective free, and the misuse checks."""
import numpy as np
import pytest

import shmem


def test_alloc_and_fromalloc():
    mem = shmem.alloc(10, 8)
    assert isinstance(mem, memoryview) and mem.nbytes == 80
    assert bytes(mem) == bytes(80)  # clear=True
    a = shmem.fromalloc(mem, (2, 5), "i8")
    b = shmem.fromalloc(mem, dtype="u1")
    a[0, 0] = 7
    ok = a.shape == (2, 5) and b.shape == (80,) and b[0] == 7 and shmem.is_symmetric(a)
    shmem.free(mem)
    assert ok
    assert not shmem.is_symmetric(a)


def test_allocators():
    arrays = {
        "zeros": shmem.zeros((2, 3), "i4"),
        "ones": shmem.ones(5, "f4"),
        "full": shmem.full(4, 2.5),
        "full_typed": shmem.full((2, 2), 7, dtype="u2"),
        "empty": shmem.empty(6, "i8"),
        "new_array": shmem.new_array(3, "c16"),
        "array": shmem.array([[1, 2], [3, 4]], dtype="i2"),
        "fortran": shmem.zeros((3, 2), "f8", order="F"),
    }
    checks = [
        arrays["zeros"].shape == (2, 3) and arrays["zeros"].dtype == np.int32 and not arrays["zeros"].any(),
        (arrays["ones"] == 1).all() and arrays["ones"].dtype == np.float32,
        (arrays["full"] == 2.5).all() and arrays["full"].dtype == np.float64,
        (arrays["full_typed"] == 7).all() and arrays["full_typed"].dtype == np.uint16,
        arrays["empty"].shape == (6,),
        arrays["new_array"].dtype == np.complex128 and not arrays["new_array"].any(),
        arrays["array"].tolist() == [[1, 2], [3, 4]] and arrays["array"].dtype == np.int16,
        arrays["fortran"].flags.f_contiguous and not arrays["fortran"].flags.c_contiguous,
    ]
    symmetric = [shmem.is_symmetric(a) for a in arrays.values()]
    for a in arrays.values():
        shmem.del_array(a)
    assert all(checks), checks
    assert all(symmetric)


def test_array_copies_and_keeps_layout():
    src = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    a = shmem.array(src)
    ok = np.array_equal(a, src) and not np.shares_memory(a, src) and a.flags.f_contiguous
    shmem.free(a)
    assert ok


def test_arrays_are_views_of_the_heap():
    a = shmem.zeros(4, "i4")
    owner = shmem._core.owner(a)
    ok = isinstance(owner, shmem.SymmetricMemory) and owner.address == a.ctypes.data and owner.nbytes == 16
    shmem.free(a)
    assert ok and owner.freed


def test_align_and_hints():
    a = shmem.zeros(3, "i8", align=4096)
    b = shmem.zeros(2, "u8", hints=shmem.MALLOC.SIGNAL_REMOTE)
    c = shmem.full(2, 9, dtype="i8", align=256, hints=shmem.MALLOC_ATOMICS_REMOTE)
    ok = a.ctypes.data % 4096 == 0 and not a.any() and not b.any() and (c == 9).all() and c.ctypes.data % 256 == 0
    for x in (a, b, c):
        shmem.free(x)
    assert ok


def test_zero_size():
    z = shmem.zeros(0, "f8")
    m = shmem.alloc(0)
    ok = z.size == 0 and m.nbytes == 0
    shmem.free(z)
    shmem.free(m)
    assert ok


def test_double_free_raises():
    a = shmem.zeros(2)
    shmem.free(a)
    with pytest.raises(ValueError, match="double free"):
        shmem.free(a)
    with pytest.raises(ValueError, match="double free"):
        shmem.del_array(a)


def test_use_after_free_raises():
    a = shmem.zeros(2, "i8")
    shmem.free(a)
    with pytest.raises(ValueError, match="freed"):
        shmem.put(a, np.zeros(2, "i8"), 0)
    with pytest.raises(ValueError, match="freed"):
        shmem.get(np.zeros(2, "i8"), a, 0)
    with pytest.raises(ValueError, match="freed"):
        shmem.atomic_add(a[:1], 1, 0)
    with pytest.raises(ValueError, match="freed"):
        shmem.wait_until(a[:1], shmem.CMP.EQ, 0)


def test_free_refuses_what_it_did_not_allocate():
    with pytest.raises(ValueError, match="not symmetric memory"):
        shmem.free(np.zeros(3))
    with pytest.raises(ValueError, match="not symmetric memory"):
        shmem.free(memoryview(b"abc"))
    with pytest.raises(TypeError, match="NumPy array"):
        shmem.del_array([1, 2])
    a = shmem.zeros(4)
    m = shmem.alloc(16)
    with pytest.raises(ValueError, match="view starting 8 bytes"):
        shmem.free(a[1:])
    with pytest.raises(ValueError, match="view starting 4 bytes"):
        shmem.free(m[4:])
    shmem.free(a)
    shmem.free(m)


def test_out_of_memory_is_an_error():
    with pytest.raises(shmem.ShmemError) as info:
        shmem.alloc(1 << 50)
    assert info.value.code == -8
    assert "SHMEM_SYMMETRIC_SIZE" in str(info.value)
    a = shmem.zeros(2)  # the heap still works
    shmem.free(a)


def test_bad_allocation_arguments():
    with pytest.raises(ValueError, match="count=-1"):
        shmem.alloc(-1)
    with pytest.raises(TypeError, match="count"):
        shmem.alloc(1.5)
    with pytest.raises(ValueError, match="power of two"):
        shmem.alloc(8, align=3)
    with pytest.raises(ValueError, match="shape"):
        shmem.zeros((2, -1))
    mem = shmem.alloc(8)
    with pytest.raises(ValueError, match="needs 32 bytes"):
        shmem.fromalloc(mem, 4, "i8")
    shmem.free(mem)
