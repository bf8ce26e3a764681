"""shmem4py behaviours programs rely on (issue 12): ported from shmem4py's own rules
(mpi4py/shmem4py, src/shmem4py/shmem.py) so that its programs run unchanged but for the import.

  - destroy() on a copy of a predefined Ctx/Team invalidates the copy only (identity rule);
  - Ctx(x) / Team(x) take a Ctx/Team or None only: raw integers are a TypeError;
  - a second free is a KeyError; ptr() of non-symmetric memory is None;
  - size/dtype mismatches are AssertionErrors too, unknown op names AttributeErrors;
  - shmem.rc (initialize, threads, thread_level, finalize) is read at the first use;
  - an interpreter without numpy is told which interpreter this build is for.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import shmem
from conftest import job_env, only_singleton, run_job


def test_destroying_an_alias_of_a_predefined_context(right):
    alias = shmem.Ctx(shmem.CTX_DEFAULT)
    assert alias and alias == shmem.CTX_DEFAULT
    alias.destroy()
    assert not alias and alias == shmem.CTX_INVALID
    assert shmem.CTX_DEFAULT and shmem.CTX_DEFAULT.handle == shmem._core.CTX_DEFAULT
    shmem.CTX_DEFAULT.destroy()  # the predefined object itself: a no-op
    shmem.CTX_INVALID.destroy()
    assert shmem.CTX_DEFAULT and not shmem.CTX_INVALID
    alias.destroy()  # destroying the now-invalid copy again does nothing
    dst = shmem.zeros(1, dtype="i8")
    shmem.put(dst, np.array([7], dtype="i8"), right, ctx=shmem.CTX_DEFAULT)
    shmem.barrier_all()
    assert dst[0] == 7
    shmem.free(dst)


def test_destroying_an_alias_of_a_predefined_team(npes):
    for predefined in (shmem.TEAM_WORLD, shmem.TEAM_SHARED):
        size = predefined.n_pes()  # TEAM_SHARED: the PEs on this host
        alias = shmem.Team(predefined)
        assert alias == predefined
        alias.destroy()
        assert not alias and alias == shmem.TEAM_INVALID
        assert predefined and predefined.n_pes() == size
    shmem.TEAM_WORLD.destroy()
    assert shmem.TEAM_WORLD.n_pes() == npes
    got = shmem.CTX_DEFAULT.get_team()  # a new object equal to TEAM_WORLD, not TEAM_WORLD itself
    got.destroy()
    assert not got and shmem.TEAM_WORLD.n_pes() == npes


@pytest.mark.parametrize("bad", [0, 1, 2, -1, 1.5, "world", object()])
def test_ctx_and_team_take_objects_not_handles(bad):
    with pytest.raises(TypeError, match="ctx must be a Ctx or None"):
        shmem.Ctx(bad)
    with pytest.raises(TypeError, match="team must be a Team or None"):
        shmem.Team(bad)
    assert not shmem.Ctx(None) and not shmem.Team(None)
    assert shmem.Ctx(shmem.CTX_DEFAULT) == shmem.CTX_DEFAULT


def test_double_free_is_a_key_error():
    a = shmem.zeros(3)
    shmem.free(a)
    with pytest.raises(KeyError):
        shmem.free(a)
    with pytest.raises(shmem.ShmemError, match="double free"):  # ours, with the reason
        shmem.del_array(a)
    m = shmem.alloc(16)
    shmem.free(m)
    with pytest.raises(KeyError):
        shmem.free(m)


def test_ptr_of_non_symmetric_memory_is_none(me):
    assert shmem.ptr(np.zeros(4), me) is None
    a = shmem.zeros(4, dtype="i4")
    view = shmem.ptr(a, me)
    assert view is not None and view.shape == a.shape
    shmem.free(a)


def test_mismatches_are_catchable_as_shmem4py_raises_them(right):
    a = shmem.zeros(4, dtype="i8")
    with pytest.raises(AssertionError):  # dtype mismatch
        shmem.put(a, np.zeros(4, dtype="f4"), right)
    with pytest.raises(AssertionError):  # an explicit size beyond target (shmem4py: assert size <= tsize)
        shmem.put(a, np.zeros(8, dtype="i8"), right, size=8)
    with pytest.raises(AssertionError):  # an AMO on more than one element
        shmem.atomic_add(a, 1, right)
    with pytest.raises(AttributeError):  # unknown operation names
        shmem.atomic_op(a[:1], "bogus", 1, right)
    with pytest.raises(AttributeError):
        shmem.reduce(a, a, op="bogus")
    shmem.barrier_all()
    shmem.free(a)


def _script(tmp_path, body):
    path = tmp_path / "rc_job.py"
    path.write_text(textwrap.dedent(body))
    return str(path)


@only_singleton
def test_rc_threads_and_level(tmp_path):
    path = _script(tmp_path, """
        import shmem
        shmem.rc.threads = True
        shmem.rc.thread_level = "serialized"
        print("level", int(shmem.query_thread()), "initialized", shmem.initialized())
    """)
    out = run_job([path])
    assert out.returncode == 0, out.stderr
    assert f"level {int(shmem.THREAD_SERIALIZED)} initialized True" in out.stdout
    # The environment is read at the first use too, after the script set rc: it wins.
    out = run_job([path], SHMEM4PY_RC_THREAD_LEVEL="funneled")
    assert out.returncode == 0, out.stderr
    assert f"level {int(shmem.THREAD_FUNNELED)}" in out.stdout
    out = run_job(["-c", "import shmem; print('level', int(shmem.query_thread()))"],
                  SHMEM4PY_RC_THREADS="yes", SHMEM4PY_RC_THREAD_LEVEL="multiple")
    assert out.returncode == 0 and f"level {int(shmem.THREAD_MULTIPLE)}" in out.stdout, out.stderr
    out = run_job(["-c", "import shmem; print('level', int(shmem.query_thread()))"], SHMEM4PY_RC_THREADS="maybe")
    assert out.returncode != 0 and "SHMEM4PY_RC_THREADS='maybe'" in out.stderr


@only_singleton
def test_rc_initialize_false_needs_an_explicit_init(tmp_path):
    path = _script(tmp_path, """
        import shmem
        shmem.rc.initialize = False
        try:
            shmem.my_pe()
        except shmem.ShmemError as e:
            print("refused:", e)
        shmem.init()
        print("after init", shmem.my_pe(), shmem.n_pes())
    """)
    out = run_job([path])
    assert out.returncode == 0, out.stderr
    assert "refused:" in out.stdout and "rc.initialize is False" in out.stdout
    assert "after init 0 1" in out.stdout


@only_singleton
def test_rc_finalize_false_leaves_finalize_to_the_program(tmp_path):
    body = """
        import atexit
        atexit.register(lambda: print("at exit initialized:", shmem.initialized(), flush=True))
        import shmem  # registers its own exit handler after ours: it runs first
        {setting}
        shmem.my_pe()
    """
    out = run_job([_script(tmp_path, body.format(setting="shmem.rc.finalize = False"))])
    assert out.returncode == 0 and "at exit initialized: True" in out.stdout, out.stdout + out.stderr
    out = run_job([_script(tmp_path, body.format(setting="pass"))])
    assert out.returncode == 0 and "at exit initialized: False" in out.stdout, out.stdout + out.stderr


def test_rc_values_are_checked():
    with pytest.raises(TypeError):
        shmem.rc.threads = "yes"
    with pytest.raises(ValueError):
        shmem.rc.thread_level = "bogus"
    with pytest.raises(TypeError):  # as shmem4py's rc: a misspelt option is an error
        shmem.rc.unknown = 1
    assert shmem.rc.initialize is True and shmem.rc.thread_level in ("single", "funneled", "serialized", "multiple")


def test_rc_is_callable_like_shmem4py():
    """shmem4py's rc(**kwargs) sets several options at once; an unknown keyword raises
    TypeError and sets none of them."""
    before = (shmem.rc.threads, shmem.rc.thread_level, shmem.rc.finalize)
    try:
        shmem.rc(threads=True, thread_level="funneled", finalize=False)
        assert (shmem.rc.threads, shmem.rc.thread_level, shmem.rc.finalize) == (True, "funneled", False)
        with pytest.raises(TypeError, match="unexpected keyword argument 'thread'"):
            shmem.rc(threads=False, thread="single")
        assert shmem.rc.threads is True  # nothing was set
        with pytest.raises(TypeError):
            shmem.rc(threads="yes")  # values are checked as for attributes
        shmem.rc()  # no options: nothing to do
    finally:
        shmem.rc(threads=before[0], thread_level=before[1], finalize=before[2])


@only_singleton
def test_interpreter_without_numpy_is_told_which_to_use(tmp_path):
    from shmem._build import PYTHON
    venv = tmp_path / "venv"
    made = subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"cannot make a venv to stand for a python3 without numpy: {made.stderr.strip()}")
    other = str(venv / "bin" / "python")
    assert subprocess.run([other, "-c", "import numpy"], capture_output=True).returncode != 0
    job = tmp_path / "job.py"
    job.write_text("import shmem\n")
    out = subprocess.run([other, "-m", "shmem.run", "-n", "1", str(job)], env=job_env(), capture_output=True,
                         text=True, timeout=60)
    assert out.returncode != 0
    assert f"shmem was built for {PYTHON}" in out.stderr and f"{PYTHON} -m shmem.run" in out.stderr, out.stderr
