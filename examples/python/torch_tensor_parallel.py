"""Tensor-parallel MLP through the torch.distributed backend "shmem", as Megatron-LM splits it:
the first weight is split by columns (each PE computes its slice of the hidden layer, no
communication), the second by rows (each PE's partial product covers its hidden slice), and one
all_reduce sums the partial products into the output. Also the column-parallel layer alone,
its slices joined by all_gather. Checked against the full matmuls in one process; prints
VERIFIED on PE 0.

    python3 -m shmem.run -n 4 examples/python/torch_tensor_parallel.py
    python3 -m torch.distributed.run --redirects 1 --tee 1 --nproc_per_node=4 examples/python/torch_tensor_parallel.py
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

BATCH, DIM, HIDDEN = 32, 64, 48 * n  # HIDDEN splits evenly over the PEs

# The full weights and input, the same on every PE (a real model would hold only its slices).
g = torch.Generator().manual_seed(0)
x = torch.randn(BATCH, DIM, generator=g)
a = torch.randn(DIM, HIDDEN, generator=g) / DIM**0.5
b = torch.randn(HIDDEN, DIM, generator=g) / HIDDEN**0.5
cols = slice(me * HIDDEN // n, (me + 1) * HIDDEN // n)
a_mine = a[:, cols].contiguous()  # column-parallel: my columns of A
b_mine = b[cols, :].contiguous()  # row-parallel: the matching rows of B

# Column-parallel layer alone: my slice of X A, the slices gathered along the columns.
h_mine = x @ a_mine
slices = [torch.empty_like(h_mine) for _ in range(n)]
dist.all_gather(slices, h_mine)
h = torch.cat(slices, dim=1)

# The MLP: GeLU is elementwise, so it applies to my slice; the row-parallel product is partial.
y = torch.nn.functional.gelu(h_mine) @ b_mine
dist.all_reduce(y)  # sum of the partial products over the PEs

h_full = x @ a
y_full = torch.nn.functional.gelu(h_full) @ b
worst_h = (h - h_full).abs().max().item()
worst_y = (y - y_full).abs().max().item()
assert worst_h < 1e-5, f"PE {me}: the column-parallel layer differs from X A by {worst_h}"
assert worst_y < 1e-4, f"PE {me}: the tensor-parallel MLP differs from the full matmuls by {worst_y}"
dist.barrier()
if me == 0:
    print(f"tensor-parallel MLP on {n} PEs ({DIM}x{HIDDEN} by columns, {HIDDEN}x{DIM} by rows, all_reduce) "
          f"matches the full matmuls (largest differences {worst_h:.1e}, {worst_y:.1e}): VERIFIED")
dist.destroy_process_group()
