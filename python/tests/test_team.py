"""Teams (predefined, split_strided, split_2d, translate, config, sync, destroy) and contexts."""
import numpy as np
import pytest

import shmem
from conftest import all_ok


def test_predefined_teams(me, npes, same_host):
    w, s = shmem.TEAM_WORLD, shmem.TEAM_SHARED
    assert (w.my_pe(), w.n_pes()) == (me, npes)
    assert s.n_pes() == len(same_host) and me in same_host  # the PEs of this host (all, on one host)
    assert s.translate_pe() == me and w.translate_pe(same_host[-1], s) == len(same_host) - 1
    for pe in set(range(npes)) - set(same_host):  # a PE on another host is not in TEAM_SHARED
        with pytest.raises(shmem.ShmemError, match="not a member"):
            w.translate_pe(pe, s)
    assert "num_contexts" in w.get_config()
    assert bool(w) and not shmem.TEAM_INVALID
    assert w == shmem.Team(w) and w != s and len({w, shmem.Team(w), s}) == 2
    assert repr(w) == "<shmem.Team TEAM_WORLD>"
    w.sync()
    w.destroy()  # a no-op for predefined teams
    assert shmem.TEAM_WORLD.n_pes() == npes


def test_split_strided(me, npes):
    evens = shmem.TEAM_WORLD.split_strided(0, 2)
    member = me % 2 == 0
    r = [bool(evens) == member]
    if member:
        r += [evens.my_pe() == me // 2, evens.n_pes() == (npes + 1) // 2,
              evens.translate_pe(0) == 0, evens.translate_pe(evens.n_pes() - 1) == 2 * (evens.n_pes() - 1),
              shmem.TEAM_WORLD.translate_pe(me, evens) == me // 2]
        evens.sync()
    else:
        r.append(evens == shmem.TEAM_INVALID)
    if npes > 1:
        with pytest.raises(shmem.ShmemError, match="not a member"):
            shmem.TEAM_WORLD.translate_pe(1, evens)
    evens.destroy()
    r.append(evens == shmem.TEAM_INVALID)
    assert all_ok(all(r)), r


def test_split_with_config_and_context_manager(me, npes):
    with shmem.TEAM_WORLD.split_strided(0, 1, npes, num_contexts=2) as team:
        conf = team.get_config()
        same = team.n_pes() == npes and team.my_pe() == me
    with shmem.TEAM_WORLD.split_strided(config={"num_contexts": 1}) as team2:
        conf2 = team2.get_config()
    assert conf == {"num_contexts": 2} and conf2 == {"num_contexts": 1} and same
    with pytest.raises(ValueError, match="unknown team configuration field"):
        shmem.TEAM_WORLD.split_strided(0, 1, npes, colour=3)


def test_split_2d(me, npes):
    x, y = shmem.TEAM_WORLD.split_2d(2)
    r = [x.my_pe() == me % 2, x.n_pes() == min(2, npes - (me - me % 2)),
         y.my_pe() == me // 2, y.n_pes() == len(range(me % 2, npes, 2))]
    x.sync()
    y.sync()
    x.destroy()
    y.destroy()
    assert all_ok(all(r)), r


def test_team_collective_and_context(me, npes):
    evens = shmem.TEAM_WORLD.split_strided(0, 2)
    src = shmem.full(3, me, dtype="i8")
    dst = shmem.zeros(3, "i8")
    ok = True
    if evens:
        shmem.sum_reduce(dst, src, team=evens)
        ok = dst.tolist() == [sum(range(0, npes, 2))] * 3
        evens.sync()  # everyone has checked before dst is written again
        ctx = evens.create_ctx()
        ok = ok and ctx.get_team() == evens
        # PE numbers on a team context are team numbers.
        right_in_team = (evens.my_pe() + 1) % evens.n_pes()
        shmem.put(dst, np.full(3, 7, "i8"), right_in_team, ctx=ctx)
        ctx.quiet()
        evens.sync()
        ok = ok and (dst == 7).all()
        with pytest.raises(ValueError, match=f"pe={evens.n_pes()} is out of range"):
            shmem.put(dst, np.zeros(3, "i8"), evens.n_pes(), ctx=ctx)
        ctx.destroy()
    evens.destroy()
    shmem.barrier_all()
    shmem.free(src)
    shmem.free(dst)
    assert all_ok(ok)


def test_contexts():
    ctx = shmem.Ctx.create(shmem.CTX.PRIVATE | shmem.CTX.NOSTORE)
    r = [bool(ctx), ctx.get_team() == shmem.TEAM_WORLD, ctx != shmem.CTX_DEFAULT,
         shmem.CTX_DEFAULT.get_team() == shmem.TEAM_WORLD, not shmem.CTX_INVALID,
         repr(shmem.CTX_DEFAULT) == "<shmem.Ctx CTX_DEFAULT>"]
    ctx.destroy()
    ctx.destroy()  # no-op
    r.append(ctx == shmem.CTX_INVALID)
    shmem.CTX_DEFAULT.destroy()  # no-op
    with shmem.TEAM_WORLD.create_ctx() as c2:
        r.append(c2.get_team() == shmem.TEAM_WORLD)
    assert all(r), r


def test_destroyed_handles_are_refused(npes):
    """A copy of a destroyed team or context is refused instead of reaching freed library memory."""
    team = shmem.TEAM_WORLD.split_strided(0, 1, npes)
    copy = shmem.Team(team)
    team.destroy()
    for call in (copy.n_pes, copy.sync, copy.destroy, lambda: shmem.sync(copy), lambda: copy.split_strided()):
        with pytest.raises(ValueError, match="was destroyed"):
            call()
    ctx = shmem.Ctx.create()
    ctx_copy = shmem.Ctx(ctx)
    ctx.destroy()
    for call in (ctx_copy.quiet, ctx_copy.get_team, lambda: shmem.fence(ctx_copy)):
        with pytest.raises(ValueError, match="was destroyed"):
            call()


def test_library_errors_become_exceptions(npes):
    """A nonzero return code of the C library arrives as ShmemError carrying it (on every PE)."""
    with pytest.raises(shmem.ShmemError, match="shmem_team_split_strided failed") as info:
        shmem.TEAM_WORLD.split_strided(0, 1, npes + 1)
    assert info.value.code != 0


def test_mismatched_splits_are_refused(me, npes):
    """Members of the parent that pass different arguments to a split get an error at once, on
    every PE (not teams that differ, whose first collective waits until SHMEM_WAIT_TIMEOUT)."""
    if npes < 2:
        pytest.skip("needs 2 PEs")
    with pytest.raises(shmem.ShmemError, match="shmem_team_split_strided failed"):
        shmem.TEAM_WORLD.split_strided(0, 1, npes) if me == 0 else shmem.TEAM_WORLD.split_strided(1, 1, npes - 1)
    with pytest.raises(shmem.ShmemError, match="shmem_team_split_2d failed"):
        shmem.TEAM_WORLD.split_2d(1 if me == npes - 1 else 2)
    team = shmem.TEAM_WORLD.split_strided(0, 1, npes)  # agreeing splits still work afterwards
    assert team.n_pes() == npes
    team.sync()
    team.destroy()


def test_team_errors():
    with pytest.raises(shmem.ShmemError, match="not a member"):
        shmem.TEAM_INVALID.my_pe()
    with pytest.raises(shmem.ShmemError, match="invalid"):
        shmem.TEAM_INVALID.n_pes()
    with pytest.raises(ValueError, match="TEAM_INVALID"):
        shmem.TEAM_INVALID.sync()
    with pytest.raises(TypeError, match="team must be a Team"):
        shmem.sum_reduce(np.zeros(1), np.zeros(1), team="world")
    with pytest.raises(TypeError, match="team must be a Team"):
        shmem.Team(1.5)
    with pytest.raises(TypeError, match="team must be a Team"):
        shmem.TEAM_WORLD.translate_pe(0, "world")
    with pytest.raises(ValueError, match="xrange=0 must be positive"):
        shmem.TEAM_WORLD.split_2d(0)
