"""1-D heat equation with halo exchange: each PE owns a slice of the rod plus one ghost cell on
each side, which its neighbours fill with put before every step. Checked against a serial
numpy run of the same steps.

    python3 -m shmem.run -n 4 examples/python/stencil.py
"""
import numpy as np

import shmem

N_LOCAL, STEPS, ALPHA = 50, 200, 0.25
me, npes = shmem.my_pe(), shmem.n_pes()
n = N_LOCAL * npes
initial = np.sin(np.linspace(0, 3 * np.pi, n)) ** 2  # the whole rod; both ends held at 0

u = shmem.zeros(N_LOCAL + 2)                 # [left ghost | my cells | right ghost]
u[1:-1] = initial[me * N_LOCAL:(me + 1) * N_LOCAL]
shmem.barrier_all()

for _ in range(STEPS):
    if me > 0:
        shmem.put(u[-1:], u[1:2], me - 1)    # my first cell -> left neighbour's right ghost
    if me < npes - 1:
        shmem.put(u[:1], u[-2:-1], me + 1)   # my last cell -> right neighbour's left ghost
    shmem.barrier_all()                      # ghosts are in
    u[1:-1] += ALPHA * (u[:-2] - 2 * u[1:-1] + u[2:])
    shmem.barrier_all()                      # nobody still reads a ghost that is about to change

# The same steps in one process.
ref = np.concatenate([[0.0], initial, [0.0]])
for _ in range(STEPS):
    ref[1:-1] += ALPHA * (ref[:-2] - 2 * ref[1:-1] + ref[2:])

rod = shmem.zeros(n)
shmem.fcollect(rod, u[1:-1])                 # gather every slice on every PE
err = float(np.abs(rod - ref[1:-1]).max())
if me == 0:
    print(f"stencil: {n} cells on {npes} PEs, {STEPS} steps, max error {err:.2e}:",
          "VERIFIED" if err < 1e-12 else "FAILED")
shmem.free(u)
shmem.free(rod)
