"""Start PEs running a Python program: ``python3 -m shmem.run -n 4 script.py [args]``.

The same as ``oshrun -n 4 <this python> script.py [args]``: options before the program go to
oshrun; the program is a script, ``-m module`` or ``-c code``, run by this interpreter
(``sys.executable``). oshrun is found next to the installed library (<prefix>/bin), in the
build tree, through SHMEM_PY_OSHRUN, or on PATH.

oshrun options:
  -n N, -np N, --np N   number of PEs (required without a host list)
  --hosts H1[:n1],H2[:n2],...
                        run PEs on these hosts, each up to its slots (a host without :n
                        has one), in the order listed; also --host, -H
  --hostfile FILE       the hosts, one host[:slots] a line ('#' starts a comment)
  --rsh AGENT           how PEs on other hosts are started, called as ssh is
                        (default: SHMEM_RSH, else ssh)
  -x NAME[=VALUE]       set NAME for every PE (NAME alone: this environment's value)
  --tag-output          prefix every output line with "[PE n] "

Across hosts, oshrun starts one agent per host, AGENT HOST '<oshrun>' --host-agent ...
'<this python>' program... (--fanout K: at most K directly, the rest through them): oshrun, this interpreter, this package and the program must
have the same paths on every host (a shared filesystem), and the PEs run in this working
directory. The PEs get this environment (with a PYTHONPATH that finds this package) on
every host. oshrun checks the host list and names a bad entry (exit status 2); see
docs/launchers.md, "Several hosts", and docs/python.md.
"""
import os
import shutil
import sys
from pathlib import Path

# oshrun's options that take the next word as their value (tools/oshrun/args.cpp). Every other
# word starting with "--" is an oshrun option too (--tag-output, --hosts=LIST, ...); the first
# other word starts the Python command line (script.py, -m module, -c code, -u, ...).
_VALUE_OPTIONS = {"-n", "-np", "--np", "--n", "--hosts", "--host", "-H", "--hostfile", "--rsh", "--fanout", "-x"}

USAGE = """usage: python3 -m shmem.run -n N [oshrun options] script.py [args...]
       python3 -m shmem.run [-n N] --hosts H1[:n1],H2[:n2],... [oshrun options] script.py [args...]
       python3 -m shmem.run [-n N] --hostfile FILE [oshrun options] -m module [args...]
       python3 -m shmem.run -n N [oshrun options] -c code [args...]"""


def find_oshrun():
    """The oshrun launcher to use, or None."""
    env = os.environ.get("SHMEM_PY_OSHRUN")
    if env:
        return env
    pkg = Path(__file__).resolve().parent
    candidates = [
        pkg / "bin" / "oshrun",  # the pip package (setup.py)
        pkg.parent.parent / "bin" / "oshrun",  # build tree: <build>/python/shmem
    ]
    if len(pkg.parents) > 3:
        candidates.append(pkg.parents[3] / "bin" / "oshrun")  # <prefix>/lib/python3/dist-packages/shmem
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    return shutil.which("oshrun")


def _is_option(a):
    """True for an oshrun option written as one word: --anything, -n4, -n=4, -np=4."""
    if a.startswith("--"):
        return True
    if a.startswith("-n") and a[2:].isdigit():
        return True
    return a.startswith(("-n=", "-np="))


class UsageError(ValueError):
    """Bad command line; main() prints it and exits 2, as oshrun does."""


def split_args(args):
    """Split argv into (oshrun options, python command line)."""
    opts = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in _VALUE_OPTIONS:
            if i + 1 >= len(args):
                raise UsageError(f"option {a} needs a value")
            opts += [a, args[i + 1]]
            i += 2
        elif a == "--":
            i += 1
            break
        elif _is_option(a):
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
    try:
        opts, program = split_args(args)
    except UsageError as e:
        print(f"shmem.run: {e}\n{USAGE}", file=sys.stderr)
        return 2
    asks_info = any(o in ("-h", "--help", "-V", "--version") for o in opts)
    if asks_info:
        program = []
    oshrun = find_oshrun()
    if oshrun is None:
        print("shmem.run: cannot find oshrun (set SHMEM_PY_OSHRUN or put it on PATH)", file=sys.stderr)
        return 127
    if not program and not asks_info:
        print(f"shmem.run: no program given\n{USAGE}", file=sys.stderr)
        return 2
    # The PEs import this very package, whatever sys.path trick found it here; oshrun passes the
    # environment on to PEs on other hosts too.
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
