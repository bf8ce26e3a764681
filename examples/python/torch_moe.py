"""Mixture-of-experts dispatch and combine through the torch.distributed backend "shmem": the
experts are spread over the PEs (EXPERTS_PER_PE each), a router picks the top-2 experts of
every token, the tokens travel to the PEs holding their experts in one all_to_all_single with
per-PE counts (exchanged first, as MoE layers do), each PE runs its experts on what arrived,
and a second all_to_all_single brings the outputs back to the tokens' PEs, where they are
combined with the router's weights. Checked against one process computing every PE's tokens
through all the experts; prints VERIFIED on PE 0.

    python3 -m shmem.run -n 4 examples/python/torch_moe.py
    python3 -m torch.distributed.run --redirects 1 --tee 1 --nproc_per_node=4 examples/python/torch_moe.py
"""
import os

import torch
import torch.distributed as dist

import shmem
import shmem.torch

if "MASTER_ADDR" in os.environ:  # torchrun: the process group meets through torch's store
    dist.init_process_group("shmem")
else:  # shmem.run / oshrun: a store on a port rank 0's kernel picks, found through shmem
    dist.init_process_group("shmem", store=shmem.torch.tcp_store(), rank=shmem.my_pe(), world_size=shmem.n_pes())
me, n = dist.get_rank(), dist.get_world_size()

TOKENS, DIM, HIDDEN, EXPERTS_PER_PE, TOP_K = 64, 16, 32, 2, 2
EXPERTS = EXPERTS_PER_PE * n


def tokens_of(pe):
    """PE pe's tokens: reproducible, so any PE can recompute everyone's for the check."""
    return torch.randn(TOKENS, DIM, generator=torch.Generator().manual_seed(100 + pe))


def expert_weights(e):
    """Expert e, a two-layer MLP: the same on every PE (only its owner runs it)."""
    g = torch.Generator().manual_seed(1000 + e)
    return torch.randn(DIM, HIDDEN, generator=g) / DIM**0.5, torch.randn(HIDDEN, DIM, generator=g) / HIDDEN**0.5


def expert(e, x):
    w1, w2 = expert_weights(e)
    return torch.relu(x @ w1) @ w2


ROUTER = torch.randn(DIM, EXPERTS, generator=torch.Generator().manual_seed(7))


def route(x):
    """The top-k experts of each token and their weights (softmax over the chosen scores)."""
    scores, chosen = torch.topk(x @ ROUTER, TOP_K, dim=1)
    return chosen, torch.softmax(scores, dim=1)


def moe_distributed(x):
    chosen, weights = route(x)
    # Dispatch: one row per (token, choice), grouped by the PE of its expert.
    flat_expert = chosen.reshape(-1)
    order = torch.argsort(flat_expert // EXPERTS_PER_PE, stable=True)
    send_rows = x.repeat_interleave(TOP_K, dim=0)[order]
    send_expert = flat_expert[order]
    send_counts = torch.bincount(flat_expert // EXPERTS_PER_PE, minlength=n)
    recv_counts = torch.empty_like(send_counts)
    dist.all_to_all_single(recv_counts, send_counts)  # how many rows each PE sends me
    splits_out, splits_in = recv_counts.tolist(), send_counts.tolist()
    recv_rows = torch.empty(sum(splits_out), DIM)
    recv_expert = torch.empty(sum(splits_out), dtype=torch.int64)
    dist.all_to_all_single(recv_rows, send_rows, splits_out, splits_in)
    dist.all_to_all_single(recv_expert, send_expert, splits_out, splits_in)
    # My experts, each on the rows that chose it.
    out_rows = torch.empty_like(recv_rows)
    for e in range(me * EXPERTS_PER_PE, (me + 1) * EXPERTS_PER_PE):
        mask = recv_expert == e
        out_rows[mask] = expert(e, recv_rows[mask])
    # Combine: the outputs go back the way they came, then into the tokens' order.
    back = torch.empty_like(send_rows)
    dist.all_to_all_single(back, out_rows, splits_in, splits_out)
    unsorted = torch.empty_like(back)
    unsorted[order] = back
    return (unsorted.view(TOKENS, TOP_K, DIM) * weights.unsqueeze(-1)).sum(1)


def moe_alone(x):
    chosen, weights = route(x)
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        for k in range(TOP_K):
            out[t] += weights[t, k] * expert(int(chosen[t, k]), x[t:t + 1])[0]
    return out


got = moe_distributed(tokens_of(me))
# Every PE checks every PE's results (gathered) against one process.
everyone = [torch.empty_like(got) for _ in range(n)]
dist.all_gather(everyone, got)
worst = torch.zeros(1)
for pe in range(n):
    worst = torch.maximum(worst, (everyone[pe] - moe_alone(tokens_of(pe))).abs().max().reshape(1))
assert worst.item() < 1e-5, f"PE {me}: MoE dispatch/combine differs from one process by {worst.item()}"
load = torch.bincount(route(tokens_of(me))[0].reshape(-1) // EXPERTS_PER_PE, minlength=n)
dist.all_reduce(load)
dist.barrier()
if me == 0:
    print(f"MoE on {n} PEs ({EXPERTS} experts, top-{TOP_K}; rows per PE {load.tolist()}) matches one process "
          f"(largest difference {worst.item():.1e}): VERIFIED")
dist.destroy_process_group()
