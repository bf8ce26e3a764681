"""Ring: every PE passes a token to its right neighbour until each token has gone all the way
round. Each hop is one put_signal: the data and a "it has arrived" flag in one call.

    python3 -m shmem.run -n 4 examples/python/ring.py
"""
import numpy as np

import shmem

me, npes = shmem.my_pe(), shmem.n_pes()
right = (me + 1) % npes

inbox = shmem.zeros(npes, dtype=np.int64)  # symmetric: every PE has one; slot k = lap k's token
arrived = shmem.new_signal()                # counts the tokens that reached this PE

token = np.array([me], dtype=np.int64)      # ordinary (local) memory is fine as a source
for lap in range(npes):
    shmem.put_signal(inbox[lap:lap + 1], token, right, arrived, 1, shmem.SIGNAL.ADD)
    shmem.signal_wait_until(arrived, shmem.CMP.GE, lap + 1)  # wait for the left neighbour's token
    token = inbox[lap:lap + 1].copy()                         # and pass it on

# Lap k brought the token of the PE k+1 places to the left; after npes laps it is my own again.
ok = np.array_equal(inbox, (me - np.arange(1, npes + 1)) % npes) and token[0] == me

# Every PE checks its own part; a sum reduction tells PE 0 how many passed.
passed = shmem.array([int(ok)])
total = shmem.zeros(1, dtype=passed.dtype)
shmem.sum_reduce(total, passed)
if me == 0:
    print(f"ring: {npes} PEs, {npes} laps:", "VERIFIED" if total[0] == npes else "FAILED")
for a in (inbox, arrived, passed, total):
    shmem.free(a)
