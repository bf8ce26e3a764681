"""Distributed histogram: the bins are spread over the PEs (bin b lives on PE b % npes), and
every PE adds its counts into them with remote atomic adds. Checked against numpy.

    python3 -m shmem.run -n 4 examples/python/histogram.py
"""
import numpy as np

import shmem

NBINS, SAMPLES = 64, 100_000
me, npes = shmem.my_pe(), shmem.n_pes()


def samples_of(pe):
    """PE pe's data: reproducible, so any PE can recompute everyone's for the check."""
    return np.random.default_rng(pe).normal(NBINS / 2, NBINS / 6, SAMPLES).astype(int).clip(0, NBINS - 1)


# My share of the bins: bins me, me + npes, me + 2*npes, ...
mine = shmem.zeros(len(range(me, NBINS, npes)), dtype=np.int64)

counts = np.bincount(samples_of(me), minlength=NBINS)  # count locally first ...
for b in np.flatnonzero(counts):                       # ... then one atomic add per bin
    owner, slot = b % npes, b // npes
    shmem.atomic_add(mine[slot:slot + 1], int(counts[b]), owner)
shmem.barrier_all()  # every add has landed

expected = np.bincount(np.concatenate([samples_of(pe) for pe in range(npes)]), minlength=NBINS)
ok = np.array_equal(mine, expected[me::npes])

passed = shmem.array([int(ok)])
total = shmem.zeros(1, dtype=passed.dtype)
shmem.sum_reduce(total, passed)
if me == 0:
    print(f"histogram: {npes * SAMPLES} samples into {NBINS} bins on {npes} PEs:",
          "VERIFIED" if total[0] == npes else "FAILED")
for a in (mine, passed, total):
    shmem.free(a)
