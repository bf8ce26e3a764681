"""Tensors everywhere: CPU torch tensors (through DLPack, no copy), buffers and read-only
sources in the calls that take arrays; float16 and bfloat16 in RMA, collectives and the
reductions (accumulated in float, rounded to nearest even, as PyTorch does); symmetric
tensors from shmem.torch.empty/zeros."""
import numpy as np
import pytest

import shmem
from conftest import all_ok

torch = pytest.importorskip("torch", reason="Debian's python3-torch is not installed")
import shmem.torch as st  # noqa: E402

HALVES = [torch.float16, torch.bfloat16]
DTYPES = HALVES + [torch.float32, torch.float64, torch.int32, torch.int64, torch.uint8]


def test_symmetric_tensors(me, npes):
    x = st.zeros((3, 4), torch.bfloat16)
    y = st.empty(5, torch.int64)
    ok = x.shape == (3, 4) and x.dtype == torch.bfloat16 and not x.any() and x.is_contiguous()
    ok = ok and st.is_symmetric(x) and st.is_symmetric(x[1]) and not st.is_symmetric(torch.zeros(2))
    y.fill_(me)
    shmem.barrier_all()
    peer = torch.zeros(5, dtype=torch.int64)
    shmem.get(peer, y, (me + 1) % npes)  # a tensor target and a symmetric tensor source
    ok = ok and peer.tolist() == [(me + 1) % npes] * 5
    st.free(x)
    st.free(y)
    with pytest.raises(shmem.ShmemValueError, match="freed already"):
        st.free(y)
    with pytest.raises(shmem.ShmemTypeError, match="torch.dtype"):
        st.empty(2, "f4")
    z = st.zeros(0, torch.float32)  # nothing to share, still collective
    st.free(z)
    assert all_ok(ok)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_put_get_tensors(me, npes, dt):
    right, left = (me + 1) % npes, (me - 1) % npes
    dst = st.zeros(6, dt)
    src = (torch.arange(6) + 10 * me).to(dt)
    shmem.put(dst, src, right)
    shmem.barrier_all()
    ok = torch.equal(dst, (torch.arange(6) + 10 * left).to(dt))
    back = torch.zeros(6, dtype=dt)
    shmem.get(back, dst, right)  # right holds what I put
    ok = ok and torch.equal(back, src)
    strided = torch.zeros(12, dtype=dt)
    shmem.get(strided[::2], dst, me)  # a 1-D strided tensor view
    ok = ok and torch.equal(strided[::2], dst) and not strided[1::2].any()
    shmem.barrier_all()
    st.free(dst)
    assert all_ok(ok)


def test_sources_without_a_copy(me, npes):
    """A read-only NumPy view, a memoryview, a NumPy view of a tensor (DLPack) and a tensor that
    requires grad are all accepted as sources; a read-only target is refused."""
    right, left = (me + 1) % npes, (me - 1) % npes
    dst = st.zeros(4, torch.float32)
    ro = np.full(4, me, dtype="f4")
    ro.flags.writeable = False
    tensor = torch.full((4,), float(me))
    sources = [ro, memoryview(np.full(4, me, dtype="f4")), np.from_dlpack(tensor),
               torch.full((4,), float(me), requires_grad=True)]
    ok = True
    for src in sources:
        dst.zero_()
        shmem.barrier_all()
        shmem.put(dst, src, right)
        shmem.barrier_all()
        ok = ok and dst.tolist() == [left] * 4
    with pytest.raises(shmem.ShmemValueError, match="target is read-only"):
        shmem.get(ro, dst, right)
    with pytest.raises(shmem.ShmemTypeError, match="source must be a NumPy array, a CPU tensor"):
        shmem.put(dst, [1.0] * 4, right)
    with pytest.raises(shmem.ShmemTypeError, match="dtype mismatch: target is float32 but source is bfloat16"):
        shmem.put(dst, torch.zeros(4, dtype=torch.bfloat16), right)
    shmem.barrier_all()
    st.free(dst)
    assert all_ok(ok)


def _rounded(values, dt):
    """What PyTorch gets: the float result rounded once to dt."""
    return torch.tensor(values, dtype=torch.float32).to(dt)


@pytest.mark.parametrize("dt", HALVES, ids=str)
def test_half_reductions(me, npes, dt):
    n = 20000  # more than one 16384-element chunk of the conversion scratch
    base = torch.linspace(-3, 3, n, dtype=torch.float32)
    mine = (base * (me + 1) + 0.1 * me).to(dt)
    every = [(base * (p + 1) + 0.1 * p).to(dt).float() for p in range(npes)]
    src = st.empty(n, dt)
    src.copy_(mine)
    dst = st.empty(n, dt)
    ok = True
    shmem.sum_reduce(dst, src)
    ok = ok and torch.equal(dst, sum(every[1:], every[0]).to(dt))
    shmem.max_reduce(dst, src)
    ok = ok and torch.equal(dst, torch.stack(every).max(0).values.to(dt))
    shmem.min_reduce(dst, src)
    ok = ok and torch.equal(dst, torch.stack(every).min(0).values.to(dt))
    small = st.empty(3, dt)
    small.copy_(torch.tensor([1.5, -2.0, 0.75]).to(dt))
    out = st.empty(3, dt)
    shmem.prod_reduce(out, small)
    ok = ok and torch.equal(out, _rounded([1.5 ** npes, (-2.0) ** npes, 0.75 ** npes], dt))
    shmem.reduce(small, small, "sum")  # in place
    ok = ok and torch.equal(small, _rounded([1.5 * npes, -2.0 * npes, 0.75 * npes], dt))
    with pytest.raises(shmem.ShmemTypeError, match="and_reduce does not support dtype"):
        shmem.and_reduce(out, small)
    for t in (src, dst, small, out):
        st.free(t)
    assert all_ok(ok)


def test_bf16_rounds_to_nearest_even(me, npes):
    """Each sum is formed in float and rounded once to nearest, ties to even: 1 + 2^-8 lies
    halfway between 1 and 1 + 2^-7 and gives 1; 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and
    1 + 2^-6 and gives 1 + 2^-6 (truncation would give 1 + 2^-7)."""
    mine = {0: [1.0, 1.0 + 2.0 ** -7], 1: [2.0 ** -8, 2.0 ** -8]}.get(me, [0.0, 0.0])
    src = st.empty(2, torch.bfloat16)
    src.copy_(torch.tensor(mine))
    dst = st.empty(2, torch.bfloat16)
    shmem.sum_reduce(dst, src)
    want = [1.0, 1.0 + 2.0 ** -6] if npes > 1 else mine
    ok = dst.float().tolist() == want
    st.free(src)
    st.free(dst)
    assert all_ok(ok)


@pytest.mark.parametrize("dt", HALVES + [torch.int32], ids=str)
def test_collectives_on_tensors(me, npes, dt):
    src = st.empty(4, dt)
    src.copy_((torch.arange(4) + 10 * me).to(dt))
    bcast = st.zeros(4, dt)
    shmem.broadcast(bcast, src, npes - 1)
    ok = torch.equal(bcast, (torch.arange(4) + 10 * (npes - 1)).to(dt))
    gathered = st.zeros((npes, 4), dt)
    shmem.fcollect(gathered, src)
    ok = ok and all(torch.equal(gathered[p], (torch.arange(4) + 10 * p).to(dt)) for p in range(npes))
    blocks = st.empty((npes, 2), dt)
    blocks.copy_(torch.tensor([[100 * me + j] * 2 for j in range(npes)]).to(dt))
    recv = st.zeros((npes, 2), dt)
    shmem.alltoall(recv, blocks)
    ok = ok and torch.equal(recv, torch.tensor([[100 * i + me] * 2 for i in range(npes)]).to(dt))
    for t in (src, bcast, gathered, blocks, recv):
        st.free(t)
    assert all_ok(ok)


def test_numpy_float16_reduction(me, npes):
    src = shmem.array(np.full(3, 0.5 + me, dtype="f2"))
    dst = shmem.zeros(3, "f2")
    shmem.sum_reduce(dst, src)
    ok = dst.tolist() == [float(np.float16(sum(0.5 + p for p in range(npes))))] * 3
    shmem.free(src)
    shmem.free(dst)
    assert all_ok(ok)
