"""The SymmetricMemory-style handles of shmem.torch (after torch.distributed._symmetric_memory):
rendezvous, get_buffer on every PE of this host, signal pads, put_signal/wait_signal, barrier,
and the ops on symmetric tensors."""
import pytest

import shmem
from conftest import all_ok

torch = pytest.importorskip("torch", reason="Debian's python3-torch is not installed")
import shmem.torch as st  # noqa: E402


def test_handle_buffers_and_signals(me, npes, same_host):
    x = st.zeros(8, torch.float32)
    x.fill_(me)
    h = st.rendezvous(x)
    ok = (h.rank, h.world_size, h.buffer_size) == (me, npes, 32)
    h.barrier()
    for peer in same_host:  # loads from every PE of this host, no copy
        ok = ok and h.get_buffer(peer, (8,), torch.float32).tolist() == [float(peer)] * 8
    ok = ok and h.get_buffer(me, (2, 3), torch.float32, storage_offset=2).shape == (2, 3)
    with pytest.raises(shmem.ShmemValueError, match="exceed the buffer"):
        h.get_buffer(me, (9,), torch.float32)
    h.barrier()  # everyone has read before anyone writes
    right, left = (me + 1) % npes, (me - 1) % npes
    if right in same_host:  # a store into the right neighbour's buffer, then its signal
        h.get_buffer(right, (1,), torch.float32)[0] = 100.0 + me
    else:
        shmem.put(x[:1], torch.tensor([100.0 + me]), right)
    h.put_signal(right, channel=3)
    h.wait_signal(left, channel=3, timeout_ms=60000)
    ok = ok and x[0].item() == 100.0 + left and h.get_signal_pad(me)[3 * npes + left].item() == 0
    with pytest.raises(TimeoutError, match="no signal from rank"):
        h.wait_signal(left, channel=4, timeout_ms=10)
    with pytest.raises(shmem.ShmemValueError, match="channel=16 is outside"):
        h.put_signal(right, channel=16)
    h.barrier()
    h.close()
    st.free(x)
    assert all_ok(ok)


def test_ops_on_symmetric_tensors(me, npes):
    x = st.empty(4, torch.bfloat16)
    x.copy_(torch.tensor([1.0, 2.0, 3.0, 4.0]) * (me + 1))
    total = npes * (npes + 1) // 2
    ok = torch.equal(st.one_shot_all_reduce(x), (torch.tensor([1.0, 2.0, 3.0, 4.0]) * total).to(torch.bfloat16))
    ok = ok and torch.equal(st.one_shot_all_reduce(x, "max"), x.float().div(me + 1).mul(npes).to(torch.bfloat16))
    gathered = st.zeros((npes, 4), torch.bfloat16)
    st.all_gather_into_tensor(gathered, x)
    ok = ok and all(torch.equal(gathered[p], (torch.tensor([1.0, 2.0, 3.0, 4.0]) * (p + 1)).to(torch.bfloat16))
                    for p in range(npes))
    blocks = st.empty((npes, 2), torch.int64)
    blocks.copy_(torch.tensor([[10 * me + j] * 2 for j in range(npes)]))
    out = st.zeros((npes, 2), torch.int64)
    st.all_to_all(out, blocks)
    ok = ok and out.tolist() == [[10 * i + me] * 2 for i in range(npes)]
    src = st.empty(npes * 2, torch.int64)
    src.copy_(torch.arange(npes * 2) + me)
    part = torch.zeros(2, dtype=torch.int64)
    st.reduce_scatter_tensor(part, src)
    ok = ok and part.tolist() == [npes * (2 * me + k) + total - npes for k in range(2)]
    for t in (x, gathered, blocks, out, src):
        st.free(t)
    assert all_ok(ok)
