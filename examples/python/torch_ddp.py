"""Data-parallel training through the torch.distributed backend "shmem": every PE trains a
replica of a small model on its shard of each batch, DistributedDataParallel averages the
gradients (all_reduce through shmem's collectives), and the result is checked against one
process training on the whole batch. Prints VERIFIED on PE 0.

    python3 -m shmem.run -n 4 examples/python/torch_ddp.py
    python3 -m torch.distributed.run --redirects 1 --tee 1 --nproc_per_node=4 examples/python/torch_ddp.py
"""
import os

import torch
import torch.distributed as dist
import torch.nn as nn

import shmem
import shmem.torch

if "MASTER_ADDR" in os.environ:  # torchrun: the process group meets through torch's store
    dist.init_process_group("shmem")
else:  # shmem.run / oshrun: a store on a port rank 0's kernel picks, found through shmem
    dist.init_process_group("shmem", store=shmem.torch.tcp_store(), rank=shmem.my_pe(), world_size=shmem.n_pes())
me, n = dist.get_rank(), dist.get_world_size()


def model():
    torch.manual_seed(0)  # the same initial weights everywhere
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))


torch.manual_seed(1)
batches = [(torch.randn(8 * n, 8), torch.randn(8 * n, 1)) for _ in range(5)]
ddp = nn.parallel.DistributedDataParallel(model())
alone = model()
opt_ddp = torch.optim.SGD(ddp.parameters(), lr=0.1)
opt_alone = torch.optim.SGD(alone.parameters(), lr=0.1)
for x, y in batches:
    shard = slice(8 * me, 8 * (me + 1))
    opt_ddp.zero_grad()
    nn.functional.mse_loss(ddp(x[shard]), y[shard]).backward()  # gradients averaged over the PEs
    opt_ddp.step()
    opt_alone.zero_grad()
    nn.functional.mse_loss(alone(x), y).backward()
    opt_alone.step()
worst = max((a - b).abs().max().item() for a, b in zip(ddp.module.parameters(), alone.parameters()))
assert worst < 1e-5, f"PE {me}: data-parallel training differs from one process by {worst}"
dist.barrier()
if me == 0:
    print(f"data-parallel training on {n} PEs matches one process (largest difference {worst:.1e}): VERIFIED")
dist.destroy_process_group()
