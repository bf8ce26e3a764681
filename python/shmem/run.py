"""Start PEs running a Python program: ``python3 -m shmem.run -n 4 script.py [args]``.

The same as ``oshrun -n 4 <this python> script.py [args]``: options before the program go to
oshrun (``-n N``, ``-np N``, ``--tag-output``, ...); the program is a script, ``-m module`` or
``-c code``, run by this interpreter (``sys.executable``). oshrun is found next to the
installed library (<prefix>/bin), in the build tree, through SHMEM_PY_OSHRUN, or on PATH.
"""
import os
import shutil
import sys
from pathlib import Path

_VALUE_OPTIONS = {"-n", "-np", "--np"}

USAGE = """usage: python3 -m shmem.run -n N [oshrun options] script.py [args...]
       python3 -m shmem.run -n N [oshrun options] -m module [args...]
       python3 -m shmem.run -n N [oshrun options] -c code [args...]"""


def find_oshrun():
    """The oshrun launcher to use, or None."""
    env = os.environ.get("SHMEM_PY_OSHRUN")
    if env:
        return env
    pkg = Path(__file__).resolve().parent
    candidates = [
        pkg.parent.parent / "bin" / "oshrun",  # build tree: <build>/python/shmem
    ]
    if len(pkg.parents) > 3:
        candidates.append(pkg.parents[3] / "bin" / "oshrun")  # <prefix>/lib/python3/dist-packages/shmem
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return shutil.which("oshrun")


def split_args(args):
    """Split argv into (oshrun options, python command line)."""
    opts = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in _VALUE_OPTIONS:
            if i + 1 >= len(args):
                raise SystemExit(f"shmem.run: {a} needs a value\n{USAGE}")
            opts += [a, args[i + 1]]
            i += 2
        elif a == "--":
            i += 1
            break
        elif a.startswith("--") or (a.startswith("-n") and a[2:].isdigit()):
            opts.append(a)
            i += 1
        else:
            break
    return opts, args[i:]


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        print(__doc__)
        return 0 if args else 2
    opts, program = split_args(args)
    if any(o in ("-h", "--help", "-V", "--version") for o in opts):
        program = []
    oshrun = find_oshrun()
    if oshrun is None:
        print("shmem.run: cannot find oshrun (set SHMEM_PY_OSHRUN or put it on PATH)", file=sys.stderr)
        return 127
    if not program and not any(o in ("-h", "--help", "-V", "--version") for o in opts):
        print(f"shmem.run: no program given\n{USAGE}", file=sys.stderr)
        return 2
    # The PEs import this very package, whatever sys.path trick found it here.
    pkg_parent = str(Path(__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH", "")
    if pkg_parent not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = pkg_parent + (os.pathsep + path if path else "")
    cmd = [oshrun] + opts + (["--", sys.executable] + program if program else [])
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(oshrun, cmd)
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main())
